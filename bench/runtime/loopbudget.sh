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
awk '{t[$1] = t[$1] " " $2} END {
  n = split("plain call local", order, " ")
  for (k = 1; k <= n; k++) {
    v = order[k]; c = split(t[v], xs, " ")
    for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (xs[b] < xs[a]) { s = xs[a]; xs[a] = xs[b]; xs[b] = s }
    med[v] = xs[int((c + 1) / 2)]
  }
  for (k = 1; k <= n; k++) printf "%-6s %8.3f ms  %.2fx\n", order[k], med[order[k]], med[order[k]] / med["plain"]
}' "$out/times"
