#!/bin/sh
# The example instrumentation builds, rewrites the demo program, and its events are counted.
#   test_alloc_sites.sh ALLOC_SITES RUNTIME_JAR DEMO_CLASSES
set -eu
tool=$1 runtime=$2 classes=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tool" "$classes" "$tmp/out" --mode full
java -cp "$classes" demo.Orbits 6 200 >"$tmp/expected.txt"
java -Xbootclasspath/a:"$runtime" -Dduplex.interval=1 -Dduplex.out="$tmp/p.xml" \
  -cp "$tmp/out" demo.Orbits 6 200 >"$tmp/actual.txt"
diff -u "$tmp/expected.txt" "$tmp/actual.txt"
# 6 bodies are allocated at one `new` site in main, and one Body[] array.
grep -q 'key="alloc:demo/Orbits.main@[0-9]*:demo/Orbits\$Body" count="6"' "$tmp/p.xml" || {
  echo "FAIL: no count of 6 for the Body allocation site"; grep '<event ' "$tmp/p.xml"; exit 1; }
grep -q 'key="alloc:demo/Orbits.main@[0-9]*:demo/Orbits\$Body\[\]" count="1"' "$tmp/p.xml" || {
  echo "FAIL: no count for the Body[] allocation"; grep '<event ' "$tmp/p.xml"; exit 1; }
echo "ok: allocation sites counted"
