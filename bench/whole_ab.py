#!/usr/bin/env python3
"""Side-by-side A/B of runtime settings on one program, in whole runs: overhead and accuracy.

  whole_ab.py PROGRAM [--reps N] [--size small|large] [--mode MODE] [--seeds N]
              [--instrument-args ARGS] SETTING...

A SETTING is NAME[!DUPLEX]=[MODE[,OPTION...]@]INTERVAL[,KEY=VALUE...] with runtime settings
(docs/profile-format.md), e.g.
  i1000=1000    b4=1000,burst=4    i100=100    t10=1,trigger=timer,timerMs=10
  mc=full,--method-counters@1000    chk=checks@0    (a rewrite of their own)
  nt=checks,+no-twins@0    (checks-only with the twin methods deleted: nothing calls them at
                           interval 0; what loading them costs, docs/design/lazy-twins.md)
  old!/tmp/old/build/tools/duplex=auto@1000    (rewritten by another build's duplex binary, and
                           run with that build's runtime, build/runtime/duplex-runtime.jar,
                           when it has one: to compare two builds)
A setting without MODE@ runs the default rewrite (--mode, plus --instrument-args); one with it is
rewritten with that mode and options instead (both instrumentations, none for `checks`), so that
rewrites can be compared side by side too. Each repetition runs the
uninstrumented program and every setting once, in a shuffled order (one JVM each, start-up and
JIT included). The table gives the median CPU time over the uninstrumented program's median, the
range over repetitions, the samples, and the overlap (call-edge / field-access) of the first
repetition's profile with the interval-1 profile of the same rewrite. --seeds N also runs the
first setting with N jitter seeds and reports their overlaps with the reference, with each
other, and merged (`duplex merge`): if they disagree with each other as much as with the
reference, its error is sampling noise that more samples remove, not a bias. Output is checked
against the original's. --cds runs every JVM, the uninstrumented one's too, from a dynamic
class-data-sharing archive of its own jars (JDK 13+: one run with -XX:ArchiveClassesAtExit
first, then -XX:SharedArchiveFile; a rewrite that counts events is archived by its interval-1
run, so its twin classes are in the archive too): classes come parsed and verified from the
archive, as a user who keeps an archive would run them. --jit runs every JVM with -XX:+CITime
and adds a table of the compilers' time: how much of the added CPU time is compilation, and the
overhead without it.
"""

import argparse
import itertools
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import run_bench  # noqa: E402
import twin_share  # noqa: E402

BOTH = "call-edge,field-access"


def parse_setting(text):
    name, _, rest = text.partition("=")
    name, _, binary = name.partition("!")
    rewrite, at, rest = rest.rpartition("@")
    interval, *pairs = rest.split(",")
    if not name or not interval.isdigit() or (at and not rewrite):
        raise SystemExit("whole_ab.py: bad setting %r (expected "
                         "NAME=[MODE[,OPTION...]@]INTERVAL[,KEY=VALUE...])" % text)
    settings = {}
    for p in pairs:
        k, eq, v = p.partition("=")
        if not eq:
            raise SystemExit("whole_ab.py: bad runtime setting %r in %r" % (p, text))
        settings[k] = v
    mode, *options = rewrite.split(",") if at else (None,)
    return {"name": name, "interval": int(interval), "settings": settings, "mode": mode,
            "options": options, "duplex": binary or None}


def rewrite_name(mode, options):
    """The cache directory of a rewrite: the mode and the options, e.g. full_method-counters."""
    return mode + "".join("_" + o.strip("-").replace("=", "-").replace("/", "-") for o in options)


def add_common_arguments(ap):
    """The arguments whole_ab.py shares with classload_ab.py."""
    ap.add_argument("program")
    ap.add_argument("settings", nargs="+")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--size", choices=["small", "large"], default="small")


def rewrite_dir(key):
    """The cache directory name of a rewrite key (mode, options, duplex binary or None)."""
    mode, options, binary = key
    return rewrite_name(mode, options) + ("_by-" + Path(binary).name if binary else "")


def rewrite(w, tool, mode, options, duplex=None):
    """The program's app jars rewritten with `mode` and `options` (both instrumentations, none
    for checks-only) into the cache directory of `tool`; returns the jars and that directory.
    An option `+no-twins` is not duplex's: the rewritten classes then lose their twin methods
    (twin_share.without_twins), which only checks-only at interval 0 survives, since nothing
    calls a twin there: what a run costs when twins are not loaded (docs/design/lazy-twins.md).
    `duplex`: another duplex binary than this checkout's (to compare two builds)."""
    if duplex and not Path(duplex).is_file():
        raise SystemExit("whole_ab.py: no duplex binary at %s" % duplex)
    dest = benchlib.cache_dir() / tool / w.name / rewrite_dir((mode, options, duplex))
    events = "" if mode == "checks" else BOTH
    post = [o for o in options if o.startswith("+")]
    if any(o != "+no-twins" for o in post) or (post and mode != "checks"):
        raise SystemExit("whole_ab.py: %s: the only post-processing is +no-twins, with checks"
                         % ",".join(post))
    jars = [benchlib.instrument(j, dest, mode, events,
                                [o for o in options if not o.startswith("+")],
                                Path(duplex) if duplex else None).jar
            for j in w.app_jars]
    if post:
        # Same names, in a directory of their own: a manifest's Class-Path may name them.
        (dest / "no-twins").mkdir(exist_ok=True)
        for i, jar in enumerate(jars):
            jars[i] = dest / "no-twins" / jar.name
            twin_share.strip_jar(jar, jars[i])
    return jars, dest


def accuracy(ref, prof):
    a, b = run_bench.read_profile(ref), run_bench.read_profile(prof)
    ce, fa = run_bench.overlap(a["ce"], b["ce"]), run_bench.overlap(a["fa"], b["fa"])
    fmt = lambda x: "-" if x is None else "%.1f" % x
    return "%s / %s" % (fmt(ce), fmt(fa))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_arguments(ap)
    ap.add_argument("--mode", default="full")
    ap.add_argument("--seeds", type=int, default=0)
    ap.add_argument("--cds", action="store_true",
                    help="every JVM from a dynamic CDS archive made by one run of its own")
    ap.add_argument("--jit", action="store_true",
                    help="every JVM with -XX:+CITime: the compilers' time of each run, and the "
                    "overhead without it")
    ap.add_argument("--instrument-args", default="",
                    help="more `duplex instrument` options for the rewrite, e.g. --method-counters")
    a = ap.parse_args()
    settings = [parse_setting(t) for t in a.settings]
    w = benchlib.get(a.program)
    extra = benchlib.prepare(w)
    default_options = tuple(shlex.split(a.instrument_args))
    rewrites = {}  # (mode, options) -> {"jars", "profiles", "ref"}
    for s in settings:
        key = ((a.mode, default_options) if s["mode"] is None else
               (s["mode"], tuple(s["options"]))) + (s["duplex"],)
        s["rewrite"] = key
        if key not in rewrites:
            jars, dest = rewrite(w, "whole-ab", *key)
            rewrites[key] = {"jars": jars, "profiles": dest / "profiles"}
            rewrites[key]["profiles"].mkdir(parents=True, exist_ok=True)
    reference_output = benchlib.run(w, extra, size=a.size).output
    base_opts = cds_archive(a, w, extra, "base", None, []) if a.cds else []
    jit_opts = benchlib.CITIME_OPTS if a.jit else []
    base_opts = base_opts + jit_opts

    def run(s, interval, settings_, name):
        rw = rewrites[s["rewrite"]]
        prof = rw["profiles"] / (name + ".xml")
        opts = benchlib.runtime_opts(interval, prof, benchlib.runtime_beside(s["rewrite"][2]),
                                     **settings_)
        if a.cds and "cds" not in rw:
            rw["cds"] = cds_archive(a, w, extra, rewrite_dir(s["rewrite"]), rw["jars"], opts)
        r = benchlib.run(w, extra, rw["jars"], opts + rw.get("cds", []) + jit_opts, size=a.size)
        if not r.ok or r.output != reference_output:
            raise SystemExit("whole_ab.py: %s %s failed or its output differs" % (w.name, name))
        return r, prof

    for key, rw in rewrites.items():
        if key[0] != "checks":  # checks-only counts no events: no profile to compare
            rw["ref"] = run({"rewrite": key}, 1, {}, "interval-1")[1]
    first = {}
    by_name = {s["name"]: s for s in settings}

    def run_setting(name, rep):
        s = by_name[name]
        r, prof = run(s, s["interval"], s["settings"], "%s-%d" % (name, rep))
        first.setdefault(name, prof)
        return r

    jit = {}  # name -> (all compilers, C1, C2) seconds of each run (--jit)

    def seen(name, r):
        if not a.jit:
            return
        total = benchlib.compilation_seconds(r.stderr)
        if total is None:
            raise SystemExit("whole_ab.py: %s %s: no -XX:+CITime report on stderr" % (w.name, name))
        per_compiler = (benchlib.compiler_seconds(r.stderr, c) for c in ("C1", "C2"))
        jit.setdefault(name, []).append((total, *per_compiler))

    cpu = benchlib.interleaved_cpu(w, extra, list(by_name), a.reps, run_setting, a.size,
                                   base_opts, seen)
    base = statistics.median(cpu["base"])
    print("\n%s (%s input), %s, %d repetitions%s; uninstrumented %.2f s CPU\n" % (
        w.name, a.size, " ".join((a.mode,) + default_options), a.reps,
        ", each JVM from a CDS archive of its own" if a.cds else "", base))
    print("| setting | rewrite | overhead, median (range) | samples | overlap with interval 1 "
          "(CE / FA) |")
    print("| --- | --- | --- | --- | --- |")
    for s in settings:
        c = cpu[s["name"]]
        prof = first[s["name"]]
        ref = rewrites[s["rewrite"]].get("ref")
        print("| %s | %s | %s | %d | %s |" % (
            s["name"], " ".join(s["rewrite"][:1] + s["rewrite"][1]) + (
                " (by %s)" % s["rewrite"][2] if s["rewrite"][2] else ""),
            benchlib.overhead_cell(c, base), run_bench.read_profile(prof)["samples"],
            accuracy(ref, prof) if ref else "-"))
    if a.jit:
        print_jit(cpu, jit, [s["name"] for s in settings])
    if a.seeds:
        seeds(a.seeds, settings[0], run, rewrites[settings[0]["rewrite"]].get("ref"))


def print_jit(cpu, jit, names):
    """--jit: the compilers' time beside the process's CPU time, medians over the repetitions
    (each of all, C1 and C2 on its own), and the overhead with the compilers' time taken off both
    sides (per run, then the median)."""
    def medians(name):  # (CPU, all compilers, C1, C2)
        return (statistics.median(cpu[name]),
                *(statistics.median(t[i] for t in jit[name]) for i in range(3)))

    base = medians("base")
    base_rest = statistics.median(c - t[0] for c, t in zip(cpu["base"], jit["base"]))
    print("\n| setting | CPU s | compilers s (C1 / C2) | compilers' share of the added CPU "
          "(C1 / C2) | overhead without the compilers |")
    print("| --- | --- | --- | --- | --- |")
    print("| base | %.3f | %.3f (%.3f / %.3f) | - | - |" % base)
    for n in names:
        m = medians(n)
        added = m[0] - base[0]
        share = ("%.0f%% (%.0f%% / %.0f%%)" % tuple(100 * (m[i] - base[i]) / added
                                                   for i in (1, 2, 3)) if added > 0 else "-")
        rest = [c - t[0] for c, t in zip(cpu[n], jit[n])]
        print("| %s | %.3f | %.3f (%.3f / %.3f) | %s | %s |" % (
            n, *m, share, benchlib.overhead_cell(rest, base_rest)))


def cds_archive(a, w, extra, name, jars, opts):
    """The JVM options that run from a dynamic CDS archive of `jars` (None: the original's),
    made here by one run with `opts`."""
    archive = benchlib.cache_dir() / "whole-ab" / w.name / "cds" / (name + ".jsa")
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.unlink(missing_ok=True)
    r = benchlib.run(w, extra, jars, opts + ["-XX:ArchiveClassesAtExit=%s" % archive],
                     size=a.size)
    if not r.ok or not archive.exists():
        raise SystemExit("whole_ab.py: %s: no CDS archive for %s:\n%s" % (w.name, name,
                                                                          r.stderr[-2000:]))
    return ["-XX:SharedArchiveFile=%s" % archive]


def seeds(n, setting, run, ref):
    if ref is None:
        raise SystemExit("whole_ab.py: --seeds needs a first setting that counts events")
    profs = [run(setting, setting["interval"], dict(setting["settings"], seed=str(1000 + k)),
                 "%s-seed%d" % (setting["name"], k))[1] for k in range(n)]
    print("\n%s with %d seeds (overlap CE / FA)\n" % (setting["name"], n))
    for k, p in enumerate(profs):
        print("- seed %d against interval 1: %s" % (k, accuracy(ref, p)))
    for i, j in itertools.combinations(range(n), 2):
        print("- seed %d against seed %d: %s" % (i, j, accuracy(profs[i], profs[j])))
    merged = profs[0].parent / (setting["name"] + "-merged.xml")
    subprocess.run([str(benchlib.DUPLEX), "merge", "-o", str(merged)] + [str(p) for p in profs],
                   check=True, capture_output=True)
    print("- the %d merged against interval 1: %s" % (n, accuracy(ref, merged)))


if __name__ == "__main__":
    benchlib.exit_on_sigterm()
    main()
