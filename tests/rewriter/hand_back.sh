#!/bin/sh
# Bounded samples with the outlined layouts: a sample ends at the next checked edge whose check
# does not fire, in the twin (the default layout, where the twin's checking copy runs the rest
# of the activation) or by handing the loop back to the checking method (--layout handback,
# rewriter/hand_back.h).
#
#   hand_back.sh DUPLEX RUNTIME_JAR PROBE_CLASSES
# For each mode: the rewritten probe verifies and prints what the original prints at intervals
# 1 and 100. Every loop iteration calls mark(); the profile counts those calls only in sampled
# code, so at interval 1 every iteration is sampled and at interval 100 about one in a hundred
# (at most a tenth): samples are bounded. With hand-back, the iterations that run in a twin are
# counted too: all of them at interval 1 under Full (every loop is outlined; Partial keeps
# longLoop in one method, a checked edge carries stack values, so there only most of them), at
# most a tenth at interval 100 (without hand-back, a twin would run every iteration after the
# first sample).
set -eu
duplex=$1 runtime=$2 classes=$3
flags="-XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2086
java $flags -cp "$classes" handback.HandBackProbe >"$tmp/original.txt" 2>"$tmp/original.err"
failed=0
# The mark() calls in the profile (call edges into it, sampled code only).
marks() {
  "$duplex" report "$1" --format csv | awk -F, '$1 == "call-edge" && $12 ~ /HandBackProbe.mark\(\)V$/ {n += $3} END {print n + 0}'
}
for mode in full partial auto full,--layout,handback partial,--layout,handback \
  full,--layout,handback,--check,local full,--layout,handback,--check,inline \
  partial,--layout,handback,--check,local auto,--layout,handback; do
  out="$tmp/$mode"
  # shellcheck disable=SC2046
  set -- --mode $(echo "$mode" | tr ',' ' ')
  "$duplex" instrument "$classes" -o "$out" "$@" --profile call-edge,field-access --quiet
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
    sampled=$(marks "$tmp/profile.xml")
    if [ "$interval" = 1 ] && [ "$sampled" -ne "$total" ]; then
      echo "FAIL $mode interval 1: $sampled of $total iterations sampled (all expected)"
      failed=1
    elif [ "$interval" = 100 ] && { [ $((sampled * 10)) -gt "$total" ] || [ "$sampled" -eq 0 ]; }; then
      echo "FAIL $mode interval 100: $sampled of $total iterations sampled (about 1%)"
      failed=1
    fi
    case $mode in
      *handback*) ;;
      *) echo "ok $mode interval $interval: $sampled of $total iterations sampled, same output"
         continue ;;
    esac
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
    echo "ok $mode interval $interval: $sampled of $total sampled, $in_twin in a twin, same output"
  done
done
exit $failed
