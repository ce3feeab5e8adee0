#!/usr/bin/env python3
"""rounds.py - the pairs of variants FINDINGS.md and the ablation chart
compare, measured round by round.  In each of K rounds every pair runs
its two variants' commands (commands.tsv), narrowed to the pair's cases,
one right after the other, old first in odd rounds and new first in
even ones.  A round's old / new is then free of the drift between runs
minutes apart, and K rounds give each ratio the interval one more round
lands in (harness/reports/spread.py, Rounds).  `make compare
ALTERNATE=K` runs one round at a time (--round), spread across the
variants' runs, so that the rounds' spread holds the machine's drift
over the whole run; `make recheck` runs one more.

The pairs: each finding's (findings.py) on its cases, and each flip of
the ablation chart (plots.py) on its axis's own case and the pipeline's;
in a run narrowed by CASES, each pair on every case of the run.

A round may run before some of its variants' own runs: the cases a
variant runs are then its command's list (--benchmark_list_tests), and
the first round's pairs and cases, kept in alternate/plan.tsv, are
every later round's.

Files, in the run's folder: alternate/OLD..NEW/VARIANT.K.json (and .log,
the benchmark's console), the commands in alternate/commands.tsv, the
pairs in alternate/plan.tsv, and alternate/rounds.txt: the commit, and
when and at which load average each round started.

Not for: reporting the rounds (findings.py, plots.py, recheck.py) or
the variants' own runs (compare.sh).  Standard library only.

    /usr/bin/python3 harness/reports/rounds.py --dir results/RUN --rounds K [--round I] [--cases RE]
    /usr/bin/python3 harness/reports/rounds.py --dir results/RUN --variants
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import time

import findings
import plots
from run import Run, load_variants

# How a recorded command names its output; every run writes its own.
OUT_FLAGS = ("--benchmark_out=", "--benchmark_out_format=")


def plan(run, cases_re=""):
    """{(old, new): [case]}: every pair of the run that a finding or the
    ablation chart compares, with those cases of theirs that both
    variants ran; with cases_re (CASES: the cases the run was narrowed
    to), every case matching it that both ran."""
    wanted = {}
    for f in findings.FINDINGS:
        if f.get("kind") == "load":
            continue
        for pair in run.pairs(f["axis"], f["old"], f.get("new")):
            wanted.setdefault(pair, []).extend(f["cases"])
    for axis, _, flipped, base in plots.flips(run):
        wanted.setdefault((flipped, base), []).extend(
            c for c in plots.ablation_cases(axis) if c != plots.STALL_CASE)
    out = {}
    for (old, new), cases in wanted.items():
        if cases_re:
            cases = [c for c in run.rows.get(old, {})
                     if re.search(cases_re, c)]
        mine = [c for c in dict.fromkeys(cases)
                if run.entry(old, c) and run.entry(new, c)]
        if mine and (new, old) not in out:
            out[old, new] = mine
    return out


def pair_dir(old, new):
    return f"{old}..{new}"


def split_command(cmd):
    """(words, environment) of the recorded command line cmd: its
    leading NAME=value words go into the environment, and the flags that
    name its output file are left out."""
    words = shlex.split(cmd)
    env = dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("-") \
            and "/" not in words[0].split("=", 1)[0]:
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    return [w for w in words if not w.startswith(OUT_FLAGS)], env


def listed(cmd):
    """The cases the recorded command cmd runs, from its
    --benchmark_list_tests; None when it cannot list them."""
    words, env = split_command(cmd)
    try:
        out = subprocess.run(words + ["--benchmark_list_tests=true"],
                             env=env, check=True, capture_output=True,
                             text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return [line for line in out.splitlines() if line]


def fill_listed(run):
    """Gives each variant of the run that has a command but no results
    yet the cases its command lists, so that plan() sees it as run."""
    for v in run.axes:
        cmd = run.commands.get(v)
        if v in run.rows or not cmd:
            continue
        cases = listed(cmd)
        if cases:
            run.rows[v] = {c: {"listed": True} for c in cases}


def save_plan(pairs, path):
    with open(path, "w", encoding="utf-8") as f:
        for (old, new), cases in pairs.items():
            f.write(f"{old}\t{new}\t{' '.join(cases)}\n")


def load_plan(path):
    """{(old, new): [case]} from plan.tsv, None when there is none."""
    if not os.path.exists(path):
        return None
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            old, new, cases = line.rstrip("\n").split("\t")
            out[old, new] = cases.split()
    return out


def execute(cmd, out):
    """Runs the recorded command line cmd (its leading NAME=value words
    the environment) with its JSON written to out and its console to
    out's .log; an error message, or None."""
    words, env = split_command(cmd)
    words += ["--benchmark_out=" + out, "--benchmark_out_format=json"]
    log = os.path.splitext(out)[0] + ".log"
    try:
        with open(log, "w", encoding="utf-8") as f:
            subprocess.run(words, env=env, check=True, stdout=f,
                           stderr=subprocess.STDOUT)
    except (OSError, subprocess.CalledProcessError) as e:
        return f"{' '.join(shlex.quote(w) for w in words)}: {e}; see {log}"
    return None


def one_round(run, pairs, k, folder):
    """Round k of every pair into folder/alternate/; an error message, or
    None."""
    base = os.path.join(folder, "alternate")
    start = time.monotonic()
    for i, ((old, new), cases) in enumerate(pairs.items(), 1):
        d = os.path.join(base, pair_dir(old, new))
        os.makedirs(d, exist_ok=True)
        for v in (old, new) if k % 2 else (new, old):
            recorded = run.commands.get(v)
            if not recorded:
                return f"commands.tsv has no command for {v}"
            cmd = findings.filtered(recorded, cases)
            out = os.path.join(d, f"{v}.{k}.json")
            with open(os.path.join(base, "commands.tsv"), "a",
                      encoding="utf-8") as f:
                f.write(f"{pair_dir(old, new)}/{v}.{k}\t{cmd}\n")
            print(f"[round {k}] {i}/{len(pairs)} {v} "
                  f"({time.monotonic() - start:.0f} s)", file=sys.stderr)
            err = execute(cmd, out)
            if err:
                return err
    return None


def commit():
    """This checkout's commit, or "unknown" outside git."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                              check=True, capture_output=True,
                              text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def stamp(path, k, rounds):
    """Records in rounds.txt that round k of rounds starts now: the
    first round writes the header."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    now = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    with open(path, "w" if k == 1 else "a", encoding="utf-8") as f:
        if k == 1:
            f.write(f"rounds: {rounds}\ncommit: {commit()}\n")
        f.write(f"round {k}: {now} load average {load}\n")


def measure(rundir, rounds, cases_re="", only=None):
    """rounds rounds of the run's pairs into its folder, or with only the
    one round only; an error message, or None."""
    base = os.path.join(rundir, "alternate")
    run = Run(rundir, list(load_variants(os.path.join(rundir,
                                                      "variants.txt"))))
    pairs = load_plan(os.path.join(base, "plan.tsv")) if only not in \
        (None, 1) else None
    if pairs is None:
        fill_listed(run)
        pairs = plan(run, cases_re)
        if pairs:
            os.makedirs(base, exist_ok=True)
            save_plan(pairs, os.path.join(base, "plan.tsv"))
    if not pairs:
        # Not an error: a run of one variant, or of no finding's pair.
        print(f"rounds: {rundir}: no pair of variants a finding or the "
              "ablation chart compares ran the same cases: no rounds",
              file=sys.stderr)
        return None
    for k in range(1, rounds + 1) if only is None else (only,):
        stamp(os.path.join(base, "rounds.txt"), k, rounds)
        err = one_round(run, pairs, k, rundir)
        if err:
            return err
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", required=True, help="the run (results/RUN)")
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--round", type=int, default=None,
                    help="run round I of the --rounds only (1: the "
                         "first, which makes the plan)")
    ap.add_argument("--cases", default="",
                    help="only the cases matching this regular expression")
    ap.add_argument("--variants", action="store_true",
                    help="print the variants the run has rounds of "
                         "(what make recheck builds), and stop")
    a = ap.parse_args()
    if a.variants:
        print(" ".join(dict.fromkeys(v for p in Run(a.dir, []).rounds
                                     for v in p)))
        return 0
    if a.round is not None and not 1 <= a.round <= a.rounds:
        print(f"rounds: --round {a.round}: not one of 1..{a.rounds}",
              file=sys.stderr)
        return 1
    err = measure(a.dir, a.rounds, a.cases, a.round)
    if err:
        print(f"rounds: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
