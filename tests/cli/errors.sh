#!/bin/sh
# Error paths of `duplex report`, `overlap` and `merge`: every bad input or command line gives
# the documented status (1 bad input, 2 usage), exactly one line on stderr, nothing on stdout,
# and no output file, not even a temporary one.
# Usage: errors.sh DUPLEX JAVA RUNTIME_JAR FIXTURES_DIR HARNESS_DIR
. "$(dirname "$0")/common.sh"

in="$tmp/in"
out="$tmp/out"
mkdir "$in" "$out"
good="$in/good.xml"
cat >"$good" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<duplex-profile version="1">
  <run mode="full" profile="call-edge" interval="1" samples="3"/>
  <call-edges distinct="1" total="3">
    <edge caller-class="a/M" caller-method="m" caller-descriptor="()V" offset="1" line="5" callee="a/X.f()V" count="3"/>
  </call-edges>
  <field-accesses distinct="0" reads="0" writes="0"/>
  <events distinct="0" total="0"/>
</duplex-profile>
EOF
printf 'hello, this is text\n' >"$in/text.xml"
: >"$in/empty.xml"
head -c 200 "$good" >"$in/truncated.xml"
printf '\211PNG\r\n\032\n\000\000\000\rIHDR' >"$in/binary.xml"
printf '<html><body>hi</body></html>\n' >"$in/html.xml"
sed 's/version="1"/version="7"/' "$good" >"$in/v7.xml"
sed 's/count="3"/count="three"/' "$good" >"$in/badcount.xml"
sed 's/total="3"/total="4"/' "$good" >"$in/badtotal.xml"
sed 's/profile="call-edge"/profile="field-access"/' "$good" >"$in/fields.xml"
missing="$in/missing.xml"

# Bad inputs, each through every subcommand that reads profiles.
for cmd in report overlap merge; do
  # args FILE: the command line that reads FILE (with a good profile where one more is needed)
  case $cmd in
    report) set -- report ;;
    overlap) set -- overlap "$good" ;;
    merge) set -- merge "$good" ;;
  esac
  o=""
  [ "$cmd" = overlap ] || o="-o $out/result"
  # shellcheck disable=SC2086
  {
    expect_error "$cmd: missing file" 1 "$missing: cannot open: No such file or directory" "$@" "$missing" $o
    expect_error "$cmd: directory" 1 "$in: is a directory" "$@" "$in" $o
    expect_error "$cmd: empty file" 1 "$in/empty.xml: empty file, not a duplex profile" "$@" "$in/empty.xml" $o
    expect_error "$cmd: text" 1 "$in/text.xml: line 1: not XML" "$@" "$in/text.xml" $o
    expect_error "$cmd: truncated" 1 "$in/truncated.xml: line " "$@" "$in/truncated.xml" $o
    expect_error "$cmd: binary" 1 "$in/binary.xml: binary data, not a duplex profile" "$@" "$in/binary.xml" $o
    expect_error "$cmd: other XML" 1 "$in/html.xml: line 1: not a duplex profile (root element <html>" "$@" "$in/html.xml" $o
    expect_error "$cmd: wrong version" 1 "$in/v7.xml: line 2: unsupported profile version 7" "$@" "$in/v7.xml" $o
    expect_error "$cmd: bad count" 1 "$in/badcount.xml: line 5: <edge> count=\"three\" is not a count" "$@" "$in/badcount.xml" $o
    expect_error "$cmd: bad total" 1 "says total=\"4\" but its rows give 3" "$@" "$in/badtotal.xml" $o
  }
  check "$cmd: no output left behind" only_files "$out"
done

# report: options.
expect_error "report: no PROFILE" 2 "missing PROFILE (try 'duplex help report')" report
expect_error "report: two PROFILEs" 2 "unexpected argument" report "$good" "$good"
expect_error "report: unknown option" 2 "unknown option '--bogus'" report "$good" --bogus
expect_error "report: bad format" 2 "unknown format 'pdf' (expected text, csv, xml, html or dot)" report "$good" --format pdf
expect_error "report: --format without value" 2 "option --format needs a value" report "$good" --format
expect_error "report: --top not a number" 2 "option --top needs a number of rows, not 'many'" report "$good" --top many
expect_error "report: --top negative" 2 "not '-3'" report "$good" --top -3
expect_error "report: --top without value" 2 "option --top needs a value" report "$good" --top
expect_error "report: -o without value" 2 "option -o needs a value" report "$good" -o
expect_error "report: --reference without value" 2 "option --reference needs a value" report "$good" --reference
expect_error "report: bad reference" 1 "$in/text.xml: line 1: not XML" report "$good" --reference "$in/text.xml" -o "$out/r.html" --format html
expect_error "report: missing reference" 1 "$missing: cannot open" report "$good" --reference "$missing" -o "$out/r.html"
expect_error "report: output in a missing directory" 1 "$out/nodir/r.txt: cannot create a file in $out/nodir" report "$good" -o "$out/nodir/r.txt"
mkdir "$out/adir"
expect_error "report: output is a directory" 1 "$out/adir: cannot replace" report "$good" -o "$out/adir"
check "report: no output left behind" only_files "$out" adir
check "report: ... nor in the directory" only_files "$out/adir"
rmdir "$out/adir"

# overlap: arguments.
expect_error "overlap: no profiles" 2 "expected REFERENCE and SAMPLED profiles" overlap
expect_error "overlap: one profile" 2 "expected REFERENCE and SAMPLED profiles" overlap "$good"
expect_error "overlap: three profiles" 2 "expected only REFERENCE and SAMPLED" overlap "$good" "$good" "$good"
expect_error "overlap: unknown option" 2 "unknown option '--top'" overlap "$good" "$good" --top
expect_error "overlap: bad second file" 1 "$in/text.xml: line 1: not XML" overlap "$good" "$in/text.xml"

# merge: arguments and refusal.
expect_error "merge: nothing" 2 "missing PROFILE to merge" merge -o "$out/m.xml"
expect_error "merge: no -o" 2 "missing -o OUT" merge "$good" "$good"
expect_error "merge: -o without value" 2 "option -o needs a value" merge "$good" "$good" -o
expect_error "merge: unknown option" 2 "unknown option '--sum'" merge "$good" --sum -o "$out/m.xml"
expect_error "merge: incompatible kinds" 1 "cannot merge $in/fields.xml with $good: instrumentation kinds differ (profile=\"call-edge\" and profile=\"field-access\")" merge "$good" "$in/fields.xml" -o "$out/m.xml"
expect_error "merge: one bad among good" 1 "$in/badtotal.xml: " merge "$good" "$good" "$in/badtotal.xml" -o "$out/m.xml"
check "merge: no output left behind" only_files "$out"
# An existing output stays as it was when the merge fails.
printf 'old\n' >"$out/m.xml"
expect_error "merge: failure keeps the old OUT" 1 "$missing: cannot open" merge "$good" "$missing" -o "$out/m.xml"
check "merge: old OUT untouched" [ "$(cat "$out/m.xml")" = old ]
rm "$out/m.xml"

# Help goes to stdout, status 0.
for args in "help report" "report --help" "help overlap" "overlap -h" "help merge" "merge --help"; do
  # shellcheck disable=SC2086
  if "$duplex" $args >"$tmp/stdout" 2>"$tmp/stderr" && [ -s "$tmp/stdout" ] && [ ! -s "$tmp/stderr" ]; then
    ok "$args"
  else
    fail "$args"
  fi
done
check "--help lists report, overlap, merge" sh -c "'$duplex' --help | grep -q '^  report ' && '$duplex' --help | grep -q '^  overlap ' && '$duplex' --help | grep -q '^  merge '"

finish
