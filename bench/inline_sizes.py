#!/usr/bin/env python3
"""Methods that a rewrite takes past HotSpot's inlining sizes, as CompileCommand lines.

    bench/inline_sizes.py ORIGINAL.jar REWRITTEN.jar [--sizes 35,325] [--all]

For every method of ORIGINAL.jar whose code is at most one of the sizes (default 35,
MaxInlineSize, and 325, FreqInlineSize) and whose rewritten version in REWRITTEN.jar (same
class, name and descriptor: the checking method) is longer than it, prints
`inline,CLASS.NAME(DESC)  # BEFORE -> AFTER`. Class initializers are left out (C2 never inlines
them). `--all` prints every method with both sizes instead. The lines (without the comments, after
a `quiet` line) make a -XX:CompileCommandFile that forces C2 to inline those methods whatever
their size: how docs/design/hotspot-costs.md, sections 17 and 19, asked which methods carry the
cost of crossing the sizes.
"""
import argparse
import struct
import sys
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402


def jar_method_sizes(jar: Path):
    """{class name: {(name, descriptor): code length}} over the jar's classes (not META-INF's)."""
    classes = {}
    with zipfile.ZipFile(jar) as z:
        for entry in z.namelist():
            if not entry.endswith(".class") or entry.startswith("META-INF/"):
                continue
            try:
                name, sizes = benchlib.method_code_sizes(z.read(entry))
            except (IndexError, KeyError, struct.error):
                print("skipped (malformed): %s" % entry, file=sys.stderr)
                continue
            classes[name] = sizes
    return classes


def byte_sizes(text: str):
    """--sizes: comma-separated byte counts."""
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("expected byte counts such as 35,325, not %r" % text)
    return sizes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("original", type=Path)
    ap.add_argument("rewritten", type=Path)
    ap.add_argument("--sizes", type=byte_sizes, default=[35, 325])
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    try:
        before, after = jar_method_sizes(a.original), jar_method_sizes(a.rewritten)
    except (OSError, zipfile.BadZipFile) as e:
        print("inline_sizes.py: cannot read the jar: %s" % e, file=sys.stderr)
        return 1
    for cls in sorted(before):
        for (name, desc), size in sorted(before[cls].items()):
            grown = after.get(cls, {}).get((name, desc))
            if grown is None or name == "<clinit>":
                continue
            if a.all or any(size <= limit < grown for limit in a.sizes):
                print("inline,%s.%s%s  # %d -> %d" % (cls, name, desc, size, grown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
