# Shared by the agent test scripts: JVM flags and helpers.
# Every run of rewritten classes verifies them (the unlock flag must come first).
verify_flags="-XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# fresh_dir DIR: an empty work directory.
fresh_dir() {
    rm -rf "$1"
    mkdir -p "$1"
}

# attr FILE NAME: the value of attribute NAME of the profile's <run> element.
attr() {
    sed -n "s/.*<run .* $2=\"\([^\"]*\)\".*/\1/p" "$1" | head -n 1
}

# plain_fixtures_run: the fixtures without the agent, into $work/plain.out: what every run under
# the agent must print. Uses $java, $harness, $fixtures and $work.
plain_fixtures_run() {
    # shellcheck disable=SC2086
    "$java" $verify_flags -cp "$harness" duplex.test.RunFixtures "$fixtures" >"$work/plain.out" \
        2>"$work/plain.err" || fail "plain run failed: $(cat "$work/plain.err")"
}

# agent_fixtures_run NAME OPTIONS [CLASSPATH]: the fixtures under the agent (profile in
# $work/NAME.xml, -cp CLASSPATH, default $harness); fails unless the run prints what the plain
# run printed and no class failed to rewrite. Uses $agent too.
agent_fixtures_run() {
    # shellcheck disable=SC2086
    "$java" $verify_flags "-agentpath:$agent=$2,out=$work/$1.xml" \
        -cp "${3:-$harness}" duplex.test.RunFixtures "$fixtures" >"$work/$1.out" 2>"$work/$1.err" ||
        fail "$1: exit status $? ($2): $(cat "$work/$1.err")"
    cmp -s "$work/plain.out" "$work/$1.out" ||
        fail "$1: output differs from the plain run: $(diff "$work/plain.out" "$work/$1.out" | head -n 10)"
    [ "$(attr "$work/$1.xml" agent-classes-failed)" = 0 ] || fail "$1: classes failed"
}
