#!/bin/sh
# `duplex instrument` end to end on jars a user brings: a fat jar (jars inside a jar), a
# signed jar and a multi-release jar. Every class entry is rewritten (nested and versioned
# ones too), signatures are removed and the summary says so, every other entry is
# byte-identical, and the rewritten program prints what the original prints. Then the bad
# inputs and options: one clear line, a non-zero exit, no output left behind.
#
#   instrument.sh DUPLEX RUNTIME_JAR
set -eu
duplex=$1 runtime=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# --- a small program in three shapes ---------------------------------------------------
mkdir -p "$tmp/src/app" "$tmp/src/lib" "$tmp/src11/app" "$tmp/classes" "$tmp/lib" "$tmp/v11"
cat >"$tmp/src/lib/Counter.java" <<'J'
package lib;
public class Counter {
  public int n;
  private int adds;
  private static int step(int i) { return i; }
  public void add(int k) { for (int i = 0; i < k; i++) n += i; }
  public static int sum(int k) { int s = 0; for (int i = 0; i < k; i++) s += i; return s; }
  public int added(int k) { adds += k; return step(adds); }
}
J
cat >"$tmp/src/app/Main.java" <<'J'
package app;
public class Main {
  static String where() { return "base"; }
  public static void main(String[] a) {
    lib.Counter c = new lib.Counter(); c.add(1000);
    if (lib.Counter.sum(1000) != c.n) throw new AssertionError();
    System.out.println(where() + " " + c.n + " " + Version.name());
  }
}
J
cat >"$tmp/src/app/Version.java" <<'J'
package app;
public class Version { static String name() { return "v8"; } }
J
cat >"$tmp/src11/app/Version.java" <<'J'
package app;
public class Version { static String name() { return "v11"; } }
J
javac --release 8 -d "$tmp/lib" "$tmp/src/lib/Counter.java"
javac --release 8 -cp "$tmp/lib" -d "$tmp/classes" "$tmp/src/app/Main.java" "$tmp/src/app/Version.java"
javac --release 11 -cp "$tmp/lib:$tmp/classes" -d "$tmp/v11" "$tmp/src11/app/Version.java"
printf 'hello, resource\n' >"$tmp/classes/app/data.txt"
(cd "$tmp" && jar --create --file lib.jar -C lib .)
# Multi-release: app.Version differs for Java 11+.
(cd "$tmp" && printf 'Multi-Release: true\n' >mr.mf &&
  jar --create --file mr.jar --manifest mr.mf -C classes . -C lib . --release 11 -C v11 .)
# Fat: the application's classes plus lib.jar stored inside.
mkdir -p "$tmp/fat/BOOT-INF/lib"
cp "$tmp/lib.jar" "$tmp/fat/BOOT-INF/lib/"
(cd "$tmp" && jar --create --file fat.jar -C classes . -C fat .)
# Signed: a throwaway key.
keytool -genkeypair -keystore "$tmp/ks" -storepass secret1 -keypass secret1 -alias t \
  -dname CN=duplex-test -keyalg RSA -validity 2 >/dev/null 2>&1
(cd "$tmp" && jar --create --file plain.jar -C classes . -C lib .)
cp "$tmp/plain.jar" "$tmp/signed.jar"
jarsigner -keystore "$tmp/ks" -storepass secret1 "$tmp/signed.jar" t >/dev/null 2>&1 ||
  fail "jarsigner could not sign the test jar"

# Entries that must be byte-identical: every non-class entry except signature files and the
# manifest of a signed jar (its digests go with the signature).
check_entries() {  # check_entries IN OUT SIGNED
  unzip -Z1 "$1" | while read -r e; do
    case $e in */) continue ;; esac
    if [ "$3" = yes ]; then
      case $e in META-INF/*.SF | META-INF/*.RSA | META-INF/*.DSA | META-INF/*.EC | META-INF/MANIFEST.MF) continue ;; esac
    fi
    unzip -p "$1" "$e" >"$tmp/a"
    unzip -p "$2" "$e" >"$tmp/b" 2>/dev/null || { echo "missing $e"; return 1; }
    case $e in
    *.class) if cmp -s "$tmp/a" "$tmp/b"; then echo "not rewritten: $e"; return 1; fi ;;
    *.jar) ;;
    *) if ! cmp -s "$tmp/a" "$tmp/b"; then echo "changed: $e"; return 1; fi ;;
    esac
  done
}

expected=$(java -cp "$tmp/mr.jar" app.Main)
[ "$expected" = "base 499500 v11" ] || fail "unexpected original output: $expected"

# --- multi-release ---
"$duplex" instrument "$tmp/mr.jar" -o "$tmp/mr-out.jar" --quiet
check_entries "$tmp/mr.jar" "$tmp/mr-out.jar" no || fail "multi-release entries"
got=$(java -Xbootclasspath/a:"$runtime" -Dduplex.interval=1 -Dduplex.out="$tmp/mr.xml" -cp "$tmp/mr-out.jar" app.Main)
[ "$got" = "$expected" ] || fail "multi-release run printed: $got"
grep -q 'callee="app/Version.name()Ljava/lang/String;"' "$tmp/mr.xml" || fail "versioned class not instrumented"
echo "ok multi-release: versioned classes rewritten, other entries identical, same output"

# --- lazy twins: each twin class beside its host, the same output and the same profile ---
"$duplex" instrument "$tmp/mr.jar" -o "$tmp/mr-lazy.jar" --lazy-twins >"$tmp/lazy.log" 2>&1
grep -q 'twin classes (lazy twins): [1-9]' "$tmp/lazy.log" || fail "lazy summary: $(cat "$tmp/lazy.log")"
unzip -Z1 "$tmp/mr-lazy.jar" | grep -qx 'lib/Counter\$DuplexTwins.class' ||
  fail "no twin class beside lib/Counter: $(unzip -Z1 "$tmp/mr-lazy.jar")"
unzip -Z1 "$tmp/mr-lazy.jar" | grep -q '^META-INF/versions/11/.*DuplexTwins' &&
  fail "a twin class for a versioned class that has no movable twin"
got=$(java -Xbootclasspath/a:"$runtime" -Dduplex.interval=1 -Dduplex.out="$tmp/mr-lazy.xml" -cp "$tmp/mr-lazy.jar" app.Main)
[ "$got" = "$expected" ] || fail "lazy twins run printed: $got"
"$duplex" instrument "$tmp/mr.jar" -o "$tmp/mr-eager.jar" --eager-twins >"$tmp/eager.log" 2>&1
got=$(java -Xbootclasspath/a:"$runtime" -Dduplex.interval=1 -Dduplex.out="$tmp/mr-eager.xml" -cp "$tmp/mr-eager.jar" app.Main)
[ "$got" = "$expected" ] || fail "eager twins run printed: $got"
keys() { grep -E '<(edge|field) ' "$1" | sed 's/^ *//' | sort; }
keys "$tmp/mr-eager.xml" >"$tmp/eager.keys"
keys "$tmp/mr-lazy.xml" >"$tmp/lazy.keys"
keys "$tmp/mr.xml" >"$tmp/default.keys"
[ -s "$tmp/eager.keys" ] && cmp -s "$tmp/eager.keys" "$tmp/lazy.keys" ||
  fail "lazy twins changed the interval-1 profile: $(diff "$tmp/eager.keys" "$tmp/lazy.keys" | head -5)"
echo "ok --lazy-twins: twin classes beside their hosts, same output, same interval-1 profile"

# --- the default: lib/Counter (version 52) keeps its version, and its twin class (no nestmate)
# reaches its private members through bridges; the same output and interval-1 profile ---
unzip -Z1 "$tmp/mr-out.jar" | grep -qx 'lib/Counter\$DuplexTwins.class' ||
  fail "no twin class beside lib/Counter by default: $(unzip -Z1 "$tmp/mr-out.jar")"
versions=$(python3 - "$tmp/mr-out.jar" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for name in ("lib/Counter.class", "lib/Counter$DuplexTwins.class"):
    b = z.read(name)
    print(b[6] << 8 | b[7], end=" ")
PY
)
[ "$versions" = "52 52 " ] || fail "default lazy twins: class versions $versions, expected 52 52"
(cd "$tmp" && rm -rf bridged && mkdir bridged && cd bridged && unzip -q ../mr-out.jar 'lib/*')
"$duplex" disasm "$tmp/bridged/lib/Counter.class" | grep -q 'duplex\$bridge\$' ||
  fail "default lazy twins: lib/Counter has no bridge for its private members"
cmp -s "$tmp/eager.keys" "$tmp/default.keys" ||
  fail "default lazy twins changed the interval-1 profile: $(diff "$tmp/eager.keys" "$tmp/default.keys" | head -5)"
echo "ok default lazy twins: version 52 kept, twin class beside, same interval-1 profile"
# A class stored under another path than its name's (Jython keeps compiled modules under Lib/
# and defines them with a loader of its own) keeps its twins: that loader may not see a twin
# class beside it.
python3 - "$tmp" <<'PY'
import sys, zipfile
tmp = sys.argv[1]
with zipfile.ZipFile(tmp + "/elsewhere.jar", "w") as z:
    z.write(tmp + "/lib/lib/Counter.class", "Lib/lib/Counter.class")
PY
"$duplex" instrument "$tmp/elsewhere.jar" -o "$tmp/elsewhere-out.jar" >"$tmp/elsewhere.log" 2>&1 ||
  fail "elsewhere.jar: $(cat "$tmp/elsewhere.log")"
unzip -Z1 "$tmp/elsewhere-out.jar" | grep -q DuplexTwins && fail "a twin class for a class stored elsewhere"
grep -q "its entry is not at the path its name gives" "$tmp/elsewhere.log" ||
  fail "elsewhere.jar: no reason in the summary: $(cat "$tmp/elsewhere.log")"
echo "ok a class stored under another path than its name's keeps its twins"
# A class whose twin class's name is taken already (a nested class named DuplexTwins) keeps
# its twins, and the user's class stays as it was, in a jar and in a directory; the runtime
# reports that class's frames as its own, not as a twin class's host's (call-edge-stack).
mkdir -p "$tmp/taken/src/t" "$tmp/taken/classes"
cat >"$tmp/taken/src/t/Host.java" <<'J'
package t;
public class Host {
  static int step(int i) { return i & 1; }
  static class DuplexTwins {
    static String who() { int s = 0; for (int i = 0; i < 4; i++) s += step(i); return "the user's DuplexTwins " + s; }
  }
  int run(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
  public static void main(String[] a) { System.out.println(new Host().run(10) + " " + DuplexTwins.who()); }
}
J
javac -d "$tmp/taken/classes" "$tmp/taken/src/t/Host.java"
(cd "$tmp/taken" && jar --create --file taken.jar -C classes .)
for shape in taken.jar classes; do
  "$duplex" instrument "$tmp/taken/$shape" -o "$tmp/taken/out-$shape" >"$tmp/taken.log" 2>&1 ||
    fail "$shape with a class named Host\$DuplexTwins: $(cat "$tmp/taken.log")"
  grep -q "the input holds a class of its twin class's name already" "$tmp/taken.log" ||
    fail "$shape: no reason in the summary: $(cat "$tmp/taken.log")"
  out=$(java -Xverify:all -Dduplex.interval=1 -Xbootclasspath/a:"$runtime" -cp "$tmp/taken/out-$shape" t.Host)
  [ "$out" = "45 the user's DuplexTwins 2" ] || fail "$shape: printed '$out'"
done
"$duplex" instrument "$tmp/taken/taken.jar" -o "$tmp/taken/stack.jar" --profile call-edge-stack --quiet
java -Dduplex.interval=1 -Dduplex.out="$tmp/taken/stack.xml" -Xbootclasspath/a:"$runtime" \
  -cp "$tmp/taken/stack.jar" t.Host >/dev/null
grep -q 'caller-class="t/Host$DuplexTwins" caller-method="who".*callee="t/Host.step(I)I" count="4"' \
  "$tmp/taken/stack.xml" || fail "call-edge-stack: the user's Host\$DuplexTwins not its own caller: $(grep step "$tmp/taken/stack.xml")"
echo "ok a class whose twin class's name is taken keeps its twins (jar and directory)"

# --- twins that stay in their classes: the summary says how to keep C2 from inlining them ---
hint='twins kept in their class may be inlined .*dontinline,\*::\*\$duplex'
grep -q "$hint" "$tmp/eager.log" || fail "no inlining hint with eager twins: $(cat "$tmp/eager.log")"
"$duplex" instrument "$tmp/mr.jar" -o "$tmp/mr-nodup.jar" --mode nodup >"$tmp/nodup.log" 2>&1
grep -q "$hint" "$tmp/nodup.log" && fail "an inlining hint without twins: $(cat "$tmp/nodup.log")"
echo "ok: eager twins come with the JVM option that keeps them from being inlined; nodup without"

# --- lazy twins' class index: its size in the summary; a JDK without jmods is a note, a class
# path that cannot be read an error, and both options need --lazy-twins ---
grep -q 'class index: [1-9][0-9]* classes' "$tmp/lazy.log" || fail "no class index in: $(cat "$tmp/lazy.log")"
"$duplex" instrument "$tmp/mr.jar" -o "$tmp/mr-nojdk.jar" --lazy-twins --java-home "$tmp/no-jdk" >"$tmp/nojdk.log" 2>&1 ||
  fail "--java-home without jmods failed: $(cat "$tmp/nojdk.log")"
grep -q "class index: no JDK classes: $tmp/no-jdk/jmods/java.base.jmod" "$tmp/nojdk.log" ||
  fail "no note for a JDK without jmods: $(cat "$tmp/nojdk.log")"
if "$duplex" instrument "$tmp/mr.jar" -o "$tmp/mr-cp.jar" --lazy-twins --classpath "$tmp/none.jar" >"$tmp/cp.log" 2>&1; then
  fail "an unreadable --classpath entry was accepted"
fi
grep -q "class path: $tmp/none.jar" "$tmp/cp.log" || fail "--classpath error: $(cat "$tmp/cp.log")"
[ ! -e "$tmp/mr-cp.jar" ] || fail "output written despite the --classpath error"
if "$duplex" instrument "$tmp/mr.jar" -o "$tmp/mr-cp.jar" --eager-twins --classpath "$tmp/mr.jar" >"$tmp/cp.log" 2>&1; then
  fail "--classpath with --eager-twins was accepted"
fi
grep -q -- "--classpath and --java-home only serve lazy twins" "$tmp/cp.log" || fail "$(cat "$tmp/cp.log")"
if "$duplex" instrument "$tmp/mr.jar" -o "$tmp/mr-cp.jar" --eager-twins --lazy-twins >"$tmp/cp.log" 2>&1; then
  fail "--eager-twins with --lazy-twins was accepted"
fi
grep -q -- "--lazy-twins and --eager-twins exclude each other" "$tmp/cp.log" || fail "$(cat "$tmp/cp.log")"
echo "ok --lazy-twins class index: summary, --java-home without jmods, --classpath errors"

# --- fat jar ---
"$duplex" instrument "$tmp/fat.jar" -o "$tmp/fat-out.jar" >"$tmp/fat.log" 2>&1
grep -q 'nested jars rewritten: 1' "$tmp/fat.log" || fail "summary lacks the nested jar: $(cat "$tmp/fat.log")"
check_entries "$tmp/fat.jar" "$tmp/fat-out.jar" no || fail "fat jar entries"
unzip -p "$tmp/fat-out.jar" BOOT-INF/lib/lib.jar >"$tmp/inner.jar"
check_entries "$tmp/lib.jar" "$tmp/inner.jar" no || fail "nested jar entries"
echo "ok fat jar: the nested jar's classes rewritten too, other entries identical"

# --- fat jar, Java 11 classes: the class index reads the nested jar too, so a class whose
# superclass is there gets lazy twins beside it in the nested jar ---
mkdir -p "$tmp/src-n/lib2" "$tmp/n11" "$tmp/fat11/BOOT-INF/lib"
printf 'package lib2;\npublic class Base { public int n; }\n' >"$tmp/src-n/lib2/Base.java"
printf 'package lib2;\npublic class Derived extends Base {\n  public void add(int k) { for (int i = 0; i < k; i++) n += i; }\n}\n' \
  >"$tmp/src-n/lib2/Derived.java"
javac --release 11 -d "$tmp/n11" "$tmp/src-n/lib2/Base.java" "$tmp/src-n/lib2/Derived.java"
(cd "$tmp" && jar --create --file fat11/BOOT-INF/lib/lib2.jar -C n11 . &&
  jar --create --file fat11.jar -C classes . -C fat11 .)
"$duplex" instrument "$tmp/fat11.jar" -o "$tmp/fat11-out.jar" >"$tmp/fat11.log" 2>&1 || fail "$(cat "$tmp/fat11.log")"
unzip -p "$tmp/fat11-out.jar" BOOT-INF/lib/lib2.jar >"$tmp/inner11.jar"
unzip -Z1 "$tmp/inner11.jar" | grep -qx 'lib2/Derived\$DuplexTwins.class' ||
  fail "no twin class beside lib2/Derived in the nested jar: $(cat "$tmp/fat11.log")"
grep -q 'not all in the class index' "$tmp/fat11.log" && fail "nested jar not indexed: $(cat "$tmp/fat11.log")"
echo "ok fat jar of Java 11 classes: the nested jar indexed, its class's twins in a twin class"

# --- signed jar ---
"$duplex" instrument "$tmp/signed.jar" -o "$tmp/signed-out.jar" >"$tmp/signed.log" 2>&1
grep -q 'jar signature removed' "$tmp/signed.log" || fail "summary does not say the signature was removed"
unzip -Z1 "$tmp/signed-out.jar" | grep -qE '^META-INF/.*\.(SF|RSA)$' && fail "signature files left in the output"
unzip -p "$tmp/signed-out.jar" META-INF/MANIFEST.MF | grep -q 'Digest' && fail "entry digests left in the manifest"
check_entries "$tmp/signed.jar" "$tmp/signed-out.jar" yes || fail "signed jar entries"
got=$(java -Xbootclasspath/a:"$runtime" -Dduplex.out="$tmp/s.xml" -cp "$tmp/signed-out.jar" app.Main)
[ "$got" = "base 499500 v8" ] || fail "signed run printed: $got"
echo "ok signed jar: signature removed (and said), entries identical, runs"

# --- an executable jar (a launcher script before the zip, as Spring Boot's "fully executable"
# jars have): rewritten past the script, which the output keeps, and still runs as a program ---
printf 'Main-Class: app.Main\n' >"$tmp/exec.mf"
(cd "$tmp" && jar --create --file plain-main.jar --manifest exec.mf -C classes . -C lib .)
printf '#!/bin/sh\nexec java $JAVA_OPTS -jar "$0" "$@"\n' >"$tmp/launch.sh"
cat "$tmp/launch.sh" "$tmp/plain-main.jar" >"$tmp/exec.jar"
chmod 755 "$tmp/exec.jar"
[ "$("$tmp/exec.jar")" = "base 499500 v8" ] || fail "the executable jar does not run as built"
"$duplex" instrument "$tmp/exec.jar" -o "$tmp/exec-out.jar" >"$tmp/exec.log" 2>&1 ||
  fail "executable jar: $(cat "$tmp/exec.log")"
grep -q 'launcher script kept before the jar' "$tmp/exec.log" || fail "exec summary: $(cat "$tmp/exec.log")"
head -c "$(wc -c <"$tmp/launch.sh")" "$tmp/exec-out.jar" | cmp -s - "$tmp/launch.sh" ||
  fail "the launcher script is not kept before the rewritten jar"
[ -x "$tmp/exec-out.jar" ] || fail "the rewritten executable jar is not executable"
got=$(JAVA_OPTS="-Xbootclasspath/a:$runtime -Dduplex.interval=1 -Dduplex.out=$tmp/exec.xml" "$tmp/exec-out.jar")
[ "$got" = "base 499500 v8" ] || fail "the rewritten executable jar printed: $got"
grep -q '<field ' "$tmp/exec.xml" || fail "the rewritten executable jar counted nothing"
echo "ok executable jar: rewritten past its launcher script, which it keeps, and runs"

# --- --jobs: the same jar, byte for byte, whatever the thread count ---
for j in 1 2 5; do
  "$duplex" instrument "$tmp/fat.jar" -o "$tmp/fat-j$j.jar" --quiet --jobs "$j"
done
cmp -s "$tmp/fat-j1.jar" "$tmp/fat-j2.jar" && cmp -s "$tmp/fat-j1.jar" "$tmp/fat-j5.jar" ||
  fail "--jobs 1, 2 and 5 wrote different jars"
check_entries "$tmp/fat.jar" "$tmp/fat-j5.jar" no || fail "--jobs 5 entries"
echo "ok --jobs 1, 2 and 5 write identical jars"
# A jar of more classes than the workers may run ahead of the writer (32 per thread).
h2=/usr/share/java/h2.jar
if [ -f "$h2" ]; then
  for j in 1 2; do
    "$duplex" instrument "$h2" -o "$tmp/h2-j$j.jar" --quiet --jobs "$j"
  done
  cmp -s "$tmp/h2-j1.jar" "$tmp/h2-j2.jar" || fail "h2.jar: --jobs 1 and 2 wrote different jars"
  echo "ok h2.jar ($(unzip -Z1 "$h2" | grep -c '\.class$') classes): --jobs 1 and 2 identical"
fi

# --deflate-level changes how the rewritten classes are compressed, never what they are.
for level in 0 1 6 9; do
  "$duplex" instrument "$tmp/mr.jar" -o "$tmp/mr-l$level.jar" --quiet --deflate-level "$level"
  (cd "$tmp" && rm -rf "unz-$level" && mkdir "unz-$level" && cd "unz-$level" && unzip -q "../mr-l$level.jar")
done
for level in 0 6 9; do
  diff -r "$tmp/unz-1" "$tmp/unz-$level" >/dev/null || fail "--deflate-level $level: other entries than level 1"
done
[ "$(wc -c <"$tmp/mr-l0.jar")" -gt "$(wc -c <"$tmp/mr-l9.jar")" ] || fail "--deflate-level 0 is not larger than 9"
"$duplex" instrument "$tmp/mr.jar" -o "$tmp/mr-default.jar" --quiet
cmp -s "$tmp/mr-default.jar" "$tmp/mr-l0.jar" || fail "the default is not --deflate-level 0"
echo "ok --deflate-level 0, 1, 6, 9: the same entries; 0 is the default"

# --- directory and single class ---
"$duplex" instrument "$tmp/classes" -o "$tmp/dir-out" --quiet
cmp -s "$tmp/classes/app/data.txt" "$tmp/dir-out/app/data.txt" || fail "directory resource changed"
"$duplex" instrument "$tmp/classes/app/Main.class" -o "$tmp/Main.class" --quiet
"$duplex" disasm "$tmp/Main.class" | grep -q 'duplex/runtime/Duplex\.' || fail "class not rewritten"
# Lazy twins: the twin class beside the class, named after it (not after the output file).
"$duplex" instrument "$tmp/lib" -o "$tmp/lib-lazy" --quiet --lazy-twins
[ -f "$tmp/lib-lazy/lib/Counter\$DuplexTwins.class" ] || fail "no twin class in the directory output"
mkdir -p "$tmp/single"
"$duplex" instrument "$tmp/lib/lib/Counter.class" -o "$tmp/single/Renamed.class" --quiet --lazy-twins
[ -f "$tmp/single/Counter\$DuplexTwins.class" ] || fail "single class: twin class misnamed: $(ls "$tmp/single")"
cmp -s "$tmp/single/Counter\$DuplexTwins.class" "$tmp/lib-lazy/lib/Counter\$DuplexTwins.class" ||
  fail "single class: another twin class than the directory's"
echo "ok directory and single class"

# --- duplicate entry names: the JVM reads the last entry of a name, libzip writes one ---
# dup.jar repeats a directory, a resource and a class (v11's Version first, the v8 one last).
python3 - "$tmp" <<'PY'
import sys, warnings, zipfile
warnings.simplefilter("ignore")  # zipfile warns about the duplicate names it writes
tmp = sys.argv[1]
with zipfile.ZipFile(tmp + "/dup.jar", "w") as z:
    z.writestr("app/", b"")
    z.writestr("app/data.txt", b"first\n")
    z.write(tmp + "/v11/app/Version.class", "app/Version.class")
    z.writestr("app/", b"")
    z.write(tmp + "/classes/app/Main.class", "app/Main.class")
    z.write(tmp + "/classes/app/Version.class", "app/Version.class")
    z.writestr("app/data.txt", b"second\n")
PY
[ "$(java -cp "$tmp/dup.jar:$tmp/lib" app.Main)" = "base 499500 v8" ] || fail "dup.jar: the JVM read another entry"
"$duplex" instrument "$tmp/dup.jar" -o "$tmp/dup-out.jar" >"$tmp/dup.txt" 2>&1 || fail "dup.jar: $(cat "$tmp/dup.txt")"
grep -q "duplicate entries left out: 3" "$tmp/dup.txt" || fail "dup.jar: summary: $(cat "$tmp/dup.txt")"
[ "$(unzip -Z1 "$tmp/dup-out.jar" | tr '\n' ' ')" = "app/ app/Main.class app/Main\$DuplexTwins.class app/Version.class app/data.txt " ] ||
  fail "dup.jar: entries $(unzip -Z1 "$tmp/dup-out.jar" | tr '\n' ' ')"
[ "$(unzip -p "$tmp/dup-out.jar" app/data.txt)" = "second" ] || fail "dup.jar: not the last data.txt"
[ "$(java -Xbootclasspath/a:"$runtime" -Dduplex.out="$tmp/dup.xml" -cp "$tmp/dup-out.jar:$tmp/lib" app.Main)" = "base 499500 v8" ] ||
  fail "dup.jar: the rewritten program printed something else"
echo "ok duplicate entry names"

# --- refusing a rewritten input ---
status=0
"$duplex" instrument "$tmp/mr-out.jar" -o "$tmp/twice.jar" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] || fail "rewriting a rewritten jar exited $status"
grep -q 'already rewritten by duplex' "$tmp/err" || fail "no clear message: $(cat "$tmp/err")"
[ -e "$tmp/twice.jar" ] && fail "output left behind after refusal"
echo "ok a rewritten jar is refused"

# --- bad inputs and options: one line on stderr, non-zero exit, no output ---
printf 'not a zip\n' >"$tmp/bad.jar"
head -c 300 "$tmp/plain.jar" >"$tmp/truncated.jar"
mkdir -p "$tmp/notempty" && touch "$tmp/notempty/x"
bad() {  # bad EXPECTED_STATUS OUTPUT ARGS...
  want=$1 out=$2
  shift 2
  status=0
  "$duplex" instrument "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" || status=$?
  [ "$status" -eq "$want" ] || fail "instrument $*: exit $status, expected $want"
  [ "$(wc -l <"$tmp/err.txt")" -eq 1 ] || fail "instrument $*: stderr is not one line: $(cat "$tmp/err.txt")"
  if [ -n "$out" ] && [ -e "$out" ] && [ "$out" != "$tmp/notempty" ]; then fail "instrument $*: left $out behind"; fi
  ls "$tmp" | grep -q 'duplex-tmp\|\.tmp' && fail "instrument $*: left a temp file"
  echo "  ok: $(cat "$tmp/err.txt")"
}
bad 2 "" 
bad 2 "" "$tmp/plain.jar"
bad 2 "$tmp/o1.jar" "$tmp/plain.jar" -o "$tmp/o1.jar" --mode fastest
bad 2 "$tmp/o2.jar" "$tmp/plain.jar" -o "$tmp/o2.jar" --profile call-edges
bad 2 "$tmp/o3.jar" "$tmp/plain.jar" -o "$tmp/o3.jar" --bogus
bad 2 "$tmp/o4.jar" "$tmp/plain.jar" -o "$tmp/o4.jar" --jobs 0
bad 2 "$tmp/o4.jar" "$tmp/plain.jar" -o "$tmp/o4.jar" --caller-sampled-bytes many
bad 2 "$tmp/o4.jar" "$tmp/plain.jar" -o "$tmp/o4.jar" --caller-sampled-bytes 70000
bad 2 "$tmp/o4.jar" "$tmp/plain.jar" -o "$tmp/o4.jar" --deflate-level 10
bad 2 "$tmp/o4.jar" "$tmp/plain.jar" -o "$tmp/o4.jar" --deflate-level fast
bad 2 "$tmp/o4.jar" "$tmp/plain.jar" -o "$tmp/o4.jar" --method-counters --layout inline
bad 2 "$tmp/o4.jar" "$tmp/plain.jar" -o "$tmp/o4.jar" --method-counters --check local
bad 2 "$tmp/o4.jar" "$tmp/plain.jar" -o "$tmp/o4.jar" --stripe-in-local --layout handback
bad 2 "" "$tmp/plain.jar" -o
bad 1 "$tmp/o4.jar" "$tmp/missing.jar" -o "$tmp/o4.jar"
bad 1 "$tmp/o5.jar" "$tmp/bad.jar" -o "$tmp/o5.jar"
bad 1 "$tmp/o6.jar" "$tmp/truncated.jar" -o "$tmp/o6.jar"
bad 1 "$tmp/notempty" "$tmp/classes" -o "$tmp/notempty"
bad 1 "" "$tmp/plain.jar" -o "$tmp/plain.jar"
bad 2 "$tmp/o7.jar" "$tmp/plain.jar" -o "$tmp/o7.jar" --layout inline --lazy-twins
cp "$tmp/plain.jar" "$tmp/java.demo.jmod"
bad 1 "$tmp/o8.jmod" "$tmp/java.demo.jmod" -o "$tmp/o8.jmod"
grep -q 'a JDK module (.jmod) cannot be rewritten offline' "$tmp/err.txt" || fail "jmod: $(cat "$tmp/err.txt")"
[ "$(java -cp "$tmp/plain.jar" app.Main)" = "base 499500 v8" ] || fail "the input was modified"
echo "ok bad inputs and options"

# --- `--name=value` is the same option as `--name value` ---
"$duplex" instrument "$tmp/plain.jar" -o "$tmp/spaced.jar" --mode nodup --profile field-access --quiet
"$duplex" instrument "$tmp/plain.jar" --output="$tmp/joined.jar" --mode=nodup --profile=field-access --quiet
cmp -s "$tmp/spaced.jar" "$tmp/joined.jar" || fail "--name=value rewrote differently from --name value"
bad 2 "$tmp/o7.jar" "$tmp/plain.jar" -o "$tmp/o7.jar" --quiet=yes
echo "ok --name=value"
