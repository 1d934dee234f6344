#!/bin/sh
# agent-edges: the runtime's call-edge tests (tests/runtime: callers, lines, site tables, and
# hand-written outlined methods) under the agent, with the caller found by JVMTI
# GetStackTrace (nativeStack=true) and by StackWalker (nativeStack=false): both paths must
# skip the same frames and map the same sites.
#
#   edges.sh JAVA AGENT_SO RUNTIME_TEST_CLASSES WORK_DIR
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 classes=$3 work=$4
fresh_dir "$work"
for native in true false; do
    out=$("$java" "-agentpath:$agent=exclude=duplextest.*,nativeStack=$native,out=$work/p.xml" \
        -cp "$classes" duplextest.RuntimeTest child edges 2>&1) || fail "nativeStack=$native: $out"
    case $out in *"edges ok"*) ;; *) fail "nativeStack=$native: $out" ;; esac
    echo "ok nativeStack=$native"
done
