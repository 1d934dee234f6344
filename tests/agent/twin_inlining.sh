#!/bin/sh
# agent-twin-inlining: the agent's twins stay in their classes, so it keeps C2 from inlining them
# into their callers' sample paths with a compiler directive (runtime/agent/twin_inlining.h).
# The probe (tests/rewriter/notinlined) calls a small method whose twin, at interval 1, is called
# as often as a call gets; checks-only twins are small enough that C2 inlines them when allowed:
# - by default, C2 meets the twin's call and refuses it for the directive, and the profile says
#   the directive was added (its temporary file in a $TMPDIR with a space, and removed);
# - with inlineTwins=true C2 inlines it (the control: without it the first check proves nothing);
# - with compiler directives of the user's own, the agent leaves them alone and says so in one
#   line; with a mode that makes no twins, or under -Xint, it adds nothing and says nothing.
# The output is the original's every time, and every class is verified.
#
#   twin_inlining.sh JAVA AGENT_SO PROBE_CLASSES WORK_DIR
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 classes=$3 work=$4
fresh_dir "$work"

"$java" -cp "$classes" notinlined.HotSample >"$work/plain.out"

# probe NAME OPTIONS [JVM FLAGS...]: the probe under the agent with C2's inlining decisions in
# $work/NAME.err and the profile in $work/NAME.xml; $TMPDIR is $probe_tmp if set.
probe() {
    name=$1 options=$2
    shift 2
    # shellcheck disable=SC2086
    env TMPDIR="${probe_tmp:-${TMPDIR:-/tmp}}" "$java" $verify_flags -Xbatch -XX:+PrintInlining -XX:+DisplayVMOutputToStderr "$@" \
        "-agentpath:$agent=$options,interval=1,out=$work/$name.xml" -cp "$classes" \
        notinlined.HotSample >"$work/$name.out" 2>"$work/$name.err" ||
        fail "$name: exit status $?: $(tail -n 5 "$work/$name.err")"
    cmp -s "$work/plain.out" "$work/$name.out" || fail "$name: output differs from the plain run"
}
twin_calls() { grep -E 'notinlined\.HotSample::sum\$duplex \(' "$work/$1.err" || true; }

probe_tmp="$work/tmp dir"
mkdir "$probe_tmp"
probe checks mode=checks
probe_tmp=
[ -z "$(ls "$work/tmp dir")" ] || fail "checks: left in \$TMPDIR: $(ls "$work/tmp dir")"
calls=$(twin_calls checks)
[ -n "$calls" ] || fail "checks: no compilation reached the call of sum\$duplex"
if echo "$calls" | grep -Eq 'bytes\)[[:space:]]+inline'; then
    fail "checks: sum\$duplex was inlined: $calls"
fi
echo "$calls" | grep -vq 'disallowed by CompileCommand' &&
    fail "checks: C2 refused sum\$duplex for another reason: $calls"
[ "$(attr "$work/checks.xml" agent-twin-directive)" = added ] ||
    fail "checks: the profile says: $(attr "$work/checks.xml" agent-twin-directive)"
echo "ok: C2 met sum\$duplex $(echo "$calls" | wc -l) times and never inlined it"

probe control mode=checks,inlineTwins=true
twin_calls control | grep -Eq 'bytes\)[[:space:]]+inline \(hot\)' ||
    fail "control: without the directive C2 did not inline sum\$duplex either: $(twin_calls control)"
[ "$(attr "$work/control.xml" agent-twin-directive)" = "not added: inlineTwins=true" ] ||
    fail "control: the profile says: $(attr "$work/control.xml" agent-twin-directive)"
echo "ok: with inlineTwins=true C2 inlined sum\$duplex"

echo '[{ match: "java/lang/String.*", c2: { BackgroundCompilation: false } }]' >"$work/user.json"
probe user mode=full -XX:CompilerDirectivesFile="$work/user.json"
lines=$(grep -c '^duplex agent: twins may be inlined' "$work/user.err" || true)
[ "$lines" = 1 ] || fail "user: expected one line saying the directive was not added, got $lines"
attr "$work/user.xml" agent-twin-directive | grep -q '^not added: the JVM has compiler directives' ||
    fail "user: the profile says: $(attr "$work/user.xml" agent-twin-directive)"
echo "ok: the user's own directives were left alone, in one line"

probe nodup mode=nodup
grep -q '^duplex agent: twins' "$work/nodup.err" && fail "nodup: a line about twins"
[ "$(attr "$work/nodup.xml" agent-twin-directive)" = "not added: mode nodup makes no twins" ] ||
    fail "nodup: the profile says: $(attr "$work/nodup.xml" agent-twin-directive)"
echo "ok: nodup makes no twins and adds no directive"

probe xint mode=full -Xint
grep -q '^duplex agent: twins' "$work/xint.err" && fail "xint: a line about twins"
[ "$(attr "$work/xint.xml" agent-twin-directive)" = "not added: the JVM compiles nothing (-Xint)" ] ||
    fail "xint: the profile says: $(attr "$work/xint.xml" agent-twin-directive)"
echo "ok: an interpreting JVM gets no directive"
