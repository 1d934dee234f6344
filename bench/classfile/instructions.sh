#!/bin/sh
# Instructions per class of the IR round trip and of the rewriter, counted by callgrind: a
# measure that does not move with the machine's load, so that two builds compare within a
# fraction of a percent where their timings on this shared 2-core machine differ by a tenth
# from run to run. (A change that made the rewriter 18% slower went unseen for a session:
# docs/classfile-bench.md, "Key text without memchr".)
#
#   bench/classfile/instructions.sh [--old BENCH_BINARY] [--modes "ir-full rewrite-full"] [JAR...]
#
# BENCH_BINARY: another build's build/bench/classfile/duplex-classfile-bench (e.g. built in a
# `git worktree` of the older commit); the table then gives both and the change. JARs default
# to h2.jar. Each count is the pass function's inclusive instructions per class and pass,
# over the fewest passes the bench runs (`--min-passes 1 --max-seconds 0`: three, the first
# one cold): the jar's reading and the program's start are left out. Needs valgrind
# (installed when run as root).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
new=$root/build/bench/classfile/duplex-classfile-bench
old=""
modes="ir-full rewrite-full"
while [ $# -gt 0 ]; do
  case $1 in
    --old | --modes)
      [ $# -ge 2 ] || { echo "instructions.sh: $1 needs a value" >&2; exit 2; }
      if [ "$1" = --old ]; then old=$2; else modes=$2; fi
      shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "instructions.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || set -- /usr/share/java/h2.jar
if ! command -v valgrind >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y -q valgrind >/dev/null
  else
    echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2
    exit 2
  fi
fi
for b in "$new" ${old:+"$old"}; do
  [ -x "$b" ] || { echo "instructions.sh: no $b" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/duplex-instr.XXXXXX")
trap 'rm -rf "$work"' EXIT

# count BINARY MODE JAR: "CLASSES PASSES INSTRUCTIONS" of the mode's pass function.
count() {
  out=$work/cg.out
  valgrind --tool=callgrind --callgrind-out-file="$out" "$1" --mode "$2" --min-passes 1 \
    --max-seconds 0 --label x "$3" >"$work/result" 2>/dev/null
  classes=$(awk '$1 == "RESULT" { print $4 }' "$work/result")
  passes=$(sed -n 's/.*best of \([0-9]*\) passes.*/\1/p' "$work/result")
  case $2 in
    ir-full) fn=pass_ir ;;
    rewrite-full) fn=pass_rewrite_full ;;
    parse) fn=pass_parse ;;
    parse+write) fn=pass_write ;;
    *) echo "instructions.sh: unknown mode $2" >&2; exit 2 ;;
  esac
  instr=$(callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
    awk -v fn="::$fn(" 'index($0, fn) { gsub(",", "", $1); print $1; exit }')
  if [ -z "$classes" ] || [ -z "$passes" ] || [ -z "$instr" ]; then
    echo "instructions.sh: no count for $2 on $3" >&2
    exit 1
  fi
  echo "$classes $passes $instr"
}

echo "| input | mode | classes | instructions per class and pass |${old:+ old build | change |}"
echo "| --- | --- | --- | --- |${old:+ --- | --- |}"
for jar in "$@"; do
  for mode in $modes; do
    r=$(count "$new" "$mode" "$jar") || exit 1
    # shellcheck disable=SC2086  # "CLASSES PASSES INSTRUCTIONS" into $1 $2 $3
    set -- $r
    classes=$1 now=$(($3 / $1 / $2))
    line="| $(basename "$jar") | $mode | $classes | $now |"
    if [ -n "$old" ]; then
      r=$(count "$old" "$mode" "$jar") || exit 1
      # shellcheck disable=SC2086
      set -- $r
      before=$(($3 / $1 / $2))
      line="$line $before | $(awk -v a="$now" -v b="$before" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }') |"
    fi
    echo "$line"
  done
done
