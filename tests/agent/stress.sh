#!/bin/sh
# agent-stress: parallel class loading under the agent. Many threads define the fixtures
# through many loaders (private and shared parallel-capable ones) and run them; the summary
# must equal the one of a plain run, every fixture's output must match its reference, and the
# agent must have rewritten the classes without failures. Twice more with cache=DIR: threads
# store the same entries at once, then every class comes from the cache.
#
#   stress.sh JAVA AGENT_SO TEST_CLASSES FIXTURES_DIR WORK_DIR
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 classes=$3 fixtures=$4 work=$5
fresh_dir "$work"
args="$fixtures 8 6 3"
# shellcheck disable=SC2086
"$java" $verify_flags -cp "$classes" agenttest.LoadStress $args >"$work/plain.out" 2>&1 ||
    fail "plain run: $(head -n 20 "$work/plain.out")"
cache="cache=$work/cache"
for opts in "mode=full,interval=1" "mode=auto,interval=3,counter=striped" "mode=nodup,interval=1" \
    "mode=full,interval=1,$cache" "mode=full,interval=2,$cache"; do
    name=$(echo "$opts" | sed 's|cache=.*|cached|' | tr ',=' '__')
    # shellcheck disable=SC2086
    "$java" $verify_flags "-agentpath:$agent=$opts,include=fixtures.*,out=$work/$name.xml" \
        -cp "$classes" agenttest.LoadStress $args >"$work/$name.out" 2>"$work/$name.err" ||
        fail "$opts: $(head -n 20 "$work/$name.out") $(head -n 5 "$work/$name.err")"
    cmp -s "$work/plain.out" "$work/$name.out" ||
        fail "$opts: summary differs: $(diff "$work/plain.out" "$work/$name.out")"
    rewritten=$(attr "$work/$name.xml" agent-classes-rewritten)
    failed=$(attr "$work/$name.xml" agent-classes-failed)
    [ "$failed" = 0 ] || fail "$opts: $failed classes failed: $(grep 'cannot rewrite' "$work/$name.err" | head -n 3)"
    [ "${rewritten:-0}" -gt 1000 ] || fail "$opts: only $rewritten classes rewritten"
    echo "ok $opts: $(tail -n 1 "$work/$name.out"); $rewritten classes rewritten in $(attr "$work/$name.xml" agent-transform-ms) ms, slowest $(attr "$work/$name.xml" agent-transform-max-ms) ms"
done
hits=$(attr "$work/mode_full_interval_2_cached.xml" agent-cache-hits)
misses=$(attr "$work/mode_full_interval_2_cached.xml" agent-cache-misses)
[ "$misses" = 0 ] && [ "${hits:-0}" -gt 1000 ] ||
    fail "cache: the second run should take every class from the cache: $hits hits, $misses misses"
echo "ok cache: second run, $hits classes from the cache"
