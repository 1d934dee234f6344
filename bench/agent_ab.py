#!/usr/bin/env python3
"""Side-by-side A/B of JVMTI agent settings on one program, in whole runs.

  agent_ab.py PROGRAM [--reps N] [--size small|large] SETTING...

A SETTING is NAME=OPTION,OPTION... : libduplexagent.so options (runtime/agent/README.md), e.g.
  on=interval=1000,ahead=true   off=interval=1000,ahead=false
`mode`, `profile` and `out` are added unless given; `so=PATH` runs another build of the agent
(two builds side by side). Each repetition runs the uninstrumented
program and every setting once, in an order shuffled by the repetition's number (one JVM each,
start-up and JIT included), and checks every output against the original's. The table gives,
per setting, medians over the repetitions: wall and CPU time over the uninstrumented run's
(range in brackets), the time the class-loading hooks spent (agent-transform-ms, and its share
of the run's wall time), the hooks' CPU, and what the agent's background rewriting did
(ahead=true: classes it rewrote, the hooks' hits on them, its CPU time).
"""

import argparse
import shutil
import statistics
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import run_bench  # noqa: E402

STATS = ("agent-transform-ms", "agent-transform-cpu-ms", "agent-classes-rewritten",
         "agent-ahead-rewritten", "agent-ahead-hits", "agent-ahead-cpu-ms")


def parse_setting(text):
    name, eq, rest = text.partition("=")
    if not name or not eq:
        raise SystemExit("agent_ab.py: bad setting %r (expected NAME=OPTION,...)" % text)
    opts = [o for o in rest.split(",") if o]
    so = benchlib.AGENT_SO
    for o in list(opts):
        if o.startswith("so="):  # another build of the agent, for A/B of two builds
            so = Path(o[3:])
            opts.remove(o)
    keys = {o.partition("=")[0] for o in opts}
    for default in ("mode=full", "profile=call-edge+field-access", "out=profile.xml"):
        if default.partition("=")[0] not in keys:
            opts.append(default)
    return name, ["-agentpath:%s=%s" % (so, ",".join(opts))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("settings", nargs="+")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--size", choices=["small", "large"], default="small")
    a = ap.parse_args()
    if not benchlib.AGENT_SO.exists():
        raise SystemExit("agent_ab.py: %s not built" % benchlib.AGENT_SO)
    settings = dict(parse_setting(t) for t in a.settings)
    w = benchlib.get(a.program)
    extra = benchlib.prepare(w)
    expected = benchlib.run(w, extra, size=a.size).output
    runs = {n: [] for n in ["base"] + list(settings)}  # wall time and agent statistics

    def run_one(n, rep):
        r = benchlib.run(w, extra, jvm_opts=settings[n], size=a.size, keep=True)
        if not r.ok or r.output != expected:
            raise SystemExit("agent_ab.py: %s %s failed or its output differs:\n%s" % (
                w.name, n, r.stderr[-1500:]))
        run = run_bench.read_profile(r.run_dir / "profile.xml")["run"]
        runs[n].append(dict({k: float(run[k]) for k in STATS if k in run}, wall=r.wall))
        shutil.rmtree(r.run_dir, ignore_errors=True)
        benchlib.log("%s r%d %-8s cpu %.2f s wall %.2f s" % (w.name, rep, n, r.cpu, r.wall))
        return r

    def seen(n, r):
        if n == "base":
            runs["base"].append({"wall": r.wall})

    cpu = benchlib.interleaved_cpu(w, extra, list(settings), a.reps, run_one, a.size, None, seen)
    base_wall = statistics.median(r["wall"] for r in runs["base"])
    base_cpu = statistics.median(cpu["base"])
    print("\n%s (%s input), %d repetitions; uninstrumented %.2f s wall, %.2f s CPU\n" % (
        w.name, a.size, a.reps, base_wall, base_cpu))
    print("| setting | wall | CPU | hooks' time | of wall | hooks' CPU | rewritten ahead "
          "| hooks' hits | background CPU |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in settings:
        rs = runs[n]

        def med(key, fmt="%.0f"):
            vals = [r[key] for r in rs if key in r]
            return fmt % statistics.median(vals) if vals else "-"
        share = statistics.median(r.get("agent-transform-ms", 0) / 10.0 / r["wall"] for r in rs)
        print("| %s | %s | %s | %s ms | %.1f%% | %s ms | %s | %s | %s ms |" % (
            n, benchlib.overhead_cell([r["wall"] for r in rs], base_wall),
            benchlib.overhead_cell(cpu[n], base_cpu), med("agent-transform-ms"), share,
            med("agent-transform-cpu-ms"), med("agent-ahead-rewritten"), med("agent-ahead-hits"),
            med("agent-ahead-cpu-ms")))


if __name__ == "__main__":
    main()
