#!/bin/sh
# agent-bad-options: an unknown or malformed agent option stops the JVM at startup with one
# "duplex agent:" line naming the option; nothing of the program runs.
#
#   bad_options.sh JAVA AGENT_SO WORK_DIR
set -eu
. "$(dirname "$0")/agent_env.sh"
java=$1 agent=$2 work=$3
fresh_dir "$work"
status=0
check() { # check OPTIONS WORD: the JVM must refuse OPTIONS, naming WORD
    opts=$1 word=$2
    set +e
    err=$("$java" "-agentpath:$agent=$opts" -version 2>&1 >/dev/null)
    rc=$?
    set -e
    lines=$(printf '%s\n' "$err" | grep -c '^duplex agent:' || true)
    if [ "$rc" -eq 0 ]; then
        echo "FAIL '$opts': the JVM started"; status=1
    elif [ "$lines" -ne 1 ] || ! printf '%s\n' "$err" | grep '^duplex agent:' | grep -q -- "$word"; then
        echo "FAIL '$opts': expected one line naming $word, got:"; printf '%s\n' "$err"; status=1
    elif printf '%s\n' "$err" | grep -q 'openjdk version'; then
        echo "FAIL '$opts': the program ran"; status=1
    else
        echo "ok '$opts' -> $(printf '%s\n' "$err" | grep '^duplex agent:')"
    fi
}
check 'bogus=1' '"bogus"'
check 'mode=full,Interval=5' '"Interval"'
check 'interval=abc' 'interval'
check 'interval=-1' 'interval'
check 'interval=99999999999' 'interval'
check 'jitter=2' 'jitter'
check 'burst=0' 'burst'
check 'seed=x' 'seed'
check 'mode=fast' 'mode'
check 'profile=call-edge+bogus' 'profile'
check 'trigger=sometimes' 'trigger'
check 'timerMs=0' 'timerMs'
check 'counter=local' 'counter'
check 'countChecks=yes' 'countChecks'
check 'cache=' 'cache'
check 'cache=/tmp/a,cache=/tmp/b' 'cache'
check 'ahead=yes' 'ahead'
check 'aheadLead=-1' 'aheadLead'
check 'aheadLead=1000001' 'aheadLead'
check 'dumpMs=soon' 'dumpMs'
check 'warmupMs=-5' 'warmupMs'
check 'warmupInterval=0' 'warmupInterval'
check 'out=' 'out'
check 'log=loud' 'log'
check 'jdk=maybe' 'jdk'
check 'stop=10' 'stop'
check 'stop=5parsecs' 'stop'
check 'stop=ms' 'stop'
check 'layout=inline' 'layout'
check 'layout=' 'layout'
check 'check=fast' 'check'
check 'flagCheckBytes=-1' 'flagCheckBytes'
check 'flagCheckBytes=65536' 'flagCheckBytes'
check 'callerSampledBytes=lots' 'callerSampledBytes'
check 'methodCounters=yes' 'methodCounters'
check 'stripeInLocal=on' 'stripeInLocal'
check 'stripeInLocal=true,layout=handback' 'stripeInLocal'
check 'methodCounters=true,check=local' 'methodCounters'
check 'methodCounters=true,layout=handback' 'methodCounters'
check 'include=' 'include'
check 'exclude=' 'exclude'
check 'novalue' 'novalue'
check 'mode=full,,interval=1' '""'
check '=5' '"=5"'
check 'interval=1,interval=2' 'interval given twice'
# Good options start the JVM.
if ! "$java" "-agentpath:$agent=mode=auto,interval=5,include=a.*,include=b.*,exclude=c.*,stop=2s,log=quiet,profile=call-edge,layout=handback,check=inline,flagCheckBytes=0,callerSampledBytes=325,out=$work/p.xml" \
    -version >/dev/null 2>&1; then
    echo "FAIL: good options refused"; status=1
fi
exit $status
