#!/bin/sh
# C2 must not inline an outlined twin into the hot code that calls it on its rare sample path
# (docs/design/hotspot-costs.md, section 15): a twin in a twin class (lazy twins, the default for
# classes of version 55 and later) takes a last parameter of a class that never exists, and C2
# refuses to inline a method whose signature names a class that is not loaded. This runs a probe
# at interval 1, where the call of sum$duplex is as hot as a call gets, under -XX:+PrintInlining
# (-Xbatch: compiled before the loop ends), and checks that C2 met the call and did not inline it,
# for that reason; that it did inline sum() itself (the log is one of a real C2 compilation); and
# that the output is the original's. The build before the cold parameter fails it.
#
#   twins_not_inlined.sh DUPLEX RUNTIME_JAR PROBE_CLASSES
set -eu
duplex=$1 runtime=$2 classes=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

java -cp "$classes" notinlined.HotSample >"$tmp/original.txt"
"$duplex" instrument "$classes" -o "$tmp/full" --mode full --profile call-edge,field-access --quiet
java -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all \
  -Xbatch -XX:+PrintInlining -XX:+DisplayVMOutputToStderr -Xbootclasspath/a:"$runtime" \
  -Dduplex.interval=1 -Dduplex.out="$tmp/profile.xml" -cp "$tmp/full" notinlined.HotSample \
  >"$tmp/out.txt" 2>"$tmp/run.txt"
failed=0
if ! cmp -s "$tmp/original.txt" "$tmp/out.txt"; then
  echo "FAIL: the rewritten probe did not print the original's output"; failed=1
fi
twin_lines=$(grep -E 'notinlined\.HotSample(\$DuplexTwins)?::sum\$duplex \(' "$tmp/run.txt" || true)
if [ -z "$twin_lines" ]; then
  echo "FAIL: no compilation reached the call of sum\$duplex"; failed=1
elif echo "$twin_lines" | grep -Eq 'bytes\)[[:space:]]+inline'; then
  echo "FAIL: sum\$duplex was inlined:"; echo "$twin_lines"; failed=1
elif ! echo "$twin_lines" | grep -q 'unloaded signature classes'; then
  echo "FAIL: C2 did not refuse sum\$duplex for its unloaded signature class:"; echo "$twin_lines"
  failed=1
fi
if ! grep -F 'notinlined.HotSample::sum (' "$tmp/run.txt" | grep -Eq 'bytes\)[[:space:]]+inline \(hot\)'; then
  echo "FAIL: C2 never inlined sum() itself: the log shows no hot compilation"; failed=1
fi
[ $failed -eq 0 ] && echo "ok: C2 called sum\$duplex without inlining it ($(echo "$twin_lines" | wc -l) sites)"
exit $failed
