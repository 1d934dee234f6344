#!/bin/sh
# Makes HotSpot's -XX:+PrintAssembly (and -XX:CompileCommand=print,...) print instructions
# instead of hex: installs Debian's disassembler plug-in (libhsdis0-fcml, as root) and puts a
# small adapter (hsdis/hsdis_shim.c) where the JDK looks first, JAVA_HOME/lib/server. Then
#
#   java -XX:+UnlockDiagnosticVMOptions -XX:CompileCommand=print,CLASS::METHOD ...
#
# prints the compiled code of METHOD (docs/design/hotspot-costs.md, section 22). Idempotent;
# exits non-zero with one line when something is missing.
#
#   bench/runtime/hsdis.sh [JAVA_HOME]    (default: the JDK of `javac` on the PATH)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
java_home=${1:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
plugin=/usr/lib/x86_64-linux-gnu/libhsdis.so.0
if [ ! -e "$plugin" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "hsdis.sh: $plugin is missing: apt-get install libhsdis0-fcml (as root)" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q libhsdis0-fcml >/dev/null
fi
target="$java_home/lib/server/hsdis-amd64.so"
if [ ! -w "$java_home/lib/server" ]; then
  echo "hsdis.sh: cannot write $target (run as root)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -o "$tmp/hsdis-amd64.so" "$here/hsdis/hsdis_shim.c" "$plugin"
mv "$tmp/hsdis-amd64.so" "$target"
# Check: a method compiled by C1 before it first runs (not inlined, so that it is compiled on its
# own) must come out as instructions (`ret` ends every one).
cat >"$tmp/Probe.java" <<'JAVA'
public class Probe {
  static int twice(int x) { return 2 * x; }
  public static void main(String[] a) { System.out.println(twice(a.length)); }
}
JAVA
"$java_home/bin/javac" -d "$tmp" "$tmp/Probe.java"
if "$java_home/bin/java" -Xcomp -XX:TieredStopAtLevel=1 -XX:+UnlockDiagnosticVMOptions \
  -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Probe::twice \
  -XX:CompileCommand=print,Probe::twice -cp "$tmp" Probe 2>&1 |
  grep -q '[[:space:]]ret[q]\?[[:space:]]*$'; then
  echo "hsdis.sh: $target installed; HotSpot prints instructions"
else
  echo "hsdis.sh: HotSpot still prints no instructions with $target" >&2
  exit 1
fi
