#!/usr/bin/env bash
# Configures (once) and builds duplex into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release >/dev/null
fi
ninja -C build >/dev/null
