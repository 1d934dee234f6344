#!/usr/bin/env python3
"""meson test 'bench-noise': noise.py reads steady_ab.py --raw files (no program runs).

A hand-made batch of three rounds: round 1 (the common window's settling round) is left out;
in rounds 2 and 3, base's measured iterations are 1.0 and 2.0 s (min 1.0, mean 1.5), a's
1.2 and 2.2 (+20% by min), b's 1.1 and 2.3 (+10% by min). Unmeasured iterations and runs whose
output differed count for nothing. A missing file, a file that is not JSON lines from
steady_ab.py and a --pair without two names each get one clear line and a non-zero status."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "noise.py"


def run_line(rnd, variant, cpu, measured, same_output=True):
    return json.dumps({"round": rnd, "variant": variant, "ok": True, "same_output": same_output,
                       "cpu": cpu, "jit": [0.0] * len(cpu), "measured": measured})


def batch():
    lines = [run_line(1, name, [9.0, 9.0], [True, True]) for name in ("base", "a", "b")]
    for rnd in (2, 3):
        # The first iteration of each run is not measured (a settling iteration): its 50 s
        # must not count.
        lines.append(run_line(rnd, "base", [50.0, 1.0, 2.0], [False, True, True]))
        lines.append(run_line(rnd, "a", [50.0, 1.2, 2.2], [False, True, True]))
        lines.append(run_line(rnd, "b", [50.0, 1.1, 2.3], [False, True, True]))
    lines.append(run_line(3, "c", [0.1, 0.1], [True, True], same_output=False))
    return "\n".join(lines) + "\n"


def run(*args, status=0):
    r = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                       text=True)
    assert r.returncode == status, (r.returncode, r.stderr)
    return r.stdout, r.stderr


def row(out, statistic, variant):
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[0] == statistic and cells[1] == variant:
            return cells
    raise AssertionError("no row %s %s in:\n%s" % (statistic, variant, out))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "batch.jsonl"
        raw.write_text(batch())
        out, _ = run(raw)
        assert "(2 rounds)" in out, out
        a, b = row(out, "min", "a"), row(out, "min", "b")
        assert a[2] == "+20.0 +20.0" and a[3] == "+20.0%", a
        assert b[2] == "+10.0 +10.0", b
        assert a[4] == "+10.0 +10.0" and a[5] == "10.0 / 10.0", a  # the A/A difference, a - b
        mean_a = row(out, "mean", "a")
        assert mean_a[2] == "+13.3 +13.3", mean_a  # 1.7 / 1.5
        assert "| c |" not in out, out  # its output differed
        # Another pair: b against a.
        out, _ = run(raw, "--pair", "b,a")
        assert row(out, "min", "b")[4] == "-10.0 -10.0", out
        _, err = run(Path(tmp) / "missing.jsonl", status=1)
        assert "no such file" in err, err
        bad = Path(tmp) / "bad.jsonl"
        bad.write_text("not json\n")
        _, err = run(bad, status=1)
        assert "not a steady_ab.py --raw file" in err, err
        _, err = run(raw, "--pair", "a", status=1)
        assert "two names" in err, err
    print("bench-noise: ok")


if __name__ == "__main__":
    main()
