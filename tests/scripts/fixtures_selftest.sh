#!/bin/sh
# meson test 'java-fixtures-run': the fixtures exist with the intended class-file versions, run
# without throwing, print deterministic output, and the generated jsr/ret classes compute their
# known result.
#   fixtures_selftest.sh JAVA HARNESS_DIR FIXTURES_DIR COMPARE_FIXTURES_SH "CLASS..."
set -u
java=$1 harness=$2 fixtures=$3 compare_sh=$4 classes=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "NOT OK: $*"
    failures=$((failures + 1))
}

major() {
    od -An -j6 -N2 -tu1 "$1" | awk '{ print $1 * 256 + $2 }'
}

# 1. Every listed fixture class exists; versions are as intended.
for c in $classes; do
    f="$fixtures/$(echo "$c" | tr . /).class"
    [ -f "$f" ] || fail "missing $f"
done
for spec in Loops:52 NestedTry:52 Fields:61 Modern17:61 OldJsr:49 OldJsr46:46; do
    name=${spec%:*} want=${spec#*:}
    got=$(major "$fixtures/fixtures/$name.class")
    echo "fixtures.$name major $got"
    [ "$got" = "$want" ] || fail "fixtures.$name has major version $got, wanted $want"
done
for old in OldJsr OldJsr46; do
    if grep -q StackMapTable "$fixtures/fixtures/$old.class"; then
        fail "fixtures.$old has a StackMapTable"
    fi
done
grep -q StackMapTable "$fixtures/fixtures/Loops.class" || fail "fixtures.Loops lacks a StackMapTable"

# 2. Everything runs without throwing; the generated classes give their known result.
sh "$(dirname "$compare_sh")/run_fixtures.sh" --java "$java" --harness "$harness" "$fixtures" >"$tmp/out" 2>&1
got=$?
cat "$tmp/out"
[ "$got" -eq 0 ] || fail "RunFixtures exit status $got"
if grep -q '^!! ' "$tmp/out"; then fail "a fixture threw"; fi
for old in OldJsr OldJsr46; do
    sed -n "/^== fixtures\.$old\$/,/^== /p" "$tmp/out" | grep -qx 'run() = 1210019' \
        || fail "fixtures.$old.run() did not return 1210019"
done
for c in $classes; do
    grep -qx "== $c" "$tmp/out" || fail "RunFixtures did not run $c"
done

# 3. Comparing the fixtures with themselves passes (verification + identical output twice).
sh "$compare_sh" --java "$java" --harness "$harness" "$fixtures" "$fixtures" || fail "compare_fixtures.sh"

if [ "$failures" -ne 0 ]; then
    echo "java-fixtures-run: $failures check(s) failed"
    exit 1
fi
echo "java-fixtures-run: all checks passed"
