#!/usr/bin/env python3
"""recheck.py - a committed run's ratios measured again, each set
against the interval the run gives it; what `make recheck` runs, a
skeptic's check that the numbers the README and FINDINGS.md quote come
back.

- The side-by-side ratios (ref / best, best / floor): the run's paired
  command (commands.tsv's `paired` line, best built from this checkout)
  once more, against the intervals of summary.json.
- The findings' and the ablation chart's ratios, where the run has
  rounds (harness/reports/rounds.py): one more round of each pair,
  against the interval its rounds give (spread.Rounds).

Exit status: 0 when every ratio lands inside its interval, 1 when one
does not, 2 when the run cannot be checked (no side-by-side rows, no
intervals, a command failed).

Not for: measuring anything else (harness/reports/compare.sh), or
deciding what the intervals are (harness/reports/run.py, spread.py).
Standard library only.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

import rounds
from run import Run, num, us

RATIOS = (("ref / best", "ref", "best", "ref_best_interval"),
          ("best / floor", "best", "floor", "best_floor_interval"))


def run_paired(cmd, folder):
    """Runs the paired command line cmd with its output in
    folder/paired.json; an error message, or None."""
    print(f"recheck: {cmd}", file=sys.stderr)
    return rounds.execute(cmd, os.path.join(folder, "paired.json"))


def run_round(run, folder):
    """One more round of every pair run has rounds of, into
    folder/alternate/; an error message, or None."""
    pairs = {p: list(rs[0][0]) for p, rs in run.rounds.items()}
    return rounds.one_round(run, pairs, 1, folder)


def check(rows, again):
    """[(case, what, committed, measured, interval, inside)] for every
    ratio of rows (summary.json's pipeline rows) that has an interval;
    again: the Run measured anew."""
    out = []
    for r in rows:
        if not r.get("paired"):
            continue
        new = again.paired_row(r["stage"], r["dataset"])
        for what, top, bottom, key in RATIOS:
            iv = r.get(key)
            if not iv or not r.get(top) or not r.get(bottom):
                continue
            x = None
            if new and new.get(top) and new.get(bottom):
                x = new[top] / new[bottom]
            out.append((f"{r['stage']}/{r['dataset']}", what,
                        r[top] / r[bottom], x, iv,
                        x is not None and iv[0] <= x <= iv[1]))
    return out


def check_rounds(run, again):
    """The same as check() for every pair and case that run's rounds give
    an interval; again: the Run holding one more round."""
    out = []
    for (old, new), case, sp in run.round_spreads():
        got = again.round_pairs(old, new, case)
        x = us(got[0][0]) / us(got[0][1]) if got and us(got[0][1]) \
            else None
        out.append((case, f"{old} / {new}", sp.ratio, x, (sp.low, sp.high),
                    x is not None and sp.low <= x <= sp.high))
    return out


def report(results, kind):
    print("| case | ratio | committed | interval | again | inside |")
    print("|---|---|---|---|---|---|")
    for case, what, old, new, iv, inside in results:
        print(f"| {case} | {what} | {num(old)} | {num(iv[0])}-{num(iv[1])} "
              f"| {'-' if new is None else num(new)} "
              f"| {'yes' if inside else '**no**'} |")
    outside = sum(1 for r in results if not r[5])
    print(f"\n{len(results) - outside} of {len(results)} ratios inside "
          "their intervals.")
    if kind != "prediction":
        print("These intervals are over the repetitions of one process "
              "(summary.json: interval_kind), not where another process "
              "lands: a ratio outside one is expected now and then.")
    return outside


def measure(a, run, tmp):
    """Fills tmp with what is checked: a --result and --rounds copied
    there as given (nothing run), else the paired command and one more
    round run; an error message, or None."""
    if a.result or a.rounds:
        try:
            if a.result:
                shutil.copy(a.result, os.path.join(tmp, "paired.json"))
            if a.rounds:
                shutil.copytree(os.path.join(a.rounds, "alternate"),
                                os.path.join(tmp, "alternate"))
        except OSError as e:
            return str(e)
        return None
    cmd = run.commands.get("paired")
    if not cmd:
        return f"{a.run}/commands.tsv has no paired command"
    err = run_paired(cmd, tmp)
    if err is None and run.rounds:
        err = run_round(run, tmp)
    return err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True,
                    help="the committed run (results/reference)")
    ap.add_argument("--result",
                    help="a paired JSON already measured: check it, run "
                         "nothing")
    ap.add_argument("--rounds",
                    help="a folder whose alternate/ holds one more round "
                         "already measured: check it, run nothing")
    a = ap.parse_args()
    try:
        with open(os.path.join(a.run, "summary.json"),
                  encoding="utf-8") as f:
            rows = json.load(f)["pipeline"]
    except (OSError, ValueError, KeyError) as e:
        print(f"recheck: {a.run}: no side-by-side rows: {e}",
              file=sys.stderr)
        return 2
    run = Run(a.run, [])
    with tempfile.TemporaryDirectory() as tmp:
        err = measure(a, run, tmp)
        if err:
            print(f"recheck: {err}", file=sys.stderr)
            return 2
        again = Run(tmp, [])
        # What was measured again: given one of the two, only that one.
        results = ((check(rows, again) if again.paired_procs else [])
                   + (check_rounds(run, again) if again.rounds else []))
    if not results:
        print(f"recheck: {a.run}: no ratio with an interval to check",
              file=sys.stderr)
        return 2
    kinds = {r.get("interval_kind", "repetitions") for r in rows}
    return 1 if report(results, "prediction" if kinds == {"prediction"}
                       else "repetitions") else 0


if __name__ == "__main__":
    sys.exit(main())
