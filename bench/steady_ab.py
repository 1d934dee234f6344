#!/usr/bin/env python3
"""Side-by-side A/B of rewriter variants on one program, in steady state.

  steady_ab.py PROGRAM [--rounds N] [--max-iterations N] [--measure N]
               [--statistic median|mean|min] [--raw FILE] VARIANT...

A VARIANT is NAME[!DUPLEX]=MODE[,OPTION...][@INTERVAL][:JVMOPT[;JVMOPT...]], for example
  full=full@1000          full0=full@0           checks=checks@0
  nolocal=full,--check,call@1000:-XX:MaxInlineSize=70
  old!/tmp/old/build/tools/duplex=full@1000   (rewritten by another build's duplex binary, and
                 run with that build's runtime jar when it has one: to compare two builds)
  plain0=base:-XX:PerMethodTrapLimit=0   (the uninstrumented program with other JVM options)
The uninstrumented program is always run as "base". Every round runs base and each variant
once, in a shuffled order; each run is one JVM running main() until the JIT has settled (at most
--max-iterations times), then --measure more times (bench/workloads/Repeat.java). The figure is
the median (--statistic mean: the mean; min: the fastest) CPU time of the measured iterations
over base's in the same round; the table gives the median over rounds and the range, the same
without the JIT compilers' CPU time (their threads count in the process's CPU time: this tells
slower code from more compiling), the JIT's share of the CPU time, and how many iterations each
needed to settle. Output is checked against base's first run. For the diagnosis of issue 6
(what in a rewritten program costs what); the paper-shaped tables come from run_bench.py.

Each run is measured after its own settling point, so a program that gets slower or faster
with every iteration, uninstrumented too (rhino slower, ecj faster: bench/README.md), compares
configurations measured at different iterations. With --common-window, round 1 only finds the
settling points and every later round measures every configuration on the same --measure
iterations, from the latest of them (as run_bench.py's Table S does); give --rounds one more.

--raw FILE writes every run's iterations (CPU and JIT seconds, which were measured) as JSON
lines, so that other statistics can be computed later from the same batch. An A/A test (the
same variant twice under two names, `a=checks@0 b=checks@0`) shows the batch's noise: any
difference between the two is the machine's (bench/README.md, "Noise").
"""

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
from noise import STATISTICS  # noqa: E402

BOTH = "call-edge,field-access"


def parse_variant(text):
    name, _, rest = text.partition("=")
    name, _, binary = name.partition("!")
    spec, _, jvm = rest.partition(":")
    spec, _, interval = spec.partition("@")
    mode, *options = spec.split(",")
    return {"name": name, "mode": mode, "options": options,
            "interval": int(interval) if interval else 1000,
            "jvm": [o for o in jvm.split(";") if o], "duplex": binary}


def rewrite(w, v):
    dest = benchlib.cache_dir() / "steady-ab" / w.name / v["name"]
    binary = Path(v["duplex"]) if v["duplex"] else None
    return [benchlib.instrument(jar, dest, v["mode"], "" if v["mode"] == "checks" else BOTH,
                                v["options"], binary).jar for jar in w.app_jars]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--max-iterations", type=int, default=150)
    ap.add_argument("--measure", type=int, default=10)
    ap.add_argument("--statistic", choices=list(STATISTICS), default="median",
                    help="of a run's measured iterations (default median)")
    ap.add_argument("--raw", type=Path, help="write every run's iterations here (JSON lines)")
    ap.add_argument("--common-window", action="store_true",
                    help="round 1 finds where each configuration settles; later rounds measure "
                         "all of them on the same iterations, after the latest settling point")
    a = ap.parse_args()
    w = benchlib.get(a.program)
    extra = benchlib.prepare(w)
    variants = [parse_variant(t) for t in a.variants]
    for v in variants:
        v["jars"] = None if v["mode"] == "base" else rewrite(w, v)
    reference = benchlib.run(w, extra, size=benchlib.steady_size(w.name)).output
    ratios = {v["name"]: [] for v in variants}
    # The CPU time includes the JIT compilers' threads: the overhead without them, and their
    # share, tell slower code from more compiling.
    code_ratios = {v["name"]: [] for v in variants}
    jit_shares = {v["name"]: [] for v in variants}
    base_shares = []
    warmups = {v["name"]: [] for v in [{"name": "base"}] + variants}
    repeat = "converge:%d:%d" % (a.max_iterations, a.measure)
    stat = STATISTICS[a.statistic]
    raw = a.raw.open("w") if a.raw else None
    if a.common_window and a.rounds < 2:
        raise SystemExit("steady_ab.py: --common-window needs --rounds 2 or more")
    for rnd in range(1, a.rounds + 1):
        if a.common_window and rnd == 2:
            # Round 1's settling points; one that never settled counts as the last iteration.
            start = max(a.max_iterations if x is None else x
                        for points in warmups.values() for x in points)
            repeat = "window:%d:%d" % (start, a.measure)
            print("rounds 2-%d: every configuration measured on iterations %d..%d" % (
                a.rounds, start + 1, start + a.measure), flush=True)
            for key in (ratios, code_ratios, jit_shares):
                for values in key.values():
                    values.clear()
            base_shares.clear()
        order = [None] + variants
        random.Random(rnd).shuffle(order)
        base = None
        times = {}
        for v in order:
            if v is None:
                r = benchlib.run(w, extra, size=benchlib.steady_size(w.name), repeat=repeat)
            else:
                opts = v["jvm"] if v["mode"] == "base" else (
                    benchlib.runtime_opts(v["interval"], Path("profile.xml"),
                                          benchlib.runtime_beside(v["duplex"])) + v["jvm"])
                r = benchlib.run(w, extra, v["jars"], opts, size=benchlib.steady_size(w.name), repeat=repeat)
            name = "base" if v is None else v["name"]
            measured = r.measured_cpu()
            if raw:
                raw.write(json.dumps({"round": rnd, "variant": name, "ok": r.ok,
                                      "same_output": r.output == reference,
                                      "cpu": [c for c, _ in r.iterations], "jit": r.jit,
                                      "measured": r.measured}) + "\n")
                raw.flush()
            if not r.ok or r.output != reference or not measured:
                print("round %d %s: FAILED or output differs" % (rnd, name), flush=True)
                continue
            jit = stat([j for j, m in zip(r.jit, r.measured) if m])
            wall = stat([w_ for (_, w_), m in zip(r.iterations, r.measured) if m])
            times[name] = (stat(measured), jit, wall)
            warmup = len(r.iterations) - len(measured)
            if repeat.startswith("converge"):  # a window's start is not a settling point
                warmups[name].append(warmup if r.settled else None)
            where = ("settled after %s iterations" % (warmup if r.settled else "no (%d)" % warmup)
                     if repeat.startswith("converge") else "on the common window")
            print("round %d %-10s %.3f s per iteration (JIT %.3f s, wall %.3f s), %s" % (
                rnd, name, times[name][0], jit, wall, where), flush=True)
        base = times.get("base")
        if base:
            base_shares.append(base[1] / base[0])
        for v in variants:
            if base and v["name"] in times:
                cpu, jit, wall = times[v["name"]]
                ratios[v["name"]].append(cpu / base[0] - 1)
                code_ratios[v["name"]].append((cpu - jit) / (base[0] - base[1]) - 1)
                jit_shares[v["name"]].append(jit / cpu)
    print("\n| variant | steady overhead, median (range) over %d rounds | without the JIT's CPU "
          "| JIT share of the CPU | iterations to settle |" % (
              a.rounds - 1 if a.common_window else a.rounds))
    print("| --- | --- | --- | --- | --- |")
    settle = lambda n: ", ".join("-" if x is None else str(x) for x in warmups[n])
    spread = lambda rs: "%+.1f%% (%+.0f%%..%+.0f%%)" % (
        100 * statistics.median(rs), 100 * min(rs), 100 * max(rs))
    print("| base | | | %s | %s |" % (
        "%.0f%%" % (100 * statistics.median(base_shares)) if base_shares else "", settle("base")))
    if raw:
        raw.close()
    for v in variants:
        n = v["name"]
        if ratios[n]:
            print("| %s | %s | %s | %.0f%% | %s |" % (
                n, spread(ratios[n]), spread(code_ratios[n]),
                100 * statistics.median(jit_shares[n]), settle(n)))


if __name__ == "__main__":
    main()
