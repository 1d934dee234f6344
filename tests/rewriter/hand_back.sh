#!/bin/sh
# Bounded samples with the outlined layout (rewriter/hand_back.h): a sample ends at the next
# checked edge whose check does not fire, and the loop goes on in the checking method.
#
#   hand_back.sh DUPLEX RUNTIME_JAR PROBE_CLASSES
# For each mode: the rewritten probe verifies, prints what the original prints at intervals
# 1 and 100; at interval 100 at most a tenth of the iterations run in a twin (without
# hand-back, a twin runs every iteration after the first sample). Under Full every loop is
# outlined, so at interval 1 every iteration runs in a twin; Partial keeps longLoop in one
# method (a checked edge carries stack values), so there only most of them do.
set -eu
duplex=$1 runtime=$2 classes=$3
flags="-XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2086
java $flags -cp "$classes" handback.HandBackProbe >"$tmp/original.txt" 2>"$tmp/original.err"
failed=0
for mode in full partial full,--check,local full,--check,inline partial,--check,local auto; do
  out="$tmp/$mode"
  # shellcheck disable=SC2046
  set -- --mode $(echo "$mode" | tr ',' ' ')
  "$duplex" instrument "$classes" -o "$out" "$@" --quiet
  for interval in 1 100; do
    # shellcheck disable=SC2086
    if ! java $flags -Xbootclasspath/a:"$runtime" -Dduplex.interval=$interval \
      -Dduplex.out="$tmp/profile.xml" -cp "$out" handback.HandBackProbe \
      >"$tmp/run.txt" 2>"$tmp/run.err"; then
      echo "FAIL $mode interval $interval: the program failed"; cat "$tmp/run.err"; failed=1
      continue
    fi
    if ! diff -u "$tmp/original.txt" "$tmp/run.txt"; then
      echo "FAIL $mode interval $interval: output differs"; failed=1
    fi
    counts=$(grep '^in-twin ' "$tmp/run.err" || true)
    in_twin=$(echo "$counts" | awk '{print $2}')
    total=$(echo "$counts" | awk '{print $4}')
    if [ -z "$in_twin" ] || [ "$total" -eq 0 ]; then
      echo "FAIL $mode interval $interval: no count on stderr"; cat "$tmp/run.err"; failed=1
      continue
    fi
    if [ "$interval" = 1 ] && [ "${mode%%,*}" = partial ] && [ $((in_twin * 2)) -lt "$total" ]; then
      echo "FAIL $mode interval 1: $in_twin of $total iterations in a twin (most expected)"
      failed=1
    elif [ "$interval" = 1 ] && [ "${mode%%,*}" != partial ] && [ "$in_twin" -ne "$total" ]; then
      echo "FAIL $mode interval 1: $in_twin of $total iterations in a twin (all expected)"
      failed=1
    elif [ "$interval" = 100 ] && [ $((in_twin * 10)) -gt "$total" ]; then
      echo "FAIL $mode interval 100: $in_twin of $total iterations in a twin (a tenth at most)"
      failed=1
    fi
    echo "ok $mode interval $interval: $in_twin of $total iterations in a twin, same output"
  done
done
exit $failed
