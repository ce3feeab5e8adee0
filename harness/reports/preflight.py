#!/usr/bin/env python3
"""preflight.py - whether the machine is steady enough to start the run
the documentation quotes (`make reference`), judged before it starts by
one short process that runs a few of the paired run's cases as the
paired processes run them: repetitions in random order.  A load average
under its limit (quiet.sh) does not show a host whose neighbours come
and go; such a host makes the paired processes noisy, and steady.py
then refuses the run, but only after the two hours it took.

The process's noise is run.py's noise (the median over its cases of
their repetitions' coefficient of variation) from a Google Benchmark
JSON written with every repetition.  Prints the lines machine.txt
records (the noise, whether the check was forced) and exits 0 when it is at most NOISE; exits 1 saying why when it is
above, unless FORCE=1, which lets the run go on and says so; exits 2
when the JSON cannot be read or has no case with two repetitions.

Not for: judging a finished run (steady.py): a host can still turn
noisy during the run.
"""
import argparse
import os
import sys

from run import noise, read_json, repetitions


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", required=True,
                    help="the short process's Google Benchmark JSON")
    ap.add_argument("--noise", type=float, required=True,
                    help="the most noise the run may start with (0.03: 3%%)")
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
    print(f"noise before the run: {100 * x:.1f}% "
          f"(limit {100 * a.noise:.1f}%)")
    forced = x > a.noise and os.environ.get("FORCE") == "1"
    print(f"forced past the check before the run: {'yes' if forced else 'no'}")
    if x <= a.noise:
        return 0
    why = (f"preflight: a short process varied by a median "
           f"{100 * x:.1f}% between repetitions (limit "
           f"{100 * a.noise:.1f}%)")
    if forced:
        print(f"{why}; going on as FORCE=1 asks", file=sys.stderr)
        return 0
    print(f"{why}: the paired processes would be as noisy and the run "
          "refused after it was made; wait for a steadier machine, or "
          "FORCE=1 to run anyway", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
