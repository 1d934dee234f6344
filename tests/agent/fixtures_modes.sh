#!/bin/sh
# agent-fixtures: the fixtures under the agent, in every mode and with several runtime
# settings, print exactly what a plain run prints (all classes verified); every profile is
# complete, has call edges and field accesses (except mode=checks, which instruments nothing),
# and says how many classes were rewritten. The native stack path and StackWalker give the same
# call edges.
#
#   fixtures_modes.sh JAVA AGENT_SO HARNESS_DIR FIXTURES_DIR WORK_DIR
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 harness=$3 fixtures=$4 work=$5
fresh_dir "$work"

plain_fixtures_run

status=0
run() { # run NAME OPTIONS: the fixtures under the agent
    name=$1 opts=$2 bad=0
    # shellcheck disable=SC2086
    "$java" $verify_flags "-agentpath:$agent=$opts,out=$work/$name.xml" \
        -cp "$harness" duplex.test.RunFixtures "$fixtures" >"$work/$name.out" 2>"$work/$name.err" ||
        { echo "FAIL $name: exit status $? ($opts)"; bad=1; }
    if ! cmp -s "$work/plain.out" "$work/$name.out"; then
        echo "FAIL $name: output differs from the plain run ($opts):"
        diff "$work/plain.out" "$work/$name.out" | head -n 10
        bad=1
    fi
    p=$work/$name.xml
    if [ ! -f "$p" ] || ! tail -n 1 "$p" | grep -q '</duplex-profile>'; then
        echo "FAIL $name: no complete profile"; status=1; return
    fi
    rewritten=$(attr "$p" agent-classes-rewritten)
    failed=$(attr "$p" agent-classes-failed)
    [ "${rewritten:-0}" -gt 20 ] || { echo "FAIL $name: only '${rewritten}' classes rewritten"; bad=1; }
    [ "$failed" = 0 ] || { echo "FAIL $name: $failed classes failed:"; grep 'cannot rewrite' "$work/$name.err" | head -n 5; bad=1; }
    [ -n "$(attr "$p" agent-transform-ms)" ] || { echo "FAIL $name: no transform time"; bad=1; }
    [ -n "$(attr "$p" agent-transform-cpu-ms)" ] || { echo "FAIL $name: no transform CPU time"; bad=1; }
    case $opts in
    *mode=checks*) ;;  # instruments nothing
    *interval=1,*)     # every check samples: every kind of event is seen
        grep -q '<edge ' "$p" || { echo "FAIL $name: no call edges in the profile"; bad=1; }
        grep -q '<field ' "$p" || { echo "FAIL $name: no field accesses in the profile"; bad=1; }
        ;;
    esac
    [ $bad = 0 ] || { status=1; return; }
    echo "ok $name: $rewritten classes rewritten in $(attr "$p" agent-transform-ms) ms, $(grep -c '<edge ' "$p") edges, $(grep -c '<field ' "$p") fields ($opts)"
}

for mode in full partial nodup exhaustive checks auto; do
    run "$mode" "mode=$mode,interval=1,include=fixtures.*"
done
run full-default "mode=full"
run full-jitter-striped "mode=full,interval=7,jitter=0.5,seed=3,counter=striped,log=quiet"
run full-timer "mode=full,trigger=timer,timerMs=1"
run nodup-countchecks "mode=nodup,interval=3,countChecks=true,countEdges=true,include=fixtures.*"
run full-everything "mode=full,interval=1,profile=call-edge+field-access,include=fixtures.*,include=duplex.test.*,exclude=fixtures.Loops"
run full-walker "mode=full,interval=1,include=fixtures.*,nativeStack=false"
# The rewriter's tuning options, as `duplex instrument` takes them.
run full-local "mode=full,interval=1,check=local,include=fixtures.*"
run full-handback "mode=full,interval=1,layout=handback,check=inline,include=fixtures.*"
run full-counting "mode=full,interval=1,flagCheckBytes=0,include=fixtures.*"
run full-callers "mode=full,interval=1,callerSampledBytes=325,include=fixtures.*"
run full-method-counters "mode=full,interval=1,methodCounters=true,include=fixtures.*"
run full-stripe-local "mode=full,interval=1,stripeInLocal=true,include=fixtures.*"
run checks-local-sampled "mode=checks,interval=1000,check=local,callerSampledBytes=325"
# jdk=true: bootstrap classes of java.base (a named module) rewritten and reading the runtime.
run auto-jdk "mode=auto,interval=1,jdk=true,include=fixtures.*,include=java.util.*,include=java.text.*"

# The two ways of finding a call edge's caller must agree.
edges() { sed -n '/<call-edges/,/<\/call-edges>/p' "$1"; }
edges "$work/full.xml" >"$work/native.edges"
edges "$work/full-walker.xml" >"$work/walker.edges"
if ! cmp -s "$work/native.edges" "$work/walker.edges"; then
    echo "FAIL: call edges differ between nativeStack=true and StackWalker:"
    diff "$work/walker.edges" "$work/native.edges" | head -n 10
    status=1
fi
# Loop budgets sample the same checks as the call form, and method counters sample every check at
# interval 1 as the shared counter does: the same profile.
for variant in full-local full-method-counters; do
    for f in call-edges field-accesses; do
        sed -n "/<$f/,/<\/$f>/p" "$work/full.xml" >"$work/full.$f"
        sed -n "/<$f/,/<\/$f>/p" "$work/$variant.xml" >"$work/$variant.$f"
        [ -s "$work/full.$f" ] && cmp -s "$work/full.$f" "$work/$variant.$f" || {
            echo "FAIL: $f differ between $variant and the default:"
            diff "$work/full.$f" "$work/$variant.$f" | head -n 10
            status=1
        }
    done
done
exit $status
