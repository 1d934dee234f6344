#!/bin/sh
# Runs the fixtures of a class directory (or jar) and prints deterministic output.
#
#   tests/scripts/run_fixtures.sh [--java JAVA] [--harness DIR] CLASSDIR [fixtures.Class ...]
#
# See RunFixtures.java for the output format; exit status 1 if any fixture threw.
set -eu
. "$(dirname "$0")/java_env.sh"
parse_java_env "$@"
shift "$parsed"
# shellcheck disable=SC2086
exec "$java" $verify_flags -cp "$harness" duplex.test.RunFixtures "$@"
