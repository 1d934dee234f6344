#!/bin/sh
# Rewrites the Java fixtures in every mode and checks that each rewritten class passes the
# HotSpot verifier and that the fixtures print exactly what the originals print, at sampling
# intervals 1 (every check samples), 1000 and 0 (sampling off).
#
#   rewrite_fixtures.sh DUPLEX RUNTIME_JAR FIXTURES_DIR HARNESS_DIR [MODE[,OPTION...]...]
# (e.g. "full,--layout,inline": extra `duplex instrument` options after the mode, comma-separated.)
# Small loop-free methods get flag checks by default; `--caller-sampled-bytes,N` samples them
# through their callers instead, and `--flag-check-bytes,0` makes every method count.
# `--method-counters` gives each counting method a counter of its own. The twins move into
# classes of their own (HOST$DuplexTwins) by default: nestmates from version 55 on, plain classes
# of the package that reach private members through bridges before (the release-8 fixtures);
# `--lazy-twins` raises those to 55 and nests them, `--eager-twins` keeps every twin in its
# class. None of the three may change a count, nor may `--stripe-in-local`.
set -eu
duplex=$1 runtime=$2 fixtures=$3 harness=$4
shift 4
modes=${*:-full partial nodup exhaustive checks auto full,--layout,inline partial,--layout,inline checks,--layout,inline full,--check,inline full,--check,local partial,--layout,inline,--check,local full,--caller-sampled-bytes,325 partial,--caller-sampled-bytes,325 auto,--caller-sampled-bytes,325 full,--check,local,--caller-sampled-bytes,325 full,--caller-sampled-bytes,35 full,--flag-check-bytes,0 partial,--flag-check-bytes,0 auto,--flag-check-bytes,0 full,--check,local,--flag-check-bytes,0 partial,--layout,inline,--flag-check-bytes,0 full,--method-counters partial,--method-counters auto,--method-counters full,--method-counters,--flag-check-bytes,0 full,--lazy-twins full,--eager-twins full,--caller-sampled-bytes,325,--lazy-twins checks,--lazy-twins partial,--lazy-twins,--flag-check-bytes,0 full,--layout,handback,--lazy-twins full,--stripe-in-local}
here=$(cd "$(dirname "$0")" && pwd)
verify="$here/../scripts/verify_dir.sh"
flags="-XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2086
java $flags -cp "$harness" duplex.test.RunFixtures "$fixtures" >"$tmp/original.txt" 2>&1
failed=0
for mode in $modes; do
  out="$tmp/$mode"
  # shellcheck disable=SC2046
  set -- --mode $(echo "$mode" | tr ',' ' ')
  "$duplex" instrument "$fixtures" -o "$out" "$@" >"$tmp/summary.txt" 2>&1
  # Every fixture is well formed: none may be left unchanged for an error.
  if grep "left unchanged:" "$tmp/summary.txt"; then
    echo "FAIL $mode: fixtures left unchanged"; failed=1; continue
  fi
  if ! "$verify" --harness "$harness" --cp "$runtime" "$out" >"$tmp/verify.txt" 2>&1; then
    echo "FAIL $mode: rewritten fixtures do not verify:"; cat "$tmp/verify.txt"; failed=1; continue
  fi
  for interval in 1 1000 0; do
    # shellcheck disable=SC2086
    java $flags -Xbootclasspath/a:"$runtime" -Dduplex.interval=$interval \
      -Dduplex.out="$tmp/$mode-$interval.xml" -cp "$harness" duplex.test.RunFixtures "$out" \
      >"$tmp/run.txt" 2>&1 || true
    if ! diff -u "$tmp/original.txt" "$tmp/run.txt" >"$tmp/diff.txt"; then
      echo "FAIL $mode interval $interval: output differs"; head -40 "$tmp/diff.txt"; failed=1
    fi
  done
  # Sampling at interval 1 must have recorded events (except in checks-only mode).
  kind=${mode%%,*}
  if [ "$kind" != checks ] && ! grep -q '<field ' "$tmp/$mode-1.xml"; then
    echo "FAIL $mode: the interval-1 profile holds no field accesses"; failed=1
  fi
  if [ "$kind" != checks ] && ! grep -q '<edge ' "$tmp/$mode-1.xml"; then
    echo "FAIL $mode: the interval-1 profile holds no call edges"; failed=1
  fi
  echo "ok $mode: $(tail -n 1 "$tmp/verify.txt"); same output at intervals 1, 1000, 0"
done

# At interval 1 every check samples, so every mode's profile must equal the Exhaustive one,
# count for count (the fixtures are deterministic and single-threaded). With flag checks (the
# default for small loop-free methods) a method samples only when a sampled caller calls it,
# so the methods the uncounted test harness calls directly may be missing: there the profile
# must be a subset of the Exhaustive one, each key with the same count.
counts() { grep -E '<(edge|field|event) ' "$1" | sed 's/^ *//' | sort; }
if [ -f "$tmp/exhaustive-1.xml" ]; then
  counts "$tmp/exhaustive-1.xml" >"$tmp/exhaustive.counts"
  for mode in $modes; do
    case $mode in exhaustive | exhaustive,* | checks | checks,*) continue ;; esac
    counts "$tmp/$mode-1.xml" >"$tmp/$mode.counts"
    case $mode in
      nodup | nodup,* | *--flag-check-bytes,0*)
        if diff -u "$tmp/exhaustive.counts" "$tmp/$mode.counts" >"$tmp/diff.txt"; then
          echo "ok $mode: interval-1 profile equals the exhaustive one ($(wc -l <"$tmp/$mode.counts") keys)"
        else
          echo "FAIL $mode: interval-1 profile differs from the exhaustive one"; head -20 "$tmp/diff.txt"
          failed=1
        fi ;;
      *)
        # Per key, no count above the Exhaustive one (python: field keys hold two counts).
        if extra=$(python3 - "$tmp/exhaustive.counts" "$tmp/$mode.counts" <<'PY'
import re, sys
def load(path):
    keys = {}
    for line in open(path):
        counts = [int(v) for v in re.findall(r' (?:count|reads|writes)="(\d+)"', line)]
        keys[re.sub(r' (?:count|reads|writes)="\d+"', "", line.strip())] = counts
    return keys
exhaustive, sampled = load(sys.argv[1]), load(sys.argv[2])
bad = [k for k, c in sampled.items()
       if k not in exhaustive or any(a > b for a, b in zip(c, exhaustive[k]))]
print("\n".join(bad[:20]))
print(sum(1 for k, c in exhaustive.items() if sampled.get(k) != c), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
        ) 2>"$tmp/short.txt"; then
          echo "ok $mode: interval-1 profile is the exhaustive one less events in $(cat "$tmp/short.txt") keys (flag-checked or caller-sampled methods the harness calls)"
        else
          echo "FAIL $mode: interval-1 profile has keys or counts above the exhaustive one"
          echo "$extra"; failed=1
        fi ;;
    esac
  done
fi

# At interval 1 every call the Dispatch fixture makes comes from sampled code, so every key of
# its classes must count exactly what Exhaustive counts, whether its small methods are sampled
# through their callers (no check; a sampled caller's invokedynamic reaches their twins: a call
# site that selected another method than the plain call would show here), by flag checks or by
# counting checks.
for mode in $modes; do
  case $mode in full | partial | auto | full,* | partial,* | auto,*) ;; *) continue ;; esac
  [ -f "$tmp/exhaustive-1.xml" ] || continue
  counts "$tmp/exhaustive-1.xml" | grep 'fixtures/Dispatch' >"$tmp/dispatch.exhaustive"
  counts "$tmp/$mode-1.xml" | grep 'fixtures/Dispatch' >"$tmp/dispatch.callers"
  if [ -s "$tmp/dispatch.exhaustive" ] &&
    diff -u "$tmp/dispatch.exhaustive" "$tmp/dispatch.callers" >"$tmp/diff.txt"; then
    echo "ok $mode: Dispatch's interval-1 profile equals the exhaustive one ($(wc -l <"$tmp/dispatch.callers") keys)"
  else
    echo "FAIL $mode: Dispatch's interval-1 profile differs from the exhaustive one"
    head -20 "$tmp/diff.txt"; failed=1
  fi
done
# ParenNames's names hold what keys and tables part their fields and lines with (a tab, a line
# feed, " as ", ')' and ':'; fixtures/release8/ParenNames.java): profiles carry them whole, with
# tab and line feed escaped (rewriter/key_text.h), and each part of a key where it belongs.
# has_names FILE WHAT STRING...: each STRING (fixed text) is in FILE.
has_names() {
  file=$1 what=$2
  shift 2
  for s in "$@"; do
    grep -qF -- "$s" "$file" || { echo "FAIL $what: no '$s' in the profile"; failed=1; return; }
  done
  echo "ok $what: odd names whole and in place"
}
if [ -f "$tmp/exhaustive-1.xml" ]; then
  has_names "$tmp/exhaustive-1.xml" "exhaustive, ParenNames" \
    'caller-method="tab\there\nand a new line" caller-descriptor="(Lfixtures/Odd)V;)Lfixtures/Odd)V;"' \
    'caller-method="should work as expected (edge case)" caller-descriptor="(I)I"' \
    'callee="fixtures/ParenNames.odd)V(name(J)J"' \
    'owner="fixtures/Odd)J" name="co:unt" descriptor="J"' \
    'callee="fixtures/OddW.weird (name)()J"'
fi
# same_as_full MODE INTERVAL WHY: MODE's profile at INTERVAL must equal full's, count for count
# (when both ran).
same_as_full() {
  [ -f "$tmp/full-$2.xml" ] && [ -f "$tmp/$1-$2.xml" ] || return 0
  counts "$tmp/full-$2.xml" >"$tmp/full.counts"
  counts "$tmp/$1-$2.xml" >"$tmp/other.counts"
  if [ -s "$tmp/full.counts" ] && diff -u "$tmp/full.counts" "$tmp/other.counts" >"$tmp/diff.txt"; then
    echo "ok $1: interval-$2 profile equals full's ($3)"
  else
    echo "FAIL $1: interval-$2 profile differs from full's ($3)"
    head -20 "$tmp/diff.txt"; failed=1
  fi
}
# Loop budgets (--check local in the default layout) count every check, only later, and
# sample on the same checks as the call form.
same_as_full full,--check,local 1000 "loop budgets sample the same checks"
# The stripe in a local (--stripe-in-local) counts on the same counter as tick(): both sample
# the same checks.
same_as_full full,--stripe-in-local 1 "the stripe in a local counts every check"
same_as_full full,--stripe-in-local 1000 "the stripe in a local samples the same checks"
# Method counters sample at every check at interval 1, as the shared counter does (a method's
# first check draws its phase, which at interval 1 is always a sample).
same_as_full full,--method-counters 1 "every check samples"
# Lazy twins move code between classes and change nothing that is counted or sampled: the
# runtime reports a twin class's frames as its host's.
same_as_full full,--lazy-twins 1 "twins in nestmate classes"
same_as_full full,--lazy-twins 1000 "twins in nestmate classes"
same_as_full full,--eager-twins 1 "twins in their classes"
same_as_full full,--eager-twins 1000 "twins in their classes"
# The same with call edges found on the stack (call-edge-stack): a twin class's frames report
# as its host's (Class.getNestHost), and bridges (duplex$bridge$N) are never callers.
if echo " $modes " | grep -q ' full,--lazy-twins '; then
  for layout in eager lazy; do
    extra=--eager-twins
    [ $layout = lazy ] && extra=--lazy-twins
    "$duplex" instrument "$fixtures" -o "$tmp/stack-$layout" --profile call-edge-stack,field-access \
      $extra --quiet
    # shellcheck disable=SC2086
    java $flags -Xbootclasspath/a:"$runtime" -Dduplex.interval=1 -Dduplex.out="$tmp/stack-$layout.xml" \
      -cp "$harness" duplex.test.RunFixtures "$tmp/stack-$layout" >"$tmp/run.txt" 2>&1 || true
    diff -q "$tmp/original.txt" "$tmp/run.txt" >/dev/null || { echo "FAIL call-edge-stack $layout: output differs"; failed=1; }
    counts "$tmp/stack-$layout.xml" >"$tmp/stack-$layout.counts"
  done
  # A twin's frames report as its method, whatever the method's name holds.
  has_names "$tmp/stack-lazy.xml" "call-edge-stack, ParenNames" \
    'caller-class="fixtures/ParenNames" caller-method="tab\there\nand a new line" caller-descriptor="(Lfixtures/Odd)V;)Lfixtures/Odd)V;"' \
    'callee="fixtures/ParenNames.should work as expected (edge case)(I)I"'
  if grep -q 'caller-method="[^"]*\$duplex"' "$tmp/stack-lazy.xml"; then
    echo "FAIL call-edge-stack: a twin reported under its own name"; failed=1
  fi
  if [ -s "$tmp/stack-eager.counts" ] && diff -u "$tmp/stack-eager.counts" "$tmp/stack-lazy.counts" >"$tmp/diff.txt"; then
    echo "ok call-edge-stack,--lazy-twins: interval-1 profile equals the eager layout's ($(wc -l <"$tmp/stack-lazy.counts") keys)"
  else
    echo "FAIL call-edge-stack,--lazy-twins: interval-1 profile differs from the eager layout's"
    head -20 "$tmp/diff.txt"; failed=1
  fi
fi
exit $failed
