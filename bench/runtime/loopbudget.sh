#!/bin/sh
# What a back-edge check costs in tight loops that call nothing, by check form: the plain loop,
# `--check call` (the shared counter decremented at every back edge) and `--check local` (a loop
# budget in a local; docs/design/hotspot-costs.md, section 7). Checks-only rewriting, sampling
# off (interval 0). Interleaves the variants ROUNDS times (default 5) and prints each variant's
# median against `plain`.
#
#   bench/runtime/loopbudget.sh [ROUNDS]    (after `ninja -C build`)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${DUPLEX_BUILD:-$here/../../build}
rounds=${1:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -d "$out/plain" "$here/loopbudget/LoopSum.java"
for form in call local; do
  "$build/tools/duplex" instrument "$out/plain" -o "$out/$form" --mode checks --check "$form" --quiet
done
runtime="$build/runtime/duplex-runtime.jar"
for r in $(seq "$rounds"); do
  for v in plain call local; do
    java -Xbootclasspath/a:"$runtime" -Dduplex.interval=0 -Dduplex.out="$out/profile.xml" -cp "$out/$v" LoopSum |
      awk -v v="$v" '{print v, $1}' >>"$out/times"
  done
done
awk -v order="plain call local" -f "$here/medians.awk" "$out/times"
