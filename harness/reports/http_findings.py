#!/usr/bin/env python3
"""http_findings.py - the rows FINDINGS.md adds to the token-store
(RAMPART-298) and attachment findings from their scenarios through
`domlab serve`: from the run itself when it measured them (`make
compare FULL=1`; then also in the headline), else from the committed
`make scenarios` run, results/scenarios/, in the finding's section
only, named as such with its load average.  Also
scenarios.md, the tables of a `make scenarios` run.

Not for: running them (harness/reports/scenarios.sh, load.sh) or the
in-process findings (findings.py).  Standard library only.

    /usr/bin/python3 harness/reports/http_findings.py --dir RUN
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loadreport  # noqa: E402

COMMITTED = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "..", "..", "results", "scenarios")


def machine(rundir):
    """{key: value} of RUN/machine.txt (scenarios.sh's), or {}."""
    path = os.path.join(rundir, "machine.txt")
    if not os.path.isfile(path):
        return {}
    out = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            k, _, v = line.rstrip("\n").partition(" ")
            if k == "load":
                w, _, v = v.partition(" ")
                k = "load " + w
            out[k] = v
    return out


def where(rundir):
    """A sentence naming the committed run and its load."""
    m = machine(rundir)
    return (f"Measured by `make scenarios` (results/scenarios/, commit "
            f"{m.get('commit', '?')}, {m.get('date', '?')}, load average "
            f"{m.get('load before', '?')} before and "
            f"{m.get('load after', '?')} after, on {m.get('cpus', '?')} "
            "CPUs the client and the server share: read the ratios "
            "before the milliseconds), not by this run.")


def pick(rundir, finding):
    """(folder, its sentence) holding the finding's scenario: the run,
    else the committed one, else (None, "")."""
    sub = "tokens" if finding == "tokens" else "attach"
    if loadreport.read_runs(rundir, sub):
        return rundir, ""
    if loadreport.read_runs(COMMITTED, sub):
        return COMMITTED, where(COMMITTED)
    return None, ""


def over_http(rundir, f):
    """(headline part, lines) for finding f of findings.py: the token
    store's growth or attachments through the endpoint; else nothing."""
    if f.get("kind") == "tokens" and "per" not in f:
        name, fn = "tokens", loadreport.tokens_finding
    elif f.get("axis") == "io":
        name, fn = "attach", loadreport.attach_finding
    else:
        return "", []
    folder, note = pick(rundir, name)
    if folder is None:
        return "", []
    part, lines = fn(folder)
    if note:
        # Another run's numbers go in the finding's section, named, and
        # never into the headline, which is this run's.
        return "", [note, ""] + lines
    return part, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    print("# The original reports' scenarios over HTTP\n")
    m = machine(a.dir)
    if m:
        print(f"Commit {m.get('commit', '?')}, {m.get('date', '?')}, "
              f"{m.get('cpus', '?')} CPUs; load average "
              f"{m.get('load before', '?')} before, "
              f"{m.get('load after', '?')} after.  Client and server share "
              "the machine (what else ran is in the load average): the "
              "milliseconds are noisy, the ratios within one run less "
              "so.\n")
    print("\n".join(loadreport.scenario_tables(a.dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
