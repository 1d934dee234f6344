#!/usr/bin/env python3
"""Which classes' twins a run enters: how much duplicated code lazy twins would ever load.

    bench/touched_twins.py PROGRAM [--interval N] [--mode MODE] [--size small|large] [--seeds N]

Rewrites the program's jars (both instrumentations; bench/whole_ab.py's cache) and runs it
with HotSpot's touched-method log (-XX:+LogTouchedMethods -XX:+PrintTouchedMethodsAtExit, a
diagnostic option of JDK 17), which lists every method that was invoked at least once. Prints
how many of the loaded rewritten classes have twins (methods ending in `$duplex` or
`$sampled`), in how many at least one twin was invoked, the share of the loaded twins' bytecode
that those classes hold (what lazy twins defined per class would still load), and the share
of the twins that were invoked themselves (per method). --seeds runs with N jitter seeds
(the classes that sample vary from run to run). --ab N then runs the rewrite side by side with
copies that keep only the twins the touched runs entered (per class, per method): an upper bound of
what lazy twins would save a whole run. Output is checked against the original's.
docs/design/lazy-twins.md uses it.
"""
import argparse
import re
import shutil
import statistics
import struct
import sys
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import twin_share  # noqa: E402
import whole_ab  # noqa: E402

TOUCHED = ["-XX:+UnlockDiagnosticVMOptions", "-XX:+LogTouchedMethods",
           "-XX:+PrintTouchedMethodsAtExit", "-Xlog:class+load=info:file=%s"]
HEADER = "# Method::print_touched_methods version 1\n"
# A touched method: owner/Class.name:(descriptor)return
METHOD_LINE = re.compile(r"^([\w/$]+)\.([^.:]+):\(")
LOADED_LINE = re.compile(r"\] (\S+) source: ")


def twin_classes(jars):
    """{class name with slashes: {twin method name: its bytecode}} of the rewritten jars'
    classes with twins (overloads' twins have names of their own)."""
    out = {}
    for jar in jars:
        with zipfile.ZipFile(jar) as z:
            for info in z.infolist():
                if not info.filename.endswith(".class"):
                    continue
                try:
                    _, methods = benchlib.class_methods(z.read(info))
                except (IndexError, KeyError, struct.error):  # unreadable: counted as twin-free
                    continue
                twins = {}
                for name, _, _, code in methods:
                    if name.endswith(twin_share.TWIN_SUFFIXES):
                        key = name.decode("utf-8", "replace")
                        twins[key] = twins.get(key, 0) + code
                if twins:
                    out[info.filename[:-len(".class")]] = twins
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("--interval", type=int, default=1000)
    ap.add_argument("--mode", default="full")
    ap.add_argument("--size", choices=["small", "large"], default="small")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--ab", type=int, default=0, metavar="N",
                    help="then N whole runs each, interleaved: the rewrite as it is against "
                    "copies keeping only the twins the touched runs entered, per class and per "
                    "method")
    a = ap.parse_args()
    w = benchlib.get(a.program)
    extra = benchlib.prepare(w)
    jars, dest = whole_ab.rewrite(w, "touched-twins", a.mode, [])
    twins = twin_classes(jars)
    reference = benchlib.run(w, extra, size=a.size).output
    print("| program | interval | seed | loaded classes with twins | of them with a twin entered "
          "| their twins' share of the loaded twins' bytecode | the entered twins' own share "
          "| samples |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    entered_by_seed = {}
    for seed in range(1, a.seeds + 1):
        loaded, entered, prof = touched_run(w, extra, jars, dest, a, seed, reference)
        entered_by_seed[seed] = entered
        with_twins = [c for c in twins if c in loaded]
        hit = {c for c, _ in entered if c in twins}
        total = sum(sum(twins[c].values()) for c in with_twins)
        by_class = sum(sum(twins[c].values()) for c in with_twins if c in hit)
        by_method = sum(twins[c].get(m, 0) for c, m in entered if c in twins)
        print("| %s | %d | %d | %d | %d (%.0f%%) | %.0f%% | %.0f%% | %s |" % (
            w.name, a.interval, seed, len(with_twins), len(hit),
            100 * len(hit) / max(len(with_twins), 1), 100 * by_class / max(total, 1),
            100 * by_method / max(total, 1), samples_of(prof)))
    if a.ab:
        ab(w, extra, jars, dest, a, set().union(*entered_by_seed.values()), reference)
    return 0


def touched_run(w, extra, jars, dest, a, seed, reference):
    """One run with the touched-method log: (classes loaded, {(class, twin name) entered},
    profile path)."""
    log = dest / ("class-load-%d.log" % seed)
    prof = dest / ("touched-%d.xml" % seed)
    opts = [o % log if "%s" in o else o for o in TOUCHED]
    r = benchlib.run(w, extra, jars, opts + benchlib.runtime_opts(a.interval, prof, seed=seed),
                     size=a.size, keep=True)
    if not r.ok:
        raise SystemExit("touched_twins.py: the run failed: %s" % r.stderr[-2000:])
    loaded = set()
    for line in log.read_text(errors="replace").splitlines():
        m = LOADED_LINE.search(line)
        if m:
            loaded.add(m.group(1).replace(".", "/"))
    # HotSpot prints the touched methods at exit, after the program's own output.
    own, _, touched = r.stdout.partition(HEADER)
    entered = set()
    for line in touched.splitlines():
        m = METHOD_LINE.match(line)
        if m and m.group(2).endswith(("$duplex", "$sampled")):
            entered.add((m.group(1), m.group(2)))
    if w.normalise(own, r.stderr, r.run_dir) != reference:
        raise SystemExit("touched_twins.py: the output differs from the original's")
    shutil.rmtree(r.run_dir, ignore_errors=True)
    return loaded, entered, prof


def ab(w, extra, jars, dest, a, entered, reference):
    """Whole runs side by side (seed 1): the rewrite as it is, and copies keeping only the twins
    of the classes the touched runs (every seed) entered twins of (what lazy twins defined per
    class would load, without the cost of defining them) or only the twin methods they entered
    (per method). A run that calls a removed twin fails with NoSuchMethodError: the program did
    not sample the same methods again (threads, identity hash codes), and the bound cannot be
    measured for it."""
    classes = {c for c, _ in entered}
    names = {}
    for c, m in entered:
        names.setdefault(c, set()).add(m.encode())
    variants = {"eager": jars}
    for name, keep_of in [("per-class", lambda c: (lambda m: c in classes)),
                          ("per-method", lambda c: (lambda m: m in names.get(c, ())))]:
        out = dest / name
        out.mkdir(exist_ok=True)
        variants[name] = []
        for jar in jars:
            twin_share.strip_jar(jar, out / jar.name, keep_of)
            variants[name].append(out / jar.name)

    def run_variant(v, rep):
        r = benchlib.run(w, extra, variants[v],
                         benchlib.runtime_opts(a.interval, dest / ("ab-%s.xml" % v), seed=1),
                         size=a.size)
        if not r.ok or r.output != reference:
            raise SystemExit("touched_twins.py: %s failed or its output differs (a removed "
                             "twin was called?): %s" % (v, r.stderr[-500:]))
        return r

    cpu = benchlib.interleaved_cpu(w, extra, list(variants), a.ab, run_variant, a.size)
    base = statistics.median(cpu["base"])
    print("\n%s, %s @%d, %d repetitions, seed 1; uninstrumented %.2f s CPU\n" % (
        w.name, a.mode, a.interval, a.ab, base))
    print("| twins loaded | overhead, median (range) |")
    print("| --- | --- |")
    for v in variants:
        print("| %s | %s |" % (v, benchlib.overhead_cell(cpu[v], base)))


def samples_of(prof: Path) -> str:
    m = re.search(r'samples="(\d+)"', prof.read_text()) if prof.exists() else None
    return m.group(1) if m else "-"


if __name__ == "__main__":
    sys.exit(main())
