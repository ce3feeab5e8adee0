#!/usr/bin/env python3
"""profile_record.py - the memory traffic of the profiled cases kept under
a results folder (`make profile` with RUN_ID set: each case's traffic.json
and run.txt, harness/reports/profile.sh) as tables in docs/measuring.md,
between the <!-- profile:begin --> and <!-- profile:end --> markers.
Everything else in the doc is left as it is.  --check: exit 1 when the
doc's tables are not what the folder makes.

Not for: measuring (profile.sh does).  Standard library only.

    python3 harness/reports/profile_record.py [--record results/profile]
        [--doc docs/measuring.md] [--check]
"""
import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from passes import OTHER, PASSES  # noqa: E402
from readme_results import write_between  # noqa: E402

BEGIN = "<!-- profile:begin -->"
END = "<!-- profile:end -->"


def read_record(record):
    """[(traffic, run, folder)] in order of variant, input size, stage
    (send before receive)."""
    out = []
    for path in glob.glob(os.path.join(record, "profiles", "*", "*",
                                       "traffic.json")):
        folder = os.path.dirname(path)
        with open(path, encoding="utf-8") as f:
            t = json.load(f)
        run = {}
        with open(os.path.join(folder, "run.txt"), encoding="utf-8") as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition(" ")
                run[k] = v
        out.append((t, run, folder))
    stage = {"send": 0, "receive": 1}
    out.sort(key=lambda r: (r[0]["variant"], r[0]["bytes"],
                            stage.get(r[0]["case"].split("/")[0], 2),
                            r[0]["case"]))
    return out


def run_text(runs):
    """'commit C, DATE, load average L' for one run; for several, the
    commits, the first and last date and the range of 1-minute loads."""
    if len(runs) == 1:
        r = runs[0]
        return f"commit {r['commit']}, {r['date']}, load average {r['load']}"
    commits = ", ".join(sorted({r["commit"] for r in runs}))
    dates = sorted(r["date"] for r in runs)
    loads = sorted(float(r["load"].split()[0]) for r in runs)
    return (f"commit {commits}, {dates[0]} to {dates[-1]}, 1-minute load "
            f"average {loads[0]:.2f} to {loads[-1]:.2f}")


def block(record, rel):
    rows = read_record(record)
    if not rows:
        raise ValueError(f"{record}: no profiles/*/*/traffic.json")
    where = run_text([r for _, r, _ in rows])
    caches = rows[0][0]["caches"]
    head = [f"`{t['case']}` ({t['variant']})" for t, _, _ in rows]
    out = [f"Written by `harness/reports/profile_record.py` from "
           f"[{rel.lstrip('./')}/]({rel}/) (`make profile` with `RUN_ID`, "
           f"{where}; "
           f"valgrind's counts do not depend on the load). Per byte of "
           f"the input, per iteration; caches simulated: D1 "
           f"{caches.get('D1', '?')}, LL {caches.get('LL', '?')}.", "",
           "| case | input | Ir/B | D1 misses/B | LL misses/B "
           "| bytes into D1 per byte | bytes into LL per byte "
           "| heap read/B | heap written/B |",
           "|---|---|---|---|---|---|---|---|---|"]
    for (t, _, folder), name in zip(rows, head):
        p, h = t["passes"]["total"], t.get("heap", {})
        link = os.path.join(rel, os.path.relpath(folder, record),
                            "profile.md")
        out.append(
            f"| [{name}]({link}) | {t['bytes']:,} B | {p['Ir']:.1f} | "
            f"{p['D1']:.4f} | {p['LL']:.4f} | {p['D1_bytes']:.2f} | "
            f"{p['LL_bytes']:.2f} | {h.get('read', 0):.2f} | "
            f"{h.get('written', 0):.2f} |")
    out += ["", "Bytes into D1 / bytes into LL per input byte, by pass:", "",
            "| pass | " + " | ".join(head) + " |",
            "|---|" + "---|" * len(head)]
    for name in [n for _, n in PASSES] + [OTHER]:
        cells = []
        for t, _, _ in rows:
            p = t["passes"].get(name)
            cells.append("-" if p is None else
                         f"{p['D1_bytes']:.2f} / {p['LL_bytes']:.2f}")
        if any(c != "-" for c in cells):
            out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out + [""] + beyond_ll(rows)


def beyond_ll(rows, least=0.5):
    """A line per stage at its largest input: the bytes from beyond LL
    per input byte, and the passes that brought at least least of them,
    most first."""
    largest = {}
    for t, _, _ in rows:
        key = (t["variant"], t["case"].split("/")[0])
        if key not in largest or t["bytes"] > largest[key]["bytes"]:
            largest[key] = t
    out = []
    for t in largest.values():
        p = t["passes"]
        big = sorted(((v["LL_bytes"], name) for name, v in p.items()
                      if name != "total" and v["LL_bytes"] >= least),
                     reverse=True)
        out.append(f"- `{t['case']}` ({t['variant']}): "
                   f"{p['total']['LL_bytes']:.2f} bytes from beyond LL "
                   "per input byte; " +
                   ", ".join(f"{name} {v:.2f}" for v, name in big) + ".")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", default="results/profile")
    ap.add_argument("--doc", default="docs/measuring.md")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    rel = os.path.relpath(a.record, os.path.dirname(os.path.abspath(a.doc)))
    try:
        lines = block(a.record, rel)
    except (OSError, ValueError, KeyError) as e:
        print(f"profile_record: {e}", file=sys.stderr)
        return 1
    if not a.check:
        return write_between(a.doc, BEGIN, END, lines, "profile_record")
    with open(a.doc, encoding="utf-8") as f:
        text = f.read()
    want = BEGIN + "\n" + "\n".join(lines) + "\n" + END
    if want not in text:
        print(f"profile_record: {a.doc}'s tables are not what {a.record} "
              "makes (run it without --check)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
