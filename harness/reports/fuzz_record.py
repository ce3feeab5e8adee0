#!/usr/bin/env python3
"""fuzz_record.py - writes the fuzzing record (results/fuzz/record.md), between the
<!-- fuzz-record:begin --> and <!-- fuzz-record:end --> markers, from
results/fuzz/: runs.tsv (a line per campaign run, tests/fuzz/campaign.sh)
and corpus.tsv (a line per replayed committed corpus, tests/fuzz/replay.sh).
Per target and variant: the CPU time and executions summed over its runs,
the last run's coverage, and whether the CPU-hour a campaign is meant to
reach has been; per target, its committed corpus as last replayed.

Not for: running or judging campaigns; the tables only restate the
files.  Standard library only.

    python3 harness/reports/fuzz_record.py [--record results/fuzz] [--doc results/fuzz/record.md] [--check]
"""
import argparse
import csv
import os
import sys

BEGIN = "<!-- fuzz-record:begin -->"
END = "<!-- fuzz-record:end -->"
HOUR = 3600


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def variant_key(v):
    return (v != "best", v)


def campaigns(runs):
    """Per (target, variant), in file order: sums and the last run."""
    out = {}
    for r in runs:
        k = (r["target"], r["variant"])
        c = out.setdefault(k, {"cpu": 0, "execs": 0, "crashes": 0})
        c["cpu"] += int(r["cpu_s"])
        c["execs"] += int(r["executions"])
        c["crashes"] += r["outcome"] in ("crash", "timeout")
        c["cov"], c["ft"] = r["cov"], r["ft"]
    return out


def campaign_table(runs, targets):
    c = campaigns(runs)
    # A target not yet fuzzed on best shows as such.
    for t in targets:
        c.setdefault((t, "best"), {"cpu": 0, "execs": 0, "crashes": 0,
                                   "cov": "-", "ft": "-"})
    lines = ["| target | variant | CPU time | executions | last run: cov / ft "
             "| the CPU-hour | runs ended by a finding |",
             "|---|---|---|---|---|---|---|"]
    for t, v in sorted(c, key=lambda k: (k[0], variant_key(k[1]))):
        x = c[(t, v)]
        lines.append(f"| `{t}` | {v} | {x['cpu']} s | {x['execs']} | "
                     f"{x['cov']} / {x['ft']} | "
                     f"{'reached' if x['cpu'] >= HOUR else 'not yet'} | "
                     f"{x['crashes']} |")
    return lines


def corpus_table(corpora):
    lines = ["| target | inputs | replayed on | cov / ft | at commit |",
             "|---|---|---|---|---|"]
    for r in sorted(corpora, key=lambda r: (r["target"],
                                            variant_key(r["variant"]))):
        lines.append(f"| `{r['target']}` | {r['inputs']} | {r['variant']} | "
                     f"{r['cov']} / {r['ft']} | {r['commit']} |")
    return lines


def render(record):
    runs = rows(os.path.join(record, "runs.tsv"))
    corpora = rows(os.path.join(record, "corpus.tsv"))
    text = ["Campaigns, summed over every run of a target on a variant "
            "(`results/fuzz/runs.tsv`):", ""]
    text += campaign_table(runs, {r["target"] for r in corpora})
    text += ["", "The committed corpora, each replayed once "
             "(`results/fuzz/corpus.tsv`):", ""]
    text += corpus_table(corpora)
    return "\n".join(text) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--record", default="results/fuzz")
    ap.add_argument("--doc", default="results/fuzz/record.md")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if the document is not what the files make")
    a = ap.parse_args()
    with open(a.doc) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"{a.doc}: no {BEGIN} ... {END} markers")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + render(a.record) + END + tail
    if a.check:
        sys.exit(0 if new == doc else f"{a.doc}: the fuzzing record is not "
                 "what results/fuzz/ makes; run make fuzz-record")
    if new != doc:
        with open(a.doc, "w") as f:
            f.write(new)


if __name__ == "__main__":
    main()
