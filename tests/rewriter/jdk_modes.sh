#!/bin/sh
# Rewrites every class of java.base in each mode and verifies the results with HotSpot.
#
#   jdk_modes.sh DUPLEX HARNESS_DIR [--limit N] [MODE...]
#
# A MODE may carry options after commas, as `full,--method-counters`.
# The rewritten classes are patched into java.base in a child JVM (the harness's --jdk mode),
# so they are verified by the JVM's own boot loader. Two things make that possible:
# - java.base cannot read the module of the duplex runtime, so the classes are rewritten to
#   call a stub (tests/rewriter/java/java/lang/DuplexVerifyStub.java, sampling off) that is
#   patched into java.base with them;
# - the JVM runs some java.base code while it starts, before it can load a new class: the
#   classes `java -version` loads are left as they are (about 380 of 6,500), and so is
#   java.lang.Object.<init> (HotSpot requires it to be a lone return).
# --limit N keeps only the first N other classes (sorted), for a quick slice.
set -eu
duplex=$1 harness=$2
shift 2
limit=0
if [ "${1:-}" = --limit ]; then limit=$2; shift 2; fi
modes=${*:-full partial nodup exhaustive checks auto full,--method-counters}
here=$(cd "$(dirname "$0")" && pwd)
jdk=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/orig/java.base" "$tmp/stub"
(cd "$tmp/orig/java.base" && unzip -q -o "$jdk/jmods/java.base.jmod" 'classes/*' >/dev/null 2>&1 || true)
(cd "$tmp/orig/java.base/classes" && tar cf - .) | (cd "$tmp/orig/java.base" && tar xf -)
rm -rf "$tmp/orig/java.base/classes"
javac --patch-module java.base="$here/java" -d "$tmp/stub" "$here/java/java/lang/DuplexVerifyStub.java"

# The classes the JVM loads while it starts.
java -Xshare:off -Xlog:class+load:file="$tmp/startup.log" -version >/dev/null 2>&1
sed -n 's/.*\] \([^ ]*\) source: jrt:\/java\.base.*/\1/p' "$tmp/startup.log" | LC_ALL=C sort -u >"$tmp/startup"
set --
while read -r c; do set -- "$@" --exclude "$c"; done <"$tmp/startup"
if [ "$limit" -gt 0 ]; then
  (cd "$tmp/orig/java.base" && find . -name '*.class' ! -name module-info.class | sed 's|^\./||; s|\.class$||; s|/|.|g' |
    LC_ALL=C sort | grep -vxF -f "$tmp/startup" | tail -n +"$((limit + 1))") >"$tmp/dropped"
  while read -r c; do rm -f "$tmp/orig/java.base/$(echo "$c" | tr . /).class"; done <"$tmp/dropped"
fi
total=$(find "$tmp/orig/java.base" -name '*.class' ! -name module-info.class | wc -l)

failed=0
for mode in $modes; do
  rm -rf "$tmp/out"
  mkdir -p "$tmp/out"
  mode_options=$(echo "$mode" | tr , ' ')
  # shellcheck disable=SC2086 # the mode and its options, split at the commas
  "$duplex" instrument "$tmp/orig/java.base" -o "$tmp/out/java.base" --mode $mode_options --quiet \
    --runtime-class java.lang.DuplexVerifyStub "$@"
  cp "$tmp/stub/java/lang/DuplexVerifyStub.class" "$tmp/out/java.base/java/lang/"
  changed=0
  for f in $(cd "$tmp/orig/java.base" && find . -name '*.class'); do
    cmp -s "$tmp/orig/java.base/$f" "$tmp/out/java.base/$f" || changed=$((changed + 1))
  done
  if "$here/../scripts/verify_dir.sh" --harness "$harness" --jdk "$tmp/out" >"$tmp/verify.txt" 2>&1; then
    echo "ok java.base $mode: $changed of $total classes rewritten; $(tail -n 1 "$tmp/verify.txt")"
  else
    echo "FAIL java.base $mode:"; grep -E "^FAIL" "$tmp/verify.txt" | head -20; tail -n 3 "$tmp/verify.txt"; failed=1
  fi
done
exit $failed
