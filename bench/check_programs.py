#!/usr/bin/env python3
"""End-to-end check of duplex on real programs.

For each program and each rewriting mode: rewrites every application jar with `duplex
instrument`, verifies every rewritten class with HotSpot (tests/scripts/verify_dir.sh,
-Xverify:all; a class the split verifier accepted before rewriting must not need HotSpot's
fail-over to the old verifier after), runs the rewritten program at sampling intervals 1, 1000
and 0 and compares its normalised output with the original program's. Prints a table; exits 1
if anything failed.

  check_programs.py [--quick] [--agent] [--programs h2,rhino] [--intervals 1,1000,0]
                    [--profile call-edge-stack,field-access]
                    [--size small|large] [MODES...]

MODES default to full partial nodup exhaustive checks auto; a MODE may carry `duplex instrument`
options after commas (full,--caller-sampled-bytes,325). --quick: the first two programs of
QUICK_PROGRAMS and the first two modes given (default full nodup). SKIPs from the verifier
(classes whose optional dependencies are not installed) are reported, never failures, and so
are classes that fail in the original jars too (kotlinc's two classes that extend javac
classes jdk.compiler does not export).

--agent: the same with the JVMTI agent (build/runtime/agent/libduplexagent.so) instead of
offline rewriting: nothing is rewritten ahead; every run has -Xverify:all with
BytecodeVerificationLocal, so HotSpot verifies every class the agent rewrote as it loads,
classes the program generates at run time included; a MODE may carry agent options after
commas (full,callerSampledBytes=325). A class the agent could not rewrite (it then loads
unchanged, with a line on stderr) fails the pair.
"""

import argparse
import re
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

ALL_MODES = ["full", "partial", "nodup", "exhaustive", "checks", "auto"]
QUICK_PROGRAMS = ["bcprov", "xalan"]
PROFILE = "call-edge,field-access"


def verify(jar: Path, deps: list, failing_before: set = frozenset()) -> dict:
    """verify_jar, with the classes that already failed in the original jars (`failing_before`:
    a class that cannot link, such as one extending a JDK class its module does not export)
    counted apart instead of as failures."""
    cp = ":".join(str(d) for d in [benchlib.RUNTIME_JAR] + deps)
    v = benchlib.verify_jar(jar, cp)
    v["as_before"] = len(set(v["fails"]) & failing_before)
    v["failed"] -= v["as_before"]
    v["fails"] = ["FAIL %s: %s" % (c, why) for c, why in v["fails"].items()
                  if c not in failing_before]
    v["skips"] = v["skip_lines"]
    if not v["ok"]:
        v["failed"] = -1
        v["fails"].append("verify_dir.sh gave no summary (exit %d): %s" %
                          (v["status"], v["output"].strip()[-500:]))
    return v


def original_verification(jars: list, extra: list) -> tuple:
    """Classes of the original `jars` that HotSpot verifies with the old verifier after a
    fail-over, and those that fail already."""
    old, failing = set(), set()
    for i, jar in enumerate(jars):
        v = benchlib.verify_jar(jar, ":".join(str(d) for d in jars[:i] + jars[i + 1:] + extra))
        old |= v["old_verifier"]
        failing |= set(v["fails"])
    return old, failing


def rewritten_count(summary: str) -> str:
    m = re.search(r"rewrote (\d+) of (\d+) classes", summary)
    return "%s/%s" % (m.group(1), m.group(2)) if m else "?"


AGENT_SO = benchlib.AGENT_SO
VERIFY_ALL = ["-Xverify:all", "-XX:+UnlockDiagnosticVMOptions", "-XX:+BytecodeVerificationLocal"]


def agent_row(w, extra: list, ref, mode: str, intervals: list, out_dir: Path,
              size: str) -> dict:
    """One program and mode under the agent: runs at each interval, output compared."""
    name = w.name
    row = dict(program=name, mode=mode + " (agent)", ok=True, notes=[],
               verify="-Xverify:all in every run")
    base, *options = mode.split(",")
    its = intervals if base != "exhaustive" else [intervals[0]]
    results, rewritten = [], "?"
    for it in its:
        profile = out_dir / ("%s-%s-i%d.agent.xml" % (name, mode.replace(",", " "), it))
        agent = ",".join(["mode=" + base, "interval=%d" % it, "out=" + str(profile)] + options)
        r = benchlib.run(w, extra, None, ["-agentpath:%s=%s" % (AGENT_SO, agent)] + VERIFY_ALL,
                         size=size)
        same = r.ok and r.output == ref.output
        unchanged = [l for l in r.stderr.splitlines() if "loaded unchanged" in l]
        m = re.search(r'agent-classes-rewritten="(\d+)"',
                      profile.read_text() if profile.exists() else "")
        rewritten = m.group(1) if m else "?"
        verdict = ("ok" if same else ("DIFF" if r.ok else "EXIT%d" % r.status)) + (
            "" if not unchanged else "+%d unchanged" % len(unchanged))
        results.append("i%d:%s" % (it, verdict))
        benchlib.log("%s %s (agent) interval %d: %s, %s classes rewritten (wall %.1f s)" %
                     (name, mode, it, "same output" if same else "MISMATCH", rewritten, r.wall))
        for line in unchanged[:5]:
            row["notes"].append("interval %d: %s" % (it, line.strip()))
        if not same or unchanged:
            row["ok"] = False
        if not same:
            bad = out_dir / ("%s-%s-i%d.agent.actual.txt" % (name, mode, it))
            bad.write_text(r.output + "\n--- stderr (tail) ---\n" + r.stderr[-4000:])
            row["notes"].append("interval %d: output differs, see %s" % (it, bad))
    row["rewritten"] = rewritten + " (agent)"
    row["runs"] = " ".join(results)
    return row


def check_program(name: str, modes: list, intervals: list, out_dir: Path, size: str,
                  agent: bool = False) -> list:
    w = benchlib.get(name)
    extra = benchlib.prepare(w)
    ref = benchlib.run(w, extra, size=size)
    rows = []
    if not ref.ok:
        benchlib.log("%s: the original program failed (exit %d):\n%s" %
                     (name, ref.status, ref.stderr[-2000:]))
        return [dict(program=name, mode="original", ok=False, note="original run failed")]
    (out_dir / ("%s.expected.txt" % name)).write_text(ref.output)
    benchlib.log("%s: original run ok (wall %.1f s, cpu %.1f s)" % (name, ref.wall, ref.cpu))
    if agent:
        return [agent_row(w, extra, ref, mode, intervals, out_dir, size) for mode in modes]
    # Version-50 classes the split verifier accepts before rewriting must still pass it after:
    # HotSpot would otherwise fail over, silently, to the old verifier, for the whole class.
    original_needs_old, failing_before = original_verification(w.app_jars, extra)
    for mode in modes:
        row = dict(program=name, mode=mode, ok=True, notes=[])
        # MODE[,OPTION...]: extra `duplex instrument` options, e.g. full,--caller-sampled-bytes,325
        base, *options = mode.split(",")
        what = "both" if PROFILE == "call-edge,field-access" else PROFILE.replace(",", "+")
        dest = benchlib.cache_dir() / "instrumented" / name / (
            "%s-%s" % (mode.replace(",", " "), what))
        try:
            inst = [benchlib.instrument(j, dest, base, PROFILE, options) for j in w.app_jars]
        except RuntimeError as e:
            row.update(ok=False, rewritten="ERR", verify="-", runs="-")
            row["notes"].append(str(e).splitlines()[0])
            rows.append(row)
            continue
        jars = [i.jar for i in inst]
        row["rewritten"] = " ".join(rewritten_count(i.summary) for i in inst)
        v_ok = v_fail = v_skip = v_before = 0
        needs_old = set()
        for i, jar in enumerate(jars):
            v = verify(jar, jars[:i] + jars[i + 1:] + extra, failing_before)
            needs_old |= v["old_verifier"] - original_needs_old
            v_ok += v["verified"] - max(v["failed"], 0) - v["as_before"]
            v_fail += v["failed"] if v["failed"] >= 0 else 1
            v_skip += v["skipped"]
            v_before += v["as_before"]
            for f in v["fails"][:5]:
                row["notes"].append("%s: %s" % (jar.name, f))
            if v["skips"]:
                (out_dir / ("%s-%s-%s.skips.txt" % (name, mode, jar.stem))).write_text(
                    "\n".join(v["skips"]) + "\n")
        row["verify"] = "%d ok, %d failed, %d skipped" % (v_ok, v_fail, v_skip)
        if v_before:
            row["verify"] += ", %d fail as in the original" % v_before
        if needs_old:
            row["verify"] += ", %d need the old verifier" % len(needs_old)
            row["notes"].append("the split verifier rejects (HotSpot fails over to the old "
                                "one): %s" % ", ".join(sorted(needs_old)[:5]))
        if v_fail or needs_old:
            row["ok"] = False
        # Exhaustive instrumentation never samples, so one run covers it.
        its = intervals if base != "exhaustive" else [intervals[0]]
        results = []
        for it in its:
            r = benchlib.run(w, extra, jars, benchlib.runtime_opts(it, mode=base), size=size)
            same = r.ok and r.output == ref.output
            verdict = "ok" if same else ("DIFF" if r.ok else "EXIT%d" % r.status)
            results.append("i%d:%s" % (it, verdict))
            benchlib.log("%s %s interval %d: %s (wall %.1f s, cpu %.1f s)" %
                         (name, mode, it, "same output" if same else "MISMATCH", r.wall, r.cpu))
            if not same:
                row["ok"] = False
                bad = out_dir / ("%s-%s-i%d.actual.txt" % (name, mode, it))
                bad.write_text(r.output + "\n--- stderr (tail) ---\n" + r.stderr[-4000:])
                row["notes"].append("interval %d: output differs, see %s" % (it, bad))
        row["runs"] = " ".join(results)
        rows.append(row)
    return rows


def main() -> int:
    global PROFILE
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--programs", help="comma-separated (default: all, or the quick pair)")
    ap.add_argument("--intervals", default="1,1000,0")
    ap.add_argument("--size", choices=["small", "large"], default="small",
                    help="input size (default small, since interval 1 records every event)")
    ap.add_argument("--agent", action="store_true",
                    help="run under the JVMTI agent instead of rewriting the jars")
    ap.add_argument("--profile", default=PROFILE,
                    help="instrumentations, comma-separated (default %s)" % PROFILE)
    ap.add_argument("modes", nargs="*")
    a = ap.parse_args()
    PROFILE = a.profile
    for m in a.modes:
        if m.split(",")[0] not in ALL_MODES:
            ap.error("unknown mode %r (modes: %s)" % (m, " ".join(ALL_MODES)))
    modes = a.modes or (["full", "nodup"] if a.quick else ALL_MODES)
    if a.quick:
        modes = modes[:2]
    programs = a.programs.split(",") if a.programs else (
        QUICK_PROGRAMS if a.quick else list(benchlib.WORKLOADS))
    intervals = [int(x) for x in a.intervals.split(",")]
    for p in (benchlib.DUPLEX, benchlib.RUNTIME_JAR) + ((AGENT_SO,) if a.agent else ()):
        if not p.exists():
            raise SystemExit("check_programs: %s is missing (build with ninja -C build)" % p)
    out_dir = benchlib.cache_dir() / "check"
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    rows = []
    for name in programs:
        rows.extend(check_program(name, modes, intervals, out_dir, a.size, a.agent))
    header = ("program", "mode", "rewritten classes", "verification", "runs (same output?)",
              "result")
    table = [header] + [(r["program"], r["mode"], r.get("rewritten", "-"), r.get("verify", "-"),
                         r.get("runs", "-"), "ok" if r["ok"] else "FAIL") for r in rows]
    widths = [max(len(str(t[i])) for t in table) for i in range(len(header))]
    print()
    for t in table:
        print("  ".join(str(c).ljust(widths[i]) for i, c in enumerate(t)).rstrip())
    notes = [(r["program"], r["mode"], n) for r in rows for n in r.get("notes", [])]
    if notes:
        print("\nnotes:")
        for p, m, n in notes:
            print("  %s %s: %s" % (p, m, n))
    failed = sum(1 for r in rows if not r["ok"])
    print("\n%d of %d program/mode pairs passed in %.0f s (outputs and skip lists in %s)" %
          (len(rows) - failed, len(rows), time.monotonic() - t0, out_dir))
    return 1 if failed else 0


if __name__ == "__main__":
    benchlib.exit_on_sigterm()
    sys.exit(main())
