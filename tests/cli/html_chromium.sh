#!/bin/sh
# The HTML report in a real browser: headless Chromium loads the page from a file (nothing
# else to fetch), its DOM must hold the chart (an svg with bars and dots) and the tables after
# the scripts ran, and its screenshot must not be blank: many colours, the bar and dot colours
# among them.
# Chromium (Debian package `chromium`) is installed here if missing and we are root; without
# it the test is skipped (status 77). scripts/install-deps.sh --with-tests installs it.
# Usage: html_chromium.sh DUPLEX JAVA RUNTIME_JAR FIXTURES_DIR HARNESS_DIR
. "$(dirname "$0")/common.sh"
png_stats="$(dirname "$0")/png_stats.py"

find_chromium() {
  for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then
      command -v "$c"
      return 0
    fi
  done
  return 1
}
browser=$(find_chromium)
if [ -z "$browser" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
      >"$tmp/apt.log" 2>&1 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq >>"$tmp/apt.log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
          >>"$tmp/apt.log" 2>&1; } || tail -3 "$tmp/apt.log"
  browser=$(find_chromium)
fi
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (scripts/install-deps.sh --with-tests installs it)"
  exit 77
fi

profiles "$tmp/p" || { echo "FAIL could not generate profiles"; exit 1; }
"$duplex" report "$tmp/p/sampled10.xml" --format html --reference "$tmp/p/perfect.xml" \
  --top 30 -o "$tmp/report.html"
check "report written" [ -s "$tmp/report.html" ]

# run_browser OUTFILE ARGS...: one headless Chromium run with a throwaway profile directory.
run_browser() {
  to=$1
  shift
  profile=$(mktemp -d "$tmp/chromium.XXXXXX")
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" "$@" >"$to" 2>"$tmp/chromium.log"
}

run_browser "$tmp/dom.html" --dump-dom "file://$tmp/report.html"
check "dump-dom: chromium ran" [ -s "$tmp/dom.html" ]
check "dom: call-edge chart" grep -q '<svg class="chart" id="chart-call-edge"' "$tmp/dom.html"
check "dom: field chart" grep -q '<svg class="chart" id="chart-field-access"' "$tmp/dom.html"
bars=$(grep -o '<rect class="bar"' "$tmp/dom.html" | wc -l)
dots=$(grep -o '<circle class="dot"' "$tmp/dom.html" | wc -l)
check "dom: 30 bars per chart and a legend ($bars)" [ "$bars" -ge 31 ]
check "dom: dots for the sampled shares ($dots)" [ "$dots" -ge 31 ]
# The sort script ran: it titles every header cell.
check "dom: sortable headers set up by the script" grep -q '<th class="n" title="click to sort">count</th>' "$tmp/dom.html"
check "dom: accuracy table" grep -q 'id="table-accuracy"' "$tmp/dom.html"

(cd "$tmp" && run_browser "$tmp/shot.log" --screenshot="$tmp/shot.png" --window-size=1200,900 \
  "file://$tmp/report.html")
check "screenshot taken" [ -s "$tmp/shot.png" ]
if [ -s "$tmp/shot.png" ]; then
  python3 "$png_stats" "$tmp/shot.png" '#8fb3de' '#d1495b' >"$tmp/stats.txt"
  sed 's/^/  /' "$tmp/stats.txt"
  value() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/stats.txt"; }
  check "screenshot 1200x900" [ "$(value size)" = 1200x900 ]
  check "screenshot not blank: many colours" [ "$(value colours)" -ge 50 ]
  check "screenshot not blank: ink" awk -v v="$(value non-white)" 'BEGIN { exit !(v > 0.05) }'
  check "screenshot shows the bars (#8fb3de)" [ "$(value '#8fb3de')" -ge 500 ]
  check "screenshot shows the dots (#d1495b)" [ "$(value '#d1495b')" -ge 20 ]
  if [ -n "${DUPLEX_KEEP_SCREENSHOT:-}" ]; then cp "$tmp/shot.png" "$DUPLEX_KEEP_SCREENSHOT"; fi
fi

finish
