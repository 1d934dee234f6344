#!/bin/sh
# Builds the libFuzzer target without meson: clang++ with libFuzzer, ASan and UBSan, the
# class-file sources compiled in (instrumented), archive.cpp left out (no libzip needed).
#
#   fuzz/build.sh [OUTDIR]        (default: build-fuzz; the binary is OUTDIR/fuzz_classfile)
#
# CXX (default clang++) and JOBS (default 1) may be set; CODE_MUTATOR=1 adds the
# structure-aware mutator (see fuzz_classfile.cpp) to the target.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-fuzz}
cxx=${CXX:-clang++}
jobs=${JOBS:-1}
mkdir -p "$out/obj"

flags="-std=c++20 -O1 -g -fno-omit-frame-pointer -I$root"
flags="$flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
[ "${CODE_MUTATOR:-0}" = 1 ] && flags="$flags -DDUPLEX_FUZZ_CODE_MUTATOR"
sources=$(sed -n "s/^ *'\([a-z_0-9]*\.cpp\)',*$/\1/p" "$root/classfile/meson.build" | grep -v '^archive\.cpp$')

# Compile (JOBS at a time), then link.
objs=""
for s in $sources; do
  objs="$objs $out/obj/${s%.cpp}.o"
  echo "$root/classfile/$s $out/obj/${s%.cpp}.o"
done > "$out/obj/list"
echo "$root/fuzz/fuzz_classfile.cpp $out/obj/fuzz_classfile.o" >> "$out/obj/list"
# shellcheck disable=SC2086
xargs -P "$jobs" -L 1 sh -c "$cxx $flags -c \"\$0\" -o \"\$1\"" < "$out/obj/list"
# shellcheck disable=SC2086
$cxx $flags -o "$out/fuzz_classfile" $objs "$out/obj/fuzz_classfile.o"
echo "built $out/fuzz_classfile"
