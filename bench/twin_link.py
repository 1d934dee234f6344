#!/usr/bin/env python3
"""Do a program's real twins verify and link in a hidden nestmate class of their own?

    bench/twin_link.py PROGRAM [--mode checks|full]

A check of docs/design/lazy-twins.md's mechanism on real rewritten code, before anything of
it is built. Rewrites the program's jars (bench/whole_ab.py's cache) and, for every class with
twins, builds a *twin class*: the host's constant pool copied whole (so that every index in
the twins stays valid) plus its own name, java/lang/Object as superclass, version
max(host's, 55), the host's BootstrapMethods, and the host's twins that contain no
`invokespecial` other than a constructor call (a super call, a private call or a re-call of the
method would need the rewriting the design describes). Then bench/runtime/hiddentwin/TwinLink.java
loads each host from the program's class path and defines its twin class as a hidden nestmate,
initialised, so that HotSpot verifies and links every twin in it. Nothing is run: access
checks happen when an instruction first executes, so protected members of other packages
(section 4 of the design) are not tested here, only the verifier and the linker.
"""
import argparse
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import twin_share  # noqa: E402
import whole_ab  # noqa: E402

HERE = Path(__file__).resolve().parent
# Operand bytes of each opcode (-1: a switch, -2: wide); undefined opcodes take none.
OPERANDS = [0] * 256
for op in list(range(0x15, 0x1a)) + list(range(0x36, 0x3b)) + [0x10, 0x12, 0xa9, 0xbc]:
    OPERANDS[op] = 1
for op in list(range(0x99, 0xa9)) + list(range(0xb2, 0xb9)) + \
        [0x11, 0x13, 0x14, 0x84, 0xbb, 0xbd, 0xc0, 0xc1, 0xc6, 0xc7]:
    OPERANDS[op] = 2
OPERANDS[0xc5] = 3
for op in (0xb9, 0xba, 0xc8, 0xc9):
    OPERANDS[op] = 4
OPERANDS[0xaa] = OPERANDS[0xab] = -1
OPERANDS[0xc4] = -2


def member_name(data, entries, index):
    """The name of the member a Methodref or InterfaceMethodref names."""
    _, at = entries[index]
    nat = struct.unpack_from(">H", data, at + 2)[0]
    return benchlib.pool_utf8(data, entries, struct.unpack_from(">H", data, entries[nat][1])[0])


def instructions(data, start, end, code_name):
    """(opcode, offset of its operands in `data`) of each instruction of the method_info at
    data[start:end]."""
    pos = start + 8
    for _ in range(struct.unpack_from(">H", data, start + 6)[0]):
        attr, length = struct.unpack_from(">HI", data, pos)
        if attr == code_name:
            code_at, code_len = pos + 14, struct.unpack_from(">I", data, pos + 10)[0]
            pc = 0
            while pc < code_len:
                op = data[code_at + pc]
                n = OPERANDS[op]
                yield op, code_at + pc + 1
                if n == -1:  # switches: padding to 4, then default, then the table
                    p = (pc + 4) & ~3
                    if op == 0xaa:
                        low, high = struct.unpack_from(">ii", data, code_at + p + 4)
                        pc = p + 12 + 4 * (high - low + 1)
                    else:
                        pairs = struct.unpack_from(">i", data, code_at + p + 4)[0]
                        pc = p + 8 + 8 * pairs
                elif n == -2:
                    pc += 6 if data[code_at + pc + 1] == 0x84 else 4
                else:
                    pc += 1 + n
        pos += 6 + length


def special_calls(data, entries, start, end, code_name):
    """Whether the method_info at data[start:end] has an invokespecial other than <init>."""
    for op, at in instructions(data, start, end, code_name):
        if op == 0xb7 and member_name(data, entries,
                                      struct.unpack_from(">H", data, at)[0]) != b"<init>":
            return True
    return False


def twin_class(data: bytes, host: str):
    """(bytes of the twin class of `data`, twins moved, twins kept), or None without twins."""
    entries, _ = benchlib.class_pool(data)
    code_name = benchlib.pool_utf8_index(data, entries, b"Code")
    _, methods = benchlib.class_methods(data)
    twins = [m for m in methods if m[0].endswith(twin_share.TWIN_SUFFIXES)]
    movable = [m for m in twins if not special_calls(data, entries, m[1], m[2], code_name)]
    if not movable:
        return None, 0, len(twins)
    return twin_class_of(data, host, movable), len(movable), len(twins) - len(movable)


def twin_class_of(data: bytes, host: str, movable, nest_host=False) -> bytes:
    """The twin class holding the methods `movable` (benchlib.class_methods entries) of the
    class `data`, named HOST$DuplexTwins: the host's pool copied whole, then its own name and
    java/lang/Object, version max(host's, 55), the host's BootstrapMethods, and with
    `nest_host` a NestHost attribute naming the host (a static nest, lazy_prototype.py)."""
    entries, pool_end = benchlib.class_pool(data)
    _, methods = benchlib.class_methods(data)
    count = struct.unpack_from(">H", data, 8)[0]

    def utf8(text):
        raw = text.encode()
        return b"\x01" + struct.pack(">H", len(raw)) + raw

    added = (utf8(host + "$DuplexTwins") + b"\x07" + struct.pack(">H", count) +
             utf8("java/lang/Object") + b"\x07" + struct.pack(">H", count + 2) +
             utf8("NestHost"))
    version = max(struct.unpack_from(">H", data, 6)[0], 55)
    out = bytearray(data[:6] + struct.pack(">HH", version, count + 5) + data[10:pool_end])
    out += added
    out += struct.pack(">HHHHH", 0x1030, count + 1, count + 3, 0, 0)  # final super synthetic
    out += struct.pack(">H", len(movable)) + b"".join(data[m[1]:m[2]] for m in movable)
    # The host's BootstrapMethods, for twins that use invokedynamic.
    bootstrap = class_attribute(data, entries, methods, b"BootstrapMethods")
    attrs = [bootstrap] if bootstrap else []
    if nest_host:
        this_class = struct.unpack_from(">H", data, pool_end + 2)[0]
        attrs.append(struct.pack(">HIH", count + 4, 2, this_class))
    out += struct.pack(">H", len(attrs)) + b"".join(attrs)
    return bytes(out)


def class_attribute(data, entries, methods, wanted):
    """The whole attribute (header included) of the class named `wanted`, or None."""
    pos = methods[-1][2] if methods else None
    if pos is None:
        return None
    for _ in range(struct.unpack_from(">H", data, pos)[0]):
        name, length = struct.unpack_from(">HI", data, pos + 2)
        if benchlib.pool_utf8(data, entries, name) == wanted:
            return data[pos + 2:pos + 8 + length]
        pos += 6 + length
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("--mode", default="full")
    a = ap.parse_args()
    w = benchlib.get(a.program)
    extra = benchlib.prepare(w)
    jars, _ = whole_ab.rewrite(w, "twin-link", a.mode, [])
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "twins"
        out.mkdir()
        moved = kept = classes = 0
        for jar in jars:
            with zipfile.ZipFile(jar) as z:
                for info in z.infolist():
                    if not info.filename.endswith(".class") or "META-INF/" in info.filename:
                        continue
                    host = info.filename[:-len(".class")]
                    data, m, k = twin_class(z.read(info), host)
                    moved, kept = moved + m, kept + k
                    if data:
                        classes += 1
                        (out / (host.replace("/", ".") + ".twins")).write_bytes(data)
        driver = Path(tmp) / "driver"
        subprocess.run(["javac", "-d", str(driver), str(HERE / "runtime" / "hiddentwin" /
                                                         "TwinLink.java")], check=True)
        r = subprocess.run([benchlib.java_bin(), "-Xbootclasspath/a:" + str(benchlib.RUNTIME_JAR),
                            "-cp", benchlib.classpath(w, extra, jars) + ":" + str(driver),
                            "TwinLink", str(out)], capture_output=True, text=True)
        lines = r.stdout.splitlines()
        for line in lines[:-1][:40]:
            print("  " + line)
        print("%s, %s: %d twin classes built (%d twins moved, %d kept: an invokespecial other "
              "than a constructor call); %s" % (w.name, a.mode, classes, moved, kept,
                                                lines[-1] if lines else r.stderr[-500:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
