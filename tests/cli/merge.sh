#!/bin/sh
# `duplex merge A B ... -o OUT` on generated profiles: sums, metadata, refusal.
# Usage: merge.sh DUPLEX JAVA RUNTIME_JAR FIXTURES_DIR HARNESS_DIR
. "$(dirname "$0")/common.sh"

profiles "$tmp/p" || { echo "FAIL could not generate profiles"; exit 1; }
p="$tmp/p/perfect.xml"
s="$tmp/p/sampled10.xml"

# Sums of a section attribute: total of call edges, reads of fields.
attr() { sed -n "s/.*<$1 [^>]*$2=\"\\([0-9]*\\)\".*/\\1/p" "$3"; }
run_attr() { sed -n "/<run /s/.* $1=\"\\([^\"]*\\)\".*/\\1/p" "$2"; }

"$duplex" merge "$p" "$p" -o "$tmp/twice.xml" 2>"$tmp/err"
check "merge: exit 0" [ $? -eq 0 ]
check "merge: quiet" [ ! -s "$tmp/err" ]
check "twice: edge total doubles" [ "$(attr call-edges total "$tmp/twice.xml")" -eq $(($(attr call-edges total "$p") * 2)) ]
check "twice: same edges" [ "$(attr call-edges distinct "$tmp/twice.xml")" -eq "$(attr call-edges distinct "$p")" ]
check "twice: field reads double" [ "$(attr field-accesses reads "$tmp/twice.xml")" -eq $(($(attr field-accesses reads "$p") * 2)) ]
check "twice: samples summed" [ "$(run_attr samples "$tmp/twice.xml")" -eq $(($(run_attr samples "$p") * 2)) ]
check "twice: merged-runs 2" [ "$(run_attr merged-runs "$tmp/twice.xml")" = 2 ]
check "twice: mode kept" [ "$(run_attr mode "$tmp/twice.xml")" = full ]
check "twice: interval kept" [ "$(run_attr interval "$tmp/twice.xml")" = 1 ]
check "twice: reason merge" [ "$(run_attr reason "$tmp/twice.xml")" = merge ]
# Every count doubled: the CSV of the merge has twice each count of the original.
"$duplex" report "$p" --format csv | cut -d, -f1,2,3 | sort >"$tmp/one.csv"
"$duplex" report "$tmp/twice.xml" --format csv | cut -d, -f1,2,3 | sort >"$tmp/two.csv"
check "twice: every key doubled" python3 - "$tmp/one.csv" "$tmp/two.csv" <<'EOF'
import sys
def rows(path):
    out = {}
    for line in open(path):
        key, count = line.rstrip('\n').rsplit(',', 1)
        out[key] = count
    return out
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert a.keys() == b.keys()
for k in a:
    if a[k] != 'count':
        assert int(b[k]) == 2 * int(a[k]), (k, a[k], b[k])
EOF
check "twice: overlap with the original is 100%" sh -c "'$duplex' overlap '$p' '$tmp/twice.xml' | grep -qE '^overall +100\.0%'"

# Different intervals merge; the settings they disagree on are dropped.
"$duplex" merge "$p" "$s" "$tmp/twice.xml" -o "$tmp/mixed.xml"
check "mixed: merged-runs 4" [ "$(run_attr merged-runs "$tmp/mixed.xml")" = 4 ]
check "mixed: interval dropped" sh -c "! grep -q ' interval=' '$tmp/mixed.xml'"
check "mixed: edge total" [ "$(attr call-edges total "$tmp/mixed.xml")" -eq $(($(attr call-edges total "$p") * 3 + $(attr call-edges total "$s"))) ]
check "mixed: reads back" "$duplex" report "$tmp/mixed.xml" -o "$tmp/mixed.txt"
check "mixed: header says 4 runs" grep -q '^  runs:      4 merged' "$tmp/mixed.txt"

# Refusal: different instrumentation kinds.
sed 's/profile="call-edge,field-access"/profile="call-edge"/' "$s" >"$tmp/edges-only.xml"
mkdir "$tmp/out"
expect_error "refuses other kinds" 1 "cannot merge $tmp/edges-only.xml with $p: instrumentation kinds differ" \
  merge "$p" "$tmp/edges-only.xml" -o "$tmp/out/m.xml"
check "refused: no output" only_files "$tmp/out"

finish
