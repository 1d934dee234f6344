#!/bin/sh
# `meson install` into a temporary root, then builds the example tool against the installed
# headers and libraries through pkg-config, as a user of the library would.
#   install_pkgconfig.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 src=$2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
DESTDIR="$root" meson install -C "$build" --no-rebuild --quiet >/dev/null
pc=$(dirname "$(find "$root" -name duplex.pc | head -n 1)")
[ -n "$pc" ] || { echo "FAIL: no duplex.pc installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc/duplex.pc")
# The .pc names the final prefix; point it at the temporary root.
export PKG_CONFIG_PATH="$pc"
flags=$(pkg-config --define-variable=prefix="$root$prefix" --cflags --libs duplex)
# shellcheck disable=SC2086
c++ -std=c++20 -o "$root/alloc-sites" "$src/examples/alloc_sites/alloc_sites.cpp" $flags
status=0
"$root/alloc-sites" 2>/dev/null || status=$?
[ "$status" -eq 2 ] || { echo "FAIL: the tool did not run (status $status)"; exit 1; }
echo "ok: built examples/alloc_sites against the installed library with pkg-config"
