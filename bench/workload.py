#!/usr/bin/env python3
"""Command line for one workload: prepare it, print its class path, or run it.

  workload.py --list
  workload.py NAME --prepare | --print-classpath | --print-app-jars
  workload.py NAME --run [--size large|small] [--cp-override JARS] [--jvm-opts "..."]
              [--out FILE] [--keep]

--cp-override JARS replaces the application jars (colon-separated, same order and count as
--print-app-jars), e.g. with rewritten ones. --run writes the normalised output to FILE (default
stdout), prints "wall W s, cpu C s" on stderr and exits with the program's status. --size:
large (default, a few seconds) or small (about 1 s; what the checks and measurements use).
"""

import argparse
import shlex
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", nargs="?")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--prepare", action="store_true")
    ap.add_argument("--print-classpath", action="store_true")
    ap.add_argument("--print-app-jars", action="store_true")
    ap.add_argument("--run", action="store_true")
    ap.add_argument("--cp-override")
    ap.add_argument("--jvm-opts", default="")
    ap.add_argument("--out")
    ap.add_argument("--size", choices=["large", "small"], default="large")
    ap.add_argument("--keep", action="store_true", help="keep the run directory")
    a = ap.parse_args()
    if a.list:
        for w in benchlib.WORKLOADS.values():
            print("%-9s %s" % (w.name, w.description))
        return 0
    if not a.name:
        ap.error("NAME is required")
    w = benchlib.get(a.name)
    extra = benchlib.prepare(w)
    jars = None
    if a.cp_override:
        jars = [Path(p) for p in a.cp_override.split(":") if p]
        if len(jars) != len(w.app_jars):
            ap.error("--cp-override needs %d jar(s) in place of %s" %
                     (len(w.app_jars), ":".join(map(str, w.app_jars))))
    if a.print_classpath:
        print(benchlib.classpath(w, extra, jars))
    if a.print_app_jars:
        print(":".join(str(j) for j in (jars or w.app_jars)))
    if not a.run:
        return 0
    r = benchlib.run(w, extra, jars, shlex.split(a.jvm_opts), keep=a.keep,
                     size=a.size)
    if a.out:
        Path(a.out).write_text(r.output)
    else:
        sys.stdout.write(r.output)
    print("%s: exit %d, wall %.2f s, cpu %.2f s%s" %
          (w.name, r.status, r.wall, r.cpu, ", kept " + str(r.run_dir) if a.keep else ""),
          file=sys.stderr)
    if not r.ok:
        sys.stderr.write(r.stderr[-3000:])
    return r.status if r.status > 0 else (1 if not r.ok else 0)


if __name__ == "__main__":
    benchlib.exit_on_sigterm()
    sys.exit(main())
