#!/usr/bin/env python3
"""readme_results.py - writes the README's results table, between the
<!-- results:begin --> and <!-- results:end --> markers, from a run's
summary.json (harness/reports/summary.py writes it; `make reference` runs this
on results/reference/).  Everything else in the README is left as it is.

Not for: making or judging measurements; the table only restates the
run's own numbers.  Standard library only (and summary.py's format).

    python3 harness/reports/readme_results.py [--run results/reference] [--readme README.md]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summary import num  # noqa: E402  (summary.md's number format)

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"
PARSE_LABELS = [("best", "best (insitu parser)"),
                ("pugixml", "pugixml"),
                ("xerces", "xerces (libxml2 SAX, tree built directly)"),
                ("doom2010", "doom2010"),
                ("ref", "libxml2's own tree (xmlReadMemory)")]


def ratio(a, b):
    return num(a / b) if a and b else "-"


def size(n):
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB"


def pipeline_table(nums):
    rows = {}
    for r in nums["pipeline"]:
        rows.setdefault(r["dataset"], {})[r["stage"]] = r
    if not rows:
        return []
    icount = nums["instructions"]
    head = ["message", "stage", "best us", "ref us", "ref / best",
            "best / floor"]
    # The gSOAP peer's columns, when the run measured it.
    gsoap = any(r.get("gsoap") for r in nums["pipeline"])
    if gsoap:
        head += ["gsoap us", "gsoap / best"]
    if icount:
        head.append("instructions ref / best")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for d, stages in rows.items():
        for s in ("send", "receive"):
            r = stages.get(s)
            if r is None:
                continue
            cells = [f"{d} ({size(r['bytes'])})" if s == "send" else "",
                     s, num(r["best"]), num(r["ref"]),
                     ratio(r["ref"], r["best"]),
                     ratio(r["best"], r["floor"])]
            if gsoap:
                cells += [num(r.get("gsoap")), ratio(r.get("gsoap"), r["best"])]
            if icount:
                cells.append(ratio(r["ref_instr"], r["best_instr"]))
            out.append("| " + " | ".join(cells) + " |")
    paired = all(r["paired"] for r in nums["pipeline"])
    how = ("best, ref and the floor measured in one process, their "
           "repetitions interleaved at random (the paired run)" if paired
           else "each stack in a process of its own")
    out += ["", f"Median CPU time per message, {how}; ref / best: how "
            "many times faster best is than libxml2 + xmlsec1; best / "
            "floor: how far above the cryptography alone."
            + (" Instructions: callgrind, per message." if icount else "")
            + (" gsoap: gSOAP 2.8's wsse plugin, same keys and parts, but "
               "RSA PKCS#1 v1.5 key transport where the others use "
               "RSA-OAEP (docs/measuring.md)." if gsoap else "")]
    return out


def parse_table(nums):
    by = {}
    for r in nums["parse"]:
        by.setdefault(r["dataset"], {})[r["label"]] = r
    sets = [d for d in by if d.startswith("quakes-")]
    if not sets:
        return []
    d = max(sets, key=lambda x: by[x].get("best", {}).get("us", 0))
    out = ["", f"Parsing {d} into a tree and freeing it:", "",
           "| parser | time us | bytes per element |", "|---|---|---|"]
    for label, name in PARSE_LABELS:
        r = by[d].get(label)
        if r is not None:
            out.append(f"| {name} | {num(r['us'])} | "
                       f"{num(r['bytes_per_element'])} |")
    return out


def block(run_dir):
    path = os.path.join(run_dir, "summary.json")
    if not os.path.exists(path):
        return ["No reference run is committed yet: `make reference` "
                "makes one."]
    with open(path, encoding="utf-8") as f:
        nums = json.load(f)
    lines = [f"Run `{nums['run']}` (commit {nums['commit']}, "
             f"{nums['mode']} mode), written by "
             "`harness/reports/readme_results.py`.", ""]
    lines += pipeline_table(nums)
    lines += parse_table(nums)
    return lines


def write_between(path, begin, end, lines, who):
    """Replaces what lies between path's one begin and one end marker
    with lines; 1 (and a message naming who) when the markers are not
    there once each, in order."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.count(begin) != 1 or text.count(end) != 1 or \
            text.index(begin) > text.index(end):
        print(f"{who}: {path} needs one {begin} before one {end}",
              file=sys.stderr)
        return 1
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    new = head + begin + "\n" + "\n".join(lines) + "\n" + end + tail
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", default="results/reference")
    ap.add_argument("--readme", default="README.md")
    a = ap.parse_args()
    return write_between(a.readme, BEGIN, END, block(a.run),
                         "readme_results")


if __name__ == "__main__":
    sys.exit(main())
