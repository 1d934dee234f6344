#!/bin/sh
# Rewrites every class of a JDK module in each mode and verifies the results with HotSpot.
#
#   jdk_modes.sh DUPLEX HARNESS_DIR RUNTIME_JAR [--module M] [--limit N] [MODE...]
#
# The classes of java.* packages are rewritten but cannot be verified here: HotSpot refuses
# to define java.* classes from a class loader other than its own, and patching them into
# java.base makes the JVM run them while it starts, before the module system lets java.base
# read the duplex runtime. Every other package (jdk.internal.*, sun.*, javax.*, com.sun.*) is
# verified through the harness's own class loader. --limit N keeps the first N classes.
set -eu
duplex=$1 harness=$2 runtime=$3
shift 3
module=java.base limit=0
while [ $# -gt 0 ]; do
  case $1 in
  --module) module=$2; shift 2 ;;
  --limit) limit=$2; shift 2 ;;
  *) break ;;
  esac
done
modes=${*:-full partial nodup exhaustive checks auto}
here=$(cd "$(dirname "$0")" && pwd)
jmods=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")/jmods
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/extract" "$tmp/orig"
(cd "$tmp/extract" && unzip -q -o "$jmods/$module.jmod" 'classes/*' >/dev/null 2>&1 || true)
(cd "$tmp/extract/classes" && find . -name '*.class' ! -path './java/*' ! -name module-info.class |
  LC_ALL=C sort >"$tmp/list")
[ "$limit" -gt 0 ] && head -n "$limit" "$tmp/list" >"$tmp/list.cut" && mv "$tmp/list.cut" "$tmp/list"
(cd "$tmp/extract/classes" && tar cf - -T "$tmp/list") | (cd "$tmp/orig" && tar xf -)
failed=0
for mode in $modes; do
  rm -rf "$tmp/out"
  "$duplex" instrument "$tmp/orig" -o "$tmp/out" --mode "$mode" --quiet
  if "$here/../scripts/verify_dir.sh" --harness "$harness" --cp "$runtime" "$tmp/out" >"$tmp/verify.txt" 2>&1; then
    echo "ok $module $mode: $(tail -n 1 "$tmp/verify.txt")"
  else
    echo "FAIL $module $mode:"; grep -E "^FAIL" "$tmp/verify.txt" | head -20; failed=1
  fi
done
exit $failed
