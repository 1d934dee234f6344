#!/bin/sh
# Lazy twins, the mechanism (docs/design/lazy-twins.md): a class of duplicated code defined at
# run time as a hidden nestmate of its host. Prints which of the host's members a hidden twin
# can use, with the host at class-file versions 49 to 52 (Java 5 to 8), and what defining a
# twin class of METHODS methods costs against loading the same bytes as an ordinary class
# (ROUNDS of each, alternating).
#
#   bench/runtime/hiddentwin.sh [METHODS] [ROUNDS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)/hiddentwin
methods=${1:-60}
rounds=${2:-200}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac --release 8 -d "$out/host" "$here/host/p/Base.java" "$here/host/q/Host.java"
javac --release 11 -cp "$out/host" -d "$out/host" "$here/host/q/Probe.java"
javac --release 8 -d "$out/stub" "$here/stub/q/Host.java"
javac --release 11 -cp "$out/stub:$out/host" -d "$out/twin" "$here/twin/q/Twin.java"
# A twin class the size of a typical class's duplicated code: METHODS methods with a loop,
# private field accesses and private calls each.
{
  echo "package q; final class BigTwin {"
  i=0
  while [ "$i" -lt "$methods" ]; do
    echo "static int m$i(Host h, int n) { int s = $i; for (int k = 0; k < n; k++) {"
    echo "  s += h.secret * k + Host.twice(k); if (s > 1000) s -= h.plusSecret(k); } return s; }"
    i=$((i + 1))
  done
  echo "}"
} >"$out/BigTwin.java"
javac --release 8 -cp "$out/stub" -d "$out/twin" "$out/BigTwin.java"
javac -cp "$out/host" -d "$out/driver" "$here/HiddenTwin.java"
# The host at its own version (52) and patched to 51, 50 and 49: its methods have no branches,
# so it needs no StackMapTable at any of them.
for v in 52 51 50 49; do
  cp -r "$out/host" "$out/host$v"
  printf "\\000\\$(printf '%03o' "$v")" |
    dd of="$out/host$v/q/Host.class" bs=1 seek=6 conv=notrunc 2>/dev/null
  echo "== host at version $v"
  java -cp "$out/host$v:$out/driver" HiddenTwin access "$out/twin/q/Twin.class"
done
echo "== cost, $methods methods, $rounds rounds"
java -cp "$out/host:$out/driver" HiddenTwin cost "$out/twin/q/BigTwin.class" "$rounds"
