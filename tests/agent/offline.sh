#!/bin/sh
# agent-offline: classes `duplex instrument` rewrote (the fixtures, with their twin classes) run
# under the agent as they are: the agent skips them without a line on stderr (they are not
# failures), rewrites nothing of them, and the run prints what a plain run prints, with every
# class verified; its profile counts their events.
#
#   offline.sh JAVA AGENT_SO DUPLEX HARNESS_DIR FIXTURES_DIR WORK_DIR
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 duplex=$3 harness=$4 fixtures=$5 work=$6
fresh_dir "$work"

plain_fixtures_run
"$duplex" instrument "$fixtures" -o "$work/offline" --quiet || fail "duplex instrument failed"
ls "$work/offline/fixtures" | grep -q 'DuplexTwins' || fail "no twin classes in the offline rewrite"
fixtures=$work/offline
agent_fixtures_run offline "interval=1,include=fixtures.*"
grep -q 'cannot rewrite' "$work/offline.err" &&
  fail "classes rewritten offline logged as failures: $(grep -m 3 'cannot rewrite' "$work/offline.err")"
[ "$(attr "$work/offline.xml" agent-classes-rewritten)" = 0 ] ||
  fail "the agent rewrote $(attr "$work/offline.xml" agent-classes-rewritten) classes rewritten already"
skipped=$(attr "$work/offline.xml" agent-classes-skipped)
[ "${skipped:-0}" -gt 20 ] || fail "only '$skipped' classes skipped"
grep -q '<edge ' "$work/offline.xml" && grep -q '<field ' "$work/offline.xml" ||
  fail "the profile has no call edges or field accesses"
echo "ok classes rewritten offline run under the agent unchanged and quietly ($skipped skipped)"
