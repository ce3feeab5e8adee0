#!/usr/bin/env python3
"""plots.py - the charts of a compare run, into <run>/plots/:
headline.png (send and receive time against message size for best,
xerces, doom2010, the reference stack and the floor), ablation.png (each
axis flipped from best: its cost, beside the original report's figure)
and memory.png (bytes per element of a tree; peak heap per message byte
of send and receive), and with DATA datafiles.png (datafiles.py).
harness/reports/summary.py calls plots() with its
Run (harness/reports/run.py).  The headline's best, ref and floor are
the paired run's when the run has one, as are the README's table and
summary.json.

Not for: tables (summary.py, findings.py) or judging results.  Needs
matplotlib (Debian's python3-matplotlib, /usr/bin/python3).
"""
import os

import datafiles
from axes import AXES
import findings
import loadreport
from run import input_bytes

PRESETS = ["best", "xerces", "doom2010"]
# Colour-blind-safe colours (Okabe-Ito) and a marker per stack, so the
# lines stay apart in grey too.
STYLE = {
    "best": dict(color="#009E73", marker="o", linestyle="-"),
    "xerces": dict(color="#0072B2", marker="s", linestyle="-"),
    "doom2010": dict(color="#D55E00", marker="^", linestyle="-"),
    "ref": dict(color="#555555", marker="D", linestyle="--"),
    "floor": dict(color="#000000", marker="x", linestyle=":"),
    "gsoap": dict(color="#CC79A7", marker="v", linestyle="--"),
}
LEGEND_NAME = {"ref": "ref (libxml2 + xmlsec1)",
               "floor": "floor (the cryptography alone)",
               "gsoap": "gsoap (gSOAP wsse; RSA v1.5 key transport)"}
PIPELINE_CASE = "send/quakes-200k"
STALL_CASE = "stall"
STALL_LABEL = "stall: p50 latency over HTTP, 1 client"


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
            return input_bytes(b)
    return None


def size(n):
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB" \
        if n >= 1e4 else f"{n / 1e3:.1f} KB"


def quakes(run, stage):
    """The quakes datasets the stage ran on, smallest first."""
    sets = [d for d in run.datasets if d.startswith("quakes-")
            and any((stage, d, v) in run.table for v in run.labels)]
    return sorted(sets, key=lambda d: doc_bytes(run, d) or 0)


def headline_point(run, stage, d, label):
    """(us, source) of label's stage on d: best, ref and the floor from
    the paired run when it has the case, the others (and every label in
    a run without it) from their own runs."""
    if run.paired and label in ("best", "ref", "floor"):
        r = run.paired_row(stage, d)
        if r is not None:
            return r[label], "paired"
    if label == "floor":
        return run.floor_sum(stage, d), "own"
    return run.time(stage, d, label), "own"


def headline(run, _rundir, plt):
    stages = [s for s in ("send", "receive") if len(quakes(run, s)) >= 2]
    if not stages:
        return None
    fig, axs = plt.subplots(1, len(stages), squeeze=False,
                            figsize=(5.2 * len(stages), 4.6))
    sources = set()
    for ax, stage in zip(axs[0], stages):
        sets = quakes(run, stage)
        for label in PRESETS + ["ref", "gsoap", "floor"]:
            pts, src = [], set()
            for d in sets:
                t, where = headline_point(run, stage, d, label)
                if t is not None and doc_bytes(run, d):
                    pts.append((doc_bytes(run, d), t / 1e3))
                    src.add(where)
            if len(pts) < 2:
                continue
            sources |= src
            name = LEGEND_NAME.get(label, label)
            if run.paired and src == {"own"}:
                name += " (own process)"
            ax.plot([p[0] for p in pts], [p[1] for p in pts],
                    label=name, linewidth=1.8, markersize=6, **STYLE[label])
        headline_note(run, ax, stage, sets[-1])
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
    fig.legend(handles, labels, loc="upper center", ncol=3, fontsize=8,
               bbox_to_anchor=(0.5, 0.0), frameon=False)
    how = ("best, ref and the floor from the paired run (one process, "
           "repetitions interleaved)" if "paired" in sources
           else "each stack in a process of its own")
    fig.suptitle("Send and receive: CPU time per message against size "
                 f"(median, log-log)\n{how}", fontsize=10)
    fig.tight_layout()
    return fig


def headline_note(run, ax, stage, d):
    """ref / best and best / floor at the largest size, with their
    intervals when the paired run has them."""
    r = run.paired_row(stage, d) if run.paired else None
    if r is None:
        r = {"best": run.time(stage, d, "best"),
             "ref": run.time(stage, d, "ref"),
             "floor": run.floor_sum(stage, d),
             "ref_best_interval": None, "best_floor_interval": None}
    if not r["best"] or not r["ref"]:
        return

    def iv(x):
        return f" ({x[0]:.1f}-{x[1]:.1f})" if x else ""
    note = (f"at {size(doc_bytes(run, d))}: best "
            f"{r['ref'] / r['best']:.1f}x{iv(r['ref_best_interval'])} "
            "faster than ref")
    if r["floor"]:
        f = r["best_floor_interval"]
        note += (f",\n{r['best'] / r['floor']:.2f}x"
                 + (f" ({f[0]:.2f}-{f[1]:.2f})" if f else "")
                 + " the floor")
    # Upper left: the lines rise to the right, so it stays clear.
    ax.text(0.03, 0.97, note, transform=ax.transAxes, ha="left",
            va="top", fontsize=8, color=STYLE["best"]["color"])


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
    """(ratio, (low, high) interval or None), or None when the run lacks
    the case on either side: over the pair's rounds (rounds.py) when it
    has them, the interval one more round lands in; else the ratio of
    the two runs' median times, the interval over their repetitions."""
    if case == STALL_CASE:
        return stall_bar(run, flipped, base)
    sp = run.round_spread(flipped, base, case)
    if sp:
        return sp.ratio, (sp.low, sp.high)
    stage, d = case.split("/", 1)
    tf, tb = run.time(stage, d, flipped), run.time(stage, d, base)
    if not tf or not tb:
        return None
    sp = run.spread(flipped, base, case)
    ci = (sp.low, sp.high) if sp and sp.low is not None else None
    return tf / tb, ci


def stall_bar(run, flipped, base):
    """The stall: flipped's median latency per request over base's at
    one client, from the load scenario (load/<name>.json); one sample
    each, so no interval."""
    runs = loadreport.read_runs(run.dir)
    if flipped not in runs or base not in runs:
        return None
    p50 = {n: {lv["clients"]: lv["p50_ms"] for lv in runs[n]["levels"]}
           for n in (flipped, base)}
    one = min(set(p50[flipped]) & set(p50[base]), default=None)
    if one is None or not p50[base][one] or not p50[flipped][one]:
        return None
    return p50[flipped][one] / p50[base][one], None


def ablation_cases(axis):
    """The cases the ablation chart draws a flip of axis on: its own case
    (axes.py; STALL_CASE: the stall over HTTP), then the pipeline's."""
    own = AXES[axis].own if axis in AXES else None
    return list(dict.fromkeys(x for x in (own, PIPELINE_CASE) if x))


def ablation(run, _rundir, plt):
    rows = []
    for axis, choice, flipped, base in flips(run):
        bars = [(c, ratio_bar(run, flipped, base, c))
                for c in ablation_cases(axis)]
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
            what = STALL_LABEL if c == STALL_CASE else c
            ax.text(right * 1.04, y, f"{r:.2f}x  {what}", va="center",
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
                  "(median CPU time; the stall: median latency per "
                  "request; log scale; > 1: the flip costs)",
                  fontsize=8)
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    handles = [Patch(color=colors["own"], label="the axis's own case"),
               Patch(color=colors["pipe"], label=PIPELINE_CASE),
               Line2D([], [], color="black", linewidth=2.5,
                      label="the original report's figure"),
               Line2D([], [], color="#333333", marker="|", linestyle="",
                      markersize=8,
                      label=("99% interval of one more round"
                             if run.rounds else
                             "confidence interval over the repetitions"))]
    ax.set_title("Each axis flipped from best: what it costs")
    fig.tight_layout()
    fig.legend(handles=handles, loc="upper center", ncol=4, fontsize=8,
               bbox_to_anchor=(0.5, 0.0), frameon=False)
    return fig


def largest_quakes(run, stage):
    sets = quakes(run, stage)
    return sets[-1] if sets else None


# The memory chart's colours: what builds the tree.
BUILDER = {"insitu": ("#009E73", "domlab's insitu parser"),
           "libxml2": ("#0072B2", "libxml2's parser (SAX, or its tree "
                                  "converted)"),
           "peer": ("#CC79A7", "another library's own tree")}


def tree_rows(run, d):
    """[(row label, bytes per element, builder)] of parse/d, one row per
    distinct tree: variants whose tree has best's bytes per element fold
    into best's row, which says how many."""
    best = run.table.get(("parse", d, "best"), {}).get("bytes_per_element")
    rows, same = [], []
    for v in run.labels:
        b = run.table.get(("parse", d, v))
        x = b and b.get("bytes_per_element")
        if not x:
            continue
        if v != "best" and best and round(x) == round(best):
            same.append(v)
            continue
        axes = run.axes.get(v, {})
        builder = ("peer" if v in ("pugixml", "ref") else
                   axes.get("parser", "insitu"))
        name = label_of(run, v)
        if axes.get("build") == "deferred":
            name += " (build=deferred)"
        rows.append([name, x, builder, v])
    for r in rows:
        if r[3] == "best" and same:
            r[0] += f"\nand {len(same)} flips that leave its tree as it is"
    return [tuple(r[:3]) for r in rows]


def tree_panel(ax, elems, d, _run):
    """Bytes per element of each distinct tree, coloured by builder."""
    from matplotlib.patches import Patch
    elems.sort(key=lambda e: e[1])
    ax.barh(range(len(elems)), [e[1] for e in elems],
            color=[BUILDER[e[2]][0] for e in elems])
    for i, e in enumerate(elems):
        ax.text(e[1], i, f" {e[1]:.0f}", va="center", fontsize=7)
    ax.set_yticks(range(len(elems)))
    ax.set_yticklabels([e[0] for e in elems], fontsize=7)
    ax.set_xlabel("bytes per element of the tree")
    ax.set_title(f"A parsed tree (parse/{d})", fontsize=10)
    ax.set_xlim(right=max(e[1] for e in elems) * 1.2)
    used = [k for k in BUILDER if any(e[2] == k for e in elems)]
    ax.legend(handles=[Patch(color=BUILDER[k][0], label=BUILDER[k][1])
                       for k in used],
              title="colour: what builds the tree", fontsize=7,
              title_fontsize=7, loc="upper center",
              bbox_to_anchor=(0.5, -0.12), frameon=False)


def peak_panel(ax, peaks, dp, run):
    """Peak heap per document byte of send and receive, per stack."""
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
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12),
              ncol=2, fontsize=8, frameon=False,
              title="colour: the stage", title_fontsize=7)
    ax.set_xlim(right=max(max(x or 0 for x in p[1]) for p in peaks) * 1.2)


def memory(run, _rundir, plt):
    d = largest_quakes(run, "parse")
    elems = tree_rows(run, d) if d else []
    peaks = []
    dp = largest_quakes(run, "send")
    if dp:
        for v in PRESETS + ["ref"]:
            row = []
            for s in ("send", "receive"):
                b = run.table.get((s, dp, v))
                nbytes = input_bytes(b) if b else 0
                row.append(b["peak_bytes"] / nbytes
                           if b and nbytes and b.get("peak_bytes") else None)
            if any(x is not None for x in row):
                peaks.append((v, row))
    if not elems and not peaks:
        return None
    panels = [p for p in ((tree_panel, elems, d), (peak_panel, peaks, dp))
              if p[1]]
    fig, axs = plt.subplots(1, len(panels), squeeze=False,
                            figsize=(6 * len(panels),
                                     0.42 * max(len(elems), 6) + 2.4))
    for ax, (draw, rows, dataset) in zip(axs[0], panels):
        draw(ax, rows, dataset, run)
    fig.suptitle("Memory")
    fig.tight_layout()
    return fig
