#!/usr/bin/env python3
"""meson test 'bench-twin-share': twin_share.py's class-file reading and twin removal, and
whole_ab.py's refusal of post-processing it does not know (no program runs).

A hand-made class with a field, a method and its twin: the twins' bytecode and method_info
bytes are counted, without_twins() drops the twin and nothing else (the rest of the bytes
unchanged, methods_count one less), a class without twins comes back as it was, and a
truncated class raises instead of returning a wrong answer."""
import struct
import sys
from pathlib import Path
from types import SimpleNamespace

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import twin_share  # noqa: E402
import whole_ab  # noqa: E402


def utf8(text):
    data = text.encode()
    return b"\x01" + struct.pack(">H", len(data)) + data


def method(name_index, code, extra_attribute=b""):
    """method_info: flags, name, descriptor #3, one Code attribute (#1) with `code`."""
    body = struct.pack(">HHI", 1, 1, len(code)) + code + struct.pack(">HH", 0, 0)
    attrs = struct.pack(">HI", 1, len(body)) + body
    count = 1
    if extra_attribute:
        attrs += struct.pack(">HI", 2, len(extra_attribute)) + extra_attribute
        count += 1
    return struct.pack(">HHHH", 0x0009, name_index, 3, count) + attrs


def class_file(methods):
    # Pool: 1 Code, 2 Other, 3 ()V, 4 m, 5 m$duplex, 6 A, 7 Class A, 8 x, 9 I.
    pool = [utf8("Code"), utf8("Other"), utf8("()V"), utf8("m"), utf8("m$duplex"), utf8("A"),
            b"\x07" + struct.pack(">H", 6), utf8("x"), utf8("I")]
    head = b"\xca\xfe\xba\xbe" + struct.pack(">HHH", 0, 52, len(pool) + 1) + b"".join(pool)
    head += struct.pack(">HHHH", 0x21, 7, 0, 0)  # flags, this, super (none), no interfaces
    fields = struct.pack(">H", 1) + struct.pack(">HHHH", 2, 8, 9, 0)
    tail = struct.pack(">H", 0)  # no class attributes
    return head + fields + struct.pack(">H", len(methods)) + b"".join(methods) + tail


def main():
    plain = method(4, b"\xb1")  # m: return
    twin = method(5, b"\x03\x57\xb1", extra_attribute=b"\x00\x01\x02")  # m$duplex, 3 bytes
    with_twin = class_file([plain, twin])
    twin_code, all_code, twin_bytes = twin_share.split_class(with_twin)
    assert (twin_code, all_code, twin_bytes) == (3, 4, len(twin)), (twin_code, all_code,
                                                                    twin_bytes)
    stripped = twin_share.without_twins(with_twin)
    assert stripped == class_file([plain]), "only the twin goes, the rest is byte for byte"
    assert twin_share.split_class(stripped) == (0, 1, 0)
    alone = class_file([plain])
    assert twin_share.without_twins(alone) is alone, "a class without twins is returned as is"
    try:
        twin_share.split_class(with_twin[:-9])
    except (IndexError, struct.error):
        pass
    else:
        raise AssertionError("a truncated class must raise")

    fake = SimpleNamespace(name="fake", app_jars=[])
    for mode, options, why in [("full", ["+no-twins"], "with checks"),
                               ("checks", ["+other"], "+other")]:
        try:
            whole_ab.rewrite(fake, "test", mode, options)
        except SystemExit as e:
            assert why in str(e), "refused for %r, wanted %r" % (str(e), why)
        else:
            raise AssertionError("not refused: %s %s" % (mode, options))
    print("ok: twins counted and removed byte for byte; bad post-processing refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
