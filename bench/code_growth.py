#!/usr/bin/env python3
"""Bytecode and class-file growth of rewritten jars, for one or more duplex binaries side by side.

    bench/code_growth.py [--duplex BIN]... [--modes full,checks,auto] [JAR...]

Rewrites each jar (default: the jars of the six programs run_bench.py measures) in each mode
with both instrumentations (none for checks), and prints the growth of the bytecode (the sum of
the methods' code lengths, benchlib.code_bytes) and of the class files, per jar and as the
geometric mean of the ratios, one column per binary. Without --duplex: this checkout's
build/tools/duplex. For changes to what the rewriter emits: no program is run.
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

JARS = ["h2", "eclipse-jdt-core", "js", "xalan2", "sunflow", "bcprov"]
BOTH = "call-edge,field-access"


def growth(binary: Path, jar: Path, mode: str, out_dir: Path):
    out = out_dir / ("%s-%s.jar" % (jar.stem, mode))
    cmd = [str(binary), "instrument", str(jar), "-o", str(out), "--mode", mode, "--quiet"]
    if mode != "checks":
        cmd += ["--profile", BOTH]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("%s failed: %s" % (" ".join(cmd), r.stderr[-1000:]))
    code = benchlib.code_bytes(out) / benchlib.code_bytes(jar)
    classes = benchlib.class_bytes(out) / benchlib.class_bytes(jar)
    out.unlink()
    return code, classes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duplex", action="append", type=Path, help="binary (repeatable)")
    ap.add_argument("--modes", default="full,checks,auto")
    ap.add_argument("jars", nargs="*", type=Path)
    a = ap.parse_args()
    binaries = a.duplex or [benchlib.DUPLEX]
    jars = a.jars or [Path("/usr/share/java/%s.jar" % j) for j in JARS]
    modes = a.modes.split(",")
    print("bytecode / class-file growth; columns: " + ", ".join(str(b) for b in binaries))
    with tempfile.TemporaryDirectory() as tmp:
        for mode in modes:
            ratios = {b: [] for b in binaries}
            for jar in jars:
                cells = []
                for b in binaries:
                    code, classes = growth(b, jar, mode, Path(tmp))
                    ratios[b].append((code, classes))
                    cells.append("%+.1f%% / %+.1f%%" % (100 * (code - 1), 100 * (classes - 1)))
                print("%-8s %-18s %s" % (mode, jar.stem, "   ".join(cells)))
            cells = []
            for b in binaries:
                gm = [statistics.geometric_mean(r[k] for r in ratios[b]) for k in (0, 1)]
                cells.append("%+.1f%% / %+.1f%%" % (100 * (gm[0] - 1), 100 * (gm[1] - 1)))
            print("%-8s %-18s %s" % (mode, "geo. mean", "   ".join(cells)))


if __name__ == "__main__":
    main()
