#!/bin/sh
# agent-ahead: ahead=true (rewriting on a background thread before classes load). The fixtures
# are on the class path, so the background thread follows the classes that load to the ones
# they name: the hooks take its rewrites, the output is a plain run's, every class verifies,
# and the call edges (interval 1) are those of ahead=false. A class path holding other bytes
# under the same names gives rewrites the hooks must never take. With cache=DIR the thread's
# rewrites are stored and a second run takes them from the directory.
#
#   ahead.sh JAVA AGENT_SO HARNESS_DIR FIXTURES_DIR WORK_DIR
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 harness=$3 fixtures=$4 work=$5
fresh_dir "$work"

plain_fixtures_run

run() { agent_fixtures_run "$1" "$3" "$2"; }  # run NAME CLASSPATH OPTIONS
edges() { sed -n '/<call-edges/,/<\/call-edges>/p' "$1"; }
num() { attr "$work/$1.xml" "$2"; }

opts="mode=full,interval=1,include=fixtures.*"
run off "$harness:$fixtures" "$opts"
run on "$harness:$fixtures" "$opts,ahead=true"
rewritten=$(num on agent-classes-rewritten) ahead=$(num on agent-ahead-rewritten)
hits=$(num on agent-ahead-hits)
[ "$rewritten" = "$(num off agent-classes-rewritten)" ] ||
    fail "on: $rewritten classes rewritten, $(num off agent-classes-rewritten) without ahead"
[ "$hits" -gt 0 ] || fail "on: the hooks took no background rewrite ($ahead made)"
[ "$hits" -le "$ahead" ] || fail "on: $hits hits but only $ahead rewritten ahead"
[ "$(num on agent-ahead-unused)" = $((ahead - hits)) ] ||
    fail "on: $ahead rewritten ahead, $hits taken, but $(num on agent-ahead-unused) unused"
edges "$work/off.xml" >"$work/off.edges"
edges "$work/on.xml" >"$work/on.edges"
[ -s "$work/off.edges" ] || fail "off: no call edges"
cmp -s "$work/off.edges" "$work/on.edges" ||
    fail "on: call edges differ: $(diff "$work/off.edges" "$work/on.edges" | head -n 10)"
echo "ok $hits of $rewritten classes rewritten ahead ($ahead made), same output and call edges"

# The same names with other bytes on the class path (a minor version changed: parsable, never
# loaded): the thread rewrites them, and no hook may take one.
other=$work/other
mkdir -p "$other"
cp -R "$fixtures/." "$other/"
find "$other" -name '*.class' | while read -r f; do
    printf '\001' | dd of="$f" bs=1 seek=5 conv=notrunc 2>/dev/null
done
run other "$harness:$other" "$opts,ahead=true"
[ "$(num other agent-ahead-rewritten)" -gt 0 ] || fail "other: nothing rewritten ahead"
[ "$(num other agent-ahead-hits)" = 0 ] ||
    fail "other: the hooks took $(num other agent-ahead-hits) rewrites of other bytes"
edges "$work/other.xml" >"$work/other.edges"
cmp -s "$work/off.edges" "$work/other.edges" || fail "other: call edges differ"
echo "ok rewrites of other bytes ($(num other agent-ahead-rewritten)) were never taken"

# With cache=DIR the thread stores what it makes; the next run's thread reads it back.
run cold "$harness:$fixtures" "$opts,ahead=true,cache=$work/cache"
[ "$(find "$work/cache" -type f ! -name README | wc -l)" -ge "$(num cold agent-ahead-rewritten)" ] ||
    fail "cold: fewer cache entries than background rewrites"
run warm "$harness:$fixtures" "$opts,ahead=true,cache=$work/cache"
edges "$work/warm.xml" >"$work/warm.edges"
cmp -s "$work/off.edges" "$work/warm.edges" || fail "warm: call edges differ"
echo "ok ahead=true with cache=DIR: same output and call edges"

# A class path that does not exist: nothing to rewrite ahead, the program runs as without it.
run nopath "$harness:$work/missing" "$opts,ahead=true"
[ "$(num nopath agent-ahead-hits)" = 0 ] || fail "nopath: hits from a missing class path"
echo "ok a missing class path element is left out"
