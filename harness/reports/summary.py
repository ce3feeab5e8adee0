#!/usr/bin/env python3
"""summary.py - turns one compare run (results/<run>/: Google Benchmark
JSON per run, optional callgrind counts, variants.txt) into summary.md on
standard output, and with --plots into PNG plots in <run>/plots/.

Not for: running anything (harness/reports/compare.sh does) or judging results:
it lays the numbers side by side.  Standard library, plus matplotlib for
the plots (left out with a note when it is missing).

    /usr/bin/python3 harness/reports/summary.py --dir results/RUN --commit C \
        --flags F --elapsed S [--mode M] [--cases RE] [--plots] RUN...
        [ref] [floor]

A RUN is a variant name (RUN.json or RUN.json.gz, RUN.icount.tsv when
counted; harness/reports/run.py reads them, and paired.json); `ref:`
cases in any file are the reference, `pugi:` cases the pugixml peer
(label `pugixml`), `floor:` cases the floor.
"""
import argparse
import json
import os
import subprocess
import sys

import datafiles
from axes import AXES
import loadreport
import spread
from run import (FLOOR_PARTS, FLOORS, SCALE, Run, count, floor_text,
                 input_bytes, machine_id, noise, num, ratio, read_facts, us,
                 us_real)

AXIS_DATASET = "quakes-200k"  # send and receive in the per-axis table

# The worst cases (harness/bench/cases_worst.c): the command each hostile
# shape meets (parse unless named here), and the typical input beside
# them, a dataset of the worst cases' default size (LAB_WORST_SIZE).
WORST_RECEIVE = ("collide-ids", "many-enc", "signedinfo-junk", "oracle-decrypt",
                 "oracle-signature")
WORST_TYPICAL = "quakes-200k"

# The old SOAP latency comparison's table: its calls, the datasets that
# stand for them (harness/bench/cases.c) and its columns.
LATENCY_CALLS = [("getInt", "ints"), ("getStr", "strings")]
LATENCY_ITEMS = [200, 400, 800]
LATENCY_COLUMNS = ["doom2010", "xerces", "best", "ref"]
# The threaded cases (harness/bench/cases_threads.c); the control is the
# machine's own scaling, measured in the same run as each variant's.
THREAD_STAGES = ["threads_send", "threads_receive"]
THREAD_CONTROL = "threads_control"
# One message on two threads (wss/send_pipelined.h,
# wss/digest_ahead.h): each one-thread case's two-thread case.
PIPELINED = {"send": "send_pipelined", "receive": "receive_pipelined"}

def version(cmd):
    """The first line a tool prints about its version, or "unknown"."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             check=True).stdout
        return out.splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


def gcc_version():
    return version(["gcc", "--version"])


def header(run, a, facts):
    ctx = run.context
    print(f"# bench run {facts['run']}\n")
    print(f"- date: {ctx['date']}")
    cpu = f"{facts['cpu']}, " if "cpu" in facts else ""
    print(f"- machine: {facts['cpus'].split()[0]} CPUs "
          f"({cpu}{ctx['num_cpus']} at {ctx['mhz_per_cpu']} MHz), "
          f"kernel {facts['kernel']}, {facts['compiler']}, "
          f"libxml2 {ctx.get('libxml2', '?')}, "
          "load average at start "
          + " ".join(f"{x:.2f}" for x in ctx.get("load_avg", [])))
    print(f"- commit: {a.commit}; data seed {ctx.get('data_seed', '?')}")
    print(f"- mode: {a.mode}; flags: `{a.flags.strip()}`; "
          f"malloc: {ctx.get('malloc', '?')}")
    if a.cases:
        print(f"- cases: only those matching `{a.cases}` (CASES; the "
              "ref:, pugi: and floor: prefixes left out of the match): "
              "a table whose cases did not run is empty or missing")
    icount = ("yes (callgrind, instructions per iteration)"
              if run.has_icount() else "no (make compare ICOUNT=1)")
    print(f"- instruction counts: {icount}")
    print(f"- wall time of the whole run (builds included): {a.elapsed} s")
    print("\nTimes are CPU time per iteration, medians of the repetitions "
          "(cv: their coefficient of variation); instr is instructions per "
          "iteration under callgrind; allocs, bytes and peak are per "
          "iteration, from util/alloc.h.  x ref, x best, x floor: time "
          "divided by ref's, best's or the floor's on the same dataset.  "
          "See results/README.md.\n")


def table(head, rows):
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()


def floor_note(run, stages, source="time"):
    """The stand-ins the floors of stages took in this run, as a
    sentence, or ""."""
    used = run.stand_ins(stages, source)
    return (" In this run: " + "; ".join(used) + "." if used else "")


def send_receive(run):
    """Each variant's send and receive as multiples of the floor."""
    sets = [d for d in run.datasets
            if any((s, d, v) in run.table
                   for s in ("send", "receive") for v in run.labels)]
    if not sets:
        return
    ic = run.has_icount()
    print("## Send and receive against the floor\n")
    print(f"Send floor: {floor_text('send')}; receive floor: "
          f"{floor_text('receive')}: each part once, as the profile needs "
          "it (docs/measuring.md; the floor table below has the parts)."
          + floor_note(run, ("send", "receive")) + "\n")
    head = ["dataset", "variant", "send us", "x floor", "x ref", "x best"]
    if ic:
        head += ["send instr", "instr x floor"]
    head += ["receive us", "x floor", "x ref", "x best"]
    if ic:
        head += ["receive instr", "instr x floor"]
    rows = []
    for d in sets:
        floors = {s: (run.floor_sum(s, d), run.floor_sum(s, d, "ir"))
                  for s in ("send", "receive")}
        for v in run.labels + ["floor"]:
            if v != "floor" and run.time("send", d, v) is None and \
                    run.time("receive", d, v) is None:
                continue
            cells = [d, v]
            for s in ("send", "receive"):
                if v == "floor":
                    t, ir = floors[s]
                    cells += [num(t), "1.00" if t else "-", "-", "-"]
                    if ic:
                        cells += [count(ir), "1.00" if ir else "-"]
                    continue
                t = run.time(s, d, v)
                ir = run.icount.get((s, d, v))
                cells += [num(t), ratio(t, floors[s][0]),
                          ratio(t, run.time(s, d, "ref")),
                          ratio(t, run.time(s, d, "best"))]
                if ic:
                    cells += [count(ir), ratio(ir, floors[s][1])]
            rows.append(cells)
    table(head, rows)


PAIRED_SETS = ("quakes-2k", "ints-800", "quakes-200k", "quakes-2m")


def interval_text(iv):
    return "-" if iv is None else f"{iv[0]:.2f}-{iv[1]:.2f}"


def paired_interval_text(k, dates=(), rechecks=0):
    """What the paired table's intervals are, for K processes started at
    dates (Google Benchmark's context dates), the last rechecks of them
    kept by `make recheck KEEP=1`."""
    known = sorted(d for d in dates if d)
    when = (f", started from {known[0]} to {known[-1]}"
            if len(known) >= 2 else "")
    kept = (f" ({k - rechecks} in the run, {rechecks} in the rechecks "
            "kept since: recheck.md)" if rechecks else "")
    if k >= spread.MIN_PROCESSES:
        return (f"  The command ran in {k} processes{kept}{when}; each time is "
                "the median over them of each "
                "process's median.  Each ratio's interval is where the "
                "ratio of one more process lands 99 times in 100: the "
                f"{k} processes' ratios, their logarithms taken as normal "
                "(a prediction interval, harness/reports/spread.py).  It "
                "holds what varies from one process to the next, which "
                "repetitions within one process cannot show.")
    return ("  Each ratio's interval: Hodges-Lehmann over the repetitions "
            "of one process with exact Mann-Whitney bounds "
            "(harness/reports/spread.py); the floor's repetitions are its "
            "parts' added up repetition by repetition.  It says how "
            "noisy that process was, not where another process lands: "
            f"that takes {spread.MIN_PROCESSES} processes or more "
            "(PAIRED_RUNS, as `make reference` runs).")


def paired_table(run):
    """best, ref and the floor's parts measured in one process with their
    repetitions interleaved at random (compare.sh's paired run)."""
    if not run.paired:
        return
    k = len(run.paired_procs)
    print("## Side by side: best, ref and the floor in one process\n")
    print("The same cases again in one `domlab-bench bench --ref --floor` "
          "process, 9 repetitions of each interleaved at random "
          "(`--benchmark_enable_random_interleaving`), medians: what the "
          "machine does meanwhile falls on best, ref and the floor alike, "
          "where the separate runs above sit minutes apart.  `ref / best` "
          "is how many times faster best is; `best / floor` how far above "
          "the floor (its parts as in the table above)."
          + paired_interval_text(k, run.paired_dates, run.rechecks)
          + floor_note(run, ("send", "receive"), "paired") + "\n")
    cmd = run.commands.get("paired")
    if cmd:
        print("Each process ran (`make recheck` runs it once more and "
              "sets each ratio against its interval):\n")
        print("```\n" + cmd + "\n```\n")
    head = ["dataset", "stage", "best us", "ref us", "floor us",
            "ref / best", "interval", "best / floor", "interval"]
    # The gSOAP peer's columns, when the run had its cases.
    has_gsoap = any(n.startswith("gsoap:") for n in run.paired)
    if has_gsoap:
        head[4:4] = ["gsoap us"]
        head[8:8] = ["gsoap / best"]
    out = []
    for d in PAIRED_SETS:
        for stage in ("send", "receive"):
            r = run.paired_row(stage, d)
            if r is None:
                continue
            row = [d, stage, num(r["best"]), num(r["ref"]),
                   num(r["floor"]), ratio(r["ref"], r["best"]),
                   interval_text(r["ref_best_interval"]),
                   ratio(r["best"], r["floor"]),
                   interval_text(r["best_floor_interval"])]
            if has_gsoap:
                row[4:4] = [num(r["gsoap"])]
                row[8:8] = [ratio(r["gsoap"], r["best"])]
            out.append(row)
    table(head, out)
    quiet = noise_text(run)
    if quiet:
        print(quiet + "\n")
    if has_gsoap:
        print("gsoap: gSOAP 2.8's wsse plugin on the quakes records; its "
              "key transport is RSA PKCS#1 v1.5, not RSA-OAEP, and its "
              "allocations are not in the alloc counters "
              "(docs/measuring.md, \"The gSOAP peer\").\n")


def paired_noise(run):
    """Each paired process's noise (run.noise), the rechecks' after the
    run's own: None for a process without repetitions."""
    return [noise(reps) for _, reps in run.paired_procs]


def noise_text(run):
    """How much the machine moved within each paired process, in words;
    "" when none had repetitions."""
    xs = [x for x in paired_noise(run) if x is not None]
    if not xs:
        return ""
    return ("Within each process, a case's repetitions varied by a median "
            f"coefficient of variation of {100 * min(xs):.1f}-"
            f"{100 * max(xs):.1f}% (the median over its cases): how "
            "much the machine moved while the process ran, which "
            "`make reference` holds to a limit (docs/measuring.md).")


def floor_breaches(run):
    """Every time or instruction count of a stage below its floor: no
    code can do the profile's work in less than its cryptography, so
    each one says the floor or the measurement is wrong."""
    out = []
    for stage in FLOORS:
        for d in run.datasets:
            for source, what in (("time", "us"), ("ir", "instructions")):
                fl = run.floor_sum(stage, d, source)
                if not fl:
                    continue
                for v in run.labels:
                    x = (run.time(stage, d, v) if source == "time"
                         else run.icount.get((stage, d, v)))
                    if x is not None and x < fl:
                        out.append(f"{stage}/{d} {v}: {num(x)} {what}, "
                                   f"{x / fl:.2f}x its floor ({num(fl)})")
    for d in PAIRED_SETS:
        for stage in ("send", "receive"):
            r = run.paired_row(stage, d)
            if r and r["floor"] and r["best"] < r["floor"]:
                out.append(f"{stage}/{d} best in the paired run: "
                           f"{num(r['best'])} us, "
                           f"{r['best'] / r['floor']:.2f}x its floor "
                           f"({num(r['floor'])})")
    return out


def floor_warning(below):
    """A loud section (and lines on stderr) for every number under its
    floor (floor_breaches); nothing when there is none."""
    if not below:
        return
    for line in below:
        print(f"summary.py: WARNING: below the floor: {line}",
              file=sys.stderr)
    print("## WARNING: numbers below the floor\n")
    print("These take less than the cryptography the profile needs (the "
          "floor of their stage, docs/measuring.md), which no code can: "
          "the floor or the measurement is wrong, and no ratio to the "
          "floor in this run can be trusted until it is explained.  A "
          "time from a separate run can land under the floor measured in "
          "another process minutes apart (drift of the machine); the "
          "paired run's, measured in one process, cannot for that reason."
          "\n")
    for line in below:
        print(f"- **{line}**")
    print()


def axes_table(run):
    """The effect of flipping each axis from best."""
    best = run.axes.get("best")
    if best is None or "best" not in run.labels:
        return
    ic = run.has_icount()
    print("## The axes, one flip at a time\n")
    print("Each row: an ablation (best with one axis flipped) on one case, "
          "as a multiple of best on the same case.  share = (flipped - best) "
          "/ flipped: the part of the flipped variant's time the choice "
          "costs, comparable with the historical finding's percentages.\n")
    head = ["axis", "best -> flipped", "historical finding", "case",
            "time x best", "share"]
    if ic:
        head.append("instr x best")
    head += ["allocs x best", "peak x best"]
    rows = []
    for v, choices in run.axes.items():
        diff = [ax for ax, c in choices.items() if best.get(ax) != c]
        # Ablations are spelled out; a preset one flip from best
        # (xerces) would repeat a spelled-out row under another name.
        if "+" not in v or len(diff) != 1 or v not in run.labels:
            continue
        ax = diff[0]
        a = AXES.get(ax)
        finding, cases = (a.claim, a.cases) if a else ("-", [])
        cases = cases + [f"send/{AXIS_DATASET}", f"receive/{AXIS_DATASET}"]
        first = True
        for c in dict.fromkeys(cases):
            stage, d = c.split("/", 1)
            b, f = run.table.get((stage, d, "best")), run.table.get(
                (stage, d, v))
            if b is None or f is None:
                continue
            tb, tf = us(b), us(f)
            cells = [ax if first else "",
                     f"{best[ax]} -> {choices[ax]}" if first else "",
                     finding if first else "", c, ratio(tf, tb),
                     f"{round(100 * (tf - tb) / tf) + 0:d}%"]
            if ic:
                cells.append(ratio(run.icount.get((stage, d, v)),
                                   run.icount.get((stage, d, "best"))))
            cells += [ratio(f.get("allocs"), b.get("allocs")),
                      ratio(f.get("peak_bytes"), b.get("peak_bytes"))]
            rows.append(cells)
            first = False
    table(head, rows)


def rounds_table(run):
    """Every pair's rounds (ALTERNATE, rounds.py), every case of them:
    the ratio and the interval one more round lands in."""
    if not run.rounds:
        return
    print("## Pairs side by side, round by round (ALTERNATE)\n")
    print("Each pair's two variants ran their cases one right after the "
          "other in each round (harness/reports/rounds.py), the order "
          "turning each round.  old / new: the median of the rounds' "
          "ratios of medians; interval: where one more round's ratio "
          "lands 99 times in 100; verdict from the 95% confidence "
          "interval of the rounds' mean (harness/reports/spread.py).  "
          "FINDINGS.md reads the same rounds; `make recheck` runs one "
          "more.\n")
    rows = [[f"{old} / {new}", case, str(sp.rounds), ratio(sp.ratio, 1),
             interval_text((sp.low, sp.high)), sp.verdict()]
            for (old, new), case, sp in run.round_spreads()]
    table(["old / new", "case", "rounds", "ratio", "interval", "verdict"],
          rows)


def forward_table(run):
    """The intermediary: each variant's forward beside ref's, with the
    build choice that decides how much of the message it builds."""
    rows = []
    for d in run.datasets:
        for v in run.labels:
            b = run.table.get(("forward", d, v))
            if b is None:
                continue
            t, n = us(b), input_bytes(b)
            build = ("libxml2" if v == "ref"
                     else run.axes.get(v, {}).get("build", "-"))
            rows.append([d, v, build, num(t),
                         ratio(t, run.time("forward", d, "ref")),
                         ratio(t, run.time("forward", d, "best")),
                         count(b.get("peak_bytes")),
                         ratio(b.get("peak_bytes"), n)])
    if not rows:
        return
    print("## The intermediary (forward)\n")
    print("A hop: parse a message signed for it (the Timestamp and a "
          "wsa:To, the Body unsigned), check the Timestamp and the "
          "Signature, read the wsa:To, pass the bytes on.  Nothing reads "
          "the Body, so how much of it a variant builds is the "
          "difference (the `build` axis).  peak x input: peak heap over "
          "the dataset's bytes.\n")
    table(["dataset", "variant", "build", "time us", "x ref", "x best",
           "peak", "peak x input"], rows)


def latency_table(run):
    """Small calls, plain and secure, laid out as the old SOAP latency
    comparison was: a row per call and size, a column per stack."""
    cols = [v for v in LATENCY_COLUMNS
            if any((s, f"{k}-{n}", v) in run.table
                   for s in ("latency_plain", "latency_secure")
                   for _, k in LATENCY_CALLS for n in LATENCY_ITEMS)]
    if not cols:
        return
    print("## Small-message latency\n")
    print("CPU time per call in us.  plain: parse the request into a tree "
          "and serialize it back (a SOAP call without WS-Security); "
          "secure: send (parse, sign, encrypt, serialize) then receive "
          "(parse, check the Timestamp, decrypt, verify, serialize).  getInt "
          "is the ints-N dataset, getStr strings-N; cases "
          "`latency_plain/<dataset>` and `latency_secure/<dataset>`.\n")
    head = ["call", "items"]
    for s in ("plain", "secure"):
        head += [f"{s} {v}" for v in cols]
        if "best" in cols and "ref" in cols:
            head.append(f"{s} best x ref")
    rows = []
    for call, kind in LATENCY_CALLS:
        for n in LATENCY_ITEMS:
            d = f"{kind}-{n}"
            cells = [call, str(n)]
            for s in ("latency_plain", "latency_secure"):
                cells += [num(run.time(s, d, v)) for v in cols]
                if "best" in cols and "ref" in cols:
                    cells.append(ratio(run.time(s, d, "best"),
                                       run.time(s, d, "ref")))
            rows.append(cells)
    table(head, rows)


def worst_rows(run):
    """Per hostile shape and variant: CPU us per MB and peak heap per
    input byte, the same for the typical input through the same command
    (None where it did not run), and worst / typical of each."""
    rows = []
    for d in run.datasets:
        command = "receive" if d in WORST_RECEIVE else "parse"
        for v in run.labels:
            b = run.table.get(("worst", d, v))
            if b is None:
                continue
            t = run.table.get((command, WORST_TYPICAL, v))
            w_mb, w_peak = per_mb(b)
            t_mb, t_peak = per_mb(t) if t is not None else (None, None)
            rows.append({"shape": d, "command": command, "variant": v,
                         "us_per_mb": w_mb, "peak_per_byte": w_peak,
                         "typical_us_per_mb": t_mb,
                         "typical_peak_per_byte": t_peak,
                         "time_ratio": w_mb / t_mb if t_mb else None,
                         "peak_ratio": w_peak / t_peak if t_peak else None})
    return rows


def per_mb(b):
    """(CPU us per MB of input, peak heap bytes per input byte)."""
    n = input_bytes(b)
    if not n:
        return None, None
    peak = b.get("peak_bytes")
    return us(b) * 1e6 / n, None if peak is None else peak / n


def worst_table(run):
    """The worst cases against the typical input, per variant."""
    rows = worst_rows(run)
    if not rows:
        return
    print("## Worst case\n")
    print("Each hostile shape `domlab gen` makes (`worst/<shape>`, "
          "harness/bench/cases_worst.c), through the command an attacker "
          "reaches with it at default limits; a refusal (exit 2 or 3) is "
          "the outcome timed.  ms/MB: CPU time per MB of input; peak/B: "
          "peak heap per input byte.  typical: the same command on "
          f"{WORST_TYPICAL} (receive: the message sent from it, per byte "
          "of the quakes document); x typical: worst / typical.  "
          "`make worst` measures the shapes at their full sizes as "
          "separate processes.\n")
    head = ["shape", "command", "variant", "ms/MB", "peak/B",
            "typical ms/MB", "typical peak/B", "time x typical",
            "peak x typical"]
    cells = []
    for r in rows:
        ms = [None if r[k] is None else r[k] / 1e3
              for k in ("us_per_mb", "typical_us_per_mb")]
        cells.append([r["shape"], r["command"], r["variant"], num(ms[0]),
                      num(r["peak_per_byte"]), num(ms[1]),
                      num(r["typical_peak_per_byte"]),
                      num(r["time_ratio"]), num(r["peak_ratio"])])
    table(head, cells)


def pipelined_table(run):
    """One message on two threads (send_pipelined, receive_pipelined)
    beside the same variant's one-thread case and the floor: the wall
    time it saves and the CPU it costs."""
    keys = pipelined_keys(run)
    if not keys:
        return
    print("## Two cores for one message\n")
    print("`send_pipelined/<ds>` is `send/<ds>` with `wss_opts.threads = 2` "
          "(docs/pipeline.md): the Body encrypted and encoded on a second "
          "thread while the first digests and signs; where the Body is "
          "over 256 KB the second thread makes the digest during the parse "
          "instead and the first seals (wss/send_ahead.h): from the bytes "
          "as they stand on quakes-canon-2m, whose Body is canonical so, "
          "and on quakes as generated in the order the parse puts the "
          "attributes in (build=deferred's parse tells it, dom/feed.h).  "
          "`receive_pipelined/<ds>` is `receive/<ds>` with the same "
          "option: the Body digested on a second thread behind its "
          "decryption and during its parse, the digest taken once proved "
          "(wss/digest_ahead.h).  wall: its median "
          "wall-clock time; CPU: both threads' CPU time per message; one "
          "thread: the same variant's one-thread case, measured in the same "
          "process (its cases interleaved); floor: the one-thread floor's "
          "sum from the floor's own process.  wall / floor below 1.00 is "
          "what no one-thread stack can reach; CPU / one above 1.00 is what "
          "the second thread costs (the hand-over, its waits, its caches).\n")
    head = ["stage", "dataset", "variant", "one thread us", "wall us",
            "CPU us", "wall / one", "CPU / one", "floor us", "wall / floor"]
    rows, found = [], pipelined_rows(run, keys)
    for r in found:
        rows.append([r["stage"], r["dataset"], r["label"], num(r["one"]),
                     num(r["wall"]), num(r["cpu"]), ratio(r["wall"], r["one"]),
                     ratio(r["cpu"], r["one"]), num(r["floor"]),
                     ratio(r["wall"], r["floor"])])
    table(head, rows)
    steps = [r for r in found if r["steps"]]
    if not steps:
        return
    print("When each step of the message ended, in us from the start of "
          "the call, in that order (the cases' t_<step> counters, "
          "docs/measuring.md, \"The two threads' schedule\"): the ahead_ "
          "steps are the second thread's, sealed the one's that encrypts "
          "(the second's where there are no ahead_ steps), the others the "
          "first's.\n")
    table(["stage", "dataset", "variant", "steps"],
          [[r["stage"], r["dataset"], r["label"],
            " · ".join(f"{name} {num(t)}" for name, t in r["steps"])]
           for r in steps])


def steps_of(b):
    """[(step, us)] a two-thread case marked (its t_<step> counters),
    in the order they ended."""
    return sorted(((k[2:], v) for k, v in b.items()
                   if k.startswith("t_") and isinstance(v, (int, float))),
                  key=lambda s: s[1])


def pipelined_keys(run, labels=None):
    """(stage, dataset, label) of every two-thread case (PIPELINED) that
    ran beside its one-thread case, for labels (default: every one)."""
    return [(st, d, lab) for st in PIPELINED for d in run.datasets
            for lab in (labels or run.labels)
            if (PIPELINED[st], d, lab) in run.table
            and (st, d, lab) in run.table]


def pipelined_rows(run, keys):
    """The two-thread case of each key against its one-thread case and
    the floor: {stage, dataset, label, one, wall, cpu, floor} in us."""
    rows = []
    for st, d, lab in keys:
        b = run.table[PIPELINED[st], d, lab]
        cpu = b.get("process_cpu_time")
        rows.append({"stage": st, "dataset": d, "label": lab,
                     "one": run.time(st, d, lab), "wall": us(b),
                     "cpu": None if cpu is None
                     else cpu * SCALE[b["time_unit"]],
                     "floor": run.floor_sum(st, d), "steps": steps_of(b)})
    return rows


def threads_table(run):
    """Throughput on 1, 2, 4, ... threads and how it scales, beside the
    control measured in the same process."""
    if not run.threads:
        return
    cpus = len(os.sched_getaffinity(0))
    print("## Threads\n")
    print(f"Each of T threads runs the case on documents of its own "
          f"(1, 2, 4, ... up to twice the {cpus} CPUs this run could use); "
          "msg/s is messages per second of wall-clock time, all threads "
          "together.  speedup = msg/s over the same variant's on 1 thread; "
          "efficiency = speedup / min(T, CPUs).  control: "
          "`threads_control`, FNV-1a over the message with nothing shared, "
          "run in the same process: its speedup is the "
          "parallel CPU the machine gave at that moment, so vs control = "
          "speedup / control's speedup (1.00: the code scales as well as "
          "work that shares nothing).  CPU us/msg is CPU time per "
          "message summed over the threads: if it grows with T, the "
          "threads contend (cache lines, spinning), if msg/s stalls while "
          "it stays flat, they wait (locks) or the machine is busy.\n")
    head = ["case", "variant", "threads", "msg/s", "speedup", "efficiency",
            "control speedup", "vs control", "CPU us/msg"]
    keys = sorted({(st, d, lab, t) for st, d, lab, t in run.threads})
    labels = run.labels + sorted({lab for _, _, lab, _ in keys
                                  if lab not in run.labels})
    counts = sorted({t for *_, t in keys})
    rows = []

    def rate(b):
        return 1e6 / us_real(b) if b is not None and us_real(b) else None

    for st in THREAD_STAGES + [THREAD_CONTROL]:
        for d in sorted({k[1] for k in keys if k[0] == st}):
            for lab in labels:
                one = rate(run.threads.get((st, d, lab, 1)))
                c_one = rate(run.threads.get((THREAD_CONTROL, d, lab, 1)))
                for t in counts:
                    b = run.threads.get((st, d, lab, t))
                    if b is None:
                        continue
                    r = rate(b)
                    sp = r / one if r and one else None
                    cr = rate(run.threads.get((THREAD_CONTROL, d, lab, t)))
                    csp = cr / c_one if cr and c_one else None
                    ctl = st == THREAD_CONTROL
                    rows.append([f"{st}/{d}", lab, str(t), num(r), num(sp),
                                 num(sp / min(t, cpus)) if sp else "-",
                                 "-" if ctl else num(csp),
                                 "-" if ctl else ratio(sp, csp),
                                 num(us(b))])
    table(head, rows)


def floor_table(run):
    if not run.floor:
        return
    sets = list(dict.fromkeys(d for _, d in run.floor))
    print("## The floor\n")
    print("CPU time per call in us, OpenSSL and libc alone: memcpy and "
          "memchr over the message's bytes, SHA-256 over the Body's "
          "exclusive canonical form (sha256) and over the Timestamp's and "
          "the SignedInfo's of the message as sent (sha256_small), AES "
          "over the Body's content (aes256gcm_decrypt: back), the RSA "
          "operations with alice's and bob's 2048-bit keys.  The send "
          f"floor is {floor_text('send')}, the receive floor "
          f"{floor_text('receive')}."
          + floor_note(run, ("send", "receive")) + "\n")
    parts = [p for p in FLOOR_PARTS if any((p, d) in run.floor for d in sets)]
    head = ["dataset"] + parts + ["send floor", "receive floor"]
    rows = []
    for d in sets:
        cells = [d] + [num(us(run.floor[p, d])) if (p, d) in run.floor
                       else "-" for p in parts]
        cells += [num(run.floor_sum("send", d)),
                  num(run.floor_sum("receive", d))]
        rows.append(cells)
    table(head, rows)


def build_of(run, label):
    """What a label's parse builds: its build choice, or the peer's own
    tree."""
    if label in ("ref", "pugixml"):
        return f"{label}'s tree"
    return run.axes.get(label, {}).get("build", "-")


def stage_tables(run):
    ic = run.has_icount()
    has_best = "best" in run.labels
    for stage in run.stages:
        has_ref = any((stage, d, "ref") in run.table for d in run.datasets)
        has_floor = stage in FLOORS and any(
            run.floor_sum(stage, d) for d in run.datasets)
        print(f"## {stage}\n")
        if has_floor:
            print(f"Floor: {floor_text(stage)}."
                  + floor_note(run, (stage,)) + "\n")
        # Variants that build different amounts of the tree do different
        # work in a parse: the table says which.
        builds = stage == "parse" and len({
            build_of(run, v) for v in run.labels}) > 1
        if builds:
            print("build: what the parse builds.  `deferred` is a check "
                  "pass that builds the Body's tree on first use, so its "
                  "time is not a whole tree's; compare whole trees with "
                  "whole trees (`direct`, `built`, pugixml's, libxml2's)."
                  "\n")
        head = ["dataset", "variant"] + (["build"] if builds else []) + [
            "time us", "cv %"]
        if ic:
            head.append("instr")
        head += ["MB/s", "allocs", "bytes", "peak", "B/elem", "cold us"]
        if has_ref:
            head.append("x ref")
        if has_best:
            head.append("x best")
        if has_floor:
            head.append("x floor")
        if ic and has_ref:
            head.append("instr x ref")
        if ic and has_best:
            head.append("instr x best")
        rows = []
        for d in run.datasets:
            for v in run.labels:
                b = run.table.get((stage, d, v))
                if b is None:
                    continue
                t = us(b)
                ir = run.icount.get((stage, d, v))
                cv = None if b["cv"] is None else 100 * b["cv"]
                cells = [d, v] + ([build_of(run, v)] if builds else []) + [
                    num(t), num(cv)]
                if ic:
                    cells.append(count(ir))
                cells += [num(b.get("bytes_per_second", 0) / 1e6),
                          count(b.get("allocs")), count(b.get("alloc_bytes")),
                          count(b.get("peak_bytes")),
                          num(b.get("bytes_per_element")),
                          num(b.get("cold_ns", 0) / 1e3)]
                if has_ref:
                    cells.append(ratio(t, run.time(stage, d, "ref")))
                if has_best:
                    cells.append(ratio(t, run.time(stage, d, "best")))
                if has_floor:
                    cells.append(ratio(t, run.floor_sum(stage, d)))
                if ic and has_ref:
                    cells.append(ratio(ir, run.icount.get((stage, d, "ref"))))
                if ic and has_best:
                    cells.append(ratio(ir,
                                       run.icount.get((stage, d, "best"))))
                rows.append(cells)
        table(head, rows)


def plots(run, rundir):
    """PNGs into rundir/plots (harness/reports/plots.py); returns their names, or
    None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    import plots as charts  # needs matplotlib
    return charts.plots(run, rundir, plt)


def numbers(run, a, name, below):
    """What the README's results table and the headline chart are made
    from (summary.json): send and receive per dataset, from the paired
    run when it ran (with the intervals of its ratios), else from the
    separate runs; every parse with the variant's build choice; the worst
    cases; every number under its floor (below, floor_breaches)."""
    out = {"run": name,
           "commit": a.commit, "mode": a.mode, "cases": a.cases,
           "instructions": run.has_icount(),
           "load_avg": run.context.get("load_avg", []),
           "floor": {s: floor_text(s) for s in ("send", "receive")},
           "floor_stand_ins": run.stand_ins(
               ("send", "receive"), "paired" if run.paired else "time"),
           "pipeline": [], "parse": [],
           "below_floor": below,
           "paired_noise": paired_noise(run)}
    for d in run.datasets:
        for s in ("send", "receive"):
            if run.time(s, d, "best") is None:
                continue
            row = {"dataset": d, "stage": s,
                   "bytes": input_bytes(run.table[s, d, "best"])}
            paired = run.paired_row(s, d)
            row["paired"] = paired is not None
            if paired is not None:
                row.update(paired)
            else:
                row.update(best=run.time(s, d, "best"),
                           ref=run.time(s, d, "ref"),
                           gsoap=run.time(s, d, "gsoap"),
                           floor=run.floor_sum(s, d),
                           ref_best_interval=None, best_floor_interval=None)
            row["best_instr"] = run.icount.get((s, d, "best"))
            row["ref_instr"] = run.icount.get((s, d, "ref"))
            row["best_peak"] = run.table[s, d, "best"].get("peak_bytes")
            out["pipeline"].append(row)
    for d in run.datasets:
        for v in run.labels:
            b = run.table.get(("parse", d, v))
            if b is not None:
                out["parse"].append({"dataset": d, "label": v, "us": us(b),
                                     "build": run.axes.get(v, {}).get(
                                         "build"),
                                     "bytes_per_element":
                                         b.get("bytes_per_element")})
    out["worst"] = worst_rows(run)
    out["two_cores"] = pipelined_rows(run, pipelined_keys(run, ["best"]))
    return out


def recorded(a, facts):
    """The arguments left out, from machine.txt's facts (when it had
    them)."""
    mode, _, flags = facts.get("mode", "").partition("; flags: ")
    wall = facts.get("wall time (builds included)", "").split(" ")[0]
    for key, value in (("commit", facts.get("commit")), ("mode", mode),
                       ("flags", flags), ("elapsed", wall or None),
                       ("cases", facts.get("cases"))):
        if getattr(a, key) is None:
            setattr(a, key, value)
    a.mode = a.mode or "-"
    a.cases = a.cases or ""


def machine(run, a):
    """machine.txt's facts: where and from what the run was made.  A run
    whose folder has machine.txt already (its report made again from the
    committed files) keeps the facts recorded when it ran."""
    path = os.path.join(a.dir, "machine.txt")
    if os.path.exists(path):
        return read_facts(path)
    ctx = run.context
    return {
        "run": os.path.basename(os.path.normpath(a.dir)),
        "commit": a.commit,
        "date": ctx["date"],
        "cpus": f"{len(os.sched_getaffinity(0))} usable, {ctx['num_cpus']} "
                f"at {ctx['mhz_per_cpu']} MHz",
        **machine_id(),
        "compiler": gcc_version(),
        "libxml2": ctx.get("libxml2", "?"),
        "xmlsec1": version(["pkg-config", "--modversion", "xmlsec1"]),
        "openssl": version(["openssl", "version"]),
        "load average at start": " ".join(f"{x:.2f}"
                                          for x in ctx.get("load_avg", [])),
        "mode": f"{a.mode or '-'}; flags: {(a.flags or '').strip()}",
        "cases": a.cases or "",
        "instruction counts": "yes" if run.has_icount() else "no",
        "wall time (builds included)": f"{a.elapsed} s"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    # Without these, a run whose folder has machine.txt (its report made
    # again from the committed files) takes them from there.
    ap.add_argument("--commit")
    ap.add_argument("--flags")
    ap.add_argument("--elapsed")
    ap.add_argument("--mode")
    ap.add_argument("--cases")
    ap.add_argument("--plots", action="store_true")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()

    run = Run(a.dir, a.runs)
    if run.context is None:
        print("summary.py: none of " + " ".join(a.runs) + " has a JSON in "
              + a.dir, file=sys.stderr)
        return 1
    facts = machine(run, a)
    recorded(a, facts)
    if None in (a.commit, a.flags, a.elapsed):
        print("summary.py: --commit, --flags and --elapsed are needed for "
              "a run without machine.txt", file=sys.stderr)
        return 1
    below = floor_breaches(run)
    with open(os.path.join(a.dir, "summary.json"), "w",
              encoding="utf-8") as f:
        json.dump(numbers(run, a, facts["run"], below), f, indent=1)
    with open(os.path.join(a.dir, "machine.txt"), "w",
              encoding="utf-8") as f:
        f.write("".join(f"{k}: {v}\n" for k, v in facts.items()))
    header(run, a, facts)
    floor_warning(below)
    if a.plots:
        made = plots(run, a.dir)
        if made is None:
            print("Plots: matplotlib is missing (apt-get install "
                  "python3-matplotlib).\n")
        else:
            print("Plots: " + ", ".join(f"[{m}](plots/{m})" for m in made)
                  + "\n")
    send_receive(run)
    for line in datafiles.section(run):
        print(line)
    paired_table(run)
    forward_table(run)
    latency_table(run)
    pipelined_table(run)
    threads_table(run)
    axes_table(run)
    rounds_table(run)
    worst_table(run)
    floor_table(run)
    for line in loadreport.load_table(a.dir) + loadreport.scenario_tables(
            a.dir):
        print(line)
    stage_tables(run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
