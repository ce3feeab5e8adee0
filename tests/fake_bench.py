#!/usr/bin/env python3
"""fake_bench.py - Google Benchmark JSON made up for tests/harness.sh:
cases of one repetition each with the CPU time given, in a run file as
domlab-bench writes one, so that the reports can be checked on numbers
worked out by hand.  Run as a program, it stands in for a recorded
domlab-bench command (harness/reports/rounds.py runs those):

    fake_bench.py US --benchmark_filter='^(a/b|c/d)$' --benchmark_out=PATH

writes each case the filter names, taking US microseconds, to PATH, and

    fake_bench.py US CASE... --benchmark_list_tests=true

lists the CASEs, as the command of a variant whose run is yet to come.

Not for: anything measured.  Standard library only.
"""
import gzip
import json
import re
import sys

CONTEXT = {"date": "2026-01-01T00:00:00+00:00", "num_cpus": 2,
           "mhz_per_cpu": 1000, "load_avg": [0.1, 0.1, 0.1]}


def case(name, us):
    """One repetition of case name taking us microseconds."""
    return {"name": name, "run_name": name, "run_type": "iteration",
            "repetitions": 1, "repetition_index": 0, "threads": 1,
            "iterations": 10, "real_time": us, "cpu_time": us,
            "time_unit": "us", "bytes_per_second": 2e9 / us}


def write(path, cases):
    """A run file of cases at path, gzipped when path ends in .gz."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt") as f:
        json.dump({"context": CONTEXT, "benchmarks": cases}, f)


def main(argv):
    us = float(argv[0])
    opts = dict(a[2:].split("=", 1) for a in argv[1:] if "=" in a)
    if opts.get("benchmark_list_tests") == "true":
        print("\n".join(a for a in argv[1:] if not a.startswith("--")))
        return 0
    names = re.sub(r"\\(.)", r"\1",
                   opts["benchmark_filter"][2:-2]).split("|")
    write(opts["benchmark_out"], [case(n, us) for n in names])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
