#!/usr/bin/env python3
"""The noise of steady-state figures, by statistic, from steady_ab.py --raw files.

  noise.py RAW.jsonl... [--pair A,B]

For each file (one program's batch) and each statistic of a run's measured iterations (median,
mean, min: the fastest iteration), prints every variant's overhead over base round by round
(the rounds that measured, on the common window), and, for an A/A pair (the same variant run
twice under two names, `steady_ab.py P --raw F a=checks@0 b=checks@0`), how far the two fall
apart: the smallest difference between two variants a batch of that many rounds can show, on
that machine that day. Python standard library only.
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

STATISTICS = {"median": statistics.median, "mean": statistics.mean, "min": min}


def load(path: Path):
    """{round: {variant: [measured CPU seconds]}} of the runs whose output was the reference's."""
    rounds = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        measured = [c for c, m in zip(r["cpu"], r["measured"]) if m]
        if r["ok"] and r["same_output"] and measured:
            rounds.setdefault(r["round"], {})[r["variant"]] = measured
    return rounds


def overheads(rounds, stat):
    """{variant: [overhead per round]} over base, for rounds where base and the variant ran."""
    out = {}
    for rnd in sorted(rounds):
        runs = rounds[rnd]
        if "base" not in runs:
            continue
        base = stat(runs["base"])
        for name, times in runs.items():
            if name != "base":
                out.setdefault(name, []).append(stat(times) / base - 1)
    return out


def report(path: Path, pair):
    rounds = load(path)
    # With --common-window round 1 only finds the settling points: drop it when later rounds
    # exist, as steady_ab.py does.
    if len(rounds) > 1:
        rounds.pop(min(rounds))
    print("## %s (%d rounds)\n" % (path.name, len(rounds)))
    print("| statistic | variant | overhead by round | median | A/A difference by round | "
          "median / max |")
    print("| --- | --- | --- | --- | --- | --- |")
    for sname, stat in STATISTICS.items():
        by_variant = overheads(rounds, stat)
        diffs = " | "  # two empty cells
        if pair and all(p in by_variant for p in pair):
            d = [100 * (x - y) for x, y in zip(by_variant[pair[0]], by_variant[pair[1]])]
            diffs = "%s | %.1f / %.1f" % (" ".join("%+.1f" % x for x in d),
                                          statistics.median(abs(x) for x in d),
                                          max(abs(x) for x in d))
        for name, values in sorted(by_variant.items()):
            print("| %s | %s | %s | %+.1f%% | %s |" % (
                sname, name, " ".join("%+.1f" % (100 * v) for v in values),
                100 * statistics.median(values), diffs if name == pair[0] else " | "))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("raw", nargs="+", type=Path)
    ap.add_argument("--pair", default="a,b", help="the A/A pair's two names (default a,b)")
    a = ap.parse_args()
    pair = tuple(a.pair.split(","))
    if len(pair) != 2:
        sys.exit("noise.py: --pair takes two names, A,B")
    for path in a.raw:
        if not path.is_file():
            sys.exit("noise.py: %s: no such file" % path)
        try:
            report(path, pair)
        except (ValueError, KeyError) as e:
            sys.exit("noise.py: %s: not a steady_ab.py --raw file (%s)" % (path, e))


if __name__ == "__main__":
    main()
