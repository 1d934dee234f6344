#!/bin/sh
# What a rarely taken path costs once C2 has compiled it in, by what it does when it joins the
# hot code again (see rarepath/RarePath.java). Interleaves the variants, ROUNDS times (default
# 3), and prints each variant's median against `plain`.
#
#   bench/runtime/rarepath.sh [ROUNDS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -d "$out" "$here/rarepath/RarePath.java"
for r in $(seq "$rounds"); do
  for v in plain tick store call; do
    java -cp "$out" RarePath "$v" | awk '{print $1, $2}' >>"$out/times"
  done
done
awk '{t[$1] = t[$1] " " $2} END {
  n = split("plain tick store call", order, " ")
  for (k = 1; k <= n; k++) {
    v = order[k]; c = split(t[v], xs, " ")
    for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (xs[b] < xs[a]) { s = xs[a]; xs[a] = xs[b]; xs[b] = s }
    med[v] = xs[int((c + 1) / 2)]
  }
  for (k = 1; k <= n; k++) printf "%-6s %8.3f ms  %.2fx\n", order[k], med[order[k]], med[order[k]] / med["plain"]
}' "$out/times"
