#!/usr/bin/env bash
# Configures (once) and builds duplex into build/. The tests are configured only when their
# packages are there (scripts/install-deps.sh --with-tests), so the demo builds on a machine
# that has only the build packages.
set -euo pipefail
cd "$(dirname "$0")/.."
want_tests=false
[ -f /usr/share/java/asm.jar ] && want_tests=true
if [ ! -f build/build.ninja ]; then
  rm -rf build
  meson setup build --buildtype=release -Dtests=$want_tests >/dev/null
elif [ "$want_tests" = true ] && ! grep -q "unit_tests" build/build.ninja; then
  meson configure build -Dtests=true >/dev/null
fi
ninja -C build >/dev/null
