#!/usr/bin/env bash
# The README demo: rewrites the example program (examples/java/demo/Orbits.java) with
# Full-Duplication, runs it at sampling interval 1 (the perfect profile) and at 1000, and
# prints the hottest call edges and fields of the sampled run with its overlap score against
# the perfect one. Expects a built tree (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${DUPLEX_BUILD_DIR:-build}
duplex="$build/tools/duplex"
runtime="$build/runtime/duplex-runtime.jar"
classes="$build/examples/demo-classes"
args=(12 4000)  # bodies, rounds: small enough that the interval-1 run takes seconds
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== duplex instrument --mode full (call-edge + field-access)"
"$duplex" instrument "$classes" -o "$work/full" --mode full --profile call-edge,field-access

run() {  # run INTERVAL PROFILE CLASSPATH
  local start end
  start=$(date +%s%N)
  java -Xbootclasspath/a:"$runtime" -Dduplex.interval="$1" -Dduplex.out="$2" -cp "$3" demo.Orbits "${args[@]}"
  end=$(date +%s%N)
  echo "   ($(( (end - start) / 1000000 )) ms)"
}
echo
echo "== original program"
start=$(date +%s%N); java -cp "$classes" demo.Orbits "${args[@]}"; end=$(date +%s%N)
echo "   ($(( (end - start) / 1000000 )) ms)"
echo "== rewritten, interval 1 (every check samples: the perfect profile)"
run 1 "$work/perfect.xml" "$work/full"
echo "== rewritten, interval 1000"
run 1000 "$work/sampled.xml" "$work/full"
echo
echo "== duplex report (interval 1000, top 6)"
"$duplex" report "$work/sampled.xml" --top 6
echo
echo "== duplex overlap perfect sampled"
"$duplex" overlap "$work/perfect.xml" "$work/sampled.xml"
