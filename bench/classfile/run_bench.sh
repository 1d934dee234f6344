#!/bin/sh
# duplex vs ASM, warm, one thread, same machine, same classes: the JDK 17 jmods and h2.jar.
#
#   bench/classfile/run_bench.sh [--build DIR] [--max-seconds S] [--min-passes N] [--only jdk|h2]
#
# duplex-classfile-bench (C++, the build dir's release build) and AsmBench.java (compiled
# here with javac against /usr/share/java/asm.jar and asm-tree.jar into a cache dir) print RESULT lines; this
# script prints them as a markdown table with the duplex/ASM ratios. Raw output is kept in
# $BENCH_OUT (default build/bench-classfile/).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build
max=60
min=5
only=""
while [ $# -gt 0 ]; do
  case $1 in
  --build) build=$2; shift 2 ;;
  --max-seconds) max=$2; shift 2 ;;
  --min-passes) min=$2; shift 2 ;;
  --only) only=$2; shift 2 ;;
  *) echo "usage: $0 [--build DIR] [--max-seconds S] [--min-passes N] [--only jdk|h2]" >&2; exit 2 ;;
  esac
done
java=${JAVA:-java}
javac=${JAVAC:-javac}
asm=${ASM_JAR:-/usr/share/java/asm.jar}
# ASM's tree API (its IR), for the asm-tree mode: the like-for-like of duplex's ir-full.
asm=$asm:${ASM_TREE_JAR:-/usr/share/java/asm-tree.jar}
jmods=${JMODS:-/usr/lib/jvm/java-17-openjdk-amd64/jmods}
h2=${H2_JAR:-/usr/share/java/h2.jar}
out=${BENCH_OUT:-$build/bench-classfile}
bench=$build/bench/classfile/duplex-classfile-bench
[ -x "$bench" ] || { echo "$0: no $bench (ninja -C $build)" >&2; exit 2; }
mkdir -p "$out/classes"

# The Java side, compiled at run time (the repository holds no class files).
src=$root/bench/classfile/AsmBench.java
if [ ! -f "$out/classes/AsmBench.class" ] || [ -n "$(find "$src" -newer "$out/classes/AsmBench.class")" ]; then
  "$javac" -nowarn -cp "$asm" -d "$out/classes" "$src" "$root/bench/classfile/NoLoadWriter.java"
fi
# A big fixed heap: the corpus (about 100 MB of class bytes) stays resident, GC stays rare.
jflags="-Xms2g -Xmx2g -XX:+UseParallelGC -XX:ParallelGCThreads=1"

run() {  # label inputs...
  label=$1
  shift
  echo "# $label: duplex" >&2
  "$bench" --label "$label" --max-seconds "$max" --min-passes "$min" "$@" | tee "$out/$label.duplex" >&2
  echo "# $label: ASM" >&2
  # shellcheck disable=SC2086
  "$java" $jflags -cp "$asm:$out/classes" AsmBench --label "$label" --max-seconds "$max" --min-passes "$min" "$@" |
    tee "$out/$label.asm" >&2
}

[ "$only" = h2 ] || run jdk "$jmods"/*.jmod
[ "$only" = jdk ] || run h2 "$h2"

# The table: per corpus and mode, throughput by wall time and by thread CPU time, then the
# ratios of duplex's full IR round trip to the ASM copies.
cat "$out"/*.duplex "$out"/*.asm 2>/dev/null | awk '
  $1 == "RESULT" {
    label = $2; mode = $3; n = $4; mb = $5 / 1e6; wall = $6; cpu = $9
    printf "| %s | %s | %d | %.1f | %.0f | %.1f | %.0f | %.1f |\n", label, mode, n, mb, n / wall, mb / wall, n / cpu, mb / cpu
    W[label, mode] = wall; C[label, mode] = cpu; labels[label] = 1
  }
  END {
    print ""
    for (l in labels) {
      split("asm-copy asm-copy-frames asm-tree", ms, " ")
      for (i = 1; i <= 3; i++) {
        m = ms[i]
        if (W[l, m] > 0 && W[l, "ir-full"] > 0)
          printf "%s: duplex ir-full vs %s: %.2fx (wall), %.2fx (CPU)\n", l, m, W[l, m] / W[l, "ir-full"], C[l, m] / C[l, "ir-full"]
      }
      if (W[l, "asm-decode"] > 0 && W[l, "parse"] > 0)
        printf "%s: duplex parse vs asm-decode: %.2fx (wall), %.2fx (CPU)\n", l, W[l, "asm-decode"] / W[l, "parse"], C[l, "asm-decode"] / C[l, "parse"]
    }
  }' | {
  echo "| corpus | mode | classes | MB | classes/s (wall) | MB/s (wall) | classes/s (CPU) | MB/s (CPU) |"
  echo "|---|---|---|---|---|---|---|---|"
  cat
}
