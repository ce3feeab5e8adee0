#!/usr/bin/env python3
"""readme_results.py - writes the README's results tables, between the
<!-- results:begin --> and <!-- results:end --> markers, from a run's
summary.json (harness/reports/summary.py writes it; `make reference` runs this
on results/reference/).  Everything else in the README is left as it is.

The send and receive table is the paired run's (best, ref and the floor
in one process), each ratio with its interval; the two-core table is
best's own run's (send_pipelined, receive_pipelined beside send and
receive).  The parse table compares
like with like: whole trees against whole trees, and a deferred parse
(build=deferred: a check pass, the Body's tree built on first use) as a
row of its own that says so.  --parse-run takes the parse table from
another run's summary.json (a run without parse cases, such as a
CASES-filtered compare), and says so.

Not for: making or judging measurements; the tables only restate the
runs' own numbers.  Standard library only (and run.py's number format).

    python3 harness/reports/readme_results.py [--run results/reference]
        [--parse-run DIR] [--readme README.md]
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import num  # noqa: E402  (summary.md's number format)

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"
# The parse table's rows: label, name, and what the parser builds when
# the label does not say (a preset's choice).
PARSE_LABELS = [("best", "best (insitu parser)"),
                ("best+build=direct", "best+build=direct (insitu parser)"),
                ("pugixml", "pugixml"),
                ("xerces", "xerces (libxml2 SAX, tree built directly)"),
                ("doom2010", "doom2010 (libxml2's tree, then ours)"),
                ("ref", "libxml2's own tree (xmlReadMemory)")]
WHOLE = "the whole tree"
DEFERRED = ("a check pass; the Body's tree is built on first use, so not "
            "a whole tree")


def ratio(a, b):
    return num(a / b) if a and b else "-"


def size(n):
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB"


def with_interval(x, iv):
    """A ratio and its interval, "29.1 (27.5-30.2)"."""
    if x == "-" or not iv:
        return x
    return f"{x} ({num(iv[0])}-{num(iv[1])})"


def pipeline_table(nums):
    pipeline = nums["pipeline"]
    # One source for the table: where the run has a paired run, its rows
    # alone.  A dataset only the separate runs measured (quakes-canon-2m)
    # has its one-thread time in the two-core table.
    if any(r["paired"] for r in pipeline):
        pipeline = [r for r in pipeline if r["paired"]]
    rows = {}
    for r in pipeline:
        rows.setdefault(r["dataset"], {})[r["stage"]] = r
    if not rows:
        return []
    icount = nums["instructions"]
    head = ["message", "stage", "best us", "ref us", "ref / best",
            "best / floor"]
    # The gSOAP peer's columns, when the run measured it.
    gsoap = any(r.get("gsoap") for r in pipeline)
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
                     with_interval(ratio(r["ref"], r["best"]),
                                   r.get("ref_best_interval")),
                     with_interval(ratio(r["best"], r["floor"]),
                                   r.get("best_floor_interval"))]
            if gsoap:
                cells += [num(r.get("gsoap")), ratio(r.get("gsoap"), r["best"])]
            if icount:
                cells.append(ratio(r["ref_instr"], r["best_instr"]))
            out.append("| " + " | ".join(cells) + " |")
    paired = all(r["paired"] for r in pipeline)
    k = min(r.get("processes", 1) for r in pipeline)
    kept = min(r.get("rechecks", 0) for r in pipeline)
    if not paired:
        how = "each stack in a process of its own"
    elif all(r.get("interval_kind") == "prediction" for r in pipeline):
        how = ("best, ref and the floor measured in one process, their "
               "repetitions interleaved at random (the paired run), "
               f"that process run {k} times"
               + (f" ({k - kept} in the run, {kept} by `make recheck "
                  "KEEP=1` since: results/reference/recheck.md)"
                  if kept else "")
               + f"; times are medians over the {k}, and in brackets is "
               "where one more process's ratio lands 99 times in 100 "
               "(`make recheck` runs one)")
    else:
        how = ("best, ref and the floor measured in one process, their "
               "repetitions interleaved at random (the paired run); in "
               "brackets each ratio's interval over that process's "
               "repetitions, which says nothing of another process")
    floor = nums.get("floor")
    what = (f" The send floor is {floor['send']}, the receive floor "
            f"{floor['receive']} (docs/measuring.md)." if floor else "")
    if nums.get("floor_stand_ins"):
        what += " In this run: " + "; ".join(nums["floor_stand_ins"]) + "."
    out += ["", f"Median CPU time per message, {how}; ref / best: how "
            "many times faster best is than libxml2 + xmlsec1; best / "
            "floor: how far above the cryptography alone." + what
            + (" Instructions: callgrind, per message." if icount else "")
            + (" gsoap: gSOAP 2.8's wsse plugin, same keys and parts, but "
               "RSA PKCS#1 v1.5 key transport where the others use "
               "RSA-OAEP (docs/measuring.md)." if gsoap else "")]
    return out


def build_of(row, label):
    """What the row's parser builds: from summary.json, else the
    label's own build=, else the Makefile's preset (the run did not
    record it); None when none says."""
    build = row.get("build")
    if build is None and "build=" in label:
        build = label.split("build=", 1)[1].split("+", 1)[0]
    if build is None and label in ("best", "xerces", "doom2010"):
        try:
            out = subprocess.run(
                ["make", "-s", "--no-print-directory",
                 f"VARIANT={label}", "variant-axes"],
                capture_output=True, text=True, check=True).stdout
            build = dict(w.split("=", 1) for w in out.split()
                         if "=" in w).get("build")
        except (OSError, subprocess.CalledProcessError):
            build = None
        if build is not None:
            row["build_from_makefile"] = True
    return build


def parse_table(nums, source=""):
    by = {}
    for r in nums["parse"]:
        by.setdefault(r["dataset"], {})[r["label"]] = r
    sets = [d for d in by if d.startswith("quakes-")]
    if not sets:
        return []
    d = max(sets, key=lambda x: by[x].get("best", {}).get("us", 0))
    whole, deferred, guessed = [], [], False
    for label, name in PARSE_LABELS:
        r = by[d].get(label)
        if r is None:
            continue
        build = build_of(r, label) if label not in ("pugixml", "ref") \
            else "whole"
        guessed = guessed or r.get("build_from_makefile", False)
        cells = [name, num(r["us"]), num(r["bytes_per_element"])]
        if build == "deferred":
            deferred.append(cells + [DEFERRED])
        else:
            whole.append(cells + [WHOLE])
    out = ["", f"Parsing {d} into a tree and freeing it{source}:", "",
           "| parser | time us | bytes per element | what is built |",
           "|---|---|---|---|"]
    out += ["| " + " | ".join(c) + " |" for c in whole + deferred]
    note = ("Whole trees above"
            + (", then a deferred parse, which does less work and is no "
               "whole-tree time" if deferred else "") + ".")
    if not any(c[0].startswith("best") for c in whole):
        note += (" This run has no whole-tree parse of best's parser "
                 "(best+build=direct).")
    if guessed:
        note += (" The run did not record its variants' build choices; "
                 "they are the presets' as the Makefile defines them.")
    return out + ["", note]


# The dataset whose Body is canonical as it stands (harness/bench/cases.c).
CANON = "quakes-canon-2m"


def two_cores_table(nums):
    """best's one message on two threads (send_pipelined,
    receive_pipelined) beside its one-thread case, from best's own run:
    the wall time and what both threads' CPU costs."""
    rows = nums.get("two_cores") or []
    if not rows:
        return []
    out = ["", "One message on two cores, best (its own run, not the "
           "paired run above: one thread and two interleaved in one "
           "process):", "",
           "| message | stage | one thread us | two threads: wall us "
           "| CPU us | wall / one thread | wall / floor |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['dataset']} | {r['stage']} | {num(r['one'])} "
                   f"| {num(r['wall'])} | {num(r['cpu'])} "
                   f"| {ratio(r['wall'], r['one'])} "
                   f"| {ratio(r['wall'], r['floor'])} |")
    note = ("wall / floor is against the one-thread floor (its own run): "
            "below 1.00 is what no one-thread stack can reach; CPU above "
            "one thread's time is what the second thread costs. Below "
            "256 KB of plaintext receive stays on one thread "
            "(docs/pipeline.md).")
    if any(r["dataset"] == CANON for r in rows):
        note += (f" {CANON} is quakes-2m with each start tag's attributes "
                 "in C14N's order: there the second thread hashes the "
                 "Body's bytes as they stand during the parse, where on "
                 "quakes-2m it follows the parse, which tells it the "
                 "order it puts the attributes in (docs/pipeline.md).")
    return out + ["", note]


def read_nums(run_dir):
    path = os.path.join(run_dir, "summary.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def block(run_dir, parse_dir=None):
    nums = read_nums(run_dir)
    if nums is None:
        return ["No reference run is committed yet: `make reference` "
                "makes one."]
    lines = [f"Run `{nums['run']}` (commit {nums['commit']}, "
             f"{nums['mode']} mode"
             + (", load average at start "
                + " ".join(f"{x:.2f}" for x in nums["load_avg"])
                if nums.get("load_avg") else "")
             + "), written by `harness/reports/readme_results.py`.", ""]
    lines += pipeline_table(nums)
    lines += two_cores_table(nums)
    parse = read_nums(parse_dir) if parse_dir else nums
    if parse is not None:
        source = ("" if parse is nums else
                  f" (run `{parse['run']}`, commit {parse['commit']})")
        lines += parse_table(parse, source)
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
    ap.add_argument("--parse-run", default=None)
    ap.add_argument("--readme", default="README.md")
    a = ap.parse_args()
    return write_between(a.readme, BEGIN, END, block(a.run, a.parse_run),
                         "readme_results")


if __name__ == "__main__":
    sys.exit(main())
