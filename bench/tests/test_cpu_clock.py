#!/usr/bin/env python3
"""meson test 'bench-cpu-clock': Repeat's nanosecond CPU clock builds into a fresh cache.

On a new machine the cache has no `repeat/` directory yet; the harness built the library there
before anything had made it, failed, and measured the first steady-state run in 10 ms ticks
(found 2026-12-01). The library must build into an empty cache, and a second call must reuse
it."""
import os
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main():
    with tempfile.TemporaryDirectory() as d:
        os.environ["DUPLEX_BENCH_CACHE"] = d
        import benchlib  # noqa: E402  (reads the environment at call time)
        first = benchlib.repeat_cpu_clock()
        assert first is not None, "the CPU clock did not build into an empty cache"
        assert first.is_file() and first.parent == Path(d) / "repeat", first
        mtime = first.stat().st_mtime_ns
        again = benchlib.repeat_cpu_clock()
        assert again == first and again.stat().st_mtime_ns == mtime, "built twice"
        leftovers = [p.name for p in first.parent.iterdir() if p.name.endswith(".tmp")]
        assert not leftovers, leftovers
    print("ok")


if __name__ == "__main__":
    main()
