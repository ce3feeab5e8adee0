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

--keep keeps what was measured in the run's folder (rechecks/STAMP/:
paired.json.gz, alternate/, recheck.txt with when, where and at which
load), when the checkout builds the code the run measured; the run's
reports then count it as one more process and one more round, so that
their intervals hold the drift between runs hours or days apart, which
the run's own processes, an hour apart at most, cannot.  --history
writes them into recheck.md, between its <!-- kept:begin --> and
<!-- kept:end --> markers (what was written there before any recheck
was kept stays above them): each kept recheck against the intervals of
the run and the rechecks kept before it.

--noise (with --keep) keeps nothing from a paired process whose cases'
repetitions varied by a median coefficient of variation above it
(run.py's noise), unless FORCE=1: what a machine that moved that much
measured would widen the run's intervals for good.

Exit status: 0 when every ratio lands inside its interval, 1 when one
does not, 2 when the run cannot be checked (no side-by-side rows, no
intervals, a command failed) or a recheck cannot be kept.

Not for: measuring anything else (harness/reports/compare.sh), or
deciding what the intervals are (harness/reports/run.py, spread.py).
Standard library only.
"""
import argparse
import contextlib
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import rounds
from run import (RECHECKS, Run, machine_id, noise, num, read_facts,
                 recheck_dirs, us)

# What a recheck measures is built from everything but these (the
# documents, the tests, and how runs are made and reported: a recheck
# runs the commands the run recorded); one kept from a checkout that
# differs elsewhere would have measured other code.
NOT_CODE = ("docs", "results", "tests", "harness/reports", ".ci", "*.md",
            "mk/bench.mk")

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


def published(run, rows):
    """rows (summary.json's pipeline rows) with their times and
    intervals as run gives them: the rows a recheck is held to when run
    counts fewer rechecks than the published summary."""
    out = []
    for r in rows:
        new = r.get("paired") and run.paired_row(r["stage"], r["dataset"])
        if new:
            out.append(dict(new, stage=r["stage"], dataset=r["dataset"],
                            paired=True))
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


def same_code(commit):
    """None when this checkout (uncommitted changes included) builds
    what commit builds, else why not."""
    spec = ["."] + [":!" + p for p in NOT_CODE]
    try:
        r = subprocess.run(["git", "diff", "--quiet", commit, "--"] + spec,
                           check=False, capture_output=True)
    except OSError as e:
        return f"git: {e}"
    if r.returncode == 0:
        return None
    if r.returncode == 1:
        return f"this checkout's code differs from {commit}'s, the run's"
    return f"git diff {commit}: {r.stderr.decode(errors='replace').strip()}"


def gzip_to(src, dst):
    """src gzipped into dst as `make reference` does (gzip -9n: no
    name, no time, so the same file gzips to the same bytes)."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(src, "rb") as f, open(dst, "wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", compresslevel=9,
                          fileobj=raw, mtime=0) as g:
        shutil.copyfileobj(f, g)


def keep(run_dir, tmp, facts):
    """Copies tmp's measurements (paired.json, alternate/*/*.json) into
    run_dir/rechecks/STAMP/ with recheck.txt (facts); an error message,
    or None."""
    folder = os.path.join(run_dir, RECHECKS, facts["stamp"])
    try:
        os.makedirs(folder)
        if os.path.exists(os.path.join(tmp, "paired.json")):
            gzip_to(os.path.join(tmp, "paired.json"),
                    os.path.join(folder, "paired.json.gz"))
        alt = os.path.join(tmp, "alternate")
        for pair in sorted(os.listdir(alt)) if os.path.isdir(alt) else ():
            if not os.path.isdir(os.path.join(alt, pair)):
                continue
            for name in sorted(os.listdir(os.path.join(alt, pair))):
                if name.endswith(".json"):
                    gzip_to(os.path.join(alt, pair, name),
                            os.path.join(folder, "alternate", pair,
                                         name + ".gz"))
        with open(os.path.join(folder, "recheck.txt"), "w",
                  encoding="utf-8") as f:
            f.write("".join(f"{k}: {v}\n" for k, v in facts.items()))
    except OSError as e:
        return f"{folder}: {e}"
    print(f"recheck: kept in {folder}", file=sys.stderr)
    return None


def too_noisy(again, limit):
    """Why the paired process measured again is too noisy to keep (its
    noise, run.noise, above limit), printed either way; None when it is
    not, when no limit is given, or FORCE=1."""
    procs = again.paired_procs
    x = noise(procs[0][1]) if procs else None
    if x is None:
        return None
    print(f"recheck: the paired process's repetitions varied by a median "
          f"{100 * x:.1f}% (the run's processes: see its summary.md)",
          file=sys.stderr)
    if limit is None or x <= limit or os.environ.get("FORCE") == "1":
        return None
    return f"its repetitions varied by {100 * x:.1f}%, above " \
        f"{100 * limit:.1f}%"


def now_facts():
    """When and at which load: the UTC time and the load average."""
    return (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            " ".join(f"{x:.2f}" for x in os.getloadavg()))


# What of the machine a recheck compares with the run's machine.txt: the
# key, how it is named, and what differs with it.
MACHINE = (
    ("cpu", "this CPU, {}, is not the one",
     "the floor's parts, and every ratio with them, need not land in "
     "their intervals here"),
    ("kernel", "this kernel, {}, is not the one",
     "what a system call costs may differ, and with it every ratio of a "
     "case that makes many"),
    ("mitigations", "this kernel's mitigations, {}, are not those",
     "what a system call costs differs, and with it every ratio of a "
     "case that makes many (io=unbuffered makes one a byte)"))


def elsewhere(run_dir, here):
    """Why the run's ratios need not hold on this machine, here ({key:
    value} of MACHINE's keys as this machine has them): one line for each
    the run recorded otherwise (machine.txt) or did not record; [] when
    all are the same."""
    then = read_facts(os.path.join(run_dir, "machine.txt"))
    return [f"{name.format(here[key])} the run measured on "
            f"({then.get(key) or 'not recorded'}): {why}"
            for key, name, why in MACHINE if then.get(key) != here[key]]


def span(start, end):
    """"2026-12-05 10:47-10:55 UTC" from two ISO times of one day, else
    the two as they are."""
    if len(start) == len(end) == 20 and start[:10] == end[:10]:
        return f"{start[:10]} {start[11:16]}-{end[11:16]} UTC"
    return f"{start} to {end}"


BEGIN = "<!-- kept:begin -->"
END = "<!-- kept:end -->"


def history_into(path, text):
    """Writes text between recheck.md's markers, the rest (rechecks
    written before any was kept) left as it is; a file without them gets
    its heading and the markers at its end."""
    old = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = f.read()
    if BEGIN not in old or END not in old:
        old = (old or "# make recheck against this run\n") + \
            f"\n{BEGIN}\n{END}\n"
    head, rest = old.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + BEGIN + "\n" + text + END + tail)


def history(run_dir, rows):
    """Prints the kept rechecks' sections: every kept recheck, oldest
    first, against the intervals of the run and the rechecks kept
    before it."""
    kept = recheck_dirs(run_dir)
    print("## Kept rechecks\n")
    print("Each section is one `make recheck KEEP=1` of this run, kept "
          f"in {RECHECKS}/: the paired command once more and one more "
          "round of each pair, each ratio set against the interval of "
          "the run and of the rechecks kept before it, as they stood "
          "then.  Each kept recheck is then one more process and one "
          "more round in the run's reports.  Written by "
          "harness/reports/recheck.py --history.\n")
    if not kept:
        print("No recheck kept yet.\n")
    for i, folder in enumerate(kept):
        facts = read_facts(os.path.join(folder, "recheck.txt"))
        print(f"## {span(facts.get('start', '?'), facts.get('end', '?'))}"
              "\n")
        where = f" on {facts['cpu']}" if "cpu" in facts else ""
        if "kernel" in facts:
            where += (f", kernel {facts['kernel']} (mitigations: "
                      f"{facts.get('mitigations', '?')})")
        print(f"Commit {facts.get('commit', '?')}{where}, load average "
              f"{facts.get('load at start', '?')} at the start and "
              f"{facts.get('load at end', '?')} at the end; held to the "
              + (f"run and the {i} recheck{'' if i == 1 else 's'} kept "
                 "before it.\n" if i else "run alone.\n"))
        base = Run(run_dir, [], limit=i)
        again = Run(folder, [])
        report(check(published(base, rows), again)
               + check_rounds(base, again), "prediction")
        print()


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
    ap.add_argument("--keep", action="store_true",
                    help="keep what was measured in RUN/rechecks/")
    ap.add_argument("--noise", type=float,
                    help="with --keep: keep nothing whose paired process "
                         "varied more than this (a coefficient of "
                         "variation, 0.03: 3%%) unless FORCE=1")
    ap.add_argument("--history", action="store_true",
                    help="write the kept rechecks into RUN/recheck.md "
                         "(between its kept markers), measure nothing")
    a = ap.parse_args()
    try:
        with open(os.path.join(a.run, "summary.json"),
                  encoding="utf-8") as f:
            rows = json.load(f)["pipeline"]
    except (OSError, ValueError, KeyError) as e:
        print(f"recheck: {a.run}: no side-by-side rows: {e}",
              file=sys.stderr)
        return 2
    if a.history:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            history(a.run, rows)
        history_into(os.path.join(a.run, "recheck.md"), out.getvalue())
        return 0
    if a.keep:
        # Refused before measuring: minutes of work that could not count.
        commit = read_facts(os.path.join(a.run, "machine.txt")).get(
            "commit")
        err = same_code(commit) if commit else \
            f"{a.run}/machine.txt names no commit"
        if err:
            print(f"recheck: cannot keep: {err}; run it in a worktree at "
                  f"{commit} (git worktree add), with RUN= this folder",
                  file=sys.stderr)
            return 2
    run = Run(a.run, [])
    rows = published(run, rows)
    here = machine_id()
    for line in elsewhere(a.run, here):
        print(f"recheck: {line}", file=sys.stderr)
    start, load_start = now_facts()
    with tempfile.TemporaryDirectory() as tmp:
        err = measure(a, run, tmp)
        if err:
            print(f"recheck: {err}", file=sys.stderr)
            return 2
        again = Run(tmp, [])
        # What was measured again: given one of the two, only that one.
        results = ((check(rows, again) if again.paired_procs else [])
                   + (check_rounds(run, again) if again.rounds else []))
        noisy = too_noisy(again, a.noise)
        if results and a.keep and noisy:
            print(f"recheck: not kept: {noisy}; a recheck kept from a "
                  "machine that moved this much would widen every "
                  "interval of the run for good.  Run it again on a "
                  "quieter machine, or FORCE=1 to keep it anyway",
                  file=sys.stderr)
        elif results and a.keep:
            end, load_end = now_facts()
            err = keep(a.run, tmp, {
                "stamp": start.replace("-", "").replace(":", ""),
                "start": start, "end": end, "commit": rounds.commit(),
                **here, "load at start": load_start,
                "load at end": load_end})
            if err:
                print(f"recheck: {err}", file=sys.stderr)
                return 2
    if not results:
        print(f"recheck: {a.run}: no ratio with an interval to check",
              file=sys.stderr)
        return 2
    kinds = {r.get("interval_kind", "repetitions") for r in rows}
    outside = report(results, "prediction" if kinds == {"prediction"}
                     else "repetitions")
    return 2 if a.keep and noisy else 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
