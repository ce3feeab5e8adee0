#!/usr/bin/env python3
"""datafiles.py - the user's own envelopes (`make bench DATA=...`) in a
run's report: summary.md's section per file (section()) and the chart of
the files beside the generated quakes datasets (chart(), plots/datafiles.png).
domlab-bench names the files in its context ("data_files"), so they are
told from the generated datasets by name, never by guessing.

Reads only the run object's table, time() and context; imports no other
report module.  Not for: the generated datasets' tables (summary.py) or
the other charts (plots.py).
"""
import os

STAGES = ("send", "receive")
LABELS = ("best", "xerces", "doom2010", "ref")
MARK = {"best": "o", "xerces": "s", "doom2010": "^", "ref": "D"}
COLOR = {"best": "#009E73", "xerces": "#0072B2", "doom2010": "#D55E00",
         "ref": "#555555"}


def files(run):
    """The --data files this run measured, in the order it names them."""
    named = (run.context or {}).get("data_files", "").split()
    return [f for f in named if f in run.datasets]


def doc_bytes(run, dataset):
    """A dataset's size: its send case's input (bytes/s times the time)."""
    for label in run.labels:
        b = run.table.get(("send", dataset, label))
        t = run.time("send", dataset, label)
        if b is not None and t and b.get("bytes_per_second"):
            return b["bytes_per_second"] * t * 1e-6
    return None


def size(n):
    if n is None:
        return "?"
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} KB"


def nearest_quakes(run, n):
    """The generated quakes dataset closest in size to n bytes."""
    sets = [(abs((doc_bytes(run, d) or 0) - n), d) for d in run.datasets
            if d.startswith("quakes-") and doc_bytes(run, d)]
    return min(sets)[1] if sets and n else None


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}g}" if x < 1000 \
        else f"{x:,.0f}"


def section(run):
    """summary.md's lines for the files, [] when the run had none."""
    names = files(run)
    if not names:
        return []
    out = ["## Your messages (DATA)\n",
           "Each file given with `DATA=` is a dataset of its own.  Per "
           "file: send and receive CPU time per message (us, median) for "
           "each stack that ran, and the same for the generated quakes "
           "dataset nearest in size, for comparison; "
           "[plots/datafiles.png](plots/datafiles.png) draws them all "
           "against size.  A case that could not use a file is named in "
           "the run's log with the reason.\n"]
    labels = [v for v in run.labels if v in LABELS] + \
        [v for v in run.labels if v not in LABELS]
    for f in names:
        n = doc_bytes(run, f)
        q = nearest_quakes(run, n)
        out.append(f"### {f} ({size(n)})\n")
        head = ["stage", "stack", "time us", "x ref"]
        if q:
            head.append(f"{q} us ({size(doc_bytes(run, q))})")
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for s in STAGES:
            for v in labels:
                t = run.time(s, f, v)
                if t is None:
                    continue
                ref = run.time(s, f, "ref")
                cells = [s, v, fmt(t), fmt(ref / t) if ref and v != "ref"
                         else "-"]
                if q:
                    cells.append(fmt(run.time(s, q, v)))
                out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return out


def chart(run, _rundir, plt):
    """Send and receive time against size: the quakes datasets as lines,
    the files as labelled points, per stack; None without files."""
    names = files(run)
    stages = [s for s in STAGES if any(run.time(s, f, v) for f in names
                                       for v in run.labels)]
    if not stages:
        return None
    fig, axs = plt.subplots(1, len(stages), squeeze=False,
                            figsize=(5.6 * len(stages), 4.6))
    for ax, stage in zip(axs[0], stages):
        quakes = sorted((d for d in run.datasets if d.startswith("quakes-")
                         and doc_bytes(run, d)), key=lambda d:
                        doc_bytes(run, d))
        for v in [v for v in LABELS if v in run.labels]:
            pts = [(doc_bytes(run, d), run.time(stage, d, v) / 1e3)
                   for d in quakes if run.time(stage, d, v)]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts],
                        color=COLOR[v], marker=MARK[v], linewidth=1.2,
                        alpha=0.5, label=f"{v} (quakes)")
            mine = [(doc_bytes(run, f), run.time(stage, f, v) / 1e3, f)
                    for f in names if run.time(stage, f, v)
                    and doc_bytes(run, f)]
            if mine:
                ax.scatter([p[0] for p in mine], [p[1] for p in mine],
                           color=COLOR[v], marker=MARK[v], s=60,
                           edgecolors="black", label=f"{v} (your files)",
                           zorder=3)
        for f in names:
            n, t = doc_bytes(run, f), run.time(stage, f, "best")
            if n and t:
                ax.annotate(os.path.splitext(f)[0], (n, t / 1e3),
                            fontsize=7, xytext=(4, 4),
                            textcoords="offset points")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("document size (bytes)")
        ax.set_ylabel("CPU time per message (ms)")
        ax.set_title(stage)
        ax.grid(True, which="major", alpha=0.3)
    handles, labels = axs[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=4, fontsize=8,
               bbox_to_anchor=(0.5, 0.0), frameon=False)
    fig.suptitle("Your messages beside the generated quakes datasets "
                 "(median, log-log)")
    fig.tight_layout()
    return fig
