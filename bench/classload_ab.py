#!/usr/bin/env python3
"""What loading the rewritten classes costs a whole run, side by side: HotSpot's own counters.

  classload_ab.py PROGRAM [--reps N] [--size small|large] SETTING...

A SETTING is as in whole_ab.py: NAME=[MODE[,OPTION...]@]INTERVAL[,KEY=VALUE...], e.g.
  chk=checks@0    full=full@1000    mc=full,--method-counters@1000
(without MODE@: Full-Duplication). Each repetition runs the uninstrumented program and every
setting once, in a shuffled order, with -XX:+PerfDataSaveToFile; the counters are read back with
`jstat -snap`. The table gives medians over the repetitions, in milliseconds of the loading
threads: all class loading (sun.cls.time), verification (classVerifyTime.self), parsing and
defining (defineAppClassTime.self) and linking (classLinkedTime.self); the process's CPU time;
and how many classes HotSpot verified with its old verifier after the split verifier rejected
their frames (from -Xlog:verification: a version-50 class fails over silently,
docs/design/hotspot-costs.md, section 11). Output is checked against the original's.
"""

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import whole_ab  # noqa: E402

COUNTERS = {"loading": "sun.cls.time", "verify": "sun.cls.classVerifyTime.self",
            "define": "sun.cls.defineAppClassTime.self", "link": "sun.cls.classLinkedTime.self"}


def read_counters(perf_file: Path) -> dict:
    """The class-loading counters of a saved hsperfdata file, in milliseconds."""
    out = subprocess.run(["jstat", "-J-Djstat.showUnsupported=true", "-snap",
                          "file://" + str(perf_file)], capture_output=True, text=True)
    raw = dict(line.partition("=")[::2] for line in out.stdout.splitlines())
    try:
        hz = float(raw.get("sun.os.hrt.frequency", "1000000000"))
        return {k: float(raw[name]) * 1000.0 / hz for k, name in COUNTERS.items()}
    except (KeyError, ValueError):
        raise SystemExit("classload_ab.py: no class-loading counters in %s (jstat said: %s)"
                         % (perf_file, (out.stderr or out.stdout).strip()[-300:]))


def old_verifier_count(log: Path) -> int:
    text = log.read_text(errors="replace") if log.exists() else ""
    return text.count(benchlib.OLD_VERIFIER_LINE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    whole_ab.add_common_arguments(ap)
    a = ap.parse_args()
    settings = [whole_ab.parse_setting(t) for t in a.settings]
    w = benchlib.get(a.program)
    extra = benchlib.prepare(w)
    for s in settings:
        s["jars"] = whole_ab.rewrite(w, "classload-ab", s["mode"] or "full", s["options"],
                                     s["duplex"])[0]
    reference = benchlib.run(w, extra, size=a.size).output
    results = {name: [] for name in ["base"] + [s["name"] for s in settings]}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(a.reps):
            order = [None] + settings
            random.Random(rep).shuffle(order)
            for s in order:
                name = "base" if s is None else s["name"]
                perf, log = Path(tmp) / (name + ".hsperf"), Path(tmp) / (name + ".log")
                opts = ["-XX:+PerfDataSaveToFile", "-XX:PerfDataSaveFile=%s" % perf,
                        "-Xlog:verification=info:file=%s" % log]
                if s is not None:
                    opts = benchlib.runtime_opts(s["interval"], Path(tmp) / "profile.xml",
                                                 **s["settings"]) + opts
                r = benchlib.run(w, extra, None if s is None else s["jars"], opts, size=a.size)
                if not r.ok or r.output != reference:
                    raise SystemExit("classload_ab.py: %s %s failed or its output differs"
                                     % (w.name, name))
                row = read_counters(perf)
                row.update(cpu=r.cpu * 1000.0, old=old_verifier_count(log))
                results[name].append(row)
    print("\n%s (%s input), %d repetitions; medians, ms\n" % (w.name, a.size, a.reps))
    print("| setting | CPU | class loading | verification | parsing and defining | linking "
          "| classes on the old verifier |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, rows in results.items():
        med = lambda k: statistics.median(r[k] for r in rows)  # noqa: E731
        print("| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %d |" % (
            name, med("cpu"), med("loading"), med("verify"), med("define"), med("link"),
            max(r["old"] for r in rows)))


if __name__ == "__main__":
    benchlib.exit_on_sigterm()
    main()
