#!/usr/bin/env python3
"""Overhead and accuracy of duplex on real programs, in the shape of Arnold & Ryder's tables.

  run_bench.py [--quick] [--programs a,b] [--reps N] [--size small|large] [--out FILE]
               [--charts DIR] [--report-only RAW.json] [--resume RAW.json]

For every program it rewrites the application jars once per variant (exhaustive call-edge,
field-access and both; checks-only; No-Duplication per instrumentation; Full, Partial,
No-Duplication and auto with both), then runs rounds: every round runs the uninstrumented
program and every configuration once, in a shuffled order, so slow drifts of the (shared)
machine hit all configurations alike. Overhead = CPU time (user + system of the JVM) of a
configuration over the uninstrumented run's in the same round; medians over rounds, with the
min-max spread. Wall-clock ratios are recorded too. Configurations more than --slow-ratio
times slower than the original in round 1 (interval 1 and 10, exhaustive call-edge, where each
call walks the stack) run in round 1 only: their overhead is not in doubt.

Accuracy: the profile of each configuration's first run against the interval-1 profile of the
same mode and against the exhaustive profile (both instrumentations): overlap (sum over keys of
the smaller share) and hot-cover (share of the reference's keys at >= 0.1 x its hottest key
that are also hot in the sampled profile). Call edges are keyed by caller class, method,
descriptor, offset and callee; field reads and writes are separate keys.

Also: timer trigger (10 ms) against the counter trigger at the interval that gives the same
number of samples; global against striped counter on the multi-threaded program; code growth
per variant; rewriter throughput (duplex instrument, against ASM 9.4 when bench/classfile's
AsmBench is present); the duplex JVMTI agent against the JaCoCo 0.8.6 agent when both exist.

Inputs are the workloads' small size (about 1 s of CPU each): a full run is 6 programs x 31
configurations x 5 rounds, about 45 minutes on 2 cores. --quick: 2 programs, 3 rounds,
intervals 1, 1000, 10000; about 5 minutes. Writes
build/bench-cache/results-quick/RESULTS.md unless --out is given. The full run writes
docs/RESULTS.md and bench/charts/*.svg.
"""

import argparse
import datetime
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import svgchart  # noqa: E402

BOTH = "call-edge,field-access"
VARIANTS = {  # name -> (mode, profile)
    "exh-ce": ("exhaustive", "call-edge"),
    "exh-fa": ("exhaustive", "field-access"),
    "exh-both": ("exhaustive", BOTH),
    "checks": ("checks", BOTH),
    "nodup-ce": ("nodup", "call-edge"),
    "nodup-fa": ("nodup", "field-access"),
    "full": ("full", BOTH),
    "partial": ("partial", BOTH),
    "nodup": ("nodup", BOTH),
    "auto": ("auto", BOTH),
}
SAMPLED_MODES = ["full", "partial", "nodup"]
FULL_INTERVALS = [1, 10, 100, 1000, 10000, 100000]
QUICK_INTERVALS = [1, 1000, 10000]
FULL_PROGRAMS = ["h2", "ecj", "rhino", "xalan", "sunflow", "bcprov"]
QUICK_PROGRAMS = ["xalan", "bcprov"]
# Configurations that record every event (a stack walk per call edge): if the first of them
# (full@1) runs past --slow-timeout, the others are skipped for that program.
PERFECT = ("full@1", "partial@1", "nodup@1", "exh-ce", "exh-both")
AGENT_SO = benchlib.AGENT_SO  # a copy in the run's tools/ replaces it (below)
JACOCO_OUTER = Path("/usr/share/java/org.jacoco.agent.jar")
# Debian's libtcmalloc-minimal4 (installed with libgoogle-perftools-dev): the duplex program's
# allocator (tools/meson.build).
TCMALLOC = Path("/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4")
HOT_T = 0.1
NOTES = benchlib.BENCH / "results_notes.md"
# Steady state: main() runs repeatedly in one JVM until the JIT has settled (its share of the
# last 3 iterations' CPU time under 3%, at most --steady-iterations iterations), then
# --steady-measure more; the median CPU time of those is compared (bench/workloads/Repeat.java).
# With a fixed 8 or 20 iterations the rewritten programs were still compiling while measured (a
# rewritten xalan settles after about 100 iterations, the original after 25). The paper compiled
# every method before the run; this is the closest a JIT gets. Inputs: benchlib.steady_size().
STEADY_CONFIGS = ["base", "checks@0", "full@1000", "full@10000", "auto@1000"]
# Round 1 only: the accuracy reference of the steady runs (every check samples).
STEADY_REFERENCE = "full@1"


# ---------------------------------------------------------------------------------------------
# Profiles and metrics


def read_profile(path: Path) -> dict:
    """{"samples": n, "run": {attrs}, "ce": {key: count}, "fa": {key: count}}"""
    root = ET.parse(path).getroot()
    run = root.find("run")
    ce, fa = {}, {}
    for e in root.iter("edge"):
        k = "%s.%s%s@%s->%s" % (e.get("caller-class"), e.get("caller-method"),
                                e.get("caller-descriptor"), e.get("offset"), e.get("callee"))
        ce[k] = ce.get(k, 0) + int(e.get("count"))
    for f in root.iter("field"):
        for kind in ("reads", "writes"):
            n = int(f.get(kind))
            if n:
                fa[kind[0] + " " + f.get("key")] = n
    attrs = dict(run.attrib) if run is not None else {}
    return {"samples": int(attrs.get("samples", 0)), "run": attrs, "ce": ce, "fa": fa}


def overlap(ref: dict, sam: dict) -> float:
    """Sum over keys of min(share in ref, share in sam), in percent; None if either is empty."""
    tr, ts = sum(ref.values()), sum(sam.values())
    if not tr or not ts:
        return None
    return 100.0 * sum(min(c / tr, sam.get(k, 0) / ts) for k, c in ref.items())


def hot(d: dict) -> set:
    if not d:
        return set()
    top = max(d.values())
    return {k for k, c in d.items() if c >= HOT_T * top}


def hot_cover(ref: dict, sam: dict) -> float:
    h = hot(ref)
    if not h or not sam:
        return None
    return 100.0 * len(h & hot(sam)) / len(h)


# ---------------------------------------------------------------------------------------------
# Configurations


def make_configs(w, intervals, agent_ok, jacoco_jar):
    """[(id, variant or None, settings dict or None, extra JVM kind)] for one program."""
    c = [("base", None, None, None)]
    c += [(v, v, {"interval": 1000}, None) for v in ("exh-ce", "exh-fa", "exh-both")]
    c += [("checks@0", "checks", {"interval": 0}, None)]
    c += [("nodup-ce@0", "nodup-ce", {"interval": 0}, None),
          ("nodup-fa@0", "nodup-fa", {"interval": 0}, None)]
    for m in SAMPLED_MODES:
        c.append(("%s@0" % m, m, {"interval": 0}, None))
        for i in intervals:
            c.append(("%s@%d" % (m, i), m, {"interval": i}, None))
    c.append(("auto@1000", "auto", {"interval": 1000}, None))
    c.append(("timer10ms", "full", {"interval": 1000, "trigger": "timer", "timerMs": 10}, None))
    if w.threads > 1:
        # The default counter is striped; these run the same code with the global one.
        c.append(("full@1000-global", "full", {"interval": 1000, "counter": "global"}, None))
        c.append(("checks@0-global", "checks", {"interval": 0, "counter": "global"}, None))
    if agent_ok:
        c.append(("agent-full@1000", None, {"interval": 1000}, "duplex-agent"))
        # The same with cache=DIR, filled by one unmeasured run first: what every later run of
        # the same program costs.
        c.append(("agent-cached@1000", None, {"interval": 1000}, "duplex-agent-cached"))
    if jacoco_jar:
        c.append(("jacoco", None, None, "jacoco"))
    return c


def jvm_opts_for(cfg, run_profile: str, jacoco_jar, agent_cache=None):
    cid, variant, settings, kind = cfg
    if kind in ("duplex-agent", "duplex-agent-cached"):
        opts = ["mode=full", "profile=call-edge+field-access", "interval=%d" %
                settings["interval"], "out=" + run_profile]
        if kind == "duplex-agent-cached":
            opts.append("cache=%s" % agent_cache)
        return ["-agentpath:%s=%s" % (AGENT_SO, ",".join(opts))]
    if kind == "jacoco":
        return ["-javaagent:%s=destfile=jacoco.exec,output=file" % jacoco_jar]
    if variant is None:
        return []
    s = dict(settings)
    interval = s.pop("interval")
    return benchlib.runtime_opts(interval, Path(run_profile), mode=cid.split("@")[0], **s)


def jacoco_agent_jar() -> Path:
    """Extracts jacocoagent.jar from Debian's org.jacoco.agent.jar into the cache, once."""
    if not JACOCO_OUTER.exists():
        return None
    dest = benchlib.cache_dir() / "jacoco" / "jacocoagent.jar"
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(JACOCO_OUTER) as z:
            dest.write_bytes(z.read("jacocoagent.jar"))
    return dest


# ---------------------------------------------------------------------------------------------
# Measurement


def steady_window(runs, a, rounds=(1,)) -> str:
    """Repeat's `window:FROM:COUNT` for the measured rounds: FROM is the latest iteration at
    which a configuration of `rounds` (None: every converging round) settled (the cap where
    one did not), COUNT the measured iterations the uninstrumented program needs for 3 s of
    CPU (at least --steady-measure, at most ten times that)."""
    first = [r for r in runs if (rounds is None or r["round"] in rounds)
             and r["cfg"] != STEADY_REFERENCE
             and not str(r.get("repeat", "")).startswith("window:")]
    settle = [a.steady_iterations if not r["settled"] else
              next((i for i, m in enumerate(r.get("measured") or []) if m), a.steady_iterations)
              for r in first if r["ok"]]
    base = [c for r in first if r["cfg"] == "base" and r["ok"] for c in measured_iters(r)]
    per_iteration = statistics.median(base) if base else 1.0
    count = min(10 * a.steady_measure, max(a.steady_measure, math.ceil(3.0 / per_iteration)))
    return "window:%d:%d" % (max(settle, default=a.steady_iterations), count)


class Bench:
    def __init__(self, a):
        self.a = a
        self.quick = a.quick
        self.intervals = QUICK_INTERVALS if a.quick else FULL_INTERVALS
        self.programs = a.programs.split(",") if a.programs else (
            QUICK_PROGRAMS if a.quick else FULL_PROGRAMS)
        self.reps = a.reps or (3 if a.quick else 5)
        self.size = a.size or "small"
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        name = ("quick-" if a.quick else "") + stamp
        self.results_dir = benchlib.cache_dir() / "results" / name
        self.raw = {"programs": {}, "meta": {}, "throughput": {}, "config": {
            "quick": a.quick, "reps": self.reps, "size": self.size, "intervals": self.intervals,
            "slow_ratio": a.slow_ratio, "programs": self.programs,
            "instrument_args": a.instrument_args, "steady_iterations": a.steady_iterations,
            "steady_measure": a.steady_measure, "steady_rounds": a.steady_rounds}}
        if a.resume:
            # Programs an interrupted run finished are kept; the others run again.
            self.results_dir = Path(a.resume).resolve().parent
            old = json.loads(Path(a.resume).read_text())
            self.raw["programs"] = {n: p for n, p in old["programs"].items() if p.get("complete")}
            self.raw["config"].update(reps=old["config"]["reps"], size=old["config"]["size"],
                                      intervals=old["config"]["intervals"])
            self.reps, self.size, self.intervals = (old["config"]["reps"], old["config"]["size"],
                                                    old["config"]["intervals"])
            self.resumed_seconds = old.get("meta", {}).get("seconds_so_far", 0)
        self.results_dir.mkdir(parents=True, exist_ok=True)
        self.snapshot_tools()
        self.agent_ok = AGENT_SO.exists() and not a.no_agents
        self.jacoco = None if a.no_agents else jacoco_agent_jar()
        self.started = time.monotonic()

    @classmethod
    def reopen(cls, a, raw_json: Path, results_dir: Path):
        """An earlier run's Bench, to measure more into (saved in `results_dir`): no tools are
        copied and nothing is run at construction."""
        bench = cls.__new__(cls)
        bench.a, bench.started = a, time.monotonic()
        bench.results_dir = results_dir
        results_dir.mkdir(parents=True, exist_ok=True)
        bench.raw = json.loads(raw_json.read_text())
        bench.quick = bench.raw["config"]["quick"]
        return bench

    def snapshot_tools(self):
        """Copies duplex, the runtime jar and the agent out of the build directory, which other
        work may rebuild while the benchmark runs, and uses the copies throughout."""
        global AGENT_SO
        tools = self.results_dir / "tools"
        tools.mkdir(exist_ok=True)
        for attempt in range(10):
            try:
                for src in (benchlib.DUPLEX, benchlib.RUNTIME_JAR, AGENT_SO):
                    if src.exists():
                        shutil.copy2(src, tools / src.name)
                r = subprocess.run([str(tools / benchlib.DUPLEX.name), "--version"],
                                   capture_output=True, text=True)
                zipfile.ZipFile(tools / benchlib.RUNTIME_JAR.name).testzip()
                if r.returncode == 0:
                    break
            except (OSError, zipfile.BadZipFile):
                pass
            time.sleep(10)  # a rebuild is under way
        else:
            raise SystemExit("run_bench: could not copy a working duplex out of the build")
        self.raw["config"]["duplex_version"] = r.stdout.strip()
        benchlib.DUPLEX = tools / benchlib.DUPLEX.name
        benchlib.RUNTIME_JAR = tools / benchlib.RUNTIME_JAR.name
        if (tools / AGENT_SO.name).exists():
            AGENT_SO = tools / AGENT_SO.name

    def save(self):
        # Atomically: an interrupted run leaves the last complete raw.json to --resume from.
        tmp = self.results_dir / "raw.json.tmp"
        tmp.write_text(json.dumps(self.raw, indent=1, default=str))
        tmp.replace(self.results_dir / "raw.json")

    def elapsed(self) -> str:
        return "%.0f s" % (time.monotonic() - self.started)

    # -- rewriting ------------------------------------------------------------------------
    def rewrite(self, w, prog):
        variants = {}
        for v, (mode, profile) in VARIANTS.items():
            dest = benchlib.cache_dir() / "instrumented" / w.name / ("%s-%s" % (
                mode, profile.replace(",", "+")))
            jars, orig_bytes, new_bytes, secs, summaries = [], 0, 0, 0.0, []
            orig_code, new_code = 0, 0
            for j in w.app_jars:
                r = benchlib.instrument(j, dest, mode, profile, self.a.instrument_args.split())
                jars.append(str(r.jar))
                orig_bytes += benchlib.class_bytes(j)
                new_bytes += benchlib.class_bytes(r.jar)
                orig_code += benchlib.code_bytes(j)
                new_code += benchlib.code_bytes(r.jar)
                m = re.search(r"\(([\d.]+) s\)", r.summary)
                secs += float(m.group(1)) if m else r.seconds
                summaries.append(r.summary)
            variants[v] = {"jars": jars, "class_bytes": orig_bytes, "rewritten_bytes": new_bytes,
                           "code_bytes": orig_code, "rewritten_code_bytes": new_code,
                           "seconds": secs, "summary": "\n".join(summaries)}
        prog["variants"] = variants

    # -- one run ----------------------------------------------------------------------------
    def run_one(self, w, extra, prog, cfg, round_no, timeout=None):
        cid, variant, settings, kind = cfg
        jars = [Path(j) for j in prog["variants"][variant]["jars"]] if variant else None
        run_profile = "profile.xml"
        # Every JVM reports its compilers' time (-XX:+CITime, on stderr): what share of a
        # whole run's added CPU is compilation (docs/design/hotspot-costs.md, section 13).
        opts = jvm_opts_for(cfg, run_profile, self.jacoco, self.agent_cache(w))
        opts = opts + benchlib.CITIME_OPTS
        r = benchlib.run(w, prog["extra"], jars, opts, keep=True, size=self.size,
                         timeout=timeout or self.a.timeout)
        rec = {"cfg": cid, "round": round_no, "cpu": r.cpu, "wall": r.wall, "ok": r.ok,
               "same": r.output == prog["expected"], "timeout": r.timed_out,
               "jit": benchlib.compilation_seconds(r.stderr),
               "jit_code": benchlib.compiled_code_bytes(r.stderr)}
        pf = r.run_dir / run_profile
        if pf.exists():
            try:
                p = read_profile(pf)
                rec["samples"] = p["samples"]
                for k in ("agent-transform-ms", "agent-transform-cpu-ms",
                          "agent-classes-rewritten", "duration-ms",
                          "agent-cache-hits", "agent-cache-misses"):
                    if k in p["run"]:
                        rec[k] = p["run"][k]
                if cid not in prog["profiles"]:
                    keep = self.results_dir / "profiles" / w.name / (cid + ".xml")
                    keep.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(pf, keep)
                    prog["profiles"][cid] = str(keep)
            except ET.ParseError as e:
                rec["profile_error"] = str(e)
        if not r.ok or not rec["same"]:
            rec["stderr"] = r.stderr[-1500:]
        shutil.rmtree(r.run_dir, ignore_errors=True)
        prog["runs"].append(rec)
        benchlib.log("[%s] %s r%d %-18s cpu %6.2f s wall %6.2f s%s%s" % (
            self.elapsed(), w.name, round_no, cid, r.cpu, r.wall,
            "" if r.ok else (" TIMEOUT" if r.timed_out else " EXIT %d" % r.status),
            "" if rec["same"] or not r.ok else " OUTPUT DIFFERS"))
        return rec

    def agent_cache(self, w):
        return self.results_dir / "agent-cache" / w.name

    def fill_agent_cache(self, w, prog, cfg):
        """One unmeasured run of the cached agent configuration, which rewrites every class
        the program loads and stores it: the measured runs then find them all."""
        shutil.rmtree(self.agent_cache(w), ignore_errors=True)
        r = benchlib.run(w, prog["extra"], None, jvm_opts_for(cfg, "profile.xml", None,
                                                                 self.agent_cache(w)),
                         keep=False, size=self.size, timeout=self.a.timeout)
        benchlib.log("[%s] %s filled the agent's cache (%s)" % (
            self.elapsed(), w.name, "ok" if r.ok else "FAILED"))

    # -- one program ------------------------------------------------------------------------
    def program(self, name):
        w = benchlib.get(name)
        extra = benchlib.prepare(w)
        prog = {"name": name, "description": w.description, "threads": w.threads,
                "extra": [str(e) for e in extra], "runs": [], "profiles": {}}
        self.raw["programs"][name] = prog
        ref = benchlib.run(w, extra, size=self.size)
        if not ref.ok:
            raise SystemExit("%s: the original program fails:\n%s" % (name, ref.stderr[-2000:]))
        prog["expected"] = ref.output
        self.rewrite(w, prog)
        configs = make_configs(w, self.intervals, self.agent_ok, self.jacoco)
        if self.a.configs:
            keep = set(self.a.configs.split(",")) | {"base"}
            configs = [c for c in configs if c[0] in keep]
        by_id = {c[0]: c for c in configs}
        if "agent-cached@1000" in by_id:
            self.fill_agent_cache(w, prog, by_id["agent-cached@1000"])
        # Round 1, slow ones first: the interval-1 runs are the accuracy references, and the
        # timer run gives the sample count the counter-equivalent configuration must match.
        rng = random.Random(1)
        first = [c for c in configs if c[0] in ("base", "full@1", "timer10ms")]
        rest = [c for c in configs if c not in first]
        rng.shuffle(rest)
        base_cpu = None
        slow = set()
        skipped = []
        order = first + rest
        for c in order:
            if c[0] in PERFECT and prog.get("perfect_timeout"):
                skipped.append(c[0])
                continue
            rec = self.run_one(w, extra, prog, c, 1,
                               timeout=self.a.slow_timeout if c[0] in PERFECT else None)
            if rec["timeout"] and c[0] in PERFECT:
                prog["perfect_timeout"] = self.a.slow_timeout
            if c[0] == "base":
                base_cpu = rec["cpu"]
            elif base_cpu and (rec["cpu"] > self.a.slow_ratio * base_cpu or not rec["ok"]):
                slow.add(c[0])
        prog["skipped"] = skipped
        configs = [c for c in configs if c[0] not in skipped]
        # The counter interval that takes as many samples as the 10 ms timer did.
        s1 = None if self.a.configs else next(
            (r.get("samples") for r in prog["runs"] if r["cfg"] == "full@1"), None)
        st = next((r.get("samples") for r in prog["runs"] if r["cfg"] == "timer10ms"), None)
        if s1 and st:
            eq = max(1, int(round(s1 / st)))
            prog["timer_equivalent_interval"] = eq
            cfg = ("counter-eq@%d" % eq, "full", {"interval": eq}, None)
            configs.append(cfg)
            by_id[cfg[0]] = cfg
            self.run_one(w, extra, prog, cfg, 1)
        prog["slow"] = sorted(slow)
        for rnd in range(2, self.reps + 1):
            todo = [c for c in configs if c[0] not in slow]
            random.Random(rnd).shuffle(todo)
            for c in todo:
                self.run_one(w, extra, prog, c, rnd)
            self.save()
        if self.a.steady_iterations:
            all_configs = {c[0]: c for c in make_configs(w, FULL_INTERVALS, False, None)}
            self.steady(w, extra, prog, [all_configs[c] for c in STEADY_CONFIGS],
                        all_configs[STEADY_REFERENCE])
        self.save()

    # -- steady state -----------------------------------------------------------------------
    def add_steady_windows(self, rounds):
        """Adds `rounds` rounds measured on a common window (steady_window, from every round
        the earlier run has) to each program's steady phase: for a run that measured each
        configuration where it settled. Its profiles and accuracy are kept."""
        for name, prog in self.raw["programs"].items():
            st = prog.get("steady")
            if not st:
                continue
            w = benchlib.get(name)
            extra = benchlib.prepare(w)
            all_configs = {c[0]: c for c in make_configs(w, FULL_INTERVALS, False, None)}
            configs = [all_configs[c] for c in STEADY_CONFIGS]
            st["window"] = steady_window(st["runs"], self.a, rounds=None)
            ref = benchlib.run(w, extra, size=st["size"])
            first = max(r["round"] for r in st["runs"]) + 1
            for rnd in range(first, first + rounds):
                self.steady_round(w, prog, configs, rnd, st["window"], ref, keep=False)
                self.save()

    def steady_round(self, w, prog, configs, rnd, repeat, ref, keep):
        """One JVM per configuration, in a shuffled order, each running main() as `repeat`
        (Repeat.java) says; with `keep`, each one's profile is kept for accuracy."""
        st = prog["steady"]
        order = list(configs)
        random.Random(100 + rnd).shuffle(order)
        for cfg in order:
            cid, variant, settings, kind = cfg
            jars = [Path(j) for j in prog["variants"][variant]["jars"]] if variant else None
            path = self.results_dir / "profiles" / w.name / ("steady-%s.xml" % cid)
            path.parent.mkdir(parents=True, exist_ok=True)
            opts = jvm_opts_for(cfg, str(path) if keep else "profile.xml", None)
            r = benchlib.run(w, prog["extra"], jars, opts, size=st["size"],
                             timeout=self.a.timeout, repeat=repeat)
            if keep and path.exists() and r.ok:
                st["profiles"][cid] = str(path)
            self.record_steady(w, st, cid, rnd, repeat, r, ref)

    def record_steady(self, w, st, cid, rnd, repeat, r, ref):
        measured = r.measured_cpu()
        rec = {"cfg": cid, "round": rnd, "ok": r.ok and bool(measured), "repeat": repeat,
               "same": r.output == ref.output, "cpu": r.cpu,
               "iters": [c for c, _ in r.iterations],
               "walls": [wl for _, wl in r.iterations], "jits": r.jit,
               "measured": r.measured, "settled": r.settled}
        st["runs"].append(rec)
        benchlib.log("[%s] %s steady r%d %-14s process cpu %6.2f s, %d iterations "
                     "(settled: %s), measured median %s%s" % (
                         self.elapsed(), w.name, rnd, cid, r.cpu, len(r.iterations),
                         "yes" if r.settled else "no",
                         "%.3f s" % statistics.median(measured) if measured else "-",
                         "" if rec["ok"] and rec["same"] else " FAILED/DIFFERS"))

    def steady(self, w, extra, prog, configs, reference):
        """Rounds of one JVM per configuration running main() repeatedly (interleaved). Round 1
        runs each until the JIT settles, keeps the profiles, and adds the interval-1 reference
        for accuracy; the others measure every configuration on a common window."""
        size = benchlib.steady_size(w.name)
        ref = benchlib.run(w, extra, size=size)
        converge = "converge:%d:%d" % (self.a.steady_iterations, self.a.steady_measure)
        st = {"size": size, "iterations": self.a.steady_iterations,
              "measure": self.a.steady_measure, "runs": [], "profiles": {}}
        prog["steady"] = st
        for rnd in range(1, self.a.steady_rounds + 1):
            if rnd == 1:
                self.steady_round(w, prog, configs, rnd, converge, ref, keep=True)
                # The accuracy reference samples every check (several times slower): a short
                # steady run is enough for its profile.
                self.steady_round(w, prog, [reference], rnd, "converge:40:5", ref, keep=True)
            elif self.a.steady_converge_only:
                self.steady_round(w, prog, configs, rnd, converge, ref, keep=False)
            else:
                window = st.setdefault("window", steady_window(st["runs"], self.a))
                self.steady_round(w, prog, configs, rnd, window, ref, keep=False)
            self.save()

    # -- rewriter throughput ----------------------------------------------------------------
    def throughput(self):
        out = {}
        h2 = benchlib.SHARE / "h2.jar"
        tmp = self.results_dir / "throughput"
        tmp.mkdir(exist_ok=True)
        times = []
        summary = ""
        for _ in range(3 if self.quick else 5):
            dest = tmp / "h2-full.jar"
            if dest.exists():
                dest.unlink()
            t0 = time.monotonic()
            r = subprocess.run([str(benchlib.DUPLEX), "instrument", str(h2), "-o", str(dest),
                                "--mode", "full", "--profile", BOTH], capture_output=True,
                               text=True)
            wall = time.monotonic() - t0
            summary = r.stdout + r.stderr
            m = re.search(r"\(([\d.]+) s\)", summary)
            times.append((float(m.group(1)) if m else wall, wall))
        classes = sum(1 for n in zipfile.ZipFile(h2).namelist() if n.endswith(".class"))
        # The same classes from a directory to a directory: no inflating or deflating.
        src_dir = tmp / "h2-classes"
        if not src_dir.exists():
            with zipfile.ZipFile(h2) as z:
                z.extractall(src_dir)
        dir_times = []
        for _ in range(3 if self.quick else 5):
            dest = tmp / "h2-full-dir"
            shutil.rmtree(dest, ignore_errors=True)
            r = subprocess.run([str(benchlib.DUPLEX), "instrument", str(src_dir), "-o", str(dest),
                                "--mode", "full", "--profile", BOTH], capture_output=True,
                               text=True)
            m = re.search(r"\(([\d.]+) s\)", r.stdout + r.stderr)
            if m:
                dir_times.append(float(m.group(1)))
        if dir_times:
            out["duplex_dir"] = {"classes": classes, "best_s": min(dir_times),
                                 "classes_per_s": classes / min(dir_times)}
        best = min(t[0] for t in times)
        out["duplex"] = {"jar": str(h2), "classes": classes, "best_s": best,
                         "median_s": statistics.median(t[0] for t in times),
                         "best_process_wall_s": min(t[1] for t in times),
                         "classes_per_s": classes / best, "summary": summary}
        asm_src = benchlib.BENCH / "classfile" / "AsmBench.java"
        asm_jar = benchlib.SHARE / "asm.jar"
        asm_cp = "%s:%s" % (asm_jar, benchlib.SHARE / "asm-tree.jar")  # asm-tree: ASM's IR
        if asm_src.exists() and asm_jar.exists():
            cls = benchlib.cache_dir() / "asmbench"
            cls.mkdir(exist_ok=True)
            subprocess.run([benchlib.java_bin("javac"), "-nowarn", "-cp", asm_cp, "-d",
                            str(cls), str(asm_src), str(asm_src.with_name("NoLoadWriter.java"))],
                           check=True)
            # The JVM settings and pass count of bench/classfile/run_bench.sh: at least 20
            # passes, so ASM is as warm as duplex-classfile-bench's side.
            r = subprocess.run([benchlib.java_bin(), "-Xms2g", "-Xmx2g", "-XX:+UseParallelGC",
                                "-XX:ParallelGCThreads=1", "-cp", "%s:%s" % (asm_cp, cls),
                                "AsmBench", "--label", "h2", "--min-passes", "20",
                                "--max-seconds", "10" if self.quick else "30", str(h2)],
                               capture_output=True, text=True)
            for line in r.stdout.splitlines():
                f = line.split()
                if len(f) >= 7 and f[0] == "RESULT":
                    out.setdefault("asm", {})[f[2]] = {"classes": int(f[3]), "best_s": float(f[5]),
                                                       "classes_per_s": float(f[6])}
            if "asm" not in out:
                out["asm_error"] = (r.stdout + r.stderr)[-1000:]
        out.update(self.rewriter_in_memory(h2))
        out["checkout"] = subprocess.run(
            ["git", "-C", str(benchlib.REPO), "describe", "--always", "--dirty"],
            capture_output=True, text=True).stdout.strip()
        self.raw["throughput"] = out
        self.save()

    def rewriter_in_memory(self, jar):
        """The rewriter alone, warm, on classes held in memory (duplex-classfile-bench --mode
        rewrite-full: Full-Duplication with both instrumentations), the like-for-like
        counterpart of ASM's in-memory copy; best pass."""
        exe = benchlib.REPO / "build" / "bench" / "classfile" / "duplex-classfile-bench"
        if not exe.exists():
            return {"duplex_memory_error": "%s not built" % exe}
        out = {}
        # glibc's malloc (the library's, and the agent's inside the JVM), then tcmalloc (what
        # the duplex program links), preloaded into the same benchmark.
        for key, preload in (("duplex_memory", None), ("duplex_memory_tcmalloc", TCMALLOC)):
            if preload is not None and not preload.exists():
                continue
            env = dict(os.environ, LD_PRELOAD=str(preload)) if preload else None
            r = subprocess.run([str(exe), "--mode", "rewrite-full", "--label", "h2",
                                "--min-passes", "20", "--max-seconds",
                                "10" if self.quick else "30", str(jar)],
                               capture_output=True, text=True, env=env)
            for line in r.stdout.splitlines():
                f = line.split()
                if len(f) >= 9 and f[0] == "RESULT":
                    out[key] = {"classes": int(f[3]), "best_s": float(f[5]),
                                "classes_per_s": float(f[6]), "best_cpu_s": float(f[8])}
            if key not in out:
                out[key + "_error"] = (r.stdout + r.stderr)[-500:]
        return out

    def meta(self):
        def cmd(args):
            try:
                return subprocess.run(args, capture_output=True, text=True).stdout.strip()
            except OSError:
                return ""
        cpu = ""
        try:
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        except OSError:
            pass
        jv = subprocess.run([benchlib.java_bin(), "-version"], capture_output=True, text=True)
        self.raw["meta"] = {
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "java": jv.stderr.strip().splitlines(),
            "cpu": cpu, "cores": os.cpu_count(),
            "mem_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
            "kernel": platform.release(),
            "load_start": os.getloadavg(),
            "command": " ".join(["bench/run_bench.py"] + sys.argv[1:]),
            "git": cmd(["git", "-C", str(benchlib.REPO), "describe", "--always", "--dirty"]),
            "duplex": str(benchlib.DUPLEX),
        }

    def run(self):
        self.meta()
        self.save()
        for name in self.programs:
            if self.raw["programs"].get(name, {}).get("complete"):
                benchlib.log("run_bench: %s already measured (resumed)" % name)
                continue
            self.program(name)
            self.raw["programs"][name]["complete"] = True
            self.raw["meta"]["seconds_so_far"] = (time.monotonic() - self.started +
                                                  getattr(self, "resumed_seconds", 0))
            self.save()
        self.throughput()
        self.raw["meta"]["load_end"] = os.getloadavg()
        self.raw["meta"]["seconds"] = (time.monotonic() - self.started +
                                       getattr(self, "resumed_seconds", 0))
        self.save()
        return self.raw


# ---------------------------------------------------------------------------------------------
# Analysis


def measured_iters(rec) -> list:
    """CPU seconds of a steady run's measured iterations (runs recorded before Repeat marked
    them: the last half)."""
    marks = rec.get("measured")
    if marks:
        return [c for c, m in zip(rec["iters"], marks) if m]
    return rec["iters"][len(rec["iters"]) // 2:]


def warmup_iterations(rec):
    """Iterations a steady run needed before it was measured; None if it never settled."""
    marks = rec.get("measured")
    if not marks or not rec.get("settled", True):
        return None
    return len(marks) - sum(1 for m in marks if m)


def measured_jit(rec) -> list:
    """The JIT compilers' seconds in each of a steady run's measured iterations (Repeat.java
    records them), or zeros when the run has none."""
    jits = rec.get("jits") or []
    marks = rec.get("measured") or [i >= len(rec["iters"]) // 2 for i in range(len(rec["iters"]))]
    return [j for j, m in zip(jits, marks) if m] or [0.0] * len(measured_iters(rec))


def steady_ratios(prog, at_base_iterations=False, without_jit=False) -> dict:
    """{cfg: {ratio, min, max, n, same, base_s}}: steady-state CPU per iteration against the
    uninstrumented program's in the same round (medians over the measured iterations). With
    at_base_iterations, each configuration's iterations are those the uninstrumented run of
    its round measured (for runs that measured each configuration where it settled). With
    without_jit, the median of the JIT compilers' time per iteration is taken off both
    (a program that never settles spends most of its CPU compiling, see the JIT table)."""
    st = prog.get("steady")
    if not st:
        return {}
    base_marks = {r["round"]: r.get("measured") for r in st["runs"] if r["cfg"] == "base"}

    def level(rec):
        v = cpu_level(rec)
        if v is None or not without_jit:
            return v
        jit = measured_jit(rec)
        return v - statistics.median(jit) if jit else v

    def cpu_level(rec):
        m = measured_iters(rec)
        marks = base_marks.get(rec["round"])
        if at_base_iterations and marks:
            if len(rec["iters"]) < len(marks):
                return None
            m = [c for c, k in zip(rec["iters"], marks) if k]
        return statistics.median(m) if m and rec["ok"] else None

    # Rounds measured on a common window (see steady_window) when there are any: round 1
    # measured each configuration where it settled, which a drifting program biases.
    runs = [r for r in st["runs"] if str(r.get("repeat", "")).startswith("window:")]
    runs = runs or st["runs"]
    base = {r["round"]: level(r) for r in runs if r["cfg"] == "base"}
    ratios, same = {}, {}
    for r in runs:
        b = base.get(r["round"])
        v = level(r)
        if r["cfg"] in ("base", STEADY_REFERENCE) or not b or v is None:
            continue
        ratios.setdefault(r["cfg"], []).append(v / b)
        same[r["cfg"]] = same.get(r["cfg"], True) and r["same"]
    good = [b for b in base.values() if b]
    return {c: {"ratio": statistics.median(v), "min": min(v), "max": max(v), "n": len(v),
                "same": same[c], "base_s": statistics.median(good) if good else None}
            for c, v in ratios.items()}


def steady_jit_shares(prog) -> dict:
    """{cfg: share}: the JIT compilers' share of the measured iterations' CPU time (Repeat.java
    records it), median over rounds; near 0 once the code has settled."""
    st = prog.get("steady")
    if not st:
        return {}
    shares = {}
    for r in st["runs"]:
        cpu = sum(measured_iters(r))
        jit = sum(measured_jit(r))
        if r["ok"] and r.get("jits") and cpu > 0 and r["cfg"] != STEADY_REFERENCE:
            shares.setdefault(r["cfg"], []).append(jit / cpu)
    return {c: statistics.median(v) for c, v in shares.items()}


def steady_warmups(prog) -> dict:
    """{cfg: [iterations to settle per round, None where it did not]}."""
    out = {}
    for r in prog.get("steady", {}).get("runs", []):
        windowed = str(r.get("repeat", "")).startswith("window:")
        if r["ok"] and r["cfg"] != STEADY_REFERENCE and not windowed:
            out.setdefault(r["cfg"], []).append(warmup_iterations(r))
    return out


def analyse(raw):
    """Per program and configuration: overhead medians and spreads, accuracy, samples."""
    res = {}
    for name, prog in raw["programs"].items():
        runs = prog["runs"]
        base = {r["round"]: r for r in runs if r["cfg"] == "base" and r["ok"]}
        cfgs = {}
        for r in runs:
            if r["cfg"] == "base" or not r["ok"] or r["round"] not in base:
                continue
            d = cfgs.setdefault(r["cfg"], {"cpu": [], "wall": [], "samples": [], "same": True,
                                           "agent_ms": [], "duration_ms": []})
            b = base[r["round"]]
            d["cpu"].append(r["cpu"] / b["cpu"])
            if r.get("jit") is not None and b.get("jit") is not None:
                d.setdefault("cpu_s", []).append(r["cpu"])
                d.setdefault("jit_s", []).append(r["jit"])
            if r.get("jit_code") and b.get("jit_code"):
                d.setdefault("jit_code", []).append(r["jit_code"] / b["jit_code"])
            d["wall"].append(r["wall"] / b["wall"])
            d["same"] = d["same"] and r["same"]
            if "samples" in r:
                d["samples"].append(r["samples"])
            if "agent-transform-ms" in r:
                d["agent_ms"].append(float(r["agent-transform-ms"]))
                d["wall_s"] = d.get("wall_s", []) + [r["wall"]]
            if "agent-transform-cpu-ms" in r:
                # The hooks' CPU time over the process's: like for like on a busy machine.
                d.setdefault("agent_cpu_frac", []).append(
                    float(r["agent-transform-cpu-ms"]) / 1000.0 / r["cpu"])
            if "agent-cache-hits" in r:
                d.setdefault("cache_hits", []).append(int(r["agent-cache-hits"]))
                d.setdefault("cache_misses", []).append(int(r["agent-cache-misses"]))
        failed = sorted({r["cfg"] for r in runs if not r["ok"] and not r.get("timeout")})
        lower_bounds = {r["cfg"]: r["cpu"] / base[r["round"]]["cpu"] for r in runs
                        if r.get("timeout") and r["round"] in base}
        base_jit = [b["jit"] for b in base.values() if b.get("jit") is not None]
        base_code = [b["jit_code"] for b in base.values() if b.get("jit_code")]
        out = {"failed": failed, "cfg": {}, "base_cpu": statistics.median(
            b["cpu"] for b in base.values()) if base else None,
            "base_jit": statistics.median(base_jit) if base_jit else None,
            "base_jit_code": statistics.median(base_code) if base_code else None,
            "base_wall": statistics.median(b["wall"] for b in base.values()) if base else None}
        for cid, d in cfgs.items():
            e = {"cpu": statistics.median(d["cpu"]), "cpu_min": min(d["cpu"]),
                 "cpu_max": max(d["cpu"]), "wall": statistics.median(d["wall"]),
                 "wall_min": min(d["wall"]), "wall_max": max(d["wall"]), "n": len(d["cpu"]),
                 "samples": statistics.median(d["samples"]) if d["samples"] else None,
                 "same": d["same"]}
            if d["agent_ms"]:
                e["agent_ms"] = statistics.median(d["agent_ms"])
                e["agent_frac"] = statistics.median(
                    ms / 1000.0 / w for ms, w in zip(d["agent_ms"], d["wall_s"]))
            if d.get("agent_cpu_frac"):
                e["agent_cpu_frac"] = statistics.median(d["agent_cpu_frac"])
            if d.get("jit_s"):
                e["cpu_s"] = statistics.median(d["cpu_s"])
                e["jit_s"] = statistics.median(d["jit_s"])
            if d.get("jit_code"):
                e["jit_code"] = statistics.median(d["jit_code"])  # over the original's
            if d.get("cache_hits"):
                e["cache_hits"] = min(d["cache_hits"])
                e["cache_misses"] = max(d["cache_misses"])
            out["cfg"][cid] = e
        # Accuracy.
        # A run that failed (a stack overflow, say) leaves a partial profile: not a reference.
        broken = {r["cfg"] for r in runs if not r["ok"]}
        profiles = {cid: read_profile(Path(p)) for cid, p in prog["profiles"].items()
                    if Path(p).exists() and cid not in broken}
        acc = {}
        exh = profiles.get("exh-both")
        for cid, p in profiles.items():
            mode = cid.split("@")[0]
            if cid.startswith("timer") or cid.startswith("counter-eq") or cid.startswith("auto"):
                mode = "full"
            ref1 = profiles.get("%s@1" % mode)
            a = {}
            for kind in ("ce", "fa"):
                if ref1:
                    a[kind + "_ov1"] = overlap(ref1[kind], p[kind])
                    a[kind + "_hc1"] = hot_cover(ref1[kind], p[kind])
                if exh:
                    a[kind + "_ovx"] = overlap(exh[kind], p[kind])
                    a[kind + "_hcx"] = hot_cover(exh[kind], p[kind])
                a[kind + "_keys"] = len(p[kind])
                a[kind + "_total"] = sum(p[kind].values())
            a["samples"] = p["samples"]
            acc[cid] = a
        out["acc"] = acc
        out["variants"] = {v: {k: d[k] for k in ("class_bytes", "rewritten_bytes", "seconds")}
                           for v, d in prog["variants"].items()}
        for v, d in prog["variants"].items():
            out["variants"][v].update(variant_code_bytes(name, d))
        out["variant_summaries"] = {v: d["summary"] for v, d in prog["variants"].items()}
        out["slow"] = prog.get("slow", [])
        out["skipped"] = prog.get("skipped", [])
        out["perfect_timeout"] = prog.get("perfect_timeout")
        out["timeouts"] = lower_bounds
        out["timer_eq"] = prog.get("timer_equivalent_interval")
        out["steady"] = steady_ratios(prog)
        out["steady_same_iterations"] = steady_ratios(prog, at_base_iterations=True)
        out["steady_without_jit"] = steady_ratios(prog, without_jit=True)
        out["steady_jit"] = steady_jit_shares(prog)
        out["steady_warmup"] = steady_warmups(prog)
        steady_broken = {r["cfg"] for r in prog.get("steady", {}).get("runs", []) if not r["ok"]}
        sp = {c: read_profile(Path(p)) for c, p in prog.get("steady", {}).get(
            "profiles", {}).items() if Path(p).exists() and c not in steady_broken}
        sref = sp.get(STEADY_REFERENCE)
        out["steady_acc"] = {c: {"ce": overlap(sref["ce"], p["ce"]), "fa": overlap(sref["fa"], p["fa"]),
                                 "samples": p["samples"]}
                             for c, p in sp.items() if sref and c != STEADY_REFERENCE}
        out["steady_size"] = prog.get("steady", {}).get("size")
        out["steady_window"] = prog.get("steady", {}).get("window")
        out["steady_window_rounds"] = len({
            r["round"] for r in prog.get("steady", {}).get("runs", [])
            if str(r.get("repeat", "")).startswith("window:")})
        res[name] = out
    return res


# ---------------------------------------------------------------------------------------------
# Report


def pct(ratio):
    return None if ratio is None else 100.0 * (ratio - 1.0)


def steady_oh(res, prog, cid):
    e = res[prog].get("steady", {}).get(cid)
    return pct(e["ratio"]) if e else None


def avg_steady(res, progs, cid):
    return geo_pct([steady_oh(res, p, cid) for p in progs])


def max_steady(res, progs, cid):
    v = [steady_oh(res, p, cid) for p in progs if steady_oh(res, p, cid) is not None]
    return max(v) if v else None


def steady_section(raw, res, progs) -> str:
    """Table S: steady-state overheads, the paper's setting (code compiled before the run)."""
    progs = [p for p in progs if res[p].get("steady")]
    if not progs:
        return ""
    ids = [c for c in STEADY_CONFIGS if c != "base"]
    acc_ids = [c for c in ids if not c.startswith("checks")]
    rows = []
    acc_rows = []
    for p in progs:
        a = res[p].get("steady_acc", {})
        acc_rows.append([p] + ["%s / %s (%s samples)" % (
            fmt_ov(a.get(c, {}).get("ce")), fmt_ov(a.get(c, {}).get("fa")),
            fmt_n(a.get(c, {}).get("samples"))) for c in acc_ids])
    acc_rows.append(["**geo. mean**"] + ["%s / %s" % (
        fmt_ov(geo([res[p].get("steady_acc", {}).get(c, {}).get("ce") for p in progs])),
        fmt_ov(geo([res[p].get("steady_acc", {}).get(c, {}).get("fa") for p in progs])))
        for c in acc_ids])
    for p in progs:
        st = res[p]["steady"]
        base_s = next((e["base_s"] for e in st.values() if e.get("base_s")), None)
        cells = []
        for c in ids:
            e = st.get(c)
            cells.append("-" if not e else "%s (%s..%s)%s" % (
                fmt_pct(pct(e["ratio"])), fmt_pct(pct(e["min"]), 0), fmt_pct(pct(e["max"]), 0),
                "" if e["same"] else " DIFF"))
        rows.append([p, res[p]["steady_size"], window_cell(res[p].get("steady_window")),
                     "%.3f s" % base_s if base_s else "-"] + cells)
    rows.append(["**geo. mean**", "", "", ""] + [fmt_pct(avg_steady(res, progs, c)) for c in ids])
    cfg = raw["config"]
    settle = ("each configuration runs until the JIT has settled (the compilers' time "
              "over the last 3 iterations under 3%% of their CPU time; at most %d iterations)" %
              cfg.get("steady_iterations", 0))
    if any(res[p].get("steady_window") for p in progs):
        windowed = max(res[p].get("steady_window_rounds", 0) for p in progs)
        converging = cfg.get("steady_rounds", 0) - windowed
        method = ("%s where the code settles: %s. %d more round%s then measure%s every "
                  "configuration on the same iterations, those after the latest settling point "
                  "found (a program can get slower or faster with every iteration on its own, "
                  "and configurations measured at different iterations would carry that "
                  "drift); the figures are from those rounds." % (
                      "The first %d rounds find" % converging if converging > 1 else
                      "The first round finds", settle, windowed, "s" if windowed > 1 else "",
                      "" if windowed > 1 else "s"))
    else:
        method = ("In every round %s, then at least %d more iterations and 3 s of CPU are "
                  "measured, each configuration where it settled. A program whose per-iteration "
                  "time drifts biases this (see the findings); %d rounds." % (
                      settle, cfg.get("steady_measure", 10), cfg.get("steady_rounds", 0)))
    return ("\n## Table S: steady state (code compiled before it is measured)\n\n"
            "The paper compiled every method at O2 before the run, so its overheads exclude "
            "compilation. Here each JVM runs the program's main() repeatedly "
            "(bench/workloads/Repeat.java; only the first iteration's output is kept, and it is "
            "compared with the original's). %s The figure is the median process CPU time of the "
            "measured iterations over the uninstrumented program's in the same round; "
            "median over the rounds (min..max). The single-run tables below include "
            "JVM start-up, class loading, interpretation and JIT compilation.\n\n" % method +
            table(["program", "input", "measured iterations", "uninstrumented, per iteration"] +
                  ids, rows) + "\n" +
            same_iterations_table(res, progs, ids) +
            jit_share_table(res, progs) + without_jit_table(res, progs, ids) +
            warmup_table(res, progs) +
            "\nAccuracy of the same runs (round 1): call-edge / field-access overlap with the "
            "profile of a %s run of the same length, and the samples taken.\n\n" % STEADY_REFERENCE +
            table(["program"] + acc_ids, acc_rows) + "\n")


def ratio_rows(res, progs, ids, key) -> list:
    """Rows of "median (min..max)" overheads from res[program][key][cfg], one per program, and
    their geometric mean; no rows without programs."""
    rows = []
    for p in progs:
        st = res[p].get(key, {})
        rows.append([p] + ["-" if c not in st else "%s (%s..%s)" % (
            fmt_pct(pct(st[c]["ratio"])), fmt_pct(pct(st[c]["min"]), 0),
            fmt_pct(pct(st[c]["max"]), 0)) for c in ids])
    if rows:
        rows.append(["**geo. mean**"] + [fmt_pct(geo_pct([
            pct(res[p].get(key, {}).get(c, {}).get("ratio")) for p in progs])) for c in ids])
    return rows


def same_iterations_table(res, progs, ids) -> str:
    """For runs that measured each configuration where it settled: every configuration on the
    iterations the uninstrumented run measured, so that all are compared at the same point of
    any drift (configurations that settle later still pay some compilation there)."""
    progs = [p for p in progs if not res[p].get("steady_window")]
    rows = ratio_rows(res, progs, ids, "steady_same_iterations")
    if not rows:
        return ""
    return ("\nThe same configurations on the iterations the uninstrumented run measured (its "
            "settling point on), the same iterations for all: a program whose time per "
            "iteration drifts as it runs (rhino's grows, ecj's falls) no longer favours the "
            "configurations that settled earlier or later; those that settle later still pay "
            "some compilation here.\n\n" + table(["program"] + ids, rows) + "\n")


def without_jit_table(res, progs, ids) -> str:
    """Table S again with the JIT compilers' time per iteration taken off both sides: what the
    rewritten code costs to run once compiled, apart from what compiling it still costs."""
    if not any(res[p].get("steady_without_jit") for p in progs):
        return ""
    rows = ratio_rows(res, progs, ids, "steady_without_jit")
    return ("\nThe same iterations without the JIT compilers' CPU: each run's median compilation "
            "time per measured iteration (CompilationMXBean, the compilers' threads) taken off "
            "its median CPU time per iteration, the uninstrumented run's too. Where the code "
            "has settled this changes little; where it has not (the JIT table above), the "
            "difference is what compiling the rewritten code still costs.\n\n" +
            table(["program"] + ids, rows) + "\n")


def window_cell(window) -> str:
    """"FROM+1..FROM+COUNT" for Repeat's window:FROM:COUNT; "where each settled" otherwise."""
    if not window:
        return "where each settled"
    _, start, count = window.split(":")
    return "%d..%d" % (int(start) + 1, int(start) + int(count))


def warmup_table(res, progs) -> str:
    """How many iterations each configuration ran before the JIT settled: the warm-up cost of
    compiling the rewritten code, which the steady figures leave out."""
    rows = []
    for p in progs:
        w = res[p].get("steady_warmup", {})
        cells = []
        for c in STEADY_CONFIGS:
            runs = w.get(c)
            if not runs:
                cells.append("-")
                continue
            ok = [n for n in runs if n is not None]
            cell = "%d" % statistics.median(ok) if ok else "never"
            if len(ok) < len(runs):
                cell += " (%d of %d unsettled)" % (len(runs) - len(ok), len(runs))
            cells.append(cell)
        rows.append([p] + cells)
    if not rows:
        return ""
    return ("\nIterations before the JIT settled (median over rounds; \"unsettled\": measured "
            "at the cap anyway). The rewritten programs compile two to three times the "
            "bytecode, so they settle later; whole runs (Tables 1-4) include that cost.\n\n" +
            table(["program"] + STEADY_CONFIGS, rows) + "\n")


def jit_share_table(res, progs) -> str:
    """How much of the measured iterations' CPU time the JIT compilers still took."""
    rows = []
    for p in progs:
        shares = res[p].get("steady_jit", {})
        cells = [shares.get(c) for c in STEADY_CONFIGS]
        if any(v is not None for v in cells):
            rows.append([p] + ["-" if v is None else "%.1f%%" % (100 * v) for v in cells])
    if not rows:
        return ""
    return ("\nJIT compilation during the measured iterations, as a share of their CPU time "
            "(CompilationMXBean, median over rounds): where it is high the code had not settled "
            "yet, and the overhead above includes compiling the rewritten code.\n\n" +
            table(["program"] + STEADY_CONFIGS, rows) + "\n")


def fmt_pct(v, digits=1):
    return "-" if v is None else ("%+.*f%%" % (digits, v))


def fmt_ov(v):
    return "-" if v is None else "%.1f" % v


def fmt_n(v):
    if v is None:
        return "-"
    return "{:,}".format(int(round(v)))


def oh(res, prog, cid, key="cpu"):
    e = res[prog]["cfg"].get(cid)
    return None if e is None else pct(e[key])


def oh_cell(res, prog, cid):
    e = res[prog]["cfg"].get(cid)
    if e is None:
        if cid in res[prog].get("timeouts", {}):
            return "> %s (timeout)" % fmt_pct(pct(res[prog]["timeouts"][cid]), 0)
        if cid in res[prog].get("skipped", []):
            return "skipped"
        return "FAILED" if cid in res[prog]["failed"] else "-"
    s = "%s" % fmt_pct(pct(e["cpu"]))
    if e["n"] > 1:
        s += " (%s..%s)" % (fmt_pct(pct(e["cpu_min"]), 0), fmt_pct(pct(e["cpu_max"]), 0))
    else:
        s += " (1 run)"
    if not e["same"]:
        s += " DIFF"
    return s


def mean(vals):
    vals = [v for v in vals if v is not None]
    return statistics.mean(vals) if vals else None


def geo_pct(vals):
    """The geometric mean over programs of changes in percent (overheads, growth): of the
    ratios 1 + v/100, given back in percent, as issue 6's targets are stated."""
    vals = [1.0 + v / 100.0 for v in vals if v is not None]
    if not vals or min(vals) <= 0:
        return None
    return 100.0 * (statistics.geometric_mean(vals) - 1.0)


def geo(vals):
    """The geometric mean over programs of percentages (overlap, hot-cover)."""
    vals = [v for v in vals if v is not None]
    if not vals or min(vals) <= 0:
        return mean(vals) if vals else None
    return statistics.geometric_mean(vals)


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def variant_code_bytes(name, variant):
    """Bytecode before and after a variant's rewriting: recorded by the run, or (for a raw.json
    from before it was) counted from the rewritten jars if they are still in the cache."""
    if "code_bytes" not in variant:
        jars = [Path(j) for j in variant.get("jars", [])]
        try:
            originals = benchlib.get(name).app_jars
        except (KeyError, SystemExit):
            return {}
        if not jars or not all(j.exists() for j in jars) or len(originals) != len(jars):
            return {}
        # Kept in the variant, so that a run saved again records them.
        variant["code_bytes"] = sum(benchlib.code_bytes(Path(j)) for j in originals)
        variant["rewritten_code_bytes"] = sum(benchlib.code_bytes(j) for j in jars)
    return {k: variant[k] for k in ("code_bytes", "rewritten_code_bytes")}


def growth(res, prog, variant, what="class"):
    """Growth in percent of the class bytes, or (what="code") of the bytecode."""
    v = res[prog]["variants"].get(variant)
    before, after = (("class_bytes", "rewritten_bytes") if what == "class" else
                     ("code_bytes", "rewritten_code_bytes"))
    if not v or not v.get(before):
        return None
    return 100.0 * (v[after] / v[before] - 1.0)


def growth_cell(res, progs, variant):
    """"code / class" growth of a variant, the mean over `progs`."""
    return "%s / %s" % (fmt_pct(geo_pct([growth(res, p, variant, "code") for p in progs]), 0),
                        fmt_pct(geo_pct([growth(res, p, variant) for p in progs]), 0))


def replace_programs(raw, other):
    """Puts `other`'s programs in place of `raw`'s, keeping a record of the run they came from.
    Each program's configurations are interleaved within its own rounds and compared with its
    own uninstrumented runs, so a program measured in another run of the same options stands on
    its own; only the options must agree."""
    for key in ("reps", "size", "intervals", "slow_ratio", "instrument_args",
                "steady_iterations", "steady_measure", "steady_rounds"):
        if raw["config"].get(key) != other["config"].get(key):
            raise SystemExit("run_bench: --replace-programs: the runs differ in %s (%r, %r)" % (
                key, raw["config"].get(key), other["config"].get(key)))
    for name, prog in other["programs"].items():
        if not prog.get("complete"):
            raise SystemExit("run_bench: --replace-programs: %s was not measured to the end" % name)
        if name not in raw["config"]["programs"]:
            raise SystemExit("run_bench: --replace-programs: %s is not in the main run" % name)
        raw["programs"][name] = prog
        m = other["meta"]
        raw["meta"].setdefault("replaced", []).append({
            "program": name, "date": m.get("date", ""), "command": m.get("command", ""),
            "git": m.get("git", ""), "minutes": round(m.get("seconds", 0) / 60)})


def steady_from(raw, others):
    """Puts the steady-state phase (Table S) of earlier runs in place of `raw`'s, for a run
    measured with --steady-iterations 0: the steady phase takes about two hours, the whole runs
    one, so the whole runs can be measured again on their own after a change. Each steady
    configuration is compared with the uninstrumented program in its own JVM rounds, so it
    stands on its own. A program is taken from the last of `others` that has it; the header
    says when and at which checkout each was measured."""
    if raw["config"].get("steady_iterations"):
        raise SystemExit("run_bench: --steady-from: the main run has a steady phase of its own")
    sources = {}
    for other in others:
        for key in ("steady_iterations", "steady_measure", "steady_rounds", "size"):
            first = others[0]["config"].get(key)
            if other["config"].get(key) != first:
                raise SystemExit("run_bench: --steady-from: the runs differ in %s" % key)
        for name, prog in other["programs"].items():
            if prog.get("steady") and name in raw["config"]["programs"]:
                sources[name] = other
    for name in raw["config"]["programs"]:
        if name not in sources:
            raise SystemExit("run_bench: --steady-from: no steady phase of %s" % name)
        raw["programs"][name]["steady"] = sources[name]["programs"][name]["steady"]
    for key in ("steady_iterations", "steady_measure", "steady_rounds"):
        raw["config"][key] = others[0]["config"].get(key)
    for other in others:
        progs = [n for n in raw["config"]["programs"] if sources[n] is other]
        if progs:
            m = other["meta"]
            raw["meta"].setdefault("steady_from", []).append({
                "programs": progs, "date": m.get("date", ""), "command": m.get("command", ""),
                "git": m.get("git", "")})


def report(raw, res, charts_dir: Path, charts_rel: str, notes: str = "") -> str:
    cfg = raw["config"]
    meta = raw["meta"]
    progs = [p for p in cfg["programs"] if p in res]
    intervals = cfg["intervals"]
    L = []
    L.append("# duplex on real programs: overhead and accuracy\n")
    L.append("Generated by `bench/run_bench.py` (do not edit by hand; rerun it). Method, "
             "workloads and how to rerun: bench/README.md.\n")
    L.append(table(["", ""], [
        ["date", meta.get("date", "")],
        ["command", "`%s`" % meta.get("command", "")],
        ["checkout", meta.get("git", "")],
        ["JVM", "; ".join(meta.get("java", [])[:3])],
        ["machine", "%s, %s cores, %s GB, Linux %s" % (meta.get("cpu"), meta.get("cores"),
                                                      meta.get("mem_gb"), meta.get("kernel"))],
        ["load average (1/5/15 min)", "start %s, end %s" % (
            "/".join("%.1f" % x for x in meta.get("load_start", [])),
            "/".join("%.1f" % x for x in meta.get("load_end", [])))],
        ["duration", "%.0f min" % (meta.get("seconds", 0) / 60)],
        ["programs", ", ".join(progs)],
        ["input size", cfg["size"]],
        ["rounds", "%d (configurations slower than %gx the original in round 1: 1 run)" % (
            cfg["reps"], cfg["slow_ratio"])],
    ] + ([["steady state, rounds on a common window", "%s rounds added %s: `%s`" % (
        meta["steady_windows"]["rounds"], meta["steady_windows"]["date"],
        meta["steady_windows"]["command"])]] if meta.get("steady_windows") else [])
      + [["steady state (Table S) of %s" % ", ".join(r["programs"]),
          "measured in the run of %s, checkout %s: `%s`" % (r["date"], r["git"], r["command"])]
         for r in meta.get("steady_from", [])]
      + [["%s measured again" % r["program"], "%s, checkout %s, %d min: `%s`" % (
          r["date"], r["git"], r["minutes"], r["command"])] for r in meta.get("replaced", [])]))
    L.append("""
**How to read the numbers.** Overhead is the CPU time (user + system, all JVM threads: JIT
and GC included) of a configuration over the uninstrumented program's in the same round,
as a percentage; the cell shows the median over rounds and the min..max range. CPU time is
used because this machine is shared: other jobs at times pushed the load average well above
the 2 cores, which stretches wall-clock time unevenly (wall-clock medians are in the appendix).
The runs are short (about 1 s of CPU uninstrumented, see the appendix), so JIT compilation
and class loading weigh more than in a long-running program. Table S measures the steady
state instead (the program's main() run repeatedly in one JVM, later iterations compared), the
setting of the paper, which compiled every method before its runs; the targets table gives
both.
Every configuration's output was compared with the original's; `DIFF` marks a mismatch.
Accuracy is from the first run of each configuration (counter-based sampling is
deterministic for single-threaded programs), in percent. Figures over all programs
(`geo. mean`, and the targets) are geometric means: of the ratios to the original for
overheads and growth, of the percentages for overlap and hot-cover.
""")
    # Targets.
    def avg_cfg(cid):
        return geo_pct([oh(res, p, cid) for p in progs])

    def max_cfg(cid):
        v = [oh(res, p, cid) for p in progs if oh(res, p, cid) is not None]
        return max(v) if v else None

    def avg_acc(cid, key):
        return geo([res[p]["acc"].get(cid, {}).get(key) for p in progs])

    def min_acc(cid, key):
        v = [res[p]["acc"].get(cid, {}).get(key) for p in progs]
        v = [x for x in v if x is not None]
        return min(v) if v else None

    tp = raw.get("throughput", {})
    asm = tp.get("asm", {})
    asm_best = asm.get("asm-copy-frames") or asm.get("asm-copy")
    dup_tp = (tp.get("duplex_memory") or tp.get("duplex_dir") or
              tp.get("duplex", {})).get("classes_per_s")
    ratio_asm = (dup_tp / asm_best["classes_per_s"]) if (dup_tp and asm_best) else None
    agent_fracs = [res[p]["cfg"].get("agent-full@1000", {}).get("agent_frac") for p in progs]
    agent_fracs = [x for x in agent_fracs if x is not None]
    cached_fracs = [res[p]["cfg"].get("agent-cached@1000", {}).get("agent_frac") for p in progs]
    cached_fracs = [x for x in cached_fracs if x is not None]
    agent_cpu_fracs = [res[p]["cfg"].get("agent-full@1000", {}).get("agent_cpu_frac")
                       for p in progs]
    # A mean over some of the programs would read as one over all (a run whose agent did not
    # report its hooks' CPU time yet, merged with a later one): all or nothing.
    agent_cpu_fracs = [] if None in agent_cpu_fracs else agent_cpu_fracs

    def verdict(ok):
        return "-" if ok is None else ("met" if ok else "**missed**")

    t_checks, t_checks_max = avg_cfg("checks@0"), max_cfg("checks@0")
    t_full, t_auto = avg_cfg("full@1000"), avg_cfg("auto@1000")
    s_checks, s_checks_max = avg_steady(res, progs, "checks@0"), max_steady(res, progs, "checks@0")
    s_full, s_auto = avg_steady(res, progs, "full@1000"), avg_steady(res, progs, "auto@1000")
    rows = [] if s_checks is None else [
        ["checks-only overhead, steady state", "<= 3% geo. mean, none > 8%",
         "%s geo. mean, %s max" % (fmt_pct(s_checks), fmt_pct(s_checks_max)),
         verdict(s_checks <= 3 and s_checks_max <= 8)],
        ["total overhead Full @1000 (both), steady state", "<= 5%", fmt_pct(s_full),
         verdict(None if s_full is None else s_full <= 5)],
        ["total overhead auto @1000 (both), steady state", "<= 5%", fmt_pct(s_auto),
         verdict(None if s_auto is None else s_auto <= 5)],
    ]
    same = [p for p in progs if res[p].get("steady_same_iterations")
            and not res[p].get("steady_window")]
    if s_checks is not None and same:
        def same_it(cid):
            return [pct(res[p]["steady_same_iterations"].get(cid, {}).get("ratio")) for p in same]
        checks_same = same_it("checks@0")
        worst = max((v for v in checks_same if v is not None), default=None)
        rows.append(["the same, on the uninstrumented run's iterations: checks-only / Full @1000 "
                     "/ auto @1000", "<= 3% (none > 8%) / <= 5% / <= 5%",
                     "%s (max %s) / %s / %s" % (
                         fmt_pct(geo_pct(checks_same)), fmt_pct(worst),
                         fmt_pct(geo_pct(same_it("full@1000"))),
                         fmt_pct(geo_pct(same_it("auto@1000")))), ""])
    for it, ce_t, fa_t in ((1000, 95, 97), (10000, 85, 95)):
        cid = "full@%d" % it
        ce = geo([res[p].get("steady_acc", {}).get(cid, {}).get("ce") for p in progs])
        fa = geo([res[p].get("steady_acc", {}).get(cid, {}).get("fa") for p in progs])
        if ce is None or fa is None:
            continue
        rows.append(["overlap Full @%d vs interval 1, steady runs (call-edge / field)" % it,
                     ">= %d%% / >= %d%%" % (ce_t, fa_t), "%s / %s" % (fmt_ov(ce), fmt_ov(fa)),
                     verdict(ce >= ce_t and fa >= fa_t)])
    rows += [
        ["checks-only overhead, whole run (start-up and JIT included)", "<= 3% geo. mean, none > 8%",
         "%s geo. mean, %s max" % (fmt_pct(t_checks), fmt_pct(t_checks_max)),
         verdict(None if t_checks is None else (t_checks <= 3 and t_checks_max <= 8))],
        ["total overhead Full @1000 (both), whole run", "<= 5%", fmt_pct(t_full),
         verdict(None if t_full is None else t_full <= 5)],
        ["total overhead auto @1000 (both), whole run", "<= 5%", fmt_pct(t_auto),
         verdict(None if t_auto is None else t_auto <= 5)],
    ]
    for it, ce_t, fa_t in ((1000, 95, 97), (10000, 85, 95)):
        if it not in intervals:
            continue
        ce, fa = avg_acc("full@%d" % it, "ce_ov1"), avg_acc("full@%d" % it, "fa_ov1")
        rows.append(["overlap Full @%d vs interval 1, whole runs (call-edge / field)" % it,
                     ">= %d%% / >= %d%%" % (ce_t, fa_t),
                     "%s / %s (min %s / %s)" % (fmt_ov(ce), fmt_ov(fa),
                                               fmt_ov(min_acc("full@%d" % it, "ce_ov1")),
                                               fmt_ov(min_acc("full@%d" % it, "fa_ov1"))),
                     verdict(None if ce is None or fa is None else (ce >= ce_t and fa >= fa_t))])
    g_full = geo_pct([growth(res, p, "full") for p in progs])
    g_auto = geo_pct([growth(res, p, "auto") for p in progs])
    c_full = geo_pct([growth(res, p, "full", "code") for p in progs])
    c_auto = geo_pct([growth(res, p, "auto", "code") for p in progs])
    rows.append(["bytecode growth (methods' code), Full / auto", "report; auto < +60%",
                 "%s / %s" % (fmt_pct(c_full, 0), fmt_pct(c_auto, 0)),
                 verdict(None if c_auto is None else c_auto < 60)])
    rows.append(["class-file growth (code, pool, tables), Full / auto", "report",
                 "%s / %s" % (fmt_pct(g_full, 0), fmt_pct(g_auto, 0)), ""])
    m_full, m_auto = (geo_pct([machine_code_growth(res, p, c) for p in progs])
                      for c in ("full@1000", "auto@1000"))
    if m_full is not None or m_auto is not None:
        rows.append(["machine code the JIT compiled, whole runs (the paper's measure), "
                     "Full / auto @1000", "report",
                     "%s / %s" % (fmt_pct(m_full, 0), fmt_pct(m_auto, 0)), ""])
    rows.append(["rewriter throughput vs ASM 9.4 COMPUTE_FRAMES copy (h2.jar, warm%s)" % (
                     ", both in memory" if tp.get("duplex_memory") else ""), ">= 3x",
                 "-" if ratio_asm is None else "%.2fx (%s vs %s classes/s)" % (
                     ratio_asm, fmt_n(dup_tp), fmt_n(asm_best["classes_per_s"])),
                 verdict(None if ratio_asm is None else ratio_asm >= 3)])
    rows.append(["agent transform time / run time", "<= 5%",
                 ("-" if not agent_fracs else "%.1f%% mean, %.1f%% max" % (
                     100 * statistics.mean(agent_fracs), 100 * max(agent_fracs))) +
                 ("" if not cached_fracs else "; runs after the first with cache=DIR: "
                  "%.1f%% mean, %.1f%% max" % (100 * statistics.mean(cached_fracs),
                                              100 * max(cached_fracs))) +
                 ("" if not agent_cpu_fracs else "; first run, the hooks' CPU time over the "
                  "process's: %.1f%% mean, %.1f%% max" % (100 * statistics.mean(agent_cpu_fracs),
                                                       100 * max(agent_cpu_fracs))),
                 verdict(None if not agent_fracs else max(agent_fracs) <= 0.05)])
    L.append("## Targets (issue 6)\n")
    L.append(table(["what", "target", "measured", ""], rows))
    L.append(steady_section(raw, res, progs))
    failed = {p: res[p]["failed"] for p in progs if res[p]["failed"]}
    diffs = {p: [c for c, e in res[p]["cfg"].items() if not e["same"]] for p in progs}
    diffs = {p: v for p, v in diffs.items() if v}
    if failed or diffs:
        L.append("\nConfigurations that failed (non-zero exit) or changed the output: " +
                 "; ".join("%s: %s" % (p, ", ".join(v)) for p, v in
                           list(failed.items()) + [(p, ["%s (output)" % c for c in v])
                                                   for p, v in diffs.items()]) + "\n")

    if notes:
        L.append(notes)

    # Table 1.
    L.append("\n## Table 1: exhaustive instrumentation (no framework)\n")
    rows = [[p, oh_cell(res, p, "exh-ce"), oh_cell(res, p, "exh-fa"), oh_cell(res, p, "exh-both")]
            for p in progs]
    rows.append(["**geo. mean**", fmt_pct(avg_cfg("exh-ce")), fmt_pct(avg_cfg("exh-fa")),
                 fmt_pct(avg_cfg("exh-both"))])
    rows.append(["paper (Jalapeño)", "+88.3%", "+60.4%", ""])
    L.append(table(["program", "call-edge", "field-access", "both"], rows))

    # Table 2.
    L.append("\n## Table 2: Full-Duplication framework overhead, no samples\n")
    L.append("`checks`: Full-Duplication with empty duplicated code, interval 0 (the paper's "
             "Table 2). `full@0`: Full-Duplication with both instrumentations in the "
             "duplicated code, interval 0. Growth: of the bytecode (the methods' code lengths) / of "
             "the class files (bytes of the jars' .class entries).\n\n")
    rows = []
    for p in progs:
        v = res[p]["variants"]
        rows.append([p, oh_cell(res, p, "checks@0"), oh_cell(res, p, "full@0"),
                     growth_cell(res, [p], "checks"), growth_cell(res, [p], "full"),
                     "%.2f s" % v["full"]["seconds"], fmt_n(v["full"]["class_bytes"])])
    rows.append(["**geo. mean**", fmt_pct(avg_cfg("checks@0")), fmt_pct(avg_cfg("full@0")),
                 growth_cell(res, progs, "checks"), growth_cell(res, progs, "full"), "", ""])
    rows.append(["paper (Jalapeño)", "+4.9% (+1.4% yieldpoints)", "", "", "+34% (machine code)",
                 "", ""])
    L.append(table(["program", "checks only", "full, interval 0", "growth checks",
                    "growth full", "rewrite time full", "class bytes"], rows))

    L.append(compilers_table(res, progs))
    L.append(machine_code_table(res, progs))

    # Table 3.
    L.append("\n## Table 3: No-Duplication checks only (interval 0)\n")
    rows = [[p, oh_cell(res, p, "nodup-ce@0"), oh_cell(res, p, "nodup-fa@0"),
             oh_cell(res, p, "nodup@0")] for p in progs]
    rows.append(["**geo. mean**", fmt_pct(avg_cfg("nodup-ce@0")), fmt_pct(avg_cfg("nodup-fa@0")),
                 fmt_pct(avg_cfg("nodup@0"))])
    rows.append(["paper (Jalapeño)", "+1.3%", "+51.1%", ""])
    L.append(table(["program", "call-edge", "field-access", "both"], rows))

    # Table 4.
    L.append("\n## Table 4: sampled instrumentation, both instrumentations, geometric mean "
             "over programs\n")
    L.append("Samples: median per run. Sampled instr.: total minus the mode's interval-0 "
             "overhead. Overlap against the interval-1 profile of the same mode (`vs i1`) and "
             "against the exhaustive profile (`vs exh`); hot-cover against interval 1.\n\n")
    for m in SAMPLED_MODES:
        rows = []
        for it in intervals:
            cid = "%s@%d" % (m, it)
            tot = avg_cfg(cid)
            fw = avg_cfg("%s@0" % m)
            rows.append([fmt_n(it), fmt_n(mean([res[p]["cfg"].get(cid, {}).get("samples")
                                                for p in progs])),
                         fmt_pct(None if tot is None or fw is None else tot - fw),
                         fmt_pct(tot),
                         fmt_ov(avg_acc(cid, "ce_ov1")), fmt_ov(avg_acc(cid, "fa_ov1")),
                         fmt_ov(avg_acc(cid, "ce_ovx")), fmt_ov(avg_acc(cid, "fa_ovx")),
                         fmt_ov(avg_acc(cid, "ce_hc1")), fmt_ov(avg_acc(cid, "fa_hc1"))])
        L.append("**%s**\n\n" % {"full": "Full-Duplication", "partial": "Partial-Duplication",
                                 "nodup": "No-Duplication"}[m])
        L.append(table(["interval", "samples", "sampled instr.", "total", "overlap CE vs i1",
                        "overlap FA vs i1", "CE vs exh", "FA vs exh", "hot-cover CE",
                        "hot-cover FA"], rows))
        L.append("\n")
    L.append("Paper (Full-Dup, both): interval 1000: total +6.3%, overlap 94 / 97; 10,000: "
             "+5.1%, 82 / 94; 100,000: +5.0%, 71 / 83. No-Dup 1000: +57.2%, 93 / 98.\n")
    rows = []
    for p in progs:
        a = res[p]["acc"].get("auto@1000", {})
        rows.append([p, oh_cell(res, p, "auto@1000"), oh_cell(res, p, "full@1000"),
                     fmt_ov(a.get("ce_ovx")), fmt_ov(a.get("fa_ovx")),
                     growth_cell(res, [p], "auto")])
    L.append("\n**auto @1000** (per-method choice; accuracy against the exhaustive profile)\n\n")
    L.append(table(["program", "auto total", "full total", "overlap CE", "overlap FA",
                    "growth (code / class)"], rows))

    # Table 5.
    L.append("\n## Table 5: timer trigger (10 ms) against counter trigger, Full-Duplication\n")
    L.append("The counter interval is the interval-1 sample count over the timer run's, so "
             "both take about as many samples. Overlap against Full @1.\n\n")
    rows = []
    for p in progs:
        eq = res[p]["timer_eq"]
        at = res[p]["acc"].get("timer10ms", {})
        ac = res[p]["acc"].get("counter-eq@%s" % eq, {}) if eq else {}
        rows.append([p, fmt_n(at.get("samples")), fmt_n(eq), fmt_n(ac.get("samples")),
                     fmt_ov(at.get("fa_ov1")), fmt_ov(ac.get("fa_ov1")),
                     fmt_ov(at.get("ce_ov1")), fmt_ov(ac.get("ce_ov1"))])
    rows.append(["**geo. mean**", "", "", "",
                 fmt_ov(geo([res[p]["acc"].get("timer10ms", {}).get("fa_ov1") for p in progs])),
                 fmt_ov(geo([res[p]["acc"].get("counter-eq@%s" % res[p]["timer_eq"], {}).get(
                     "fa_ov1") for p in progs if res[p]["timer_eq"]])),
                 fmt_ov(geo([res[p]["acc"].get("timer10ms", {}).get("ce_ov1") for p in progs])),
                 fmt_ov(geo([res[p]["acc"].get("counter-eq@%s" % res[p]["timer_eq"], {}).get(
                     "ce_ov1") for p in progs if res[p]["timer_eq"]]))])
    rows.append(["paper", "", "30,000", "", "63", "84", "", ""])
    L.append(table(["program", "timer samples", "counter interval", "counter samples",
                    "FA timer", "FA counter", "CE timer", "CE counter"], rows))

    # Global vs striped.
    mt = [p for p in progs if raw["programs"][p]["threads"] > 1]
    if mt:
        L.append("\n## Global against striped counter (multi-threaded programs)\n\n")
        rows = []
        for p in mt:
            for base in ("checks@0", "full@1000"):
                # The default is striped, measured against explicit "-global" runs. Runs made
                # before 2026-11-25 named their explicit variant "-striped" and, since stripes
                # became the default, compared striped with striped: they are left out.
                g, s = base + "-global", base
                if g not in res[p]["cfg"]:
                    continue
                ag, as_ = res[p]["acc"].get(g, {}), res[p]["acc"].get(s, {})
                rows.append([p, base, oh_cell(res, p, g), oh_cell(res, p, s),
                             fmt_n(ag.get("samples")), fmt_n(as_.get("samples")),
                             fmt_ov(as_.get("ce_ov1")), fmt_ov(as_.get("fa_ov1"))])
        if rows:
            L.append(table(["program", "configuration", "global", "striped", "samples global",
                            "samples striped", "striped overlap CE vs i1", "striped FA vs i1"],
                           rows))
        else:
            L.append("Not measured in this run (its raw data has no `-global` configurations).\n")

    # Code growth per variant.
    L.append("\n## Code growth and rewriting time per variant\n\n")
    L.append("Each cell: growth of the bytecode (the sum of the methods' code lengths) / "
             "growth of the class files (bytes of the jars' .class entries: code, constant "
             "pool, tables, new members).\n\n")
    rows = []
    for v in VARIANTS:
        rows.append([v] + [growth_cell(res, [p], v) for p in progs] + [growth_cell(res, progs, v)] +
                    ["%.2f s" % sum(res[p]["variants"][v]["seconds"] for p in progs)])
    L.append(table(["variant"] + progs + ["mean", "rewrite time (all)"], rows))

    # Throughput.
    L.append("\n## Rewriter throughput\n\n")
    d = tp.get("duplex", {})
    rows = []
    if d:
        rows.append(["duplex instrument --mode full (both), h2.jar", fmt_n(d["classes"]),
                     "%.3f s" % d["best_s"], fmt_n(d["classes_per_s"]),
                     "in-process time printed by duplex (jar read, rewrite, jar write); the "
                     "whole process took %.3f s" % d["best_process_wall_s"]])
    dd = tp.get("duplex_dir")
    if dd:
        rows.append(["duplex instrument --mode full (both), h2 classes directory to directory",
                     fmt_n(dd["classes"]), "%.3f s" % dd["best_s"], fmt_n(dd["classes_per_s"]),
                     "no zip inflate/deflate; files read and written"])
    dm = tp.get("duplex_memory")
    if dm:
        rows.append(["duplex rewrite_class() full (both), h2.jar's classes in memory",
                     fmt_n(dm["classes"]), "%.3f s" % dm["best_s"], fmt_n(dm["classes_per_s"]),
                     "warm, best pass, one thread (duplex-classfile-bench --mode rewrite-full; "
                     "no site list, as in the duplex program and the agent), glibc malloc: the "
                     "library's and the agent's allocator"])
    dt = tp.get("duplex_memory_tcmalloc")
    if dt:
        rows.append(["the same, with tcmalloc", fmt_n(dt["classes"]), "%.3f s" % dt["best_s"],
                     fmt_n(dt["classes_per_s"]),
                     "tcmalloc preloaded: the allocator the duplex program links"])
    for mode, a in sorted(asm.items()):
        rows.append(["ASM 9.4 %s, h2.jar (bench/classfile/AsmBench.java)" % mode,
                     fmt_n(a["classes"]), "%.3f s" % a["best_s"], fmt_n(a["classes_per_s"]),
                     "warm, best pass, in memory"])
    if not asm:
        rows.append(["ASM 9.4", "", "", "", "not measured: %s" % (
            tp.get("asm_error", "bench/classfile/AsmBench.java not found")[:200])])
    L.append(table(["rewriter", "classes", "time", "classes/s", "note"], rows))
    if tp.get("checkout"):
        L.append("\nMeasured at checkout %s.\n" % tp["checkout"])

    # Agents.
    L.append(agent_table(res, progs))

    # Charts.
    if charts_dir:
        charts_dir.mkdir(parents=True, exist_ok=True)
        series = []
        for m in SAMPLED_MODES:
            pts = [(it, avg_cfg("%s@%d" % (m, it))) for it in intervals]
            series.append((m, [(x, y) for x, y in pts if y is not None]))
        svgchart.line_chart(charts_dir / "overhead.svg", "Total overhead (mean CPU time, %)",
                            "sample interval", "% over uninstrumented", series, log_x=True,
                            log_y=True)
        series = []
        for m in SAMPLED_MODES:
            for kind, label in (("ce", "call-edge"), ("fa", "field-access")):
                pts = [(it, avg_acc("%s@%d" % (m, it), kind + "_ov1")) for it in intervals]
                series.append(("%s %s" % (m, label), [(x, y) for x, y in pts if y is not None]))
        svgchart.line_chart(charts_dir / "overlap.svg", "Overlap with the interval-1 profile (%)",
                            "sample interval", "overlap %", series, log_x=True)
        groups = []
        for p in progs:
            groups.append((p, [oh(res, p, c) for c in ("checks@0", "full@1000", "auto@1000",
                                                       "nodup@1000")]))
        svgchart.bar_chart(charts_dir / "programs.svg", "Overhead per program (CPU time, %)",
                           ["checks only", "full @1000", "auto @1000", "nodup @1000"], groups)
        L.append("\n## Charts\n\n")
        for f, alt in (("overhead.svg", "total overhead against sample interval"),
                       ("overlap.svg", "overlap against sample interval"),
                       ("programs.svg", "overhead per program")):
            L.append("![%s](%s/%s)\n" % (alt, charts_rel, f))

    # Appendix: everything per program.
    L.append("\n## Appendix: every configuration per program\n\n")
    L.append("CPU and wall-clock overhead (median, range, runs), samples, and accuracy in "
             "percent (CE/FA overlap vs interval 1 of the same mode; vs the exhaustive "
             "profile).\n")
    for p in progs:
        r = res[p]
        notes = ""
        if r["failed"]:
            notes += " Failed (non-zero exit): %s." % ", ".join(r["failed"])
        if r.get("perfect_timeout"):
            notes += (" Recording every event took longer than %.0f s (timeout), so %s were "
                      "skipped and there is no interval-1 reference." % (
                          r["perfect_timeout"], ", ".join(r.get("skipped", [])) or "none"))
        if r.get("slow"):
            notes += " Run once (slower than %gx in round 1): %s." % (
                raw["config"]["slow_ratio"], ", ".join(r["slow"]))
        L.append("\n### %s\n\n%s. Uninstrumented: %.2f s CPU, %.2f s wall (medians).%s\n\n" % (
            p, raw["programs"][p]["description"], r["base_cpu"] or 0, r["base_wall"] or 0,
            notes))
        rows = []
        for cid, e in r["cfg"].items():
            a = r["acc"].get(cid, {})
            rows.append([cid, oh_cell(res, p, cid), "%s (%s..%s)" % (
                fmt_pct(pct(e["wall"])), fmt_pct(pct(e["wall_min"]), 0),
                fmt_pct(pct(e["wall_max"]), 0)), e["n"], fmt_n(e["samples"]),
                "%s / %s" % (fmt_ov(a.get("ce_ov1")), fmt_ov(a.get("fa_ov1"))),
                "%s / %s" % (fmt_ov(a.get("ce_ovx")), fmt_ov(a.get("fa_ovx")))])
        L.append(table(["configuration", "CPU", "wall", "runs", "samples", "overlap vs i1",
                        "overlap vs exh"], rows))
        L.append("\n<details><summary>duplex instrument summaries</summary>\n\n```\n" +
                 "\n".join("%s: %s" % (v, repo_relative(s).strip().replace("\n", "\n    "))
                           for v, s in r["variant_summaries"].items()) + "\n```\n</details>\n")
    # Markdown needs a blank line between headings, paragraphs and tables.
    return "\n".join(x.strip("\n") + "\n" for x in L if x.strip())


COMPILER_CONFIGS = ["checks@0", "full@1000", "auto@1000"]


def compilers_table(res, progs) -> str:
    """The compilers' share of what a whole run adds (-XX:+CITime in every JVM), or nothing for
    runs recorded before the harness asked for it."""
    def cell(p, cid):
        e = res[p]["cfg"].get(cid, {})
        base_cpu, base_jit = res[p].get("base_cpu"), res[p].get("base_jit")
        if "jit_s" not in e or base_jit is None or base_cpu is None:
            return None
        return e["cpu_s"] - base_cpu, e["jit_s"] - base_jit

    def added_cell(added, jit):
        return "%+.2f s, %s" % (added, "%.0f%%" % (100 * jit / added) if added > 0 else "-")

    rows, sums = [], {c: [0.0, 0.0] for c in COMPILER_CONFIGS}
    for p in progs:
        cells = [cell(p, c) for c in COMPILER_CONFIGS]
        if all(x is None for x in cells):
            continue
        row = [p, "%.2f / %.2f s" % (res[p]["base_cpu"], res[p]["base_jit"])]
        for c, x in zip(COMPILER_CONFIGS, cells):
            if x is None:
                row.append("-")
                continue
            added, jit = x
            sums[c][0] += added
            sums[c][1] += jit
            row.append(added_cell(added, jit))
        rows.append(row)
    if not rows:
        return ""
    rows.append(["**all programs**", ""] + [added_cell(a, j) for a, j in sums.values()])
    head = ("\n**Where a whole run's added CPU goes.** Every JVM of these tables ran with "
            "`-XX:+CITime`: the original's CPU time and its compilers' time (the time inside "
            "compilations, about the compiler threads' CPU time: docs/design/hotspot-costs.md, "
            "section 13), and for each configuration the CPU time it adds to the original's, "
            "with the share of it that is added compilation (medians over the repetitions).\n\n")
    return head + table(["program", "original: CPU / compilers"] +
                        ["%s: added, of it compilation" % c for c in COMPILER_CONFIGS], rows)


def machine_code_growth(res, p, cid):
    """How much more machine code the JIT compilers installed in a whole run of `cid` than in
    the original's (median over the repetitions), in percent; None if not recorded."""
    e = res[p]["cfg"].get(cid, {})
    return None if "jit_code" not in e else 100.0 * (e["jit_code"] - 1.0)


def machine_code_table(res, progs) -> str:
    """The machine code the compilers installed (-XX:+CITime's nmethod code size) over the
    original's: the paper's measure of code growth (it compiled every method), or nothing
    for runs recorded before the harness read it."""
    rows = []
    for p in progs:
        if res[p].get("base_jit_code") is None:
            continue
        rows.append([p, "%.0f KB" % (res[p]["base_jit_code"] / 1024.0)] +
                    [fmt_pct(machine_code_growth(res, p, c), 0) for c in COMPILER_CONFIGS])
    if not rows:
        return ""
    rows.append(["**geo. mean**", ""] +
                [fmt_pct(geo_pct([machine_code_growth(res, p, c) for p in progs]), 0)
                 for c in COMPILER_CONFIGS])
    head = ("\n**Machine code.** The paper measured code growth as machine code (its compiler "
            "compiled every method before the run). HotSpot compiles only what runs hot, so the "
            "nearest figure is the machine code its compilers installed in the same whole runs "
            "(`-XX:+CITime`'s nmethod code size: every compilation's code, C1's profiled code "
            "later replaced by C2's included, the JDK's methods and the runtime's too), over the "
            "original's (medians over the repetitions). Twins that run interpreted add to the "
            "bytecode growth above and nothing here.\n\n")
    return head + table(["program", "original"] + ["%s" % c for c in COMPILER_CONFIGS], rows)


def repo_relative(text: str) -> str:
    """Paths inside the checkout are shown relative to it: RESULTS.md must not name one machine."""
    return text.replace(str(benchlib.REPO) + "/", "")


def agent_table(res, progs, heading="\n## %s\n\n") -> str:
    """The agents against each other and against offline rewriting, with the agent's
    transform time (first run, and with cache=DIR where measured), under `heading` (a format
    for the title); "" if none ran."""
    if not any("agent-full@1000" in res[p]["cfg"] or "jacoco" in res[p]["cfg"] for p in progs):
        return ""
    cached = any("agent-cached@1000" in res[p]["cfg"] for p in progs)

    with_cpu = any("agent_cpu_frac" in res[p]["cfg"].get(c, {}) for p in progs
                   for c in ("agent-full@1000", "agent-cached@1000"))

    def transform(e):
        cells = ("-" if "agent_ms" not in e else "%.0f ms" % e["agent_ms"],
                 "-" if "agent_frac" not in e else "%.1f%%" % (100 * e["agent_frac"]))
        if with_cpu:
            cells += ("-" if "agent_cpu_frac" not in e else "%.1f%%" % (100 * e["agent_cpu_frac"]),)
        return cells
    rows = []
    for p in progs:
        e = res[p]["cfg"].get("agent-full@1000", {})
        row = [p, oh_cell(res, p, "agent-full@1000"), oh_cell(res, p, "full@1000"),
               oh_cell(res, p, "jacoco"), *transform(e)]
        if cached:
            c = res[p]["cfg"].get("agent-cached@1000", {})
            hits = ("-" if "cache_hits" not in c else "%d / %d" % (
                c["cache_hits"], c["cache_hits"] + c["cache_misses"]))
            row += [oh_cell(res, p, "agent-cached@1000"), *transform(c), hits]
        rows.append(row)
    cpu_head = ["its CPU time, of the run's CPU time"] if with_cpu else []
    head = ["program", "duplex agent, full @1000", "offline full @1000", "JaCoCo agent",
            "agent transform time", "of wall time", *cpu_head]
    if cached:
        head += ["agent with cache=DIR", "its transform time", "of wall time", *cpu_head,
                 "classes from the cache (min) / all"]
    return (heading % "JVMTI agent against the JaCoCo 0.8.6 agent" + table(head, rows) +
            ("\nWith cache=DIR: the same agent, the cache filled by one unmeasured run of the "
             "program before the measured ones (what every run after the first costs).\n"
             if cached else ""))


def interval1_accuracy(res, progs, sampled) -> str:
    """Whole-run overlap against the same mode's interval-1 profile, with the samples taken,
    where the run has that reference (a run without Exhaustive still has interval 1)."""
    have = [c for c in sampled
            if any(res[p]["acc"].get(c, {}).get("ce_ov1") is not None for p in progs)]
    if not have:
        return ""

    def cell(p, c):
        a = res[p]["acc"].get(c, {})
        if a.get("ce_ov1") is None:
            return "-"
        return "%s / %s (%s)" % (fmt_ov(a.get("ce_ov1")), fmt_ov(a.get("fa_ov1")),
                                 "{:,}".format(a["samples"]) if a.get("samples") else "-")

    rows = [[p] + [cell(p, c) for c in have] for p in progs]
    means = []
    for c in have:
        ce = [res[p]["acc"][c]["ce_ov1"] for p in progs
              if res[p]["acc"].get(c, {}).get("ce_ov1") is not None]
        fa = [res[p]["acc"][c]["fa_ov1"] for p in progs
              if res[p]["acc"].get(c, {}).get("fa_ov1") is not None]
        means.append("%s / %s" % (fmt_ov(geo(ce)), fmt_ov(geo(fa))))
    rows.append(["**geo. mean**"] + means)
    return ("\n**Accuracy against interval 1**, whole runs: overlap call-edge / field-access in "
            "percent against the same mode's interval-1 profile, and the samples of the run\n\n" +
            table(["program"] + have, rows))


def supplement(raw, note: str = "") -> str:
    """A compact section for a --configs run: whole-run overhead, and where the run measured
    them, steady-state overhead, accuracy and growth, as geometric means beside each program."""
    res = analyse(raw)
    cfg = raw["config"]
    progs = [p for p in cfg["programs"] if p in res]
    ids = []
    for p in progs:
        for c in res[p]["cfg"]:
            if c not in ids:
                ids.append(c)
    rows = []
    for p in progs:
        rows.append([p, "%.2f s" % (res[p]["base_cpu"] or 0)] + [oh_cell(res, p, c) for c in ids])
    rows.append(["**geo. mean**", ""] + [fmt_pct(geo_pct([oh(res, p, c) for p in progs])) for c in ids])
    meta = raw["meta"]
    what = ("longer runs (input size %s)" % cfg["size"] if cfg.get("size") == "large"
            else "a run of fewer configurations")
    # The run's date in the heading too: two supplements of one kind stay apart in a contents
    # list.
    text = ("\n## Supplement: %s, %s\n\n"
            "`%s` at commit %s, %d rounds, %s, %.0f min. Uninstrumented CPU time is the median "
            "of the base runs.\n\n%s**Whole runs**\n\n" % (
                what, meta.get("date", ""), meta.get("command", ""), meta.get("git", "?"),
                cfg["reps"],
                meta.get("date", ""), meta.get("seconds", 0) / 60,
                note.strip() + "\n\n" if note.strip() else "") +
            table(["program", "uninstrumented"] + ids, rows))
    steady_ids = [c for c in STEADY_CONFIGS if c != "base"
                  and any(c in res[p].get("steady", {}) for p in progs)]
    if steady_ids:
        rows = [[p] + [fmt_pct(steady_oh(res, p, c)) for c in steady_ids] for p in progs]
        rows.append(["**geo. mean**"] + [fmt_pct(avg_steady(res, progs, c)) for c in steady_ids])
        text += ("\n**Steady state** (every configuration on the same iterations)\n\n" +
                 table(["program"] + steady_ids, rows))
    sampled = [c for c in ids if "@" in c and not c.endswith("@0") and not c.endswith("@1")]
    if any(res[p]["acc"].get(c, {}).get("ce_ovx") is not None for p in progs for c in sampled):
        def acc_cell(p, c, key):
            a = res[p]["acc"].get(c, {})
            return "%s / %s" % (fmt_ov(a.get("ce_" + key)), fmt_ov(a.get("fa_" + key)))
        rows = [[p] + [acc_cell(p, c, "ovx") for c in sampled] +
                [("%s / %s" % (fmt_ov(res[p]["steady_acc"][c]["ce"]),
                               fmt_ov(res[p]["steady_acc"][c]["fa"]))
                  if c in res[p].get("steady_acc", {}) else "-") for c in sampled]
                for p in progs]
        text += ("\n**Accuracy**, overlap call-edge / field-access in percent: whole runs "
                 "against Exhaustive, steady runs against the steady interval-1 profile\n\n" +
                 table(["program"] + ["%s (whole)" % c for c in sampled] +
                       ["%s (steady)" % c for c in sampled], rows))
    text += interval1_accuracy(res, progs, sampled)
    variants = [v for v in ("checks", "full", "auto")
                if any(v in res[p]["variants"] for p in progs)]
    if variants:
        text += ("\n**Growth** (bytecode / class bytes, geometric mean): " +
                 ", ".join("%s %s" % (v, growth_cell(res, progs, v)) for v in variants) + "\n")
    text += agent_table(res, progs, heading="\n**%s**\n\n")
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--programs")
    ap.add_argument("--reps", type=int)
    ap.add_argument("--size", choices=["small", "large"], default=None,
                    help="input size (default small: about 1 s of CPU per run)")
    ap.add_argument("--slow-ratio", type=float, default=4.0)
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run")
    ap.add_argument("--slow-timeout", type=float,
                    help="seconds for a run recording every event (default 240, quick 90)")
    ap.add_argument("--no-agents", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--charts")
    ap.add_argument("--report-only", help="raw.json of an earlier run: only write the report")
    ap.add_argument("--resume", help="raw.json of an interrupted run: measure the rest")
    ap.add_argument("--throughput-only", metavar="RAW",
                    help="raw.json of an earlier run: measure the rewriter throughput again "
                    "(with the current build) into it, then write the report")
    ap.add_argument("--notes", help="markdown inserted after the targets (default for full "
                    "runs: bench/results_notes.md, written by hand about the last full run)")
    ap.add_argument("--configs", help="only these configurations (comma-separated ids, e.g. "
                    "checks@0,full@1000); accuracy needs full@1 and exh-both")
    ap.add_argument("--instrument-args", default="",
                    help="extra `duplex instrument` options for every variant, e.g. "
                    "'--layout outline'")
    ap.add_argument("--steady-iterations", type=int, default=150,
                    help="steady-state phase: at most this many main() runs per JVM before the "
                    "JIT settles (0: no steady phase)")
    ap.add_argument("--steady-measure", type=int, default=10,
                    help="steady-state phase: main() runs measured once the JIT has settled")
    ap.add_argument("--steady-rounds", type=int, default=3,
                    help="steady-state phase: round 1 finds where each configuration settles; "
                    "the others measure every configuration on the same iterations, after the "
                    "latest of those")
    ap.add_argument("--add-steady-windows", metavar="RAW",
                    help="raw.json of a run that measured each configuration where it settled: "
                    "add --steady-rounds rounds on a common window to its steady phase (into a "
                    "copy of its results directory), then write the report")
    ap.add_argument("--steady-converge-only", action="store_true",
                    help="steady-state phase: every round measures each configuration where it "
                    "settles (the method before the common window)")
    ap.add_argument("--replace-programs", action="append", default=[], metavar="RAW",
                    help="with --report-only: raw.json of a run of some of the same programs "
                    "with the same options (e.g. one measured again after a fix); its programs "
                    "replace the main run's, and the header says when and how they were measured")
    ap.add_argument("--steady-from", action="append", default=[], metavar="RAW",
                    help="with --report-only, for a run measured with --steady-iterations 0: "
                    "raw.json of an earlier run whose steady-state phase (Table S) the report "
                    "shows, with its date and checkout in the header (several: a program's from "
                    "the last that has it)")
    ap.add_argument("--also", action="append", default=[],
                    help="raw.json of a --configs run (e.g. --size large) to add to the report "
                    "as a section of its own (with the note.md beside it, if any)")
    a = ap.parse_args()
    if a.slow_timeout is None:
        a.slow_timeout = 90 if a.quick else 240
    if (a.replace_programs or a.steady_from) and not a.report_only:
        raise SystemExit("run_bench: --replace-programs and --steady-from go with --report-only")
    for given in [a.add_steady_windows, a.throughput_only, a.report_only, a.resume] + \
            a.replace_programs + a.steady_from:
        if given and not Path(given).is_file():
            raise SystemExit("run_bench: %s: no such raw.json" % given)
    if a.add_steady_windows:
        src = Path(a.add_steady_windows).resolve()
        bench = Bench.reopen(a, src, src.parent.with_name(src.parent.name + "-window"))
        # The runtime the earlier run used (its copy), with its rewritten jars.
        if (src.parent / "tools" / benchlib.RUNTIME_JAR.name).exists():
            benchlib.RUNTIME_JAR = src.parent / "tools" / benchlib.RUNTIME_JAR.name
        bench.raw["config"]["steady_rounds"] = (
            bench.raw["config"].get("steady_rounds", 0) + a.steady_rounds)
        bench.raw["meta"]["steady_windows"] = {
            "command": " ".join(["bench/run_bench.py"] + sys.argv[1:]),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "rounds": a.steady_rounds,
            "git": subprocess.run(["git", "-C", str(benchlib.REPO), "describe", "--always",
                                   "--dirty"], capture_output=True, text=True).stdout.strip()}
        bench.add_steady_windows(a.steady_rounds)
        raw, quick = bench.raw, bench.quick
    elif a.throughput_only:
        src = Path(a.throughput_only).resolve()
        bench = Bench.reopen(a, src, src.parent)
        bench.throughput()
        raw, quick = bench.raw, bench.quick
    elif a.report_only:
        raw = json.loads(Path(a.report_only).read_text())
        for other in a.replace_programs:
            replace_programs(raw, json.loads(Path(other).read_text()))
        if a.steady_from:
            steady_from(raw, [json.loads(Path(f).read_text()) for f in a.steady_from])
        quick = raw["config"]["quick"]
    else:
        for p in (benchlib.DUPLEX, benchlib.RUNTIME_JAR):
            if not p.exists():
                raise SystemExit("run_bench: %s is missing (ninja -C build)" % p)
        raw = Bench(a).run()
        quick = a.quick
    default_dir = benchlib.cache_dir() / "results-quick" if quick else benchlib.REPO / "docs"
    out = Path(a.out) if a.out else default_dir / "RESULTS.md"
    charts = Path(a.charts) if a.charts else (
        default_dir / "charts" if quick else benchlib.BENCH / "charts")
    out.parent.mkdir(parents=True, exist_ok=True)
    rel = os.path.relpath(charts, out.parent)
    notes_file = Path(a.notes) if a.notes else (None if quick else NOTES)
    notes = notes_file.read_text() if notes_file and notes_file.exists() else ""
    text = report(raw, analyse(raw), charts, rel, notes)
    for extra in a.also:
        # A note.md beside the raw.json says what the run changed (written by hand).
        note_md = Path(extra).parent / "note.md"
        text += supplement(json.loads(Path(extra).read_text()),
                           note_md.read_text() if note_md.exists() else "")
    out.write_text(text)
    benchlib.log("run_bench: wrote %s and %s/*.svg" % (out, charts))
    return 0


if __name__ == "__main__":
    benchlib.exit_on_sigterm()
    sys.exit(main())
