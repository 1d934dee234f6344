#!/bin/sh
# Property 1 of the paper, measured: the checks executed in the checking code never exceed
# the method entries plus back edges executed (Full-Duplication), and Partial-Duplication
# never executes more checks than Full-Duplication. Runs the fixtures with the rewriter's
# edge counting and the runtime's check counting on, at sampling intervals 0 and 1000.
#
#   property1.sh DUPLEX RUNTIME_JAR FIXTURES_DIR HARNESS_DIR
set -eu
duplex=$1 runtime=$2 fixtures=$3 harness=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

attr() {  # attr FILE NAME -> the value of NAME="..." in the <run> element
  sed -n "s/.*<run [^>]* $2=\"\([0-9]*\)\".*/\1/p" "$1" | head -n 1
}

failed=0
for mode in full partial; do
  # The jsr/ret fixtures fall back to No-Duplication, which Property 1 does not cover.
  "$duplex" instrument "$fixtures" -o "$tmp/$mode" --mode "$mode" --count-edges --quiet \
    --exclude 'fixtures.OldJsr*'
done
for interval in 0 1000; do
  for mode in full partial; do
    java -Xbootclasspath/a:"$runtime" -Dduplex.countChecks=true -Dduplex.interval=$interval \
      -Dduplex.out="$tmp/$mode-$interval.xml" -cp "$harness" duplex.test.RunFixtures \
      "$tmp/$mode" >/dev/null 2>&1 || true
  done
  checks_full=$(attr "$tmp/full-$interval.xml" checks)
  entries=$(attr "$tmp/full-$interval.xml" entries)
  backedges=$(attr "$tmp/full-$interval.xml" backedges)
  checks_partial=$(attr "$tmp/partial-$interval.xml" checks)
  if [ -z "$checks_full" ] || [ -z "$entries" ] || [ -z "$backedges" ] || [ -z "$checks_partial" ]; then
    echo "FAIL interval $interval: the profiles lack the counts"; exit 1
  fi
  bound=$((entries + backedges))
  echo "interval $interval: full checks $checks_full <= entries $entries + back edges $backedges = $bound; partial checks $checks_partial"
  if [ "$checks_full" -eq 0 ] || [ "$bound" -eq 0 ]; then echo "FAIL: nothing was counted"; failed=1; fi
  if [ "$checks_full" -gt "$bound" ]; then echo "FAIL: Property 1 does not hold for Full-Duplication"; failed=1; fi
  if [ "$checks_partial" -gt "$checks_full" ]; then echo "FAIL: Partial-Duplication executed more checks than Full"; failed=1; fi
done
exit $failed
