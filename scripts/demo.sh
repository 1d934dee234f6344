#!/usr/bin/env bash
# The README's demo command: installs what is missing, builds, and runs duplex on the bundled
# example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
examples/run-demo.sh
