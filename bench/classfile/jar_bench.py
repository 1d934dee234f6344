#!/usr/bin/env python3
"""End-to-end jar rewriting throughput: `duplex instrument IN.jar -o OUT.jar` against ASM's
ClassReader -> ClassWriter(COMPUTE_FRAMES) jar-to-jar copy (AsmJarCopy.java), same machine,
same run.

    bench/classfile/jar_bench.py --duplex build/tools/duplex [--old OLD_DUPLEX]
        [--jobs 1,2] [--runs 7] [--jar /usr/share/java/h2.jar] [--deflate-level N]

duplex is timed as a whole process (wall and user+sys CPU), once per run, best and median
reported. `--old` times another duplex binary the same way (one without --jobs, say the state
before a change), interleaved with the new one so both see the same machine load. ASM runs
`--asm-passes` passes in one JVM: pass 1 is the cold one a command-line tool would see
(without JVM start-up), the best later pass the warm one. Prints a markdown table.

ASM's copy is written by ZipOutputStream at zlib's level 6; duplex writes the rewritten classes
uncompressed by default since 2026-11-27 (level 1 before): `--deflate-level 6` passes that
level to every duplex binary, for output compressed alike."""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_duplex(binary, jar, out, jobs, deflate_level=None):
    cmd = [binary, "instrument", jar, "-o", out, "--quiet"]
    if jobs is not None:
        cmd += ["--jobs", str(jobs)]
    if deflate_level is not None:
        cmd += ["--deflate-level", str(deflate_level)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def count_classes(jar):
    out = subprocess.run(["unzip", "-Z1", jar], check=True, capture_output=True, text=True)
    return sum(1 for n in out.stdout.splitlines() if n.endswith(".class"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duplex", required=True)
    ap.add_argument("--old")
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--asm-passes", type=int, default=15)
    ap.add_argument("--jar", default="/usr/share/java/h2.jar")
    ap.add_argument("--asm-jar", default="/usr/share/java/asm.jar")
    ap.add_argument("--deflate-level", type=int, choices=range(10),
                    help="passed to duplex instrument (default: the binary's own default)")
    args = ap.parse_args()

    n = count_classes(args.jar)
    tmp = tempfile.mkdtemp(prefix="duplex-jar-bench-")
    configs = []  # (label, binary, jobs)
    if args.old:
        configs.append(("duplex old (`%s`)" % os.path.basename(args.old), args.old, None))
    for j in [int(x) for x in args.jobs.split(",")]:
        configs.append(("duplex `--jobs %d`" % j, args.duplex, j))
    times = {c[0]: [] for c in configs}
    for r in range(args.runs):
        for label, binary, jobs in configs:
            out = os.path.join(tmp, "out.jar")
            times[label].append(run_duplex(binary, args.jar, out, jobs, args.deflate_level))
        print("run %d done" % (r + 1), file=sys.stderr)

    classes = os.path.join(tmp, "classes")
    os.makedirs(classes)
    src = os.path.join(ROOT, "bench", "classfile", "AsmJarCopy.java")
    writer = os.path.join(ROOT, "bench", "classfile", "NoLoadWriter.java")
    subprocess.run(["javac", "-nowarn", "-cp", args.asm_jar, "-d", classes, src, writer],
                   check=True)
    out = subprocess.run(
        ["java", "-Xms1g", "-Xmx1g", "-XX:+UseParallelGC", "-cp", args.asm_jar + ":" + classes,
         "AsmJarCopy", args.jar, os.path.join(tmp, "asm.jar"), str(args.asm_passes)],
        check=True, capture_output=True, text=True).stdout
    passes = [tuple(map(float, m.groups())) for m in
              re.finditer(r"PASS \d+ \d+ (\S+) (\S+)", out)]

    print("| what | runs | classes | best wall s | median wall s | classes/s (best wall) "
          "| classes/s (median wall) | median CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    rows = {}
    for label, _, _ in configs:
        walls = [w for w, _ in times[label]]
        cpus = [c for _, c in times[label]]
        best, med = min(walls), statistics.median(walls)
        rows[label] = (best, med)
        print("| %s | %d | %d | %.3f | %.3f | %.0f | %.0f | %.3f |" %
              (label, len(walls), n, best, med, n / best, n / med, statistics.median(cpus)))
    cold_wall, cold_cpu = passes[0]
    warm = min(passes[1:], key=lambda p: p[0])
    print("| ASM COMPUTE_FRAMES jar copy, pass 1 (cold, no JVM start-up) | 1 | %d | %.3f | %.3f "
          "| %.0f | %.0f | %.3f |" % (n, cold_wall, cold_wall, n / cold_wall, n / cold_wall,
                                     cold_cpu))
    print("| ASM COMPUTE_FRAMES jar copy, best of passes 2-%d (warm) | %d | %d | %.3f | - | %.0f "
          "| - | %.3f |" % (len(passes), len(passes) - 1, n, warm[0], n / warm[0], warm[1]))
    print()
    print("Ratios (throughput, best wall; > 1: the first is faster):")
    labels = [c[0] for c in configs]
    if args.old:
        for label in labels[1:]:
            print("- %s vs %s: %.2fx" % (label, labels[0], rows[labels[0]][0] / rows[label][0]))
    for label in labels:
        print("- %s vs ASM cold: %.2fx, vs ASM warm: %.2fx" %
              (label, cold_wall / rows[label][0], warm[0] / rows[label][0]))


if __name__ == "__main__":
    main()
