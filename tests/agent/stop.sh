#!/bin/sh
# agent-stop: stop (Duplex.stop() and the stop=DURATION option) turns sampling off and
# retransforms the rewritten classes back to their original bytes: afterwards the same code
# executes no check, method entry or back edge count (countChecks, countEdges), and gives the
# same result.
#
#   stop.sh JAVA AGENT_SO TEST_CLASSES WORK_DIR
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 classes=$3 work=$4
fresh_dir "$work"
common="interval=1,countChecks=true,countEdges=true,include=agenttest.*,exclude=agenttest.StopMain"
expect() { # expect FILE LINE
    grep -qxF -- "$2" "$1" || fail "expected '$2' in $1:
$(cat "$1")"
}
# methods: method counters add a field per counting method, which the restored classes keep.
for how in api timer methods; do
    opts="$common,out=$work/$how.xml"
    [ "$how" = timer ] && opts="$opts,stop=300ms,log=info"
    [ "$how" = methods ] && opts="$opts,methodCounters=true"
    main_arg=$how
    [ "$how" = methods ] && main_arg=api
    # shellcheck disable=SC2086
    "$java" $verify_flags "-agentpath:$agent=$opts" -cp "$classes" agenttest.StopMain "$main_arg" \
        >"$work/$how.out" 2>"$work/$how.err" || fail "$how: $(cat "$work/$how.out" "$work/$how.err")"
    grep -q 'before stop: checks>0 true, entries>0 true' "$work/$how.out" || fail "$how: no counts before stop: $(cat "$work/$how.out")"
    expect "$work/$how.out" "interval 0, restored>0 true"
    expect "$work/$how.out" "after stop: checks 0, entries 0, backedges 0, samples 0, same result true"
    [ "$(attr "$work/$how.xml" agent-stopped)" = true ] || fail "$how: profile does not say stopped"
    echo "ok $how: $(attr "$work/$how.xml" agent-classes-restored) classes restored in $(attr "$work/$how.xml" agent-stop-ms) ms"
done
expect "$work/api.out" "stop() = true"
expect "$work/api.out" "stop() again = true"
expect "$work/timer.out" "stopped by the timer"
grep -q 'stopped: sampling off' "$work/timer.err" || fail "timer: no log line"
