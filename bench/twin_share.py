#!/usr/bin/env python3
"""How much of a rewritten jar is twins: what lazy twins would not load until a first sample.

    bench/twin_share.py [--duplex BIN] [--modes checks,full] [JAR...]

Rewrites each jar (default: the six programs' jars, as bench/code_growth.py) in each mode and
splits the rewritten classes' methods into twins (outlined methods: names ending in `$duplex`
or `$sampled`) and the rest. Prints, per jar, the twins' share of the bytecode (code_length)
and of the class bytes (their whole method_info: Code attribute with its StackMapTable and
other tables; the constant-pool entries only twins use are not counted, so the class-byte share
is a lower bound), and how many classes have twins. docs/design/lazy-twins.md uses it.
"""
import argparse
import re
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

JARS = ["h2", "eclipse-jdt-core", "js", "xalan2", "sunflow", "bcprov"]
TWIN_SUFFIXES = (b"$duplex", b"$sampled")


def split_class(data: bytes):
    """(twin code bytes, all methods' code bytes, twin method_info bytes) of one class file."""
    _, methods = benchlib.class_methods(data)
    twins = [m for m in methods if m[0].endswith(TWIN_SUFFIXES)]
    return (sum(m[3] for m in twins), sum(m[3] for m in methods),
            sum(m[2] - m[1] for m in twins))


def without_twins(data: bytes, keep=lambda name: False) -> bytes:
    """The class with its twin methods removed (pool untouched), but those whose name (bytes)
    `keep` accepts. Only for runs that never call a removed twin: checks-only at interval 0,
    where no check fires, or a deterministic run keeping the twins an earlier run of it entered
    (bench/touched_twins.py --ab). It measures what a run costs when those twins are not loaded
    (docs/design/lazy-twins.md)."""
    count_at, methods = benchlib.class_methods(data)
    kept = [m for m in methods if not m[0].endswith(TWIN_SUFFIXES) or keep(m[0])]
    if len(kept) == len(methods):
        return data
    end = methods[-1][2] if methods else count_at + 2
    body = b"".join(data[m[1]:m[2]] for m in kept)
    return data[:count_at] + struct.pack(">H", len(kept)) + body + data[end:]


def strip_jar(src: Path, dest: Path, keep_of=lambda class_name: (lambda name: False)):
    """A copy of the jar `src` whose classes have no twins (without_twins), written to `dest`;
    `keep_of(class name with slashes)` gives the class's `keep`."""
    tmp = dest.with_suffix(".tmp")
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.endswith(".class"):
                data = without_twins(data, keep_of(info.filename[:-len(".class")]))
            zout.writestr(info, data)
    tmp.replace(dest)


def share(jar: Path):
    twin_code = all_code = twin_bytes = class_bytes = classes = with_twins = 0
    with zipfile.ZipFile(jar) as z:
        for info in z.infolist():
            if not info.filename.endswith(".class"):
                continue
            data = z.read(info)
            try:
                t, a, b = split_class(data)
            except (IndexError, KeyError, struct.error):
                continue
            twin_code += t
            all_code += a
            twin_bytes += b
            class_bytes += len(data)
            classes += 1
            with_twins += 1 if t else 0
    return twin_code / max(all_code, 1), twin_bytes / max(class_bytes, 1), with_twins, classes


REF = re.compile(r"^\s+\d+: (\w+) #\d+ ([\w/$]+)\.([^.:(]+)[:(]")


def twin_kinds(duplex: Path, jar: Path):
    """What the twins of a rewritten jar would need to live in a hidden nestmate class
    (docs/design/lazy-twins.md, section 4), from `duplex disasm`: bytecode of the twins by the
    first of these that applies: `special` (an invokespecial that is neither a constructor
    call nor a call of one of the host's private methods: a super call, or the re-call of the
    method itself), `inherited` (a member reference to the host that the host does not declare:
    possibly protected in a superclass of another package), `ready` (neither; member references
    to other packages may still name a protected member, which only the class hierarchy can
    tell); and the twins' bytecode in hosts before version 51 (no invokedynamic)."""
    text = subprocess.run([str(duplex), "disasm", str(jar)], capture_output=True,
                          text=True).stdout
    kinds = {"special": 0, "inherited": 0, "ready": 0, "before 51": 0}
    for cls in text.split("// entry: ")[1:]:
        lines = cls.splitlines()
        host = lines[1].split()[-1] if len(lines) > 1 else ""
        version = int(re.search(r"version: (\d+)", cls).group(1)) if "version:" in cls else 0
        members, private, blocks, current = set(), set(), [], None
        for i, line in enumerate(lines):
            m = re.match(r"^  (field|method) (.+)$", line)
            if m:
                name = re.split(r"[( ]", m.group(2))[0]
                members.add(name)
                flags = lines[i + 1] if i + 1 < len(lines) else ""
                if "private" in flags:
                    private.add(name)
                current = {"name": name, "code": 0, "lines": []} if name.endswith("$duplex") \
                    else None
                if current:
                    blocks.append(current)
                continue
            if current is not None:
                c = re.search(r"code_length=(\d+)", line)
                if c:
                    current["code"] = int(c.group(1))
                current["lines"].append(line)
        for b in blocks:
            kind = "ready"
            for line in b["lines"]:
                r = REF.match(line)
                if not r:
                    continue
                op, owner, name = r.groups()
                if op == "invokespecial" and name != "<init>" and not (
                        owner == host and name in private):
                    kind = "special"
                    break
                if owner == host and name not in members:
                    kind = "inherited"
            kinds[kind] += b["code"]
            if version < 51:
                kinds["before 51"] += b["code"]
    return kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duplex", type=Path, default=benchlib.DUPLEX)
    ap.add_argument("--modes", default="checks,full")
    ap.add_argument("--kinds", action="store_true",
                    help="also split the twins' bytecode by what a hidden twin class would need "
                    "(twin_kinds)")
    ap.add_argument("jars", nargs="*", type=Path)
    a = ap.parse_args()
    jars = a.jars or [Path("/usr/share/java/%s.jar" % j) for j in JARS]
    print("| jar | mode | twins' share of the bytecode | of the class bytes (at least) "
          "| classes with twins |")
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for jar in jars:
            for mode in a.modes.split(","):
                out = Path(tmp) / ("%s-%s.jar" % (jar.stem, mode))
                cmd = [str(a.duplex), "instrument", str(jar), "-o", str(out), "--mode", mode,
                       "--quiet"]
                if mode != "checks":
                    cmd += ["--profile", "call-edge,field-access"]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    raise SystemExit("%s failed: %s" % (" ".join(cmd), r.stderr[-1000:]))
                code, size, twins, classes = share(out)
                print("| %s | %s | %.1f%% | %.1f%% | %d of %d |" % (
                    jar.stem, mode, 100 * code, 100 * size, twins, classes))
                if a.kinds:
                    k = twin_kinds(a.duplex, out)
                    total = max(k["special"] + k["inherited"] + k["ready"], 1)
                    print("|  | twins by kind | " + ", ".join(
                        "%s %.0f%%" % (n, 100 * v / total) for n, v in k.items()) + " |  |  |")
                out.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
