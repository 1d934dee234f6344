#!/usr/bin/env python3
"""meson test 'bench-replace-programs': run_bench's --replace-programs and --steady-from merges
(report side only).

A program measured again in another run of the same options replaces the main run's, the
header records it, and runs that differ in their options or did not finish are refused. A run
without a steady phase takes each program's from the last earlier run that has it, the header
records which, and a main run with a steady phase of its own, or a program no run has, is
refused."""
import copy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import run_bench  # noqa: E402

CONFIG = {"reps": 5, "size": "small", "intervals": [1, 1000], "slow_ratio": 4.0,
          "instrument_args": "", "steady_iterations": 120, "steady_measure": 10,
          "steady_rounds": 3, "programs": ["h2", "rhino"]}


def run_of(programs, **meta):
    return {"config": dict(CONFIG), "meta": dict(meta), "programs": programs}


def refused(raw, other, why):
    try:
        run_bench.replace_programs(copy.deepcopy(raw), other)
    except SystemExit as e:
        assert why in str(e), "refused for %r, wanted %r" % (str(e), why)
        return
    raise AssertionError("not refused: " + why)


def main():
    main_run = run_of({"h2": {"complete": True, "runs": ["h2 first"]},
                       "rhino": {"complete": True, "runs": ["rhino failed"]}}, date="first")
    again = run_of({"rhino": {"complete": True, "runs": ["rhino again"]}}, date="later",
                   git="abc1234", command="bench/run_bench.py --programs rhino", seconds=1500)
    merged = copy.deepcopy(main_run)
    run_bench.replace_programs(merged, again)
    assert merged["programs"]["rhino"]["runs"] == ["rhino again"], merged["programs"]["rhino"]
    assert merged["programs"]["h2"]["runs"] == ["h2 first"], "h2 must stay"
    assert merged["meta"]["date"] == "first", "the main run's header stays"
    assert merged["meta"]["replaced"] == [{"program": "rhino", "date": "later", "git": "abc1234",
                                           "command": "bench/run_bench.py --programs rhino",
                                           "minutes": 25}], merged["meta"]["replaced"]

    other_reps = copy.deepcopy(again)
    other_reps["config"]["reps"] = 1
    refused(main_run, other_reps, "differ in reps")
    unfinished = copy.deepcopy(again)
    unfinished["programs"]["rhino"]["complete"] = False
    refused(main_run, unfinished, "not measured to the end")
    stranger = run_of({"ecj": {"complete": True}})
    refused(main_run, stranger, "not in the main run")
    steady_from()
    print("ok: replace_programs merges one program and refuses 3 bad inputs; "
          "steady_from takes each program's steady phase and refuses 2 bad inputs")
    return 0


def steady_from():
    whole = run_of({"h2": {"complete": True, "runs": ["h2 whole"]},
                    "rhino": {"complete": True, "runs": ["rhino whole"]}}, date="new")
    whole["config"]["steady_iterations"] = 0
    old = run_of({"h2": {"steady": "h2 old"}, "rhino": {"steady": "rhino old"}},
                 date="old", git="111", command="full")
    again = run_of({"rhino": {"steady": "rhino again"}}, date="again", git="222",
                   command="rhino only")
    merged = copy.deepcopy(whole)
    run_bench.steady_from(merged, [old, again])
    assert merged["programs"]["h2"]["steady"] == "h2 old"
    assert merged["programs"]["rhino"]["steady"] == "rhino again", "the last run that has it"
    assert merged["programs"]["h2"]["runs"] == ["h2 whole"], "whole runs stay"
    assert merged["config"]["steady_iterations"] == 120, merged["config"]
    assert merged["meta"]["steady_from"] == [
        {"programs": ["h2"], "date": "old", "git": "111", "command": "full"},
        {"programs": ["rhino"], "date": "again", "git": "222", "command": "rhino only"}], \
        merged["meta"]["steady_from"]
    for raw, others, why in [(run_of({}), [old], "steady phase of its own"),
                             (whole, [again], "no steady phase of h2")]:
        try:
            run_bench.steady_from(copy.deepcopy(raw), others)
        except SystemExit as e:
            assert why in str(e), "refused for %r, wanted %r" % (str(e), why)
        else:
            raise AssertionError("not refused: " + why)


if __name__ == "__main__":
    sys.exit(main())
