#!/bin/sh
# The cost of one recorded call edge (Duplex.callEdge: find the caller frame, map its bci,
# count the edge), for the agent's two ways of finding the caller: JVMTI GetStackTrace
# (nativeStack=true, the default) and java.lang.StackWalker (nativeStack=false). With --old,
# an older build of the agent runs the same benchmark in the same session, alternating with
# the new one, for a side-by-side comparison.
#
#   bench/runtime/edge_bench.sh [--build DIR] [--old OLD_AGENT_SO] [--calls N] [--runs R]
#
# An old agent: build one from an older commit in its own worktree, e.g.
#   git worktree add /tmp/duplex-old COMMIT && cd /tmp/duplex-old &&
#   meson setup build && ninja -C build runtime/agent/libduplexagent.so
# (the agent embeds its runtime jar, so the .so alone is the whole old runtime).
# Prints one line per run and a table of the best and median (ns per recorded edge, lower is
# better).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build old="" calls=300000 runs=3
while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --old) old=$2; shift 2 ;;
        --calls) calls=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        *) echo "usage: $0 [--build DIR] [--old OLD_AGENT_SO] [--calls N] [--runs R]" >&2; exit 2 ;;
    esac
done
new=$build/runtime/agent/libduplexagent.so
jar=$build/runtime/duplex-runtime.jar
[ -f "$new" ] && [ -f "$jar" ] || { echo "build the project first ($new, $jar)" >&2; exit 1; }
java=${JAVA:-java}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac --release 11 -encoding UTF-8 -cp "$jar" -d "$work/classes" "$here"/edgebench/*.java

agents="new"
[ -n "$old" ] && agents="old new"
results=$work/results.txt
: >"$results"
for run in $(seq "$runs"); do
    for scenario in direct sites rewritten; do
        for native in true false; do
            for which in $agents; do
                so=$new
                [ "$which" = old ] && so=$old
                opts="include=edgebench.Rewritten,mode=exhaustive,profile=call-edge"
                opts="$opts,nativeStack=$native,out=$work/p.xml"
                out=$("$java" "-agentpath:$so=$opts" -cp "$work/classes" edgebench.EdgeBench \
                    "$scenario" "$calls")
                ns=${out%% ns/edge*}
                path=StackWalker
                [ "$native" = true ] && path=JVMTI
                echo "run $run  $scenario  $path  $which: $out"
                echo "$scenario $path $which $ns" >>"$results"
            done
        done
    done
done
echo
echo "ns per recorded edge, best / median of $runs runs of $calls calls (each run: best of 5"
echo "rounds; on a shared machine the best is the better estimate: interference only adds)"
printf '%-10s %-12s' scenario path
for which in $agents; do printf ' %17s' "$which"; done
echo
for scenario in direct sites rewritten; do
    for path in JVMTI StackWalker; do
        printf '%-10s %-12s' "$scenario" "$path"
        for which in $agents; do
            m=$(awk -v s="$scenario" -v p="$path" -v w="$which" \
                '$1 == s && $2 == p && $3 == w { print $4 }' "$results" | sort -n |
                awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f / %.0f", v[1], m }')
            printf ' %17s' "$m"
        done
        echo
    done
done
