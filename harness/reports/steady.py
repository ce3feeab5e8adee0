#!/usr/bin/env python3
"""steady.py - whether a finished compare run is steady enough to become
the reference (`make reference`), judged from its own numbers: the load
average at the start (harness/reports/quiet.sh) cannot see a host whose
neighbours come and go, but the paired processes can, as they then
disagree.

A run is steady when, in its summary.json, every ratio the README quotes
(ref / best and best / floor, send and receive, each dataset) has an
interval whose high is at most LIMIT times its low, no paired process's
noise (`paired_noise`: its cases' median coefficient of variation,
run.py's noise) is above NOISE, and no number is under its floor
(`below_floor`, summary.py's floor_breaches).  Prints what machine.txt
records (the widest interval, the noisiest process, whether the check
was forced) and exits 0; exits 1 saying why when the run is not steady,
unless FORCE=1, which lets it through and says so; exits 2 when the run
cannot be judged (no summary.json, or no interval to judge).

Not for: judging a run before it is made (quiet.sh), or the rounds'
intervals in FINDINGS.md (the paired run is what the README quotes).
Standard library only.
"""
import argparse
import json
import os
import sys

RATIOS = (("ref_best_interval", "ref / best"),
          ("best_floor_interval", "best / floor"))


def widths(summary):
    """[(high / low, what)] of every interval summary.json's pipeline
    rows carry, widest first."""
    out = []
    for row in summary.get("pipeline", []):
        for key, name in RATIOS:
            iv = row.get(key)
            if not iv or iv[0] <= 0:
                continue
            out.append((iv[1] / iv[0],
                        f"{row['stage']}/{row['dataset']} {name} "
                        f"{iv[0]:.2f}-{iv[1]:.2f}"))
    return sorted(out, reverse=True)


def noises(summary):
    """[(noise, process number)] of the paired processes that have one,
    noisiest first."""
    return sorted(((x, i + 1) for i, x in
                   enumerate(summary.get("paired_noise") or [])
                   if x is not None), reverse=True)


def faults(summary, limit, noise_limit):
    """Why the run is not steady: [] when it is."""
    out = [f"interval {what} is {w:.2f} times as high as it is low "
           f"(limit {limit:.2f})" for w, what in widths(summary)
           if w > limit]
    out += [f"paired process {i}: its cases' repetitions varied by a "
            f"median {100 * x:.1f}% (limit {100 * noise_limit:.1f}%)"
            for x, i in noises(summary) if x > noise_limit]
    out += [f"below the floor: {b}" for b in summary.get("below_floor", [])]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True, help="a compare run's folder")
    ap.add_argument("--limit", type=float, required=True,
                    help="widest interval allowed, as high / low")
    ap.add_argument("--noise", type=float, required=True,
                    help="most noise allowed in a paired process, as a "
                         "coefficient of variation (0.03: 3%%)")
    a = ap.parse_args()
    path = os.path.join(a.run, "summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        print(f"steady: cannot read {path}: {e}", file=sys.stderr)
        return 2
    ws = widths(summary)
    if not ws:
        print(f"steady: {path} has no interval to judge (a paired run "
              "of 3 processes or more has them)", file=sys.stderr)
        return 2
    print(f"widest interval: {ws[0][0]:.2f} ({ws[0][1]}; limit "
          f"{a.limit:.2f})")
    ns = noises(summary)
    if ns:
        print(f"noisiest paired process: {100 * ns[0][0]:.1f}% (process "
              f"{ns[0][1]}; limit {100 * a.noise:.1f}%)")
    bad = faults(summary, a.limit, a.noise)
    forced = "yes" if bad and os.environ.get("FORCE") == "1" else "no"
    print(f"forced past the steadiness check: {forced}")
    for line in bad:
        print(f"steady: {line}", file=sys.stderr)
    if not bad or forced == "yes":
        return 0
    print(f"steady: {a.run} is not steady enough to be the reference: its "
          "processes disagree, so its intervals say little; it stays "
          "where it is.  Run again on a steadier machine, or FORCE=1 to "
          "publish anyway (machine.txt will say so)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
