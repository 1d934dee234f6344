#!/usr/bin/env python3
"""Rewrites every jar Debian installed in /usr/share/java and has HotSpot verify the result.

    bench/check_jars.py [--modes full,auto,nodup] [--jars GLOB] [--out DIR] [--keep]

For each jar (each real file once, however many symlinks name it) and each mode, `duplex
instrument --mode MODE --profile call-edge,field-access` rewrites it; then every class of the
original jar and of the rewritten jar is verified by HotSpot (tests/scripts/verify_dir.sh:
-Xverify:all with BytecodeVerificationLocal), with the runtime jar and every other jar of the
directory on the class path, so that the classes a jar names can be loaded. The original is
the control: a class that does not verify in the original jar either (an optional dependency
of another version, a class Debian ships broken) is not duplex's failure. What counts:

- a rewrite that fails (duplex exits non-zero);
- a class that verifies in the original but not once rewritten, or no longer loads ("new
  failures");
- a class the split verifier accepts in the original but that HotSpot verifies with its old
  verifier once rewritten (a version-50 class whose frames the split verifier rejects fails
  over silently, at several times the cost: docs/design/hotspot-costs.md, section 11; also a
  "new failure").

A mode `MODE+nest` rewrites in MODE and then moves the twins into static nestmate classes
(bench/lazy_prototype.py's `nest` form, docs/design/lazy-twins.md section 6: hosts raised to
version 55, twin classes beside them), so that the prototype's class files meet the same
verification. A mode `MODE+lazy` is the same layout built into the rewriter: `duplex
instrument --lazy-twins` (rewriter/twin_nest.h).

Classes duplex leaves unchanged (and why) are counted from its summary. Exit status 1 when
anything counts. Details (each jar's summary and verifier output) go to OUT (default
build/bench-cache/check-jars/).
"""
import argparse
import fnmatch
import re
import shutil
import sys
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import lazy_prototype  # noqa: E402

PROFILE = "call-edge,field-access"

# What the test packages' jars name but do not depend on (JUnit rules in lucene-test-framework,
# spatial4j in lucene-spatial-extras, ANTLR in lucene-expressions, Ant tasks in org.jacoco.ant,
# ...): installed so that those classes can be loaded and verified instead of skipped. They
# bring jars of their own, which the sweep then rewrites too.
OPTIONAL_DEPENDENCIES = [
    "junit4", "libspatial4j-java", "libantlr4-runtime-java", "ant", "libhttpclient-java",
    "libspring-beans-java", "libcarrotsearch-randomizedtesting-java",
]


def unique_jars(pattern: str) -> list:
    """Each real jar file once (by resolved path), if it holds at least one class."""
    seen, jars = set(), []
    for p in sorted(benchlib.SHARE.glob("*.jar")):
        if not fnmatch.fnmatch(p.name, pattern):
            continue
        real = p.resolve()
        if real in seen or not real.is_file():
            continue
        seen.add(real)
        try:
            with zipfile.ZipFile(real) as z:
                if not any(n.endswith(".class") for n in z.namelist()):
                    continue
        except (zipfile.BadZipFile, OSError):
            continue
        jars.append(real)
    return jars


def verify(jar: Path, classpath: str, log: Path) -> dict:
    v = benchlib.verify_jar(jar, classpath)
    log.write_text(v["output"])
    return v


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modes", default="full,auto,nodup")
    ap.add_argument("--jars", default="*", help="glob over the jar names (default: all)")
    ap.add_argument("--out", type=Path, default=benchlib.cache_dir() / "check-jars")
    ap.add_argument("--keep", action="store_true", help="keep the rewritten jars")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    benchlib.ensure_packages(OPTIONAL_DEPENDENCIES,
                             "as root: apt-get install " + " ".join(OPTIONAL_DEPENDENCIES))
    jars = unique_jars(args.jars)
    if not jars:
        print("check_jars: no jar matches", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    # Dependencies come from every jar of the directory, whichever jars are checked.
    everything = [benchlib.RUNTIME_JAR] + unique_jars("*")
    rows, bad = [], 0
    for jar in jars:
        others = ":".join(str(j) for j in everything if j != jar)
        control = verify(jar, others, args.out / (jar.stem + ".original.verify"))
        for mode in modes:
            dest = args.out / mode
            rewrite_mode, _, post = mode.partition("+")
            try:
                inst = benchlib.instrument(jar, dest, rewrite_mode, PROFILE,
                                           ["--lazy-twins"] if post == "lazy" else None)
            except RuntimeError as e:
                bad += 1
                rows.append((jar.name, mode, "ERROR", "-", "-", str(e).splitlines()[0]))
                continue
            m = re.search(r"rewrote (\d+) of (\d+) classes", inst.summary)
            rewrote = "%s/%s" % (m.group(1), m.group(2)) if m else "?"
            unchanged = inst.summary.count("  left unchanged: ")
            (args.out / ("%s.%s.summary" % (jar.stem, mode))).write_text(inst.summary)
            checked = inst.jar
            if post == "nest":
                checked = dest / (jar.stem + ".nest.jar")
                lazy_prototype.lazy_jar(inst.jar, checked, "nest")
            elif post and post != "lazy":
                raise SystemExit("check_jars: unknown post-processing +%s" % post)
            v = verify(checked, others, args.out / ("%s.%s.verify" % (jar.stem, mode)))
            # Failing, or no longer loadable, once rewritten but not before; or sent to the old
            # verifier (a version-50 class whose frames the split verifier rejects).
            new = sorted(set(v["fails"]) - set(control["fails"]))
            # A twin class (+nest, +lazy) that cannot load because its host cannot either (a
            # dependency not installed) is the host's case, not a new one.
            host_of = lambda c: c[:-len("$DuplexTwins")] if c.endswith("$DuplexTwins") else c
            new += sorted(c for c in v["skips"] - control["skips"] - set(control["fails"])
                          if host_of(c) not in control["skips"] | set(control["fails"]))
            old = sorted(v["old_verifier"] - control["old_verifier"])
            for c in old:
                v["fails"].setdefault(c, "the split verifier rejects its frames (old verifier)")
            new += [c for c in old if c not in new]
            if not v["ok"] or new:
                bad += 1
            note = "; ".join("%s: %s" % (c, v["fails"].get(c, "skipped")[:160]) for c in new[:3])
            if not v["ok"]:
                note = "verify_dir.sh gave no summary (see %s)" % args.out
            rows.append((jar.name, mode, rewrote, str(unchanged),
                         "%d / %d / %d" % (v["verified"] - v["failed"], v["failed"], v["skipped"]),
                         "%d new failures%s" % (len(new), ": " + note if note else "")))
            if not args.keep:
                inst.jar.unlink(missing_ok=True)
                if checked != inst.jar:
                    checked.unlink(missing_ok=True)
        print("%s: original %d verified, %d failed, %d skipped" %
              (jar.name, control["verified"] - control["failed"], control["failed"],
               control["skipped"]), file=sys.stderr, flush=True)
    print("| jar | mode | classes rewritten | left unchanged (errors) | verified / failed / "
          "skipped | new failures |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print("\n%d jars, %d modes: %s" % (len(jars), len(modes),
                                     "PASS" if bad == 0 else "%d FAILED" % bad))
    if not args.keep:
        for mode in modes:
            shutil.rmtree(args.out / mode, ignore_errors=True)
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
