#!/bin/sh
# `duplex instrument` on modular code: a jar with a module-info.class, run from the module path,
# is a named module, which reads no other module unless told to, and the runtime is in an
# unnamed module (or an automatic one). Its rewritten classes must make their module read the
# runtime's before their first check (rewriter/module_reads.h), wherever the runtime is (the
# boot class path, the class path, the module path), and must still run anywhere else: on the
# class path, and as an exploded module directory. Every run verifies every class, and
# prints what the original prints; the call-edge and call-edge-stack profiles agree, which they
# only do when the site table's <clinit> offsets count the prologue. Real modular libraries
# (Debian's joni, jcodings and xz, of version-51/52 classes) run rewritten from the module path.
# Classes of a jar without a module-info get no prologue.
#
#   modules.sh DUPLEX RUNTIME_JAR
set -eu
duplex=$1 runtime=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
verify="-XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all"

# --- a module: a static initializer with a call (a call site in <clinit>), a loop, fields, a
# second package, and a switch in <clinit> (its padding must survive the prologue) ---
src=$tmp/src/com.ex
mkdir -p "$src/com/ex/impl" "$tmp/mods"
cat >"$src/module-info.java" <<'J'
module com.ex { }
J
cat >"$src/com/ex/Main.java" <<'J'
package com.ex;
public class Main {
  static final int BASE = com.ex.impl.Helper.base(3);
  static int kind;
  static {
    switch (BASE) { case 1: kind = 10; break; case 6: kind = 20; break; case 900: kind = 30; break; default: kind = 40; }
  }
  int total;
  int work(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; total++; } return s; }
  public static void main(String[] a) {
    Main m = new Main();
    long t = 0;
    for (int i = 0; i < 300; i++) t += m.work(i);
    System.out.println("sum " + t + " total " + m.total + " base " + BASE + " kind " + kind);
  }
}
J
cat >"$src/com/ex/impl/Helper.java" <<'J'
package com.ex.impl;
public class Helper {
  public static int base(int k) { int b = 0; for (int i = 1; i <= k; i++) b += i; return b; }
}
J
javac -d "$tmp/mods/com.ex" "$src/module-info.java" "$src/com/ex/Main.java" "$src/com/ex/impl/Helper.java"
(cd "$tmp" && jar --create --file app.jar -C mods/com.ex .)
expected=$(java -p "$tmp/app.jar" -m com.ex/com.ex.Main)
[ "$expected" = "sum 4455100 total 44850 base 6 kind 20" ] || fail "unexpected original output: $expected"

run_module() {  # run_module NAME MODULE_PATH [PROFILE]: interval 1, the profile in $tmp/NAME.xml
  # shellcheck disable=SC2086
  java $verify -Xbootclasspath/a:"$runtime" -Dduplex.interval=1 -Dduplex.out="$tmp/$1.xml" \
    -Dduplex.profile="${3:-call-edge,field-access}" -p "$2" -m com.ex/com.ex.Main
}
# The call edges into the module's own methods (call-edge-stack sees only callees it rewrote).
edges() { grep '<edge .*callee="com/ex/' "$1" | sed 's/^ *//' | sort; }

# --- the jar on the module path ---
"$duplex" instrument "$tmp/app.jar" -o "$tmp/app-dx.jar" --quiet
got=$(run_module jar "$tmp/app-dx.jar") || fail "module path: exit status $?"
[ "$got" = "$expected" ] || fail "module path printed: $got"
grep -q 'caller-method="&lt;clinit&gt;".*callee="com/ex/impl/Helper.base(I)I" count="1"' "$tmp/jar.xml" ||
  fail "module path: no call edge from <clinit>: $(grep '<edge ' "$tmp/jar.xml")"
grep -q '<field .*com/ex/Main.total' "$tmp/jar.xml" || fail "module path: no field accesses"
echo "ok a modular jar on the module path: same output, complete profile"

# --- call-edge-stack maps call sites through the site table: the same edges only if its
# <clinit> offsets count the prologue ---
"$duplex" instrument "$tmp/app.jar" -o "$tmp/app-stack.jar" --profile call-edge-stack --quiet
got=$(run_module stack "$tmp/app-stack.jar" call-edge-stack) || fail "call-edge-stack: exit status $?"
[ "$got" = "$expected" ] || fail "call-edge-stack printed: $got"
edges "$tmp/jar.xml" >"$tmp/jar.edges"
edges "$tmp/stack.xml" >"$tmp/stack.edges"
[ -s "$tmp/jar.edges" ] && cmp -s "$tmp/jar.edges" "$tmp/stack.edges" ||
  fail "call-edge-stack edges differ: $(diff "$tmp/jar.edges" "$tmp/stack.edges" | head -5)"
echo "ok call-edge-stack on the module path: the same call edges, <clinit>'s included"

# --- the runtime elsewhere: on the class path (the application loader's unnamed module) and on
# the module path (an automatic module): the prologue finds it through the class's own loader ---
# shellcheck disable=SC2086
got=$(java $verify -Dduplex.interval=1 -Dduplex.out="$tmp/rcp.xml" -cp "$runtime" \
  -p "$tmp/app-dx.jar" -m com.ex/com.ex.Main) || fail "runtime on the class path: exit status $?"
[ "$got" = "$expected" ] || fail "module path, runtime on the class path printed: $got"
grep -q '<field .*com/ex/Main.total' "$tmp/rcp.xml" || fail "runtime on the class path: no profile"
mkdir -p "$tmp/rt"
cp "$runtime" "$tmp/rt/runtime-any-name.jar"  # the manifest names the module, not the file
# shellcheck disable=SC2086
got=$(java $verify -Dduplex.interval=1 -Dduplex.out="$tmp/rmp.xml" -p "$tmp/app-dx.jar:$tmp/rt" \
  --add-modules duplex.runtime -m com.ex/com.ex.Main) || fail "runtime on the module path: exit status $?"
[ "$got" = "$expected" ] || fail "module path, runtime on the module path printed: $got"
grep -q '<field .*com/ex/Main.total' "$tmp/rmp.xml" || fail "runtime on the module path: no profile"
echo "ok the modular jar on the module path with the runtime on the class path or the module path"

# --- the same rewritten jar elsewhere: the class path; the runtime on the class path too (in an
# unnamed module the prologue's read changes nothing) ---
# shellcheck disable=SC2086
got=$(java $verify -Xbootclasspath/a:"$runtime" -Dduplex.interval=1 -cp "$tmp/app-dx.jar" com.ex.Main)
[ "$got" = "$expected" ] || fail "class path printed: $got"
# shellcheck disable=SC2086
got=$(java $verify -Dduplex.interval=1 -Dduplex.out="$tmp/cp.xml" -cp "$tmp/app-dx.jar:$runtime" com.ex.Main)
[ "$got" = "$expected" ] || fail "runtime on the class path printed: $got"
grep -q '<field .*com/ex/Main.total' "$tmp/cp.xml" || fail "runtime on the class path: no profile"
echo "ok the rewritten modular jar on the class path, with the runtime on the boot or the class path"

# --- an exploded module directory (a tree of modules: the module-info is where each module's
# packages start) ---
"$duplex" instrument "$tmp/mods" -o "$tmp/mods-dx" --quiet
got=$(run_module dir "$tmp/mods-dx") || fail "exploded module: exit status $?"
[ "$got" = "$expected" ] || fail "exploded module printed: $got"
echo "ok an exploded module directory on the module path"

# --- class files one by one: a single class says nothing of its module, so it gets the prologue
# only with --named-module ---
for named in no yes; do
  out=$tmp/single-$named
  mkdir -p "$out/com/ex/impl"
  cp "$tmp/mods/com.ex/module-info.class" "$out/"
  for c in com/ex/Main com/ex/impl/Helper; do
    flag=""
    [ $named = yes ] && flag=--named-module
    # shellcheck disable=SC2086
    "$duplex" instrument "$tmp/mods/com.ex/$c.class" -o "$out/$c.class" --quiet $flag
  done
done
if got=$(run_module single-no "$tmp/single-no" 2>&1); then
  fail "single classes without --named-module ran: $got"
fi
case $got in
  *IllegalAccessError*"does not read"*) ;;
  *) fail "single classes without --named-module: not the module read that failed: $got" ;;
esac
got=$(run_module single-yes "$tmp/single-yes") || fail "single classes with --named-module: exit status $?"
[ "$got" = "$expected" ] || fail "single classes with --named-module printed: $got"
grep -q '<field .*com/ex/Main.total' "$tmp/single-yes.xml" || fail "--named-module: no profile"
echo "ok class files one by one: without --named-module a named module cannot reach the runtime, with it it can"

# --- a library for Java 8 with a module-info for 9+ (classes of version 52, as slf4j ships):
# on the module path it is a named module ---
mkdir -p "$tmp/m8/classes"
javac --release 8 -d "$tmp/m8/classes" "$src/com/ex/Main.java" "$src/com/ex/impl/Helper.java"
javac --release 9 -d "$tmp/m8/info" "$src/module-info.java" "$src/com/ex/Main.java" "$src/com/ex/impl/Helper.java"
cp "$tmp/m8/info/module-info.class" "$tmp/m8/classes/"
(cd "$tmp/m8" && jar --create --file m8.jar -C classes .)
"$duplex" instrument "$tmp/m8/m8.jar" -o "$tmp/m8/m8-dx.jar" --quiet
got=$(run_module m8 "$tmp/m8/m8-dx.jar") || fail "version-52 module: exit status $?"
[ "$got" = "$expected" ] || fail "version-52 module printed: $got"
echo "ok a module of version-52 classes on the module path"
# The same with its module-info in a multi-release jar's META-INF/versions/9 (as xz ships it).
mkdir -p "$tmp/m8/v9"
cp "$tmp/m8/info/module-info.class" "$tmp/m8/v9/"
rm "$tmp/m8/classes/module-info.class"
printf 'Multi-Release: true\n' >"$tmp/m8/mr.mf"
(cd "$tmp/m8" && jar --create --file m8v.jar --manifest mr.mf -C classes . --release 9 -C v9 .)
"$duplex" instrument "$tmp/m8/m8v.jar" -o "$tmp/m8/m8v-dx.jar" --quiet
got=$(run_module m8v "$tmp/m8/m8v-dx.jar") || fail "versioned module-info: exit status $?"
[ "$got" = "$expected" ] || fail "versioned module-info printed: $got"
echo "ok a module whose module-info is in META-INF/versions/9"

# --- real modular libraries nobody here wrote (Debian's joni and jcodings, module-info at the
# root, and xz, module-info in META-INF/versions/9; classes of versions 51 and 52), used by a
# module of ours: all four rewritten, run from the module path at intervals 1 and 1000 ---
share=${SHARE_JAVA:-/usr/share/java}
if [ -f "$share/joni.jar" ] && [ -f "$share/jcodings.jar" ] && [ -f "$share/xz.jar" ]; then
  use=$tmp/use
  mkdir -p "$use/src/use"
  cat >"$use/src/module-info.java" <<'J'
module use { requires org.jruby.joni; requires org.jruby.jcodings; requires org.tukaani.xz; }
J
  cat >"$use/src/use/Main.java" <<'J'
package use;
import java.io.*;
import java.nio.charset.StandardCharsets;
import org.jcodings.specific.UTF8Encoding;
import org.joni.*;
import org.tukaani.xz.*;
public class Main {
  public static void main(String[] a) throws Exception {
    byte[] pattern = "([a-z]+)@([a-z]+)\\.(com|org)".getBytes(StandardCharsets.UTF_8);
    Regex regex = new Regex(pattern, 0, pattern.length, Option.NONE, UTF8Encoding.INSTANCE);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 500; i++) text.append("user").append((char) ('a' + i % 26)).append("@host").append(i % 2 == 0 ? ".com " : ".org ");
    byte[] t = text.toString().getBytes(StandardCharsets.UTF_8);
    Matcher m = regex.matcher(t);
    int found = 0, at = 0;
    while ((at = m.search(at, t.length, Option.DEFAULT)) >= 0) { found++; at = m.getEnd(); }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (XZOutputStream out = new XZOutputStream(bytes, new LZMA2Options(3))) { out.write(t); }
    ByteArrayOutputStream back = new ByteArrayOutputStream();
    try (XZInputStream in = new XZInputStream(new ByteArrayInputStream(bytes.toByteArray()))) { in.transferTo(back); }
    System.out.println("matches " + found + " round trip " + java.util.Arrays.equals(t, back.toByteArray()));
  }
}
J
  libs="$share/joni.jar:$share/jcodings.jar:$share/xz.jar"
  javac -p "$libs" -d "$use/classes" "$use/src/module-info.java" "$use/src/use/Main.java"
  (cd "$use" && jar --create --file use.jar -C classes .)
  want=$(java -p "$use/use.jar:$libs" -m use/use.Main)
  [ "$want" = "matches 500 round trip true" ] || fail "libraries: unexpected original output: $want"
  dx=""
  for j in "$use/use.jar" "$share/joni.jar" "$share/jcodings.jar" "$share/xz.jar"; do
    out=$use/$(basename "$j" .jar)-dx.jar
    "$duplex" instrument "$j" -o "$out" --quiet
    dx="$dx${dx:+:}$out"
  done
  for interval in 1 1000; do
    # shellcheck disable=SC2086
    got=$(java $verify -Xbootclasspath/a:"$runtime" -Dduplex.interval=$interval \
      -Dduplex.out="$use/p$interval.xml" -p "$dx" -m use/use.Main) ||
      fail "libraries at interval $interval: exit status $?"
    [ "$got" = "$want" ] || fail "libraries at interval $interval printed: $got"
  done
  grep -q 'callee="org/joni/' "$use/p1.xml" && grep -q 'callee="org/tukaani/xz/' "$use/p1.xml" ||
    fail "libraries: no call edges into joni or xz"
  echo "ok Debian's joni, jcodings and xz, rewritten, from the module path: same output"
else
  fail "joni, jcodings or xz not installed in $share (scripts/install-deps.sh --with-tests installs them)"
fi

# --- a jar without a module-info: no prologue; its <clinit>, which call-edge-stack leaves as
# it was but for the site table's registration before it, has its call sites at their own
# offsets (they were reported moved by the registration's 12 bytes until 2026-11-28) ---
(cd "$tmp" && jar --create --file plain.jar -C mods/com.ex com)
"$duplex" instrument "$tmp/plain.jar" -o "$tmp/plain-dx.jar" --quiet
"$duplex" disasm "$tmp/plain-dx.jar" | grep -q 'java/lang/Module.addReads' &&
  fail "a jar without a module-info got the module-reads prologue"
"$duplex" disasm "$tmp/app-dx.jar" | grep -q 'java/lang/Module.addReads' ||
  fail "the modular jar has no module-reads prologue"
echo "ok only classes beside a module-info get the prologue"
"$duplex" instrument "$tmp/plain.jar" -o "$tmp/plain-stack.jar" --profile call-edge-stack --quiet
java -Xbootclasspath/a:"$runtime" -Dduplex.interval=1 -Dduplex.out="$tmp/plain-stack.xml" \
  -Dduplex.profile=call-edge-stack -cp "$tmp/plain-stack.jar" com.ex.Main >/dev/null
edges "$tmp/plain-stack.xml" >"$tmp/plain.edges"
cmp -s "$tmp/jar.edges" "$tmp/plain.edges" ||
  fail "call-edge-stack without a module: $(diff "$tmp/jar.edges" "$tmp/plain.edges" | head -5)"
echo "ok call-edge-stack: a <clinit> left as it was keeps its call sites' offsets"
