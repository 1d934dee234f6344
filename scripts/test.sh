#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --with-tests
scripts/build.sh
status=0
meson test -C build --print-errorlogs "$@" || status=$?
# One plain closing line for readers of the log (meson's own summary is above it).
python3 - build/meson-logs/testlog.json <<'PY' || true
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result", "")
    if r in ("OK", "EXPECTEDFAIL"): passed += 1
    elif r == "SKIP": skipped += 1
    else: failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
