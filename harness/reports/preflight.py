#!/usr/bin/env python3
"""preflight.py - whether the machine is steady enough for the run the
documentation quotes (`make reference`), judged from one paired process
(compare.sh's side-by-side cases, their repetitions in random order):
once before the run starts, and again after each paired process the run
makes, so that a run the end would refuse (steady.py) stops at the
first noisy process, not after its two hours.  A load average under its
limit (quiet.sh) does not show a host whose neighbours come and go.

The process's noise is run.py's noise (the median over its cases of
their repetitions' coefficient of variation) from a Google Benchmark
JSON written with every repetition.  Before the run it prints the lines
machine.txt records (the noise, whether the check was forced); with
--during NAME, one line naming NAME.  Exits 0 when the noise is at most
NOISE; exits 1 saying why when it is above, unless FORCE=1, which lets
the run go on and says so; exits 2 when the JSON cannot be read or has
no case with two repetitions.

Not for: judging a finished run (steady.py), which also asks for narrow
intervals and no number under its floor.
"""
import argparse
import os
import sys

from run import noise, read_json, repetitions


def report(x, limit, during):
    """The lines for stdout, and why the process fails (None when not)."""
    pct, lim = f"{100 * x:.1f}%", f"{100 * limit:.1f}%"
    forced = x > limit and os.environ.get("FORCE") == "1"
    if during:
        lines = [f"{during}: noise {pct} (limit {lim})"]
    else:
        lines = [f"noise before the run: {pct} (limit {lim})",
                 "forced past the check before the run: "
                 f"{'yes' if forced else 'no'}"]
    if x <= limit:
        return lines, None, forced
    what = during or "a paired process before the run"
    return lines, (f"preflight: {what} varied by a median {pct} between "
                   f"repetitions (limit {lim})"), forced


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", required=True,
                    help="the process's Google Benchmark JSON")
    ap.add_argument("--noise", type=float, required=True,
                    help="the most noise allowed (0.03: 3%%)")
    ap.add_argument("--during", metavar="NAME",
                    help="the process is NAME, one the run has made")
    a = ap.parse_args()
    try:
        x = noise(repetitions(read_json(a.json)))
    except (OSError, ValueError, KeyError) as e:
        print(f"preflight: cannot read {a.json}: {e}", file=sys.stderr)
        return 2
    if x is None:
        print(f"preflight: {a.json} has no case with two repetitions",
              file=sys.stderr)
        return 2
    lines, why, forced = report(x, a.noise, a.during)
    print("\n".join(lines))
    if why is None:
        return 0
    if forced:
        print(f"{why}; going on as FORCE=1 asks", file=sys.stderr)
        return 0
    # With --during, the caller says what follows (compare.sh sets the
    # process aside or stops; a wait checks again).
    later = ("a run with such a process in it would be refused when "
             "made (steady.py)" if a.during else
             "the run's paired processes would be as noisy and the run "
             "refused after it was made")
    print(f"{why}: {later}; wait for a steadier machine, or FORCE=1 to "
          "run anyway", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
