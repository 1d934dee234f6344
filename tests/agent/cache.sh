#!/bin/sh
# agent-cache: cache=DIR. The first run rewrites every class and stores it; the next run takes
# every class from the directory (no rewriting), prints the same as a plain run and records the
# same call edges; damaged entries are misses that get rewritten and stored again; other
# rewrite options never read the entries of these; a directory that cannot be used is reported
# in one line and the program runs on without it. Every class is verified.
#
#   cache.sh JAVA AGENT_SO HARNESS_DIR FIXTURES_DIR WORK_DIR
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 harness=$3 fixtures=$4 work=$5
fresh_dir "$work"
cache=$work/cache

plain_fixtures_run

run() { agent_fixtures_run "$1" "$2"; }
expect_counts() { # expect_counts NAME HITS MISSES
    hits=$(attr "$work/$1.xml" agent-cache-hits) misses=$(attr "$work/$1.xml" agent-cache-misses)
    [ "$hits" = "$2" ] && [ "$misses" = "$3" ] ||
        fail "$1: expected $2 hits and $3 misses, got '$hits' and '$misses'"
}
edges() { sed -n '/<call-edges/,/<\/call-edges>/p' "$1"; }

opts="mode=full,interval=1,include=fixtures.*,cache=$cache"
run cold "$opts"
seen=$(( $(attr "$work/cold.xml" agent-classes-rewritten) + $(attr "$work/cold.xml" agent-classes-unchanged) ))
[ "$seen" -gt 20 ] || fail "cold: only $seen classes went through the rewriter"
expect_counts cold 0 "$seen"
entries=$(find "$cache" -type f ! -name README | wc -l)
[ "$entries" -eq "$seen" ] || fail "cold: $entries entries stored for $seen classes"
echo "ok cold: $seen classes rewritten and stored in $(attr "$work/cold.xml" agent-transform-ms) ms"

run warm "$opts"
expect_counts warm "$seen" 0
edges "$work/cold.xml" >"$work/cold.edges"
edges "$work/warm.xml" >"$work/warm.edges"
[ -s "$work/cold.edges" ] || fail "cold: no call edges"
cmp -s "$work/cold.edges" "$work/warm.edges" ||
    fail "warm: call edges differ: $(diff "$work/cold.edges" "$work/warm.edges" | head -n 10)"
echo "ok warm: $seen classes from the cache in $(attr "$work/warm.xml" agent-transform-ms) ms, same call edges"

# Damage every entry: cut one short, fill one with garbage, empty the others.
first=1
find "$cache" -type f ! -name README | while read -r f; do
    if [ $first = 1 ]; then
        head -c "$(( $(wc -c <"$f") / 2 ))" "$f" >"$work/cut" && mv "$work/cut" "$f"
        first=0
    elif [ "$(wc -c <"$f")" -gt 300 ]; then
        head -c "$(wc -c <"$f")" /dev/urandom >"$f"
    else
        : >"$f"
    fi
done
run damaged "$opts"
expect_counts damaged 0 "$seen"
run repaired "$opts"
expect_counts repaired "$seen" 0
echo "ok damaged entries were misses, rewritten and stored again"

# Other rewrite options: other keys, so none of these entries is read.
run nodup "mode=nodup,interval=1,include=fixtures.*,cache=$cache"
expect_counts nodup 0 "$(( $(attr "$work/nodup.xml" agent-classes-rewritten) + $(attr "$work/nodup.xml" agent-classes-unchanged) ))"
echo "ok mode=nodup reads no entry of mode=full"
# The rewriter's tuning options are in the key too: check=local and flagCheckBytes=0 change
# what full writes.
run local "mode=full,check=local,flagCheckBytes=0,interval=1,include=fixtures.*,cache=$cache"
expect_counts local 0 "$(( $(attr "$work/local.xml" agent-classes-rewritten) + $(attr "$work/local.xml" agent-classes-unchanged) ))"
echo "ok check=local,flagCheckBytes=0 reads no entry of the defaults"

# A cache that cannot be made: one line, and the program runs as without it.
: >"$work/not-a-dir"
run unusable "mode=full,interval=1,include=fixtures.*,cache=$work/not-a-dir/cache"
[ "$(grep -c '^duplex agent: cache .* not used' "$work/unusable.err")" = 1 ] ||
    fail "unusable: expected one 'not used' line: $(cat "$work/unusable.err")"
[ -z "$(attr "$work/unusable.xml" agent-cache-hits)" ] || fail "unusable: the profile reports a cache"
echo "ok an unusable directory is reported once and left out"
