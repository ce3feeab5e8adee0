#!/usr/bin/env python3
"""profile_diff_report.py - writes report.md for two variants profiled on
one case (harness/reports/profile_diff.sh): the instructions per iteration
of each, the functions ranked by their difference in inclusive and in self
instructions with their share of each side, the pipeline stages and DOM
functions that account for the difference, gperftools' diff profile
(pprof --base), and the two flame graphs.

Standard library only; reads callgrind_annotate's text with
profile_report.py's reader.  Not for: one variant's profile
(profile_report.py).
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_report import DOM, STAGES, annotate_costs  # noqa: E402

TOP = 20
# A frame that holds this share of the case on both sides is the case
# itself (icount_loop, the run function, the stage's entry point): it
# would top the inclusive ranking with the whole difference and say
# nothing about where it comes from.
ENCLOSING = 0.99


def totals(path):
    """The Ir callgrind collected (its "totals:" line)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    return 0


def pct(x, total):
    return f"{100.0 * x / total:.1f}%" if total else "-"


def signed(x):
    return f"{x:+,}"


def side(d, name, iters):
    total = totals(os.path.join(d, f"{name}.callgrind.out"))
    incl = annotate_costs(os.path.join(d, f"{name}.inclusive.txt"))
    self_ = annotate_costs(os.path.join(d, f"{name}.self.txt"))
    per = {k: v // iters for k, v in incl.items()}
    own = {k: v // iters for k, v in self_.items()}
    return total // iters, per, own


def ranked(a, b, leave_out=()):
    """Rows of (name, a, b, diff), largest |diff| first."""
    names = (set(a) | set(b)) - set(leave_out)
    rows = [(n, a.get(n, 0), b.get(n, 0)) for n in names]
    rows = [(n, x, y, y - x) for n, x, y in rows if x != y]
    rows.sort(key=lambda r: (-abs(r[3]), r[0]))
    return rows[:TOP]


def fn_table(title, note, rows, ta, tb, names):
    out = [f"## {title}", "", note, "",
           f"| function | {names[0]} Ir/iter | share | {names[1]} Ir/iter "
           "| share | B - A | share of the difference |",
           "|---|---|---|---|---|---|---|"]
    diff = tb - ta
    for n, x, y, d in rows:
        out.append(f"| `{n}` | {x:,} | {pct(x, ta)} | {y:,} | {pct(y, tb)} "
                   f"| {signed(d)} | {pct(d, diff)} |")
    if not rows:
        out.append("| (no function differs) | | | | | | |")
    return out + [""]


def stage_table(ia, ib, ta, tb, names):
    out = ["## Pipeline stages and DOM functions", "",
           "Inclusive instructions per iteration of the stages and DOM "
           "calls profile_report.py follows (nested rows overlap): which "
           "of them the difference lies in.", "",
           f"| function | what | {names[0]} Ir/iter | {names[1]} Ir/iter "
           "| B - A | share of the difference |", "|---|---|---|---|---|---|"]
    diff = tb - ta
    for fn, what in STAGES + DOM:
        x, y = ia.get(fn, 0), ib.get(fn, 0)
        if x == 0 and y == 0:
            continue
        out.append(f"| `{fn}` | {what} | {x:,} | {y:,} | {signed(y - x)} "
                   f"| {pct(y - x, diff)} |")
    return out + [""]


def pprof_rows(path):
    """{function: (flat, cum)} from `pprof --text --base` output, the
    copies pprof tells apart by address ("subtree@213f0": the same name in
    A's binary and in B's) added up: no stack holds frames of both, so
    the sums are B's samples less A's."""
    rows = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 6 or not parts[1].endswith("%"):
                continue
            name = re.sub(r"@[0-9a-f]+$", "", " ".join(parts[5:]))
            flat, cum = rows.get(name, (0, 0))
            rows[name] = (flat + int(parts[0]), cum + int(parts[3]))
    return rows


def pprof_section(d, names):
    path = os.path.join(d, "pprof-diff.txt")
    out = ["## gperftools: B with A subtracted (pprof --base)", ""]
    if not os.path.exists(path):
        return out + ["gperftools is not installed (google-perftools, "
                      "libgoogle-perftools-dev: `.ci/deps.sh profile`), so "
                      "there is no sampled diff.", ""]
    def number(name):
        with open(os.path.join(d, name), encoding="utf-8") as f:
            return int(f.read().strip() or 0)

    n, sa, sb = number("sample-iterations"), number("a.samples"), \
        number("b.samples")
    rows = sorted(pprof_rows(path).items(),
                  key=lambda kv: (-abs(kv[1][0]), kv[0]))[:TOP]
    out += [f"Both sides sampled by gperftools' CPU profiler over the same "
            f"{n:,} runs of the case, stacks under `icount_loop` only: "
            f"{sa:,} samples of {names[0]}, {sb:,} of {names[1]}.  "
            "`google-pprof --text --focus=icount_loop --base=a.raw b.raw` "
            "(pprof-diff.txt), each function's copies in the two binaries "
            "added up; negative: samples "
            f"{names[1]} saves.  Sampled, so small rows are noise; the "
            "instruction counts above are exact.", "",
            "| function | B - A own samples | B - A with callees | "
            "own, share of A's samples |", "|---|---|---|---|"]
    for name, (flat, cum) in rows:
        out.append(f"| `{name}` | {flat:+,} | {cum:+,} | {pct(flat, sa)} |")
    return out + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--iterations", type=int, required=True)
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()

    names = (a.a, a.b)
    ta, ia, sa = side(a.dir, "a", a.iterations)
    tb, ib, sb = side(a.dir, "b", a.iterations)
    if ta == 0 or tb == 0:
        print("profile_diff_report: a callgrind total is missing",
              file=sys.stderr)
        return 1
    enclosing = sorted(n for n in set(ia) & set(ib)
                       if ia[n] >= ENCLOSING * ta and ib[n] >= ENCLOSING * tb)
    out = [f"# profile-diff: `{a.case}`, A = `{a.a}`, B = `{a.b}`", "",
           f"Instructions counted by callgrind inside `icount_loop` "
           f"(`domlab-bench bench --icount {a.case}`: {a.iterations} calls "
           "of the case's run function after one untimed call; set-up, "
           "data generation and Google Benchmark left out).", "",
           "| variant | Ir per iteration |", "|---|---|",
           f"| A `{a.a}` | {ta:,} |", f"| B `{a.b}` | {tb:,} |",
           f"| B - A | {signed(tb - ta)} ({tb / ta:.2f} x A) |", ""]
    out += fn_table(
        "Functions by difference in inclusive instructions",
        "A function with what it calls, per iteration; share: of that "
        "side's case.  Left out as the case itself (over "
        f"{100 * ENCLOSING:.0f}% of it on both sides): "
        + (", ".join(f"`{n}`" for n in enclosing) or "none") + ".",
        ranked(ia, ib, enclosing), ta, tb, names)
    out += fn_table(
        "Functions by difference in self instructions",
        "Instructions in the function's own code, per iteration.",
        ranked(sa, sb), ta, tb, names)
    out += stage_table(ia, ib, ta, tb, names)
    out += pprof_section(a.dir, names)
    out += ["## Flame graphs", ""]
    if os.path.exists(os.path.join(a.dir, "a.flame.svg")):
        out += [f"gperftools' stacks, drawn by harness/reports/flamegraph.py: "
                f"[A {a.a}](a.flame.svg), [B {a.b}](b.flame.svg).", ""]
    else:
        out += ["None: they are drawn from gperftools' samples.", ""]
    out += ["Files: `a.callgrind.out`, `b.callgrind.out` (kcachegrind, "
            "callgrind_annotate), `*.inclusive.txt`, `*.self.txt`, "
            "`a.prof`, `b.prof`."]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
