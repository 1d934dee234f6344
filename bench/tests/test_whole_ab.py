#!/usr/bin/env python3
"""meson test 'bench-whole-ab': whole_ab.py's settings and accuracy (no program runs).

A setting names an interval and runtime settings, and may name a rewrite of its own; a malformed one is refused with its text. The
accuracy column is the overlap of two profiles, read from their XML."""
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import whole_ab  # noqa: E402

PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<duplex-profile version="1">
  <run interval="1000" burst="1" samples="%d"/>
  <call-edges distinct="2" total="%d">
    <edge caller-class="A" caller-method="m" caller-descriptor="()V" offset="1" callee="B.f()V" count="%d"/>
    <edge caller-class="A" caller-method="m" caller-descriptor="()V" offset="5" callee="B.g()V" count="%d"/>
  </call-edges>
  <field-accesses distinct="1" reads="%d" writes="0">
    <field key="A.x:I" owner="A" name="x" descriptor="I" reads="%d" writes="0"/>
  </field-accesses>
</duplex-profile>
"""


def refused(text):
    try:
        whole_ab.parse_setting(text)
    except SystemExit as e:
        assert text in str(e), "message %r does not name %r" % (str(e), text)
        return
    raise AssertionError("accepted: " + text)


def main():
    s = whole_ab.parse_setting("b4=1000,burst=4,jitter=0")
    assert s == {"name": "b4", "interval": 1000, "settings": {"burst": "4", "jitter": "0"},
                 "mode": None, "options": [], "duplex": None}, s
    assert whole_ab.parse_setting("i1=1") == {"name": "i1", "interval": 1, "settings": {},
                                              "mode": None, "options": [], "duplex": None}
    # A rewrite of its own: MODE[,OPTION...]@ before the interval.
    s = whole_ab.parse_setting("mc=full,--method-counters,--flag-check-bytes=0@1000,burst=2")
    assert s == {"name": "mc", "interval": 1000, "settings": {"burst": "2"}, "mode": "full",
                 "options": ["--method-counters", "--flag-check-bytes=0"], "duplex": None}, s
    assert whole_ab.parse_setting("chk=checks@0")["mode"] == "checks"
    # Another duplex binary: NAME!DUPLEX, its rewrites cached apart from this checkout's.
    s = whole_ab.parse_setting("old!/tmp/duplex-old=auto@1000")
    assert (s["name"], s["duplex"], s["mode"]) == ("old", "/tmp/duplex-old", "auto"), s
    assert whole_ab.rewrite_dir(("auto", (), "/tmp/duplex-old")) == "auto_by-duplex-old"
    assert whole_ab.rewrite_dir(("full", ("--method-counters",), None)) == "full_method-counters"
    assert whole_ab.rewrite_name("full", []) == "full"
    assert whole_ab.rewrite_name("full", ["--method-counters", "--flag-check-bytes=0"]) == \
        "full_method-counters_flag-check-bytes-0"
    for bad in ("b4", "=1000", "b4=x", "b4=1000,burst", "b4=-5", "mc=@1000", "mc=full@x"):
        refused(bad)
    with tempfile.TemporaryDirectory() as d:
        a, b = Path(d) / "a.xml", Path(d) / "b.xml"
        a.write_text(PROFILE % (10, 100, 75, 25, 4, 4))  # shares 3/4, 1/4
        b.write_text(PROFILE % (10, 100, 50, 50, 9, 9))  # shares 1/2, 1/2
        # min(3/4, 1/2) + min(1/4, 1/2) = 75%; one field on both sides: 100%.
        got = whole_ab.accuracy(a, b)
        assert got == "75.0 / 100.0", got
    # --jit reads -XX:+CITime's total from stderr (lines as HotSpot 17 prints them).
    citime = ("Accumulated compiler times\n----------------------------------------------\n"
              "  Total compilation time   :   0.491 s\n    Standard compilation   :   0.441 s,"
              " Average : 0.000 s\n")
    assert whole_ab.benchlib.compilation_seconds("warning: x\n" + citime) == 0.491
    assert whole_ab.benchlib.compilation_seconds("no report") is None
    c2 = ("  C2 {speed: 54553.370 bytes/s; standard:  0.211 s, 11600 bytes, 87 methods; osr:  "
          "0.002 s, 33 bytes, 1 methods; nmethods_size: 90896 bytes}\n")
    assert abs(whole_ab.benchlib.compiler_seconds(citime + c2, "C2") - 0.213) < 1e-9
    assert whole_ab.benchlib.compiler_seconds(citime, "C1") == 0.0
    sizes = "  nmethod code size         :   593136 bytes\n  nmethod total size        :  1163824 bytes\n"
    assert whole_ab.benchlib.compiled_code_bytes(citime + c2 + sizes) == 593136
    assert whole_ab.benchlib.compiled_code_bytes(citime) is None
    print("whole_ab: ok")


if __name__ == "__main__":
    main()
