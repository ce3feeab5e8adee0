#!/usr/bin/env python3
"""plots.py - the charts of a compare run, into <run>/plots/:
headline.png (send and receive time against message size for best,
xerces, doom2010, the reference stack and the floor), ablation.png (each
axis flipped from best: its cost, beside the original report's figure)
and memory.png (bytes per element of a tree; peak heap per message byte
of send and receive), and with DATA datafiles.png (datafiles.py).
harness/reports/summary.py calls plots() with its Run.

Not for: tables (summary.py, findings.py) or judging results.  Needs
matplotlib (Debian's python3-matplotlib, /usr/bin/python3).
"""
import os

import datafiles
import findings
import spread
import summary

PRESETS = ["best", "xerces", "doom2010"]
# Colour-blind-safe colours (Okabe-Ito) and a marker per stack, so the
# lines stay apart in grey too.
STYLE = {
    "best": dict(color="#009E73", marker="o", linestyle="-"),
    "xerces": dict(color="#0072B2", marker="s", linestyle="-"),
    "doom2010": dict(color="#D55E00", marker="^", linestyle="-"),
    "ref": dict(color="#555555", marker="D", linestyle="--"),
    "floor": dict(color="#000000", marker="x", linestyle=":"),
}
LEGEND_NAME = {"ref": "ref (libxml2 + xmlsec1)",
               "floor": "floor (the cryptography alone)"}
# The case where each axis's flip shows most directly (its own case),
# drawn beside the whole pipeline's send.
ABLATION_CASE = {
    "attrs": "attr_lookup/wide", "userdata": "userdata/quakes-200k",
    "build": "parse/quakes-200k", "attrlist": "c14n/quakes-200k",
    "keys": "send/quakes-2k", "tokens": "tokens/700",
    "io": "attachment/150k", "parser": "parse/quakes-200k",
    "emit": "send/quakes-2m", "hash": "worst/collide-names",
}
PIPELINE_CASE = "send/quakes-200k"


def plots(run, rundir, plt):
    """Writes the charts the run has data for; returns their names."""
    outdir = os.path.join(rundir, "plots")
    os.makedirs(outdir, exist_ok=True)
    made = []
    for name, draw in (("headline.png", headline),
                       ("ablation.png", ablation),
                       ("memory.png", memory),
                       ("datafiles.png", datafiles.chart)):
        fig = draw(run, rundir, plt)
        if fig is None:
            continue
        fig.savefig(os.path.join(outdir, name), dpi=110,
                    bbox_inches="tight")
        plt.close(fig)
        made.append(name)
    return made


def doc_bytes(run, dataset):
    """The document's size: the send case's input (the plain document)."""
    for label in run.labels:
        b = run.table.get(("send", dataset, label))
        if b is not None:
            return summary.input_bytes(b)
    return None


def size(n):
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB" \
        if n >= 1e4 else f"{n / 1e3:.1f} KB"


def quakes(run, stage):
    """The quakes datasets the stage ran on, smallest first."""
    sets = [d for d in run.datasets if d.startswith("quakes-")
            and any((stage, d, v) in run.table for v in run.labels)]
    return sorted(sets, key=lambda d: doc_bytes(run, d) or 0)


def headline(run, _rundir, plt):
    stages = [s for s in ("send", "receive") if len(quakes(run, s)) >= 2]
    if not stages:
        return None
    fig, axs = plt.subplots(1, len(stages), squeeze=False,
                            figsize=(5.2 * len(stages), 4.4))
    floors = {"send": summary.SEND_FLOOR, "receive": summary.RECEIVE_FLOOR}
    for ax, stage in zip(axs[0], stages):
        sets = quakes(run, stage)
        for label in PRESETS + ["ref", "floor"]:
            pts = []
            for d in sets:
                t = (run.floor_sum(floors[stage], d) if label == "floor"
                     else run.time(stage, d, label))
                if t is not None and doc_bytes(run, d):
                    pts.append((doc_bytes(run, d), t / 1e3))
            if len(pts) < 2:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts],
                    label=LEGEND_NAME.get(label, label), linewidth=1.8,
                    markersize=6, **STYLE[label])
        last = sets[-1]
        best, ref = run.time(stage, last, "best"), run.time(stage, last,
                                                             "ref")
        fl = run.floor_sum(floors[stage], last)
        if best and ref:
            note = f"at {size(doc_bytes(run, last))}: best {ref / best:.1f}x " \
                "faster than ref"
            if fl:
                note += f",\n{best / fl:.2f}x the floor"
            ax.text(0.97, 0.04, note, transform=ax.transAxes, ha="right",
                    va="bottom", fontsize=8, color=STYLE["best"]["color"])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ticks = [doc_bytes(run, d) for d in sets]
        ax.set_xticks(ticks)
        ax.set_xticklabels([size(t) for t in ticks])
        ax.minorticks_off()
        ax.set_xlabel("document size (quakes)")
        ax.set_ylabel("CPU time per message (ms)")
        ax.set_title(stage)
        ax.grid(True, which="major", alpha=0.3)
    handles, labels = axs[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=5, fontsize=8,
               bbox_to_anchor=(0.5, 0.0), frameon=False)
    fig.suptitle("Send and receive: CPU time per message against size "
                 "(median, log-log)")
    fig.tight_layout()
    return fig


def label_of(run, v):
    """A variant as preset plus what differs, from variants.txt (the name
    itself when it is a preset or its choices are unknown)."""
    best = run.axes.get("best")
    mine = run.axes.get(v)
    if v in PRESETS or not best or not mine:
        return v
    diff = [f"{a}={c}" for a, c in mine.items() if best.get(a) != c]
    return "best+" + "+".join(diff) if diff else v


def flips(run):
    """[(axis, choice, flipped, base)]: for each choice best does not
    make, two variants of the run that differ in that axis alone, base
    with best's choice (best itself when it can be)."""
    best = run.axes.get("best")
    if not best:
        return []
    out = []
    names = sorted(run.axes, key=lambda v: v != "best")
    for axis, mine in best.items():
        done = set()
        for f in names:
            c = run.axes[f].get(axis)
            if c in (None, mine) or c in done:
                continue
            for b in names:
                other = run.axes[b]
                if other.get(axis) == mine and set(other) == set(run.axes[f]) \
                        and all(other[a] == run.axes[f][a]
                                for a in other if a != axis):
                    out.append((axis, c, f, b))
                    done.add(c)
                    break
    return out


def historical(axis, choice):
    """The original report's figure as (low, high) old / new, if any."""
    for f in findings.FINDINGS:
        if f["axis"] == axis and f["old"] == choice and "historical" in f:
            return f["historical"]
    return None


def ratio_bar(run, flipped, base, case):
    """(ratio of median times, (low, high) interval or None)."""
    stage, d = case.split("/", 1)
    tf, tb = run.time(stage, d, flipped), run.time(stage, d, base)
    if not tf or not tb:
        return None
    xs = run.reps.get(flipped, {}).get(case)
    ys = run.reps.get(base, {}).get(case)
    sp = spread.Spread(xs, ys) if xs and ys else None
    ci = (sp.low, sp.high) if sp and sp.low is not None else None
    return tf / tb, ci


def ablation(run, _rundir, plt):
    rows = []
    for axis, choice, flipped, base in flips(run):
        own = ABLATION_CASE.get(axis)
        bars = [(c, ratio_bar(run, flipped, base, c))
                for c in dict.fromkeys(x for x in (own, PIPELINE_CASE) if x)]
        bars = [(c, r) for c, r in bars if r]
        if bars:
            name = f"{axis}: {run.axes[base][axis]} -> {choice}"
            if base != "best":
                name += f"\n(on {label_of(run, base)})"
            rows.append((name, bars, historical(axis, choice)))
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(10, 0.8 * len(rows) + 1.4))
    height = 0.3
    colors = {"own": "#0072B2", "pipe": "#E69F00"}
    for i, (_, bars, hist) in enumerate(rows):
        for c, (r, ci) in bars:
            kind = "pipe" if c == PIPELINE_CASE else "own"
            y = i + (height / 2 if kind == "pipe" else -height / 2)
            err = None
            if ci:
                err = [[max(r - ci[0], 0)], [max(ci[1] - r, 0)]]
            ax.barh(y, r - 1, left=1, height=height, color=colors[kind],
                    xerr=err, ecolor="#333333", capsize=2)
            right = max(r, 1, ci[1] if ci else 0)
            ax.text(right * 1.04, y, f"{r:.2f}x  {c}", va="center",
                    fontsize=7)
        if hist:
            ax.errorbar([(hist[0] + hist[1]) / 2], [i - 0.42],
                        xerr=[[(hist[1] - hist[0]) / 2]] * 2,
                        color="black", linewidth=2.5, capsize=3,
                        marker="|" if hist[0] == hist[1] else "")
            ax.text(hist[1] * 1.04, i - 0.42, "original", va="center",
                    fontsize=7)
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0] for r in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.6)
    ratios = [r for _, b, _ in rows for _, (r, _) in b]
    lo, hi = min(0.8, min(ratios) / 1.2), max(ratios) * 8
    ax.set_xlim(lo, hi)
    # Fine steps near 1 only when the range leaves room for them.
    steps = (0.5, 0.8, 1, 1.25, 1.5, 2, 3, 5, 10) if hi / lo < 30 else \
        (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
    ticks = [t for t in steps if lo <= t <= hi]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}x" for t in ticks], fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel("time with the axis flipped / time without "
                  "(median CPU time, log scale; > 1: the flip costs)",
                  fontsize=8)
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    handles = [Patch(color=colors["own"], label="the axis's own case"),
               Patch(color=colors["pipe"], label=PIPELINE_CASE),
               Line2D([], [], color="black", linewidth=2.5,
                      label="the original report's figure"),
               Line2D([], [], color="#333333", marker="|", linestyle="",
                      markersize=8,
                      label="confidence interval over the repetitions")]
    ax.set_title("Each axis flipped from best: what it costs")
    fig.tight_layout()
    fig.legend(handles=handles, loc="upper center", ncol=4, fontsize=8,
               bbox_to_anchor=(0.5, 0.0), frameon=False)
    return fig


def largest_quakes(run, stage):
    sets = quakes(run, stage)
    return sets[-1] if sets else None


def memory(run, _rundir, plt):
    d = largest_quakes(run, "parse")
    elems = []
    if d:
        for v in run.labels:
            b = run.table.get(("parse", d, v))
            if b is not None and b.get("bytes_per_element"):
                elems.append((label_of(run, v), b["bytes_per_element"], v))
    peaks = []
    dp = largest_quakes(run, "send")
    if dp:
        for v in PRESETS + ["ref"]:
            row = []
            for s in ("send", "receive"):
                b = run.table.get((s, dp, v))
                nbytes = summary.input_bytes(b) if b else 0
                row.append(b["peak_bytes"] / nbytes
                           if b and nbytes and b.get("peak_bytes") else None)
            if any(x is not None for x in row):
                peaks.append((v, row))
    if not elems and not peaks:
        return None
    fig, axs = plt.subplots(1, 2, figsize=(11, 0.3 * max(len(elems), 6)
                                            + 2.2))
    ax = axs[0]
    if elems:
        elems.sort(key=lambda e: e[1])
        ax.barh(range(len(elems)), [e[1] for e in elems],
                color=[STYLE.get(e[2], {}).get(
                    "color", "#CC79A7" if e[2] == "pugixml" else "#56B4E9")
                       for e in elems])
        for i, e in enumerate(elems):
            ax.text(e[1], i, f" {e[1]:.0f}", va="center", fontsize=7)
        ax.set_yticks(range(len(elems)))
        ax.set_yticklabels([e[0] for e in elems], fontsize=7)
        ax.set_xlabel("bytes per element")
        ax.set_title(f"A parsed tree: bytes per element (parse/{d})",
                     fontsize=10)
        ax.set_xlim(right=max(e[1] for e in elems) * 1.2)
    else:
        ax.axis("off")
    ax = axs[1]
    if peaks:
        w = 0.38
        for j, (s, color) in enumerate((("send", "#0072B2"),
                                        ("receive", "#E69F00"))):
            ys = [i + (j - 0.5) * w for i in range(len(peaks))]
            xs = [p[1][j] or 0 for p in peaks]
            ax.barh(ys, xs, height=w, color=color, label=s)
            for y, x in zip(ys, xs):
                if x:
                    ax.text(x, y, f" {x:.1f}", va="center", fontsize=7)
        ax.set_yticks(range(len(peaks)))
        ax.set_yticklabels([p[0] for p in peaks], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("peak heap / document bytes")
        ax.set_title(f"Peak heap per document byte ({dp}, "
                     f"{size(doc_bytes(run, dp))})", fontsize=10)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15),
                  ncol=2, fontsize=8, frameon=False)
        ax.set_xlim(right=max(max(x or 0 for x in p[1])
                              for p in peaks) * 1.2)
    else:
        ax.axis("off")
    fig.suptitle("Memory")
    fig.tight_layout()
    return fig
