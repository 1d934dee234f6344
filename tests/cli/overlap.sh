#!/bin/sh
# `duplex overlap REFERENCE SAMPLED` on generated profiles (intervals 1, 10, 1000) and on
# hand-made ones with known answers.
# Usage: overlap.sh DUPLEX JAVA RUNTIME_JAR FIXTURES_DIR HARNESS_DIR
. "$(dirname "$0")/common.sh"

profiles "$tmp/p" || { echo "FAIL could not generate profiles"; exit 1; }
p="$tmp/p/perfect.xml"

# A kind's line: "NAME  OVERLAP  HOT-COVER (...)  ..." -> OVERLAP without the %.
overlap_of() { awk -v k="$1" '$1 == k { sub("%", "", $2); print $2 }' "$2"; }

"$duplex" overlap "$p" "$p" >"$tmp/same.txt" 2>"$tmp/err"
check "identical: exit 0" [ $? -eq 0 ]
check "identical: call-edge 100%" [ "$(overlap_of call-edge "$tmp/same.txt")" = "100.0" ]
check "identical: field-access 100%" [ "$(overlap_of field-access "$tmp/same.txt")" = "100.0" ]
check "identical: overall 100%" [ "$(overlap_of overall "$tmp/same.txt")" = "100.0" ]
check "identical: hot-cover 100%" grep -qE '^call-edge +100\.0% +100\.0% \(' "$tmp/same.txt"
check "header names both files" grep -q "^reference: $p (interval 1, [0-9]* samples)" "$tmp/same.txt"
check "no events row without events" sh -c "! grep -q '^event' '$tmp/same.txt'"

for s in sampled10 sampled; do
  "$duplex" overlap "$p" "$tmp/p/$s.xml" >"$tmp/$s.txt"
  check "$s: exit 0" [ $? -eq 0 ]
  v=$(overlap_of overall "$tmp/$s.txt")
  check "$s: overall overlap $v% within 0..100" awk -v v="$v" 'BEGIN { exit !(v >= 0 && v <= 100) }'
done
v=$(overlap_of call-edge "$tmp/sampled10.txt")
check "interval 10: some overlap on call edges ($v%)" awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 100) }'

# Known values on hand-made profiles: A = {f: 3, g: 1}, B = {f: 1, g: 1}: min(.75,.5) +
# min(.25,.5) = 75%; fields: reads in A, writes in B: 0%; events only in B: shown, 0%.
mk() {  # mk FILE COUNT_F COUNT_G FIELD_READS FIELD_WRITES EVENT_COUNT
  total=$(($2 + $3))
  ev=""
  ev_total=0
  if [ "$6" -gt 0 ]; then ev="<event key=\"alloc\" count=\"$6\"/>"; ev_total=$6; fi
  cat >"$1" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<duplex-profile version="1">
  <run mode="full" interval="1" samples="10"/>
  <call-edges distinct="2" total="$total">
    <edge caller-class="a/M" caller-method="m" caller-descriptor="()V" offset="1" line="5" callee="a/X.f()V" count="$2"/>
    <edge caller-class="a/M" caller-method="m" caller-descriptor="()V" offset="9" line="6" callee="a/X.g()V" count="$3"/>
  </call-edges>
  <field-accesses>
    <field key="a/F.x:I" reads="$4" writes="$5"/>
  </field-accesses>
  <events>$ev</events>
</duplex-profile>
EOF
}
mk "$tmp/a.xml" 3 1 8 0 0
mk "$tmp/b.xml" 1 1 0 8 5
"$duplex" overlap "$tmp/a.xml" "$tmp/b.xml" >"$tmp/known.txt"
check "known: call-edge 75%" [ "$(overlap_of call-edge "$tmp/known.txt")" = "75.0" ]
check "known: field-access 0%" [ "$(overlap_of field-access "$tmp/known.txt")" = "0.0" ]
check "known: events shown" [ "$(overlap_of event "$tmp/known.txt")" = "0.0" ]
# Overall: A = {f 3, g 1, read x 8} (12), B = {f 1, g 1, write x 8, alloc 5} (15):
# min(3/12, 1/15) + min(1/12, 1/15) = 2/15 = 13.3%.
check "known: overall 13.3%" [ "$(overlap_of overall "$tmp/known.txt")" = "13.3" ]
# Hot-cover of call edges: B's hot keys f and g (1 >= 0.1); in A, g (1) >= 0.3: both hot.
check "known: hot-cover 100% (2 of 2)" grep -qE '^call-edge +75\.0% +100\.0% \(2 of 2\)' "$tmp/known.txt"

finish
