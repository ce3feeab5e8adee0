#!/usr/bin/env python3
"""findings.py - FINDINGS.md for one compare run (results/<run>/): each
historical finding domlab reproduces, beside the ratio this run measured
for it, the original report's figure, and the commands that measured it.

Each finding is one axis: the run's variants.txt says which choices every
variant was built with, and the finding's pair is two variants of the
run that differ on that axis alone, the old (historical) choice against
a newer one, measured on the same cases.  A finding whose pair or cases
the run does not have says "not measured in this run": no number here
comes from anywhere but the run's own JSON.

Each ratio comes from the pair's rounds (harness/reports/rounds.py) when
the run has them, with the interval one more round lands in; else from
the two variants' own runs, with a confidence interval over their
repetitions and a Mann-Whitney U test (harness/reports/spread.py); "no
measurable difference" when the difference is within the noise; the
instruction-count ratio when the run counted instructions; bytes per
element and peak heap for the findings about memory.

Not for: running anything (harness/reports/compare.sh does) or the per-stage
tables (harness/reports/summary.py).  Standard library only.

    /usr/bin/python3 harness/reports/findings.py --dir results/RUN [--cases RE] RUN...
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_findings  # noqa: E402  (the scenarios over HTTP)
import loadreport  # noqa: E402  (the load scenario's JSON)
import spread  # noqa: E402
from run import (Run, count, input_bytes, num, ratio,  # noqa: E402
                 read_facts, run_name, us)

NOT_MEASURED = "not measured in this run"

# What tokens=list runs per lookup (variants/tokens/list.c has the source).
TOKENS_MODEL = (
    "tokens=list is Apache Rampart's SimpleTokenStore.getToken() before "
    "RAMPART-298: tokens never removed; every lookup reads the clock for "
    "every stored token (processTokenExpiry), then, the reply naming the "
    "token by a SecurityTokenReference, scans every token without "
    "stopping, resolving its attached and unattached reference through "
    "domlab's DOM (first child element, two name comparisons, the URI "
    "copied without its '#', compared).  Not modelled: the JVM's and "
    "Axiom's allocation and GC costs.  tokens=hash keys by identifier "
    "and removes a token once its reply is validated.  A tokens/<R> "
    "time is the mean over requests 1..R; tokens_lookup/<R> is request "
    "R's store work alone.")

# The findings, in the order of the 2010 history (docs/findings.md).  old: the
# historical choice (new, when given: the one choice compared with it);
# cases: where the axis shows, the first one the headline; original: what the original report said; memory: the finding
# is about memory too, so its table gives bytes per element and peak heap;
# historical: the original figure as a range of old / new time ratios,
# where it has one (the ablation chart draws it).
FINDINGS = [
    {"title": "findNamePoint's linear search in the attribute map",
     "axis": "attrs", "old": "vector",
     "cases": ["attr_lookup/wide", "attr_lookup/quakes-200k"],
     "original": "a linear search where a HashMap would do, and the "
                 "HashMap's memory cost (no separate figure)",
     "memory": True},
    {"title": "a user-data table allocated for every node",
     "axis": "userdata", "old": "pernode",
     "cases": ["userdata/quakes-200k", "parse/quakes-200k",
               "send/quakes-200k"],
     "original": "the per-node Hashtable cost 4-6% of CPU",
     "memory": True, "historical": (1 / 0.96, 1 / 0.94)},
    {"title": "getAttributes() building a fresh map on every call",
     "axis": "attrlist", "old": "copy",
     "cases": ["c14n/quakes-200k", "attr_walk/quakes-200k"],
     "original": "~10% of all CPU under the canonicalizer, <1% once the "
                 "map was kept",
     "historical": (1 / 0.90, 1 / 0.90)},
    {"title": "the OM tree then the DOOM tree: every message built twice",
     "axis": "build", "old": "built", "new": "direct",
     "cases": ["parse/quakes-200k", "parse/quakes-2m"],
     "original": "OM then DOOM vs DOOM built from the StAX reader (no "
                 "separate figure)"},
    {"title": "Axiom's deferred tree: a hop that reads only the headers "
              "never builds the Body",
     "axis": "build", "old": "direct", "new": "deferred",
     "cases": ["forward/quakes-2m", "forward/quakes-200k",
               "forward/quakes-2k"],
     "original": "Axiom built its tree on demand, so an intermediary "
                 "never built the Body it did not read; the security code "
                 "then needed the whole tree (no separate figure)",
     "memory": True},
    {"title": "crypto objects reloaded for every request",
     "axis": "keys", "old": "reload",
     "cases": ["send/quakes-2k", "receive/quakes-2k"],
     "original": "keys and certificates reloaded per request vs cached "
                 "(no separate figure)"},
    {"title": "the token store that was never evicted (RAMPART-298)",
     "axis": "tokens", "old": "list", "kind": "tokens",
     "cases": ["tokens/100", "tokens/700"],
     "original": "33 -> 45 ms per request over 600 requests before the "
                 "fix, flat at about 23 ms after",
     "historical": (33 / 23, 45 / 23),
     "model": TOKENS_MODEL},
    {"title": "the same token store, its own work per request alone "
              "(store, look up, forget)",
     "axis": "tokens", "old": "list", "kind": "tokens", "per": "iteration",
     "cases": ["tokens_lookup/100", "tokens_lookup/700"],
     "original": "the store's share of the 2010 growth (no separate "
                 "figure)",
     "model": TOKENS_MODEL},
    {"title": "attachments read one byte at a time",
     "axis": "io", "old": "unbuffered",
     "cases": ["attachment/150k", "attachment/4m", "attachment_file/150k",
               "attachment_file/4m"],
     "original": "attachments 3-12x faster once buffered",
     "historical": (3.0, 12.0)},
    {"title": "an unkeyed hash that input can flood",
     "axis": "hash", "old": "fixed", "per_mb": True,
     "cases": ["worst/collide-names", "worst/collide-attrs",
               "worst/collide-ids"],
     "original": "names chosen to collide in an unkeyed hash make every "
                 "table insert a chain walk (oCERT-2011-003; Xerces-J's "
                 "SymbolTable, CVE-2012-0881): seconds of CPU per MB"},
    {"title": "each step over the whole message: the Body's ciphertext "
              "decoded, then decrypted (sent: captured, encrypted, "
              "encoded) one pass after the other",
     "axis": "pass", "old": "staged",
     "cases": ["receive/quakes-2m", "send/quakes-2m", "receive/quakes-200k",
               "send/quakes-200k"],
     "original": "no 2010 figure: the lab's own question, what the "
                 "passes over a message larger than L2 cost "
                 "(docs/measuring.md, \"Bytes touched and cache "
                 "misses\")"},
    {"title": "the socket-read stall: a request body read until end of "
              "stream",
     "axis": "read", "old": "eof", "kind": "load",
     "original": "from zero to 300 ms of stall per request; 3 requests/s "
                 "where GLUE served 100-500"},
]


# The scenarios over HTTP: the run's, else the committed `make scenarios`.
over_http = http_findings.over_http


def measured(run, old, new, case):
    """(old's entry, new's entry, their Spread) on case: over the pair's
    rounds (rounds.py) when it has them, each time the median over the
    rounds and the interval where one more round lands; else from the
    two variants' own runs, the interval over their repetitions."""
    sp = run.round_spread(old, new, case)
    if sp is not None:
        return run.round_entries(old, new, case) + (sp,)
    return (run.entry(old, case), run.entry(new, case),
            run.spread(old, new, case))


def old_new(to, tn, sp):
    """The old / new a table shows: the median of the rounds' ratios
    when sp is over rounds, else the ratio of the two median times."""
    return ratio(sp.ratio, 1) if isinstance(sp, spread.Rounds) \
        else ratio(to, tn)


def share(old, new):
    return f"{round(100 * (old - new) / old):d}%" if old else "-"


def per_request(b, case, per):
    """Time per request in us.  A tokens/<R> case runs R requests per
    iteration (its `requests` counter, or its name, says R); a
    tokens_lookup/<R> iteration is one request's store work (per =
    "iteration")."""
    if per == "iteration":
        return us(b)
    n = b.get("requests") or int(case.rsplit("/", 1)[1])
    return us(b) / n


def filtered(cmd, cases):
    """The recorded command narrowed to cases, with no output file."""
    # compare.sh quotes a word with shell metacharacters ('--x=^(a|b)$').
    words = [w for w in cmd.split(" ")
             if not w.lstrip("'").startswith(("--benchmark_out=",
                                  "--benchmark_out_format=",
                                  "--benchmark_filter="))]
    pat = "|".join(re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", c)
                   for c in cases)
    return " ".join(words) + f" --benchmark_filter='^({pat})$'"


def commands(run, variants, cases, pairs=()):
    """The commands behind a finding's numbers: each variant's own run,
    then the rounds of its pairs (rounds.py) where it has them, else
    the variants' commands narrowed to the finding's cases."""
    lines = ["Each variant's own run (memory, and the times of a pair "
             "without rounds):", ""]
    for v in variants:
        cmd = run.commands.get(v)
        lines.append(f"- {v}: `{cmd}`" if cmd else
                     f"- {v}: (no command recorded)")
    measured = [p for p in pairs if run.round_commands.get(round_key(*p))]
    if measured:
        lines += ["", "The rounds: in each, the two commands of each pair "
                  "one right after the other (the order turning each "
                  "round); `make recheck` runs one more round "
                  "(RUN= this run's folder):", ""]
        for old, new in measured:
            lines += [f"- `{run.round_commands[round_key(old, new, v)]}`"
                      for v in (old, new)]
        return lines
    lines += ["", "Just these cases again:", ""]
    for v in variants:
        cmd = run.commands.get(v)
        if cmd:
            lines.append(f"- `{filtered(cmd, cases)}`")
    return lines


def round_key(old, new, variant=None):
    """alternate/commands.tsv's name of variant's command (old's by
    default) in the first round of the pair old / new."""
    return f"{old}..{new}/{variant or old}.1"


def headline(ratio, sp, case, what):
    """The summary table's cell: the ratio with its interval, or "no
    measurable difference" when the interval holds 1."""
    if sp is None or sp.low is None:
        why = sp.verdict() if sp else "no repetitions"
        return f"{ratio}x ({what}, {case}; {why})"
    if not sp.measured():
        return (f"no measurable difference ({what}, {case}: "
                f"{ratio}x, interval {sp.interval()})")
    return f"{ratio}x, interval {sp.interval()} ({what}, {case})"


def memory_cells(bo, bn):
    """Bytes per element and peak heap of old and new, where counted."""
    def one(b, key):
        x = b.get(key)
        if x is None:
            return "-"
        return num(x) if key == "bytes_per_element" \
            else count(x)
    return [one(bo, "bytes_per_element"), one(bn, "bytes_per_element"),
            one(bo, "peak_bytes"), one(bn, "peak_bytes")]


def no_pair(f):
    """The finding's result when the run has no pair for it."""
    other = (f" and the other `{f['axis']}={f['new']}`"
             if f.get("new") else "")
    return NOT_MEASURED, [
        f"{NOT_MEASURED}: no two variants of this run differ only in "
        f"`{f['axis']}` with one of them `{f['axis']}={f['old']}`{other}."]


def ratio_finding(run, f):
    """(headline, detail lines) for an old/new ratio on each case."""
    pairs = run.pairs(f["axis"], f["old"], f.get("new"))
    if not pairs:
        return no_pair(f)
    head = ["case", "old", "new", "old us", "new us", "old / new",
            "interval", "p", "verdict", "share of old"]
    ic = any(run.icounts.get(v) for p in pairs for v in p)
    if ic:
        head.append("instr old / new")
    if f.get("per_mb"):
        head += ["old ms/MB", "new ms/MB"]
        if ic:
            head += ["old instr/MB", "new instr/MB"]
    if f.get("memory"):
        head += ["old B/elem", "new B/elem", "old peak", "new peak"]
    rows, first, used = [], None, []
    for old, new in pairs:
        for c in f["cases"]:
            bo, bn, sp = measured(run, old, new, c)
            if bo is None or bn is None:
                continue
            to, tn = us(bo), us(bn)
            cells = [c, f"{f['axis']}={run.axes[old][f['axis']]} ({old})",
                     f"{f['axis']}={run.axes[new][f['axis']]} ({new})",
                     num(to), num(tn),
                     old_new(to, tn, sp),
                     sp.interval() if sp else "-",
                     f"{sp.p:.3f}" if sp and sp.p is not None else "-",
                     sp.verdict() if sp else "no repetitions",
                     share(to, tn)]
            ir = None
            if ic:
                ir = ratio(run.icounts[old].get(c),
                             run.icounts[new].get(c))
                cells.append(ir)
            if f.get("per_mb"):
                cells += per_mb_cells(run, (old, bo), (new, bn), c, ic)
            if f.get("memory"):
                cells += memory_cells(bo, bn)
            rows.append(cells)
            used += [v for v in (old, new) if v not in used]
            if first is None:
                what = (f"{run.axes[old][f['axis']]} / "
                        f"{run.axes[new][f['axis']]}")
                first = headline(old_new(to, tn, sp), sp, c, what)
                if ir not in (None, "-"):
                    first += f"; instructions {ir}x"
                if f.get("per_mb"):
                    first += per_mb_headline(run, (old, bo), (new, bn), c)
                if f.get("memory"):
                    first += memory_headline(run, old, new, f["cases"])
    if not rows:
        return NOT_MEASURED, [
            f"{NOT_MEASURED}: the pair "
            + ", ".join(f"{o} / {n}" for o, n in pairs)
            + " ran, but none of " + ", ".join(f["cases"]) + "."]
    lines = table(head, rows)
    lines += commands(run, used, f["cases"], pairs)
    return first, lines


def per_mb(run, variant, b, case):
    """(CPU ms, instructions or None) per MB of the case's input."""
    n = input_bytes(b)
    if not n:
        return None, None
    ir = run.icounts.get(variant, {}).get(case)
    return (us(b) * 1e3 / n,
            None if ir is None else ir * 1e6 / n)


def per_mb_cells(run, old, new, case, ic):
    """old's and new's ms per MB, then instructions per MB when counted;
    old and new are (variant, entry)."""
    o, n = per_mb(run, *old, case), per_mb(run, *new, case)
    cells = [num(o[0]), num(n[0])]
    if ic:
        cells += [count(o[1]), count(n[1])]
    return cells


def per_mb_headline(run, old, new, case):
    o, n = per_mb(run, *old, case), per_mb(run, *new, case)
    line = (f"; {num(o[0])} against {num(n[0])} ms per MB"
            if o[0] is not None and n[0] is not None else "")
    if o[1] is not None and n[1] is not None:
        line += (f", {count(o[1])} against {count(n[1])} "
                 "instructions per MB")
    return line


def memory_headline(run, old, new, cases):
    """Bytes per element of the two trees, from the finding's first case
    that counts them, else a parse."""
    parses = sorted(c for c in run.rows.get(old, {})
                    if c.startswith("parse/"))
    for c in cases + parses:
        bo, bn = run.entry(old, c), run.entry(new, c)
        if bo and bn and bo.get("bytes_per_element") and \
                bn.get("bytes_per_element"):
            return (f"; {num(bo['bytes_per_element'])} against "
                    f"{num(bn['bytes_per_element'])} bytes per "
                    f"element ({c})")
    return ""


def request_counts(run, variants, prefix):
    """Every R the run measured <prefix>/<R> at for all the variants."""
    rs = set()
    for v in variants:
        for c in run.rows.get(v, {}):
            head, _, r = c.rpartition("/")
            if head == prefix and r.isdigit():
                rs.add(int(r))
    return sorted(r for r in rs
                  if all(run.entry(v, f"{prefix}/{r}") for v in variants))


def tokens_finding(run, f):
    """Time per request at the fewest and the most requests, per choice,
    then per R: each choice's time per request and old / new."""
    pairs = run.pairs(f["axis"], f["old"])
    if not pairs:
        return no_pair(f)
    lo, hi = f["cases"]
    per = f.get("per", "request")
    # Whole requests are milliseconds; the store's work alone microseconds.
    unit, scale = ("us", 1.0) if per == "iteration" else ("ms", 1e3)
    head = ["variant", f"{lo} {unit}/request", f"{hi} {unit}/request",
            "growth"]
    rows, parts, used = [], [], []
    for old, new in pairs:
        lows, highs = measured(run, old, new, lo), measured(run, old, new, hi)
        for v, bl, bh in zip((old, new), lows, highs):
            if bl is None or bh is None or v in used:
                continue
            pl = per_request(bl, lo, per) / scale
            ph = per_request(bh, hi, per) / scale
            choice = f"{f['axis']}={run.axes[v][f['axis']]}"
            rows.append([f"{choice} ({v})", num(pl),
                         num(ph), ratio(ph, pl)])
            parts.append(f"{choice}: {num(pl)} -> "
                         f"{num(ph)} {unit} per request "
                         f"(x{ratio(ph, pl)})")
            used.append(v)
    if not rows:
        return NOT_MEASURED, [
            f"{NOT_MEASURED}: the pair "
            + ", ".join(f"{o} / {n}" for o, n in pairs)
            + f" ran, but not both {lo} and {hi}."]
    lines = [f["model"], ""] if "model" in f else []
    lines += table(head, rows)
    lines += per_r_table(run, pairs, lo.rsplit("/", 1)[0], per, unit,
                         scale)
    lines += commands(run, used, f["cases"], pairs)
    return "; ".join(parts), lines


def per_r_table(run, pairs, prefix, per, unit, scale):
    """Every R this run measured, each pair's time per request (and
    instructions per request when counted) and old / new."""
    lines = []
    for old, new in pairs:
        rs = request_counts(run, (old, new), prefix)
        if not rs:
            continue
        ic = run.icounts.get(old) and run.icounts.get(new)
        head = ["R", f"{old} {unit}/request", f"{new} {unit}/request",
                "old / new", "interval", "verdict"]
        if ic:
            head += ["old instr/request", "new instr/request",
                     "instr old / new"]
        rows = []
        for r in rs:
            c = f"{prefix}/{r}"
            bo, bn, sp = measured(run, old, new, c)
            to = per_request(bo, c, per) / scale
            tn = per_request(bn, c, per) / scale
            cells = [f"{r:,}", num(to), num(tn),
                     old_new(to, tn, sp), sp.interval() if sp else "-",
                     sp.verdict() if sp else "no repetitions"]
            if ic:
                n = 1 if per == "iteration" else r
                io, inew = run.icounts[old].get(c), run.icounts[new].get(c)
                cells += [num(io / n) if io else "-",
                          num(inew / n) if inew else "-",
                          ratio(io, inew)]
            rows.append(cells)
        lines += [f"Every R this run measured, {old} against {new}:", ""]
        lines += table(head, rows)
    return lines


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + [""]


def intro(run):
    """What the columns are, for runs with rounds and without."""
    text = ("Each historical finding beside what this run measured for "
            "it: two variants that differ in that finding's axis alone, "
            "the old choice against the newer one, on the same cases.  "
            "share of old = (old - new) / old, the part of the old "
            "variant's time the choice costs, which is what the original "
            "percentages measure; instr old / new (with ICOUNT=1), the "
            "ratio no load moves.  ")
    if run.rounds:
        k = max(len(r) for r in run.rounds.values())
        text += (f"The times are measured in {k} rounds (ALTERNATE=K, "
                 "harness/reports/rounds.py): in each round, the two "
                 "variants' commands, narrowed to the pair's cases, ran "
                 "one right after the other, so drift between runs "
                 "minutes apart stays out of a round's ratio.  old us and "
                 "new us are the medians over the rounds of each round's "
                 "median CPU time; old / new, the median of the rounds' "
                 "ratios.  interval: where one more round's ratio lands "
                 "99 times in 100 (a prediction interval over the rounds' "
                 "logarithms, harness/reports/spread.py), which `make "
                 "recheck` checks.  verdict: old slower or old faster "
                 "when the 95% confidence interval of the rounds' mean "
                 "ratio excludes 1, else \"no measurable difference\"; p "
                 "(a rank test within one pair of processes) does not "
                 "apply.  ")
        text += rounds_context(run.dir)
        if run.rechecks:
            kept = ("1 of the rounds is a recheck" if run.rechecks == 1
                    else f"{run.rechecks} of the rounds are rechecks")
            text += (f"{kept} kept since (`make recheck KEEP=1`, "
                     "recheck.md), hours or days after the run, so the "
                     "intervals hold that drift too.  ")
    text += ("A pair without rounds compares the two variants' own runs, "
             "minutes apart: the ratio of their median CPU times, its "
             "interval over their repetitions (Hodges-Lehmann, exact "
             "Mann-Whitney bounds) and p, the two-sided Mann-Whitney U "
             "test.  That interval leaves out drift of the machine "
             "between the two runs, so a rerun can land outside it.  "
             "summary.md has every case; results/README.md explains the "
             "columns.\n")
    return text


def rounds_context(rundir):
    """alternate/rounds.txt as a sentence: on which commit, and when and
    at which load average the rounds started."""
    kv = read_facts(os.path.join(rundir, "alternate", "rounds.txt"))
    if not kv:
        return ""
    starts = [kv[k] for k in sorted((k for k in kv if k.startswith("round ")),
                                    key=lambda k: int(k.split()[1]))]
    if not starts:
        # Rounds run one after the other: one start for all.
        return (f"The rounds started {kv.get('started', '?')} on commit "
                f"{kv.get('commit', '?')}, at load average "
                f"{kv.get('load average', '?')}.  ")
    return (f"The rounds ran on commit {kv.get('commit', '?')}, spread "
            "across the run; each started at: "
            + "; ".join(s.replace(" load average ", " (load average ")
                        + ")" for s in starts) + ".  ")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--cases", default="")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()

    run = Run(a.dir, a.runs)
    name = run_name(a.dir)
    results = []
    for f in FINDINGS:
        if f.get("kind") == "load":
            # Measured over HTTP (harness/reports/load.sh), not by a case.
            results.append(loadreport.stall_finding(a.dir))
            continue
        fn = tokens_finding if f.get("kind") == "tokens" else ratio_finding
        headline, lines = fn(run, f)
        # A FULL run's scenarios through the endpoint join their finding.
        part, more = over_http(a.dir, f)
        results.append((headline + part, lines + more))

    print(f"# Findings of run {name}\n")
    print(intro(run))
    if a.cases:
        print(f"This run measured only the cases matching `{a.cases}` "
              "(CASES): a finding whose cases did not run says "
              f"\"{NOT_MEASURED}\".\n")
    rows = []
    for f, (headline, _) in zip(FINDINGS, results):
        rows.append([f["title"], f"`{f['axis']}`", f["original"], headline])
    print("\n".join(table(["finding", "axis", "original report",
                           "domlab, this run"], rows)))
    for i, (f, (_, lines)) in enumerate(zip(FINDINGS, results), 1):
        print(f"## {i}. {f['title']}\n")
        print(f"Axis `{f['axis']}`, old choice `{f['old']}`; original "
              f"report: {f['original']}.\n")
        print("\n".join(lines))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
