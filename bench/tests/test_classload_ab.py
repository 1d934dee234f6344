#!/usr/bin/env python3
"""meson test 'bench-classload-ab': classload_ab.py reads HotSpot's class-loading counters from a
saved hsperfdata file and counts fail-overs to the old verifier in a verification log (one
small JVM, no program of bench/)."""
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import classload_ab  # noqa: E402


def main():
    with tempfile.TemporaryDirectory() as d:
        perf, log = Path(d) / "hs.data", Path(d) / "verification.log"
        subprocess.run(["java", "-XX:+PerfDataSaveToFile", "-XX:PerfDataSaveFile=%s" % perf,
                        "-version"], check=True, capture_output=True)
        c = classload_ab.read_counters(perf)
        assert set(c) == {"loading", "verify", "define", "link"}, c
        assert c["loading"] > 0 and all(v >= 0 for v in c.values()), c
        assert c["loading"] < 60000, c  # milliseconds, not nanoseconds
        log.write_text("[0.1s][info][verification] Verifying class A with new format\n"
                       "[0.1s][info][verification] Fail over class verification to old "
                       "verifier for: A\n")
        assert classload_ab.old_verifier_count(log) == 1
        assert classload_ab.old_verifier_count(Path(d) / "missing.log") == 0
        try:
            classload_ab.read_counters(Path(d) / "missing.data")
        except SystemExit as e:
            assert "missing.data" in str(e), e
        else:
            raise AssertionError("a missing file was read")
    print("classload_ab: ok")


if __name__ == "__main__":
    main()
