#!/usr/bin/env python3
"""meson test 'bench-inline-sizes': inline_sizes.py lists the methods a rewrite takes past
an inlining size, by class, name and descriptor (no program runs).

Two hand-made jars hold class A with m()V, m(I)V, n()V and <clinit>: m()V grows from 30 to 40
bytes (past 35), m(I)V, of the same name, stays at 30, n()V grows from 300 to 320 (past
neither size), and <clinit> grows past 35 but is never listed. A truncated class is skipped
with a line on stderr, not read wrongly; a missing jar, a file that is not a zip and sizes that
are not positive numbers each get one clear line and a non-zero status."""
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "inline_sizes.py"


def utf8(text):
    data = text.encode()
    return b"\x01" + struct.pack(">H", len(data)) + data


# Pool: 1 Code, 2 ()V, 3 (I)V, 4 m, 5 n, 6 <clinit>, 7 A, 8 Class A.
POOL = [utf8("Code"), utf8("()V"), utf8("(I)V"), utf8("m"), utf8("n"), utf8("<clinit>"),
        utf8("A"), b"\x07" + struct.pack(">H", 7)]


def method(name_index, desc_index, code_length):
    code = b"\x00" * (code_length - 1) + b"\xb1"  # nops, return
    body = struct.pack(">HHI", 1, 1, len(code)) + code + struct.pack(">HH", 0, 0)
    return struct.pack(">HHHH", 0x0008, name_index, desc_index, 1) + \
        struct.pack(">HI", 1, len(body)) + body


def class_file(m_void, m_int, n, clinit):
    head = b"\xca\xfe\xba\xbe" + struct.pack(">HHH", 0, 52, len(POOL) + 1) + b"".join(POOL)
    head += struct.pack(">HHHH", 0x21, 8, 0, 0)  # flags, this A, no super, no interfaces
    methods = [method(4, 2, m_void), method(4, 3, m_int), method(5, 2, n), method(6, 2, clinit)]
    return head + struct.pack(">HH", 0, len(methods)) + b"".join(methods) + struct.pack(">H", 0)


def jar(path, classes):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in classes.items():
            z.writestr(name, data)
    return path


def run(*args, status=0):
    r = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                       text=True)
    assert r.returncode == status, (r.returncode, r.stderr)
    return r.stdout.splitlines(), r.stderr


def main():
    with tempfile.TemporaryDirectory() as tmp:
        before = jar(Path(tmp) / "before.jar", {"A.class": class_file(30, 30, 300, 10)})
        broken = class_file(40, 30, 320, 100)
        after = jar(Path(tmp) / "after.jar", {"A.class": broken, "B.class": broken[:40]})
        lines, err = run(before, after)
        assert lines == ["inline,A.m()V  # 30 -> 40"], lines
        assert "skipped (malformed): B.class" in err, err
        lines, _ = run(before, after, "--sizes", "310")
        assert lines == ["inline,A.n()V  # 300 -> 320"], lines
        lines, _ = run(before, after, "--all")
        assert lines == ["inline,A.m()V  # 30 -> 40", "inline,A.m(I)V  # 30 -> 30",
                         "inline,A.n()V  # 300 -> 320"], lines
        # Bad input: one clear line and a non-zero status, no traceback.
        lines, err = run(Path(tmp) / "missing.jar", after, status=1)
        assert err.startswith("inline_sizes.py: cannot read the jar:") and "missing.jar" in err
        assert "Traceback" not in err and lines == [], err
        not_zip = Path(tmp) / "A.class"
        not_zip.write_bytes(broken)
        _, err = run(before, not_zip, status=1)
        assert "not a zip file" in err and "Traceback" not in err, err
        _, err = run(before, after, "--sizes", "a", status=2)
        assert "expected byte counts" in err and "Traceback" not in err, err
        _, err = run(before, after, "--sizes", "35,0", status=2)
        assert "expected byte counts" in err and "Traceback" not in err, err
    print("ok")


if __name__ == "__main__":
    main()
