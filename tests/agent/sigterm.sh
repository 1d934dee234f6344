#!/bin/sh
# agent-sigterm: a JVM running rewritten code under the agent and killed with SIGTERM still
# writes a complete profile (the runtime's shutdown hook), with the agent's statistics.
#
#   sigterm.sh JAVA AGENT_SO TEST_CLASSES WORK_DIR
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 classes=$3 work=$4
fresh_dir "$work"
# shellcheck disable=SC2086
"$java" $verify_flags "-agentpath:$agent=interval=1,include=agenttest.*,out=$work/p.xml" \
    -cp "$classes" agenttest.Spin >"$work/out" 2>"$work/err" &
pid=$!
i=0
until grep -q ready "$work/out" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 600 ] || { kill -9 $pid; fail "never ready: $(cat "$work/err")"; }
    kill -0 $pid 2>/dev/null || fail "died early: $(cat "$work/err")"
    sleep 0.1
done
kill -TERM $pid
set +e
wait $pid
rc=$?
set -e
[ $rc -eq 143 ] || fail "exit status $rc, expected 143 (SIGTERM): $(cat "$work/err")"
p=$work/p.xml
[ -f "$p" ] || fail "no profile"
tail -n 1 "$p" | grep -q '^</duplex-profile>$' || fail "profile incomplete"
grep -q '<edge .*caller-class="agenttest/Spin"' "$p" || fail "no call edges from Spin"
[ "$(attr "$p" reason)" = exit ] || fail "reason is not exit"
[ "$(attr "$p" agent-classes-rewritten)" -ge 2 ] || fail "agent statistics missing"
ls "$work"/.p.xml.*.tmp >/dev/null 2>&1 && fail "temporary files left behind"
echo "ok: complete profile after SIGTERM ($(grep -c '<edge ' "$p") edges)"
