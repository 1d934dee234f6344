#!/bin/sh
# agent-edge-bench: the cost of one recorded call edge (Duplex.callEdge) with the runtime's
# StackWalker path and with the agent's JVMTI GetStackTrace path (nativeStack=true), at two
# stack depths. Prints the numbers; fails only if an edge is not recorded.
#
#   edge_bench.sh JAVA AGENT_SO TEST_CLASSES WORK_DIR [CALLS]
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 classes=$3 work=$4 calls=${5:-300000}
fresh_dir "$work"
for depth in 0 50; do
    for native in false true; do
        out=$("$java" "-agentpath:$agent=exclude=agenttest.*,nativeStack=$native,out=$work/p.xml" \
            -cp "$classes" agenttest.EdgeBench "$calls" "$depth")
        case $out in *"recorded true"*) ;; *) fail "nativeStack=$native: $out" ;; esac
        label=StackWalker
        [ $native = true ] && label="JVMTI GetStackTrace"
        echo "$label: $out"
    done
done
