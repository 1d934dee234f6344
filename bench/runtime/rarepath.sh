#!/bin/sh
# What a rarely taken path costs once C2 has compiled it in, by what it does when it joins the
# hot code again (see rarepath/RarePath.java). Interleaves the variants, ROUNDS times (default
# 3), and prints each variant's median against `plain`.
#
#   bench/runtime/rarepath.sh [ROUNDS]
java_source=rarepath/RarePath.java
. "$(dirname "$0")/javabench.sh"
for r in $(seq "$rounds"); do
  for v in plain tick store call; do
    java -cp "$out" RarePath "$v" | awk '{print $1, $2}' >>"$out/times"
  done
done
awk -v order="plain tick store call" -f "$here/medians.awk" "$out/times"
