#!/usr/bin/env python3
"""loadreport.py - the tables of the load scenario over HTTP
(harness/reports/load.sh writes RUN/load/<name>.json, one per variant or
`ref`, each `domlab load --json`): summary.md's load table and
FINDINGS.md's socket-read-stall row, best (read=framed) against
best+read=eof.

Not for: running the load (load.sh) or the benchmark's tables
(summary.py, findings.py).  Standard library only.

    /usr/bin/python3 harness/reports/loadreport.py --dir RUN [--stall]
"""
import argparse
import json
import os
import sys

# The rows of summary.md's table, in this order when present.
ORDER = ["doom2010", "xerces", "best", "ref"]
FRAMED, EOF = "best", "best+read=eof"


def read_runs(rundir):
    """name -> the load JSON, for every RUN/load/*.json."""
    d = os.path.join(rundir, "load")
    runs = {}
    if not os.path.isdir(d):
        return runs
    for f in sorted(os.listdir(d)):
        if f.endswith(".json"):
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                runs[f[:-len(".json")]] = json.load(fh)
    return runs


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return out + ["| " + " | ".join(r) + " |" for r in rows] + [""]


def cell(x, fmt):
    return "-" if x is None else fmt.format(x)


def load_table(rundir):
    """summary.md's section: one row per run and level, or nothing."""
    runs = read_runs(rundir)
    if not runs:
        return []
    names = [n for n in ORDER if n in runs]
    names += sorted(n for n in runs if n not in ORDER)
    rows = []
    for n in names:
        for lv in runs[n]["levels"]:
            rows.append([
                f"`{n}`", str(lv["clients"]), str(lv["requests"]),
                str(lv["errors"]), cell(lv["requests_per_s"], "{:.1f}"),
                cell(lv["p50_ms"], "{:.2f}"), cell(lv["p90_ms"], "{:.2f}"),
                cell(lv["p99_ms"], "{:.2f}"), cell(lv["max_ms"], "{:.2f}"),
                cell(lv["server_cpu_ms_per_request"], "{:.2f}"),
                cell(lv["server_peak_rss_kb"] and
                     lv["server_peak_rss_kb"] / 1024, "{:.1f}")])
    out = ["## Load over HTTP\n",
           "`domlab serve` on loopback, `domlab load` from 1, 2 and 4 "
           "kept-alive clients, each level for a fixed time "
           "(harness/reports/load.sh; load/commands.tsv has the commands): "
           "the 2 KB quakes envelope, received, its Body sent back "
           "secured.  `ref` is the reference peer behind the same server.  "
           "Client and server share the machine's CPUs, so requests/s is "
           "the pair's; server CPU per request is the server's own "
           "(getrusage over the level, from GET /stats), its peak RSS the "
           "process's so far.  Latency is wall time per request at the "
           "client.\n"]
    out += table(["run", "clients", "requests", "errors", "requests/s",
                  "p50 ms", "p90 ms", "p99 ms", "max ms",
                  "server CPU ms/request", "server peak RSS MB"], rows)
    return out


def stall_finding(rundir):
    """(headline, lines) for FINDINGS.md: read=eof against read=framed."""
    runs = read_runs(rundir)
    if FRAMED not in runs or EOF not in runs:
        return "not measured in this run", [
            f"The run has no load JSON for both `{FRAMED}` and `{EOF}`."]
    fr = {lv["clients"]: lv for lv in runs[FRAMED]["levels"]}
    eo = {lv["clients"]: lv for lv in runs[EOF]["levels"]}
    levels = sorted(set(fr) & set(eo))
    rows = []
    for c in levels:
        a, b = eo[c], fr[c]
        rows.append([str(c), f"{a['requests_per_s']:.1f}",
                     f"{b['requests_per_s']:.1f}",
                     f"{a['p50_ms']:.1f}", f"{b['p50_ms']:.2f}",
                     f"{a['p50_ms'] - b['p50_ms']:.1f}",
                     cell(a["stalls_per_request"], "{:.2f}")])
    one = levels[0]
    headline = (f"{eo[one]['requests_per_s']:.1f} vs "
                f"{fr[one]['requests_per_s']:.0f} requests/s at {one} "
                f"client; {eo[one]['p50_ms'] - fr[one]['p50_ms']:.0f} ms "
                "stall per request (median)")
    lines = ["Kept-alive clients (`domlab load`, harness/reports/load.sh), "
             f"`{EOF}` against `{FRAMED}` on the 2 KB quakes envelope.  "
             "stall = the difference of median latencies; stalls/request: "
             "the server's count of waits that ended on the read timeout "
             "(`serve --read-timeout`, default 300 ms), over its requests.  "
             "A client that half-closes its side does not stall "
             "(tests/http.sh).", ""]
    lines += table(["clients", "eof requests/s", "framed requests/s",
                    "eof p50 ms", "framed p50 ms", "stall ms/request",
                    "eof stalls/request"], rows)
    return headline, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--stall", action="store_true",
                    help="print the stall finding instead of the table")
    a = ap.parse_args()
    if a.stall:
        headline, lines = stall_finding(a.dir)
        print("# The socket-read stall\n")
        print(f"Original report: \"from zero to 300 ms\" of stall per "
              "request; 3 requests/s where GLUE served 100-500.  "
              f"domlab: {headline}.\n")
        print("\n".join(lines))
    else:
        print("\n".join(load_table(a.dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
