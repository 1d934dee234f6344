#!/bin/sh
# Builds the libFuzzer targets without meson: clang++ with libFuzzer, ASan and UBSan, the
# class-file and rewriter sources compiled in (instrumented), archive.cpp and class_index_io.cpp
# left out (no libzip needed); nettle (SHA-1, classfile/serial_version.cpp) linked as is.
#
#   fuzz/build.sh [OUTDIR]     (default: build-fuzz; OUTDIR/fuzz_classfile, OUTDIR/fuzz_rewriter)
#
# CXX (default clang++) and JOBS (default 1) may be set; CODE_MUTATOR=1 links the
# structure-aware mutator (code_mutator.cpp) into both targets.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-fuzz}
cxx=${CXX:-clang++}
jobs=${JOBS:-1}
mkdir -p "$out/obj"

flags="-std=c++20 -O1 -g -fno-omit-frame-pointer -I$root"
flags="$flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"

# The .cpp files a layer's meson.build lists, one per line as 'name.cpp'.
sources_of() {
  sed -n "s/^ *'\([a-z_0-9]*\.cpp\)',*$/\1/p" "$root/$1/meson.build"
}

# Compile (JOBS at a time), then link.
: > "$out/obj/list"
classfile_objs="" rewriter_objs=""
for s in $(sources_of classfile | grep -v -e '^archive\.cpp$' -e '^class_index_io\.cpp$'); do
  classfile_objs="$classfile_objs $out/obj/${s%.cpp}.o"
  echo "$root/classfile/$s $out/obj/${s%.cpp}.o" >> "$out/obj/list"
done
for s in $(sources_of rewriter); do
  rewriter_objs="$rewriter_objs $out/obj/rewriter_${s%.cpp}.o"
  echo "$root/rewriter/$s $out/obj/rewriter_${s%.cpp}.o" >> "$out/obj/list"
done
for t in fuzz_classfile fuzz_rewriter code_mutator; do
  echo "$root/fuzz/$t.cpp $out/obj/$t.o" >> "$out/obj/list"
done
# shellcheck disable=SC2086
xargs -P "$jobs" -L 1 sh -c "$cxx $flags -c \"\$0\" -o \"\$1\"" < "$out/obj/list"
mutator=""
[ "${CODE_MUTATOR:-0}" = 1 ] && mutator="$out/obj/code_mutator.o"
# shellcheck disable=SC2086
$cxx $flags -o "$out/fuzz_classfile" $classfile_objs $mutator "$out/obj/fuzz_classfile.o" -lnettle
# shellcheck disable=SC2086
$cxx $flags -o "$out/fuzz_rewriter" $rewriter_objs $classfile_objs $mutator \
  "$out/obj/fuzz_rewriter.o" -lnettle
echo "built $out/fuzz_classfile and $out/fuzz_rewriter"
