#!/bin/sh
# Checks rewritten fixtures against the originals: the rewritten classes must all verify, and
# RunFixtures must print exactly the same for both.
#
#   tests/scripts/compare_fixtures.sh [--java JAVA] [--harness DIR] ORIGINAL_DIR REWRITTEN_DIR
#
# Exit status 0 if both hold; otherwise the verifier report or a diff is printed.
set -eu
. "$(dirname "$0")/java_env.sh"
parse_java_env "$@"
shift "$parsed"
if [ $# -ne 2 ]; then
    echo "usage: compare_fixtures.sh [--java JAVA] [--harness DIR] ORIGINAL_DIR REWRITTEN_DIR" >&2
    exit 2
fi
orig=$1 rewritten=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2086
if ! "$java" $verify_flags -cp "$harness" duplex.test.VerifyAll "$rewritten" >"$tmp/verify" 2>&1; then
    echo "compare_fixtures: $rewritten does not verify:" >&2
    cat "$tmp/verify" >&2
    exit 1
fi
# shellcheck disable=SC2086
"$java" $verify_flags -cp "$harness" duplex.test.RunFixtures "$orig" >"$tmp/orig" 2>&1 || true
# shellcheck disable=SC2086
"$java" $verify_flags -cp "$harness" duplex.test.RunFixtures "$rewritten" >"$tmp/rewritten" 2>&1 || true
if ! diff -u "$tmp/orig" "$tmp/rewritten"; then
    echo "compare_fixtures: behaviour differs between $orig and $rewritten" >&2
    exit 1
fi
echo "compare_fixtures: $(tail -n 1 "$tmp/verify"); $(grep -c '^== ' "$tmp/orig") fixtures behave the same"
