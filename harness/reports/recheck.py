#!/usr/bin/env python3
"""recheck.py - a committed run's side-by-side ratios measured again: runs
the run's paired command once more (commands.tsv's `paired` line, best
built from this checkout) and sets each ref / best and best / floor
ratio against the interval the run's summary.json gives it.  What
`make recheck` runs; a skeptic's check that the numbers the README
quotes come back.

Exit status: 0 when every ratio lands inside its interval, 1 when one
does not, 2 when the run cannot be checked (no paired command, no
intervals, the command failed).

Not for: measuring anything else (harness/reports/compare.sh), or
deciding what the intervals are (harness/reports/run.py, spread.py).
Standard library only.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

from run import Run, load_commands, num

RATIOS = (("ref / best", "ref", "best", "ref_best_interval"),
          ("best / floor", "best", "floor", "best_floor_interval"))


def run_paired(cmd, folder):
    """Runs the paired command line cmd with its output in folder/paired.json;
    an error message, or None."""
    words = shlex.split(cmd)
    env = dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("-") \
            and "/" not in words[0].split("=", 1)[0]:
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    out = os.path.join(folder, "paired.json")
    words = [w for w in words if not w.startswith("--benchmark_out=")]
    words.append("--benchmark_out=" + out)
    print("recheck: " + " ".join(shlex.quote(w) for w in words),
          file=sys.stderr)
    try:
        subprocess.run(words, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as e:
        return f"the paired command failed: {e}"
    return None


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True,
                    help="the committed run (results/reference)")
    ap.add_argument("--result",
                    help="a paired JSON already measured: check it, run "
                         "nothing")
    a = ap.parse_args()
    try:
        with open(os.path.join(a.run, "summary.json"),
                  encoding="utf-8") as f:
            rows = json.load(f)["pipeline"]
    except (OSError, ValueError, KeyError) as e:
        print(f"recheck: {a.run}: no side-by-side rows: {e}",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        if a.result:
            try:
                with open(a.result, "rb") as src, \
                        open(os.path.join(tmp, "paired.json"), "wb") as dst:
                    dst.write(src.read())
            except OSError as e:
                print(f"recheck: {e}", file=sys.stderr)
                return 2
        else:
            cmd = load_commands(os.path.join(a.run, "commands.tsv")).get(
                "paired")
            if not cmd:
                print(f"recheck: {a.run}/commands.tsv has no paired command",
                      file=sys.stderr)
                return 2
            err = run_paired(cmd, tmp)
            if err:
                print(f"recheck: {err}", file=sys.stderr)
                return 2
        results = check(rows, Run(tmp, []))
    if not results:
        print(f"recheck: {a.run}: no ratio with an interval to check",
              file=sys.stderr)
        return 2
    kinds = {r.get("interval_kind", "repetitions") for r in rows}
    return 1 if report(results, "prediction" if kinds == {"prediction"}
                       else "repetitions") else 0


if __name__ == "__main__":
    sys.exit(main())
