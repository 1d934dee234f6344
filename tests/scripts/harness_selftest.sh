#!/bin/sh
# meson test 'java-harness-selftest': proves duplex.test.VerifyAll really verifies.
#   harness_selftest.sh JAVA HARNESS_DIR FIXTURES_DIR SELFTEST_DIR VERIFY_DIR_SH
# The SELFTEST_DIR inputs are written by tests/java/gen/duplex/gen/GenClasses.java (selftest).
set -u
java=$1 harness=$2 fixtures=$3 selftest=$4 verify_sh=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "NOT OK: $*"
    failures=$((failures + 1))
}

# run NAME EXPECTED_STATUS ARGS...: runs verify_dir.sh, keeps stdout in $tmp/NAME.
run() {
    name=$1 want=$2
    shift 2
    sh "$verify_sh" --java "$java" --harness "$harness" "$@" >"$tmp/$name" 2>"$tmp/$name.err"
    got=$?
    echo "--- $name (exit $got): $*"
    cat "$tmp/$name"
    if [ "$got" -ne "$want" ]; then
        cat "$tmp/$name.err"
        fail "$name: exit status $got, wanted $want"
    fi
}

# has NAME LINE_REGEX: some line of $tmp/NAME matches.
has() {
    grep -Eq -- "$2" "$tmp/$1" || fail "$1: no line matching /$2/"
}

hasnt() {
    if grep -Eq -- "$2" "$tmp/$1"; then fail "$1: unexpected line matching /$2/"; fi
}

# 1. The unmodified fixtures all verify, every one of their class files.
count=$(find "$fixtures" -name '*.class' | wc -l | tr -d ' ')
[ "$count" -ge 30 ] || fail "only $count fixture classes"
run fixtures 0 "$fixtures"
has fixtures "^verified $count classes, 0 failed, 0 skipped \\(missing dependency\\)\$"
hasnt fixtures '^(FAIL|SKIP) '

# 2. Broken classes fail, with the verifier's own messages (split verifier for major 52, the old
#    inference verifier for major 49); valid neighbours pass and no <clinit> runs (InitBomb
#    would exit 97).
for input in broken broken.jar; do
    run "$input" 1 "$selftest/$input"
    has "$input" '^FAIL selftest\.Broken: java\.lang\.VerifyError: Operand stack underflow'
    has "$input" '^FAIL selftest\.BadType: java\.lang\.VerifyError: Bad type on operand stack'
    has "$input" '^FAIL selftest\.OldBroken: java\.lang\.VerifyError: .*Unable to pop operand off an empty stack'
    hasnt "$input" '^FAIL selftest\.(Good|InitBomb)'
    has "$input" '^verified 5 classes, 3 failed, 0 skipped \(missing dependency\)$'
done

# 3. Control: loading alone (Class.forName without linking) lets the broken classes through,
#    so it is the forced linking that makes the verifier run.
run broken-nolink 0 --no-link "$selftest/broken"
has broken-nolink '^verified 5 classes, 0 failed, 0 skipped \(missing dependency\)$'

# 4. Missing dependencies are skipped, not failed: a missing superclass, and a class the
#    verifier itself must load for an assignability check. A missing type that only appears
#    in a member signature does not prevent verification.
run deps 0 --verbose "$selftest/deps"
has deps '^SKIP selftest\.ExtendsMissing: missing dependency selftest\.Missing1$'
has deps '^SKIP selftest\.VerifierNeedsMissing: missing dependency selftest\.Missing2$'
has deps '^OK selftest\.SignatureMissing$'
has deps '^OK selftest\.InitBomb$'
has deps '^verified 3 classes, 0 failed, 2 skipped \(missing dependency\)$'

# 5. Major 50: HotSpot falls back to the old verifier when the StackMapTable is wrong, so
#    BadFrames50 passes by default; --strict-v50 re-checks without the fallback.
run v50 0 --verbose "$selftest/v50"
has v50 '^OK selftest\.BadFrames50$'
run v50-strict 1 --verbose --strict-v50 "$selftest/v50"
has v50-strict '^FAIL selftest\.BadFrames50: java\.lang\.VerifyError: Inconsistent stackmap frames'
has v50-strict '^OK selftest\.Frames50$'

# 6. JDK classes through --patch-module in a child JVM (boot and platform loaders): real JDK
#    classes and new java.util classes pass, a broken java.util class fails. Boot classes are
#    only verified because of -XX:+BytecodeVerificationLocal.
run jdk-good 0 --jdk --verbose "$selftest/jdk-good"
has jdk-good '^OK java\.util\.DuplexGood$'
has jdk-good '^OK java\.util\.DuplexInitBomb$'
has jdk-good '^OK java\.sql\.Timestamp$'
has jdk-good '^verified 7 classes, 0 failed, 0 skipped \(missing dependency\)$'
run jdk-broken 1 --jdk "$selftest/jdk-broken"
has jdk-broken '^FAIL java\.util\.DuplexBroken: java\.lang\.VerifyError: Operand stack underflow'
has jdk-broken '^verified 2 classes, 1 failed, 0 skipped \(missing dependency\)$'

# 7. java.* classes cannot be defined by an application loader: reported, pointing to --jdk.
run jdk-as-app 1 "$selftest/jdk-broken/java.base"
has jdk-as-app '^FAIL java\.util\.DuplexBroken: java\.lang\.SecurityException: Prohibited package name.*--jdk'

# 8. The input and its class path (--cp) share one loader, as a class path does: a package split
#    across them stays one runtime package (Sub extends the class path's package-private Base),
#    a class path class extending an input class links against it (Impl, loaded to check Make),
#    and a valid class path copy of a name never shadows the input's broken class.
run split 1 --verbose --cp "$selftest/split/dep" "$selftest/split/in"
has split '^OK selftest\.split\.Sub$'
has split '^OK selftest\.split\.Make$'
has split '^FAIL selftest\.split\.Broken: java\.lang\.VerifyError: Operand stack underflow'
has split '^verified 4 classes, 1 failed, 0 skipped \(missing dependency\)$'

# 9. VerifyAll refuses to run in a JVM that would not verify everything.
"$java" -cp "$harness" duplex.test.VerifyAll "$fixtures" >"$tmp/noflags" 2>&1
got=$?
echo "--- noflags (exit $got)"
cat "$tmp/noflags"
[ "$got" -eq 2 ] || fail "noflags: exit status $got, wanted 2"
has noflags 'does not verify every class'

if [ "$failures" -ne 0 ]; then
    echo "java-harness-selftest: $failures check(s) failed"
    exit 1
fi
echo "java-harness-selftest: all checks passed"
