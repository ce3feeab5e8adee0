#!/usr/bin/env python3
"""ab.py - the report of `make ab` (harness/reports/ab.sh): for each case,
the base's time (old) over the working tree's (new), round by round.
A round is one process of each binary, one right after the other; its
ratio is the ratio of the two processes' medians, so that what the
machine does minutes apart does not enter it.  Over the rounds: the
median ratio, where one more round lands 99 times in 100, and whether
the rounds' mean differs from 1 at 95% (harness/reports/spread.py,
Rounds).  The control case, which the change does not touch, must show
no difference: where it does, the machine drifted between the two
binaries' processes, and the report says the verdicts cannot be
trusted.  The two-thread cases (named .../process_time/real_time), timed
by the wall clock, get the same table of their CPU time, both threads'
together: what a change to them costs or saves in CPU, which their wall
time does not show.  With icount.tsv, callgrind's instructions per
iteration of each side.

Not for: running anything (ab.sh does).  Standard library only.

    /usr/bin/python3 harness/reports/ab.py --dir results/ab-TIME
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import us, us_real  # noqa: E402
from spread import over_rounds  # noqa: E402


def read_info(d):
    """rounds.txt: {key: value} for its header lines, and the rounds'
    lines as they are."""
    info, rounds = {}, []
    with open(os.path.join(d, "rounds.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("round "):
                rounds.append(line)
            else:
                k, _, v = line.partition(" ")
                info[k] = v
    return info, rounds


# The tail Google Benchmark puts on a case timed by the wall clock with
# the process's CPU time beside it: a two-thread case.
TWO_THREADS = "/process_time/real_time"


def medians(benchmarks, cpu=False):
    """{case: median real time in us} over one process's repetitions
    (its run file's benchmarks); cpu: the two-thread cases' CPU time
    instead, and only theirs."""
    times = {}
    for b in benchmarks:
        name = b.get("run_name", b["name"])
        if b.get("run_type") != "iteration" or (
                cpu and not name.endswith(TWO_THREADS)):
            continue
        times.setdefault(name, []).append(us(b) if cpu else us_real(b))
    return {k: statistics.median(v) for k, v in times.items()}


def read_rounds(d):
    """{side: [round's benchmarks, in round order]}: old and new alike,
    each round with both sides, or SystemExit."""
    sides = {}
    for side in ("old", "new"):
        files = glob.glob(os.path.join(d, "runs", f"{side}.*.json"))
        order = sorted(files, key=lambda p: int(re.findall(r"\.(\d+)\.json$",
                                                          p)[0]))
        sides[side] = []
        for path in order:
            with open(path, encoding="utf-8") as f:
                sides[side].append(json.load(f).get("benchmarks", []))
    if not sides["old"] or len(sides["old"]) != len(sides["new"]):
        sys.exit(f"ab.py: {d}/runs: {len(sides['old'])} old and "
                 f"{len(sides['new'])} new processes; each round has one "
                 "of each")
    return sides


def side_medians(sides, cpu=False):
    """read_rounds' sides with each process's medians (medians)."""
    return {side: [medians(b, cpu) for b in runs]
            for side, runs in sides.items()}


def case_rows(sides, control):
    """[(case, old us, new us, Rounds or None)] in case order, the
    control's (a regex) last; SystemExit where a case is missing from a
    process."""
    rows = []
    for c in sorted(sides["new"][0],
                    key=lambda c: (bool(re.search(control, c)), c)):
        olds, news = [], []
        for o, n in zip(sides["old"], sides["new"]):
            if c not in o or c not in n:
                sys.exit(f"ab.py: {c} is missing from a round's process")
            olds.append(o[c])
            news.append(n[c])
        r = over_rounds([a / b for a, b in zip(olds, news)])
        rows.append((c, statistics.median(olds), statistics.median(news), r))
    return rows


VERDICT = {"old slower": "new faster", "old faster": "new slower"}


def time_table(rows, control):
    out = ["| case | old us | new us | old / new | one more round (99%) "
           "| mean (95%) | verdict |", "|---|---|---|---|---|---|---|"]
    for c, old, new, r in rows:
        label = f"`{c}`" + (" (control)" if re.search(control, c) else "")
        if r is None:
            out.append(f"| {label} | {old:,.1f} | {new:,.1f} | "
                       f"{old / new:.3f} | - | - | too few rounds |")
            continue
        out.append(f"| {label} | {old:,.1f} | {new:,.1f} | {r.ratio:.3f} | "
                   f"{r.low:.3f}-{r.high:.3f} | "
                   f"{r.mean_low:.3f}-{r.mean_high:.3f} | "
                   f"{VERDICT.get(r.verdict(), r.verdict())} |")
    return out


def icount_table(d):
    """Instructions per iteration of each side, from icount.tsv."""
    path = os.path.join(d, "icount.tsv")
    counts = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                case, side, ir = line.rstrip("\n").split("\t")
                counts.setdefault(case, {})[side] = int(ir)
    if not counts:
        return []
    out = ["## Instructions", "",
           "callgrind inside `icount_loop`, per iteration (3 iterations "
           "after a warm-up call): repeatable where time is not, and "
           "blind to what memory costs.", "",
           "| case | old Ir | new Ir | new / old |", "|---|---|---|---|"]
    for case in sorted(counts):
        o, n = counts[case].get("old"), counts[case].get("new")
        if o is None or n is None:
            sys.exit(f"ab.py: icount.tsv lacks a side of {case}")
        out.append(f"| `{case}` | {o:,} | {n:,} | "
                   f"{n / o:.4f} ({100.0 * (n - o) / o:+.2f}%) |")
    return out + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    info, rounds = read_info(a.dir)
    control = info.get("control", "^floor:sha256/")
    sides = read_rounds(a.dir)
    rows = case_rows(side_medians(sides), control)
    moved = [c for c, _, _, r in rows
             if re.search(control, c) and r is not None and r.measured()]
    new = info.get("head", "?")[:12] + (
        " and its uncommitted changes" if info.get("uncommitted") == "yes"
        else "")
    out = [f"# {info.get('variant', '?')}: {info.get('base', '?')[:12]} "
           f"(old) against {new} (new)", ""]
    if moved:
        out += [f"**The control moved** ({', '.join(moved)}): the machine "
                "drifted between the two binaries' processes, so no "
                "verdict below can be trusted. Run again on a quieter "
                "machine, or with more rounds.", ""]
    out += [f"{len(rounds)} rounds; in each, one process of each binary, "
            "the older first in odd rounds; each process ran every case "
            f"{info.get('repetitions', '?')} times, interleaved at random "
            f"(filter `{info.get('filter', '?')}`). old / new is the base's "
            "time over the working tree's: above 1, the change is faster. "
            "Times are medians over the rounds of each process's median; "
            "the ratio is the median of the rounds' ratios. The control is "
            "a case the change does not touch. CPU: "
            f"{info.get('cpu', '?')}.", ""]
    if "command" in info:
        out += ["Made by:", "", "```", info["command"], "```", ""]
    out += time_table(rows, control) + [""]
    cpu_rows = case_rows(side_medians(sides, cpu=True), control)
    if cpu_rows:
        out += ["## CPU time of the two-thread cases", "",
                "The same, of each process's CPU time, both threads "
                "together (Google Benchmark's cpu_time of a case timed by "
                "the wall clock).", ""]
        out += time_table(cpu_rows, control) + [""]
    out += icount_table(a.dir)
    out += ["## Rounds", "", "```"] + rounds + ["```"]
    print("\n".join(out))


if __name__ == "__main__":
    main()
