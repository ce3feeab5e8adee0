#!/usr/bin/env python3
"""loadreport.py - the tables of the load scenario over HTTP
(harness/reports/load.sh writes RUN/load/<name>.json, one per variant or
`ref`, each `domlab load --json`): summary.md's load table and
FINDINGS.md's socket-read-stall row, best (read=framed) against
best+read=eof.  A FULL run's scenarios through the endpoint too
(RUN/tokens/<name>.json: RAMPART-298's token store; RUN/attach/
<name>-<size>.json: SOAP with Attachments): their summary.md tables and
the lines FINDINGS.md adds to those findings, and, when the scenarios
ran in rounds (RUN/round.K/, harness/reports/scenarios.sh), each
scenario's ratio over the rounds with the interval one more round lands
in.

Not for: running the load (load.sh) or the benchmark's tables
(summary.py, findings.py).  Standard library only.

    /usr/bin/python3 harness/reports/loadreport.py --dir RUN [--stall]
"""
import argparse
import json
import os
import re
import statistics
import sys

import spread

# The rows of summary.md's table, in this order when present.
ORDER = ["doom2010", "xerces", "best", "ref"]
FRAMED, EOF = "best", "best+read=eof"


def read_runs(rundir, sub="load"):
    """name -> the load JSON, for every RUN/SUB/*.json."""
    d = os.path.join(rundir, sub)
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


def ordered(runs):
    """The names of runs, ORDER's first, each ablation after."""
    def key(n):
        base = n.split("-")[0] if n.split("-")[0] in ORDER else n
        return (ORDER.index(base) if base in ORDER else len(ORDER), n)
    return sorted(runs, key=key)


def levels(rundir, sub):
    """(name, JSON, level) of every level of RUN/SUB/*.json, in order."""
    runs = read_runs(rundir, sub)
    return [(n, runs[n], lv) for n in ordered(runs)
            for lv in runs[n]["levels"]]


def tokens_rows(rundir):
    """One row per run of RUN/tokens/: the first and last tenth."""
    rows = []
    for n, j, lv in levels(rundir, "tokens"):
        first, last = lv.get("first_ms"), lv.get("last_ms")
        rows.append([
            f"`{n}`", j.get("tokens_store") or "-", str(lv["requests"]),
            str(lv["errors"]), cell(first, "{:.2f}"),
            cell(last, "{:.2f}"),
            cell(first and last and last / first, "{:.3f}"),
            cell(lv.get("server_tokens"), "{:.0f}"),
            cell(lv["server_cpu_ms_per_request"], "{:.2f}")])
    return rows


TOKENS_HEAD = ["run", "server's store", "requests", "errors",
               "first tenth p50 ms", "last tenth p50 ms", "last / first",
               "tokens held", "server CPU ms/request"]
TOKENS_TEXT = ("`domlab serve --tokens` keeps every request's token (its "
               "EncryptedKey's wrapped key, under its SHA-1) in a store of "
               "the `tokens` axis and refuses a replay; `domlab load "
               "--tokens` sends the requests from one kept-alive client, "
               "each secured anew (a fresh token) before its clock starts.  "
               "first / last: the median latency of the first and of the "
               "last tenth of the requests, in the order sent.  `ref` is "
               "the reference peer behind the same server and store (the "
               "host build's).  tokens/commands.tsv has the commands.")


def attach_rows(rundir):
    """One row per run, size and level of RUN/attach/."""
    rows = []
    for n, j, lv in levels(rundir, "attach"):
        rows.append([
            f"`{n.rsplit('-', 1)[0]}`", j.get("io") or "-",
            f"{j.get('attachment_bytes', 0):,}", str(lv["clients"]),
            str(lv["requests"]), str(lv["errors"]),
            cell(lv["requests_per_s"], "{:.1f}"),
            cell(lv["p50_ms"], "{:.2f}"), cell(lv["max_ms"], "{:.2f}"),
            cell(lv["server_cpu_ms_per_request"], "{:.2f}")])
    return rows


ATTACH_HEAD = ["run", "io", "attachment bytes", "clients", "requests",
               "errors", "requests/s", "p50 ms", "max ms",
               "server CPU ms/request"]
ATTACH_TEXT = ("`domlab load --attach` sends SOAP with Attachments: the "
               "multipart/related message `domlab send --attach` writes, "
               "its MIME header as the HTTP Content-Type; the server reads "
               "it through the `io` axis (from a memory file holding the "
               "body) and verifies the attachment's signature.  The "
               "reference peer takes no attachments.  attach/commands.tsv "
               "has the commands.")


def round_dirs(rundir):
    """The rounds of a run in_rounds.sh made (scenarios, stall, attack):
    RUN itself first, then each RUN/round.K in K's order."""
    if not os.path.isdir(rundir):
        return []
    ks = sorted(int(m.group(1)) for m in
                (re.fullmatch(r"round\.(\d+)", f)
                 for f in os.listdir(rundir)) if m)
    return [rundir] + [os.path.join(rundir, f"round.{k}") for k in ks]


def round_ratios(rundir):
    """{label: the ratio in each round}: every tokens run's last tenth /
    first tenth, and every attachment size and client count's
    unbuffered / buffered p50 and server CPU per request."""
    out = {}
    for d in round_dirs(rundir):
        growth = {}
        for n, j, lv in levels(d, "tokens"):
            if lv.get("first_ms") and lv.get("last_ms"):
                g = lv["last_ms"] / lv["first_ms"]
                growth[j.get("tokens_store")] = g
                key = (f"tokens: `{n}` ({j.get('tokens_store', '-')}), "
                       "last tenth / first tenth p50")
                out.setdefault(key, []).append(g)
        # What the finding says: the list's latency grows with the
        # tokens held, the hash's does not.
        if "list" in growth and "hash" in growth:
            out.setdefault("tokens: list's last / first over hash's",
                           []).append(growth["list"] / growth["hash"])
        by = {}
        for n, j, lv in levels(d, "attach"):
            k = (j.get("attachment_bytes", 0), lv["clients"])
            by.setdefault(k, {})[j.get("io")] = lv
        for (size, clients), ios in sorted(by.items()):
            u, b = ios.get("unbuffered"), ios.get("buffered")
            if not u or not b:
                continue
            for what, field in (("p50", "p50_ms"), ("server CPU per "
                                 "request", "server_cpu_ms_per_request")):
                if u.get(field) and b.get(field):
                    key = (f"attachment {size:,} B, {clients} "
                           f"client{'s' if clients > 1 else ''}: "
                           f"unbuffered / buffered {what}")
                    out.setdefault(key, []).append(u[field] / b[field])
    return out


def rounds_table(rundir, scenario="", heading=True):
    """The scenarios' ratios over their rounds (those of scenario, a
    label's first word, when given), under a heading of their own or,
    inside a finding's section, a paragraph's first words; nothing with
    fewer rounds than an interval takes."""
    rows = []
    for label, ratios in round_ratios(rundir).items():
        r = spread.over_rounds(ratios)
        if r is None or not label.startswith(scenario):
            continue
        rows.append([label, str(r.rounds), f"{r.ratio:.3f}",
                     f"{r.low:.3f}-{r.high:.3f}",
                     f"{r.mean_low:.3f}-{r.mean_high:.3f}",
                     "above 1" if r.mean_low > 1 else
                     "below 1" if r.mean_high < 1 else
                     "no measurable difference from 1"])
    if not rows:
        return []
    text = ("Each round ran every scenario on every variant once, the "
            "variants' order turning each round "
            "(harness/reports/scenarios.sh; round 1 is the tables above, "
            "round K in round.K/).  ratio: the median of the rounds' "
            "ratios; interval: where one more round's ratio lands 99 times "
            "in 100; mean's interval: the 95% confidence interval of the "
            "rounds' mean ratio, which says whether the ratio differs from "
            "1 (harness/reports/spread.py).\n")
    head = ["## Over the rounds\n", text] if heading else [
        "Over the rounds: " + text]
    return head + table(["scenario and ratio", "rounds", "ratio",
                         "interval (99%, one more round)",
                         "mean's interval (95%)", "verdict"], rows)


def scenario_tables(rundir):
    """summary.md's sections for a FULL run's scenarios, or nothing."""
    out = []
    rows = tokens_rows(rundir)
    if rows:
        out += ["## Token store over HTTP (RAMPART-298)\n",
                TOKENS_TEXT + "\n"] + table(TOKENS_HEAD, rows)
    rows = attach_rows(rundir)
    if rows:
        out += ["## Attachments over HTTP\n", ATTACH_TEXT + "\n"]
        out += table(ATTACH_HEAD, rows)
    return out + rounds_table(rundir)


def tokens_finding(rundir):
    """(headline part, lines) for FINDINGS.md's RAMPART-298 finding."""
    rows = tokens_rows(rundir)
    if not rows:
        return "", []
    part = "; over HTTP: " + ", ".join(
        f"{r[0]} ({r[1]}) {r[4]} -> {r[5]} ms" for r in rows)
    return part, ["Through the endpoint, as the original report measured "
                  "it: " + TOKENS_TEXT, ""] + table(TOKENS_HEAD, rows) + \
        rounds_table(rundir, "tokens", heading=False)


def attach_finding(rundir):
    """(headline part, lines) for FINDINGS.md's attachments finding."""
    rows = attach_rows(rundir)
    if not rows:
        return "", []
    one = [r for r in rows if r[3] == "1"]
    part = "; over HTTP at 1 client: " + ", ".join(
        f"{r[0]} ({r[1]}) {r[2]} B {r[7]} ms" for r in one)
    return part, ["Through the endpoint: " + ATTACH_TEXT, ""] + table(
        ATTACH_HEAD, rows) + rounds_table(rundir, "attachment", heading=False)


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
    return headline, lines + stall_rounds(rundir)


def stall_rounds(rundir):
    """The stall over the rounds of `make stall` (RUN/round.K/), at each
    client count: eof's p50 over framed's with the interval one more
    round lands in, and the stall's median and range; nothing with
    fewer rounds than an interval takes."""
    ratios, stalls = {}, {}
    for d in round_dirs(rundir):
        runs = read_runs(d)
        if FRAMED not in runs or EOF not in runs:
            continue
        fr = {lv["clients"]: lv for lv in runs[FRAMED]["levels"]}
        for lv in runs[EOF]["levels"]:
            b = fr.get(lv["clients"])
            if b and b["p50_ms"] and lv["p50_ms"]:
                ratios.setdefault(lv["clients"], []).append(
                    lv["p50_ms"] / b["p50_ms"])
                stalls.setdefault(lv["clients"], []).append(
                    lv["p50_ms"] - b["p50_ms"])
    rows = []
    for c in sorted(ratios):
        r = spread.over_rounds(ratios[c])
        if r is None:
            continue
        rows.append([str(c), str(r.rounds), f"{r.ratio:.0f}",
                     f"{r.low:.0f}-{r.high:.0f}",
                     f"{statistics.median_high(stalls[c]):.1f}",
                     f"{min(stalls[c]):.1f}-{max(stalls[c]):.1f}"])
    if not rows:
        return []
    return ["Over the rounds (`make stall` runs STALL_ROUNDS, the two "
            "variants' order turning each round; round K in round.K/): "
            "eof p50 / framed p50, the median of the rounds' ratios with "
            "the interval one more round lands in 99 times in 100 "
            "(harness/reports/spread.py), and the stall's median and "
            "range over the rounds.", ""] + table(
        ["clients", "rounds", "eof / framed p50",
         "interval (99%, one more round)", "stall ms/request (median)",
         "stall range ms"], rows)


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
