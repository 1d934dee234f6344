#!/bin/sh
# A flag check's decision as a branch in every small method against one shared method that
# throws a preallocated exception, caught in each (no per-site branch for C2 to prune before the
# site's first sample): best round in ms of each form, interleaved ROUNDS times (default 3),
# while nothing samples and while every 1000th call samples from round 10 (after C2 compiled),
# and the uncommon traps of one run of each form (docs/design/hotspot-costs.md, section 10).
#
#   bench/runtime/flagthrow.sh [ROUNDS]
java_source=flagthrow/FlagThrow.java
. "$(dirname "$0")/javabench.sh"
for r in $(seq "$rounds"); do
  for form in b t; do
    java -cp "$out" FlagThrow "$form" 1000000000 0 | awk '{print $1 "-idle", $2}' >>"$out/times"
    java -cp "$out" FlagThrow "$form" 1000 10 | awk '{print $1 "-sampling", $2}' >>"$out/times"
  done
done
awk -v order="branch-idle throw-idle branch-sampling throw-sampling" -f "$here/medians.awk" "$out/times"
for form in b t; do
  java -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile="$out/$form.log" \
    -cp "$out" FlagThrow "$form" 1000 10 >/dev/null
  printf '%s uncommon traps: %s\n' "$form" \
    "$(grep -c "<uncommon_trap thread=" "$out/$form.log" || true)"
done
