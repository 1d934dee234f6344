#!/bin/sh
# Runs a fuzz target for SECONDS (default 600) on one core, seeded with real classes.
#
#   fuzz/run.sh [SECONDS] [extra libFuzzer flags...]
#   FUZZ_TARGET=fuzz_rewriter fuzz/run.sh 900
#
# FUZZ_TARGET: fuzz_classfile (the default) or fuzz_rewriter. Work directory: build-fuzz/
# (override with FUZZ_DIR). The growing corpus is kept between runs in FUZZ_DIR/corpus
# (fuzz_classfile) or FUZZ_DIR/corpus-rewriter; crashes land in FUZZ_DIR/artifacts/; the log of
# the last run is FUZZ_DIR/fuzz-0.log.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${FUZZ_DIR:-$root/build-fuzz}
secs=${1:-600}
target=${FUZZ_TARGET:-fuzz_classfile}
case $target in
  fuzz_classfile) corpus=corpus ;;
  fuzz_rewriter) corpus=corpus-rewriter ;;
  *) echo "fuzz/run.sh: FUZZ_TARGET must be fuzz_classfile or fuzz_rewriter" >&2; exit 2 ;;
esac
[ $# -gt 0 ] && shift
[ -x "$dir/$target" ] || "$root/fuzz/build.sh" "$dir"
[ -d "$dir/seeds" ] || "$root/fuzz/seeds.sh" "$dir/seeds"
mkdir -p "$dir/$corpus" "$dir/artifacts"
cd "$dir"
# -jobs=1: one fuzzing process (its output goes to fuzz-0.log), leaving the other cores free.
# New inputs go to the corpus (the first directory); seeds/ is only read.
exec "./$target" -jobs=1 -max_total_time="$secs" -max_len=65536 -timeout=10 \
  -rss_limit_mb=2048 -dict="$root/fuzz/classfile.dict" -artifact_prefix=artifacts/ \
  -print_final_stats=1 "$@" "$corpus" seeds
