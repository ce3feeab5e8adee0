#!/usr/bin/env python3
"""summary.py - turns one bench run's Google Benchmark JSON files into
results/<run>/summary.md: per stage, a table of variant x dataset.

Not for: running anything (harness/bench.sh does) or judging results.
Standard library only.

    python3 harness/summary.py --dir results/RUN --commit C --flags F \
        --elapsed S VARIANT... [ref]
"""
import argparse
import json
import os
import platform
import subprocess
import sys


def load(path):
    """{case name: entry}, the median aggregate when there are repetitions."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    rows = {}
    for b in doc["benchmarks"]:
        if b.get("error_occurred"):
            continue
        if b["run_type"] == "aggregate":
            if b["aggregate_name"] == "median":
                rows[b["run_name"]] = dict(b, cv=None)
        elif b["run_name"] not in rows:
            rows[b["run_name"]] = dict(b, cv=None)
    for b in doc["benchmarks"]:
        if b.get("aggregate_name") == "cv" and b["run_name"] in rows:
            rows[b["run_name"]]["cv"] = b["cpu_time"]
    return doc["context"], rows


def us(b):
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
    return b["cpu_time"] * scale


def num(x):
    """About three significant digits."""
    if x is None:
        return "-"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def count(x):
    return "-" if x is None else f"{x:,.0f}"


def gcc_version():
    try:
        out = subprocess.run(["gcc", "--version"], capture_output=True,
                             text=True, check=True).stdout
        return out.splitlines()[0]
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--flags", required=True)
    ap.add_argument("--elapsed", required=True)
    ap.add_argument("variants", nargs="+")
    a = ap.parse_args()

    stages, datasets = [], []
    table = {}  # (stage, dataset, variant) -> entry
    context = None
    for v in a.variants:
        ctx, rows = load(os.path.join(a.dir, v + ".json"))
        context = context or ctx
        for name, b in rows.items():
            label = v
            if name.startswith("ref:"):
                name, label = name[len("ref:"):], "ref"
            elif v == "ref":
                continue
            stage, dataset = name.split("/", 1)
            if stage not in stages:
                stages.append(stage)
            if dataset not in datasets:
                datasets.append(dataset)
            table[stage, dataset, label] = b

    run = os.path.basename(os.path.normpath(a.dir))
    print(f"# bench run {run}\n")
    print(f"- date: {context['date']}")
    print(f"- machine: {len(os.sched_getaffinity(0))} CPUs "
          f"({context['num_cpus']} at {context['mhz_per_cpu']} MHz), "
          f"kernel {platform.release()}, {gcc_version()}, "
          f"libxml2 {context.get('libxml2', '?')}, "
          "load average at start "
          + " ".join(f"{x:.2f}" for x in context.get("load_avg", [])))
    print(f"- commit: {a.commit}; data seed {context.get('data_seed', '?')}")
    print(f"- flags: `{a.flags}`; malloc: {context.get('malloc', '?')}")
    print(f"- wall time of the whole run (builds included): {a.elapsed} s")
    print("\nTimes are CPU time per iteration, medians of the repetitions "
          "(cv: their coefficient of variation); allocs, bytes and peak are "
          "per iteration, from dom/alloc.h. See results/README.md.\n")

    labels = a.variants
    for stage in stages:
        has_ref = any((stage, d, "ref") in table for d in datasets)
        print(f"## {stage}\n")
        head = ["dataset", "variant", "time us", "cv %", "MB/s",
                "allocs", "bytes", "peak", "B/elem", "cold us"]
        if has_ref:
            head.append("x ref")
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for d in datasets:
            ref = table.get((stage, d, "ref"))
            for v in labels:
                b = table.get((stage, d, v))
                if b is None:
                    continue
                cv = None if b["cv"] is None else 100 * b["cv"]
                cells = [d, v, num(us(b)), num(cv),
                         num(b.get("bytes_per_second", 0) / 1e6),
                         count(b.get("allocs")), count(b.get("alloc_bytes")),
                         count(b.get("peak_bytes")),
                         num(b.get("bytes_per_element")),
                         num(b.get("cold_ns", 0) / 1e3)]
                if has_ref:
                    cells.append(num(us(b) / us(ref)) if ref else "-")
                print("| " + " | ".join(cells) + " |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
