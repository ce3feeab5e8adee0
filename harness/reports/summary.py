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

A RUN is a variant name (RUN.json, RUN.icount.tsv when counted); `ref:`
cases in any file are the reference, `pugi:` cases the pugixml peer
(label `pugixml`), `floor:` cases the floor.
"""
import argparse
import json
import os
import platform
import subprocess
import sys

import loadreport
import spread

# What each axis's flip from best tests (docs/findings.md) and the
# cases where it shows, besides send and receive.
FINDINGS = {
    "attrs": ("findNamePoint's linear search vs a HashMap and its memory "
              "cost", ["attr_lookup/wide", "attr_lookup/quakes-200k"]),
    "userdata": ("a Hashtable per node cost 4-6%",
                 ["userdata/quakes-200k", "parse/quakes-200k"]),
    "build": ("OM tree then DOOM tree vs DOOM built from the StAX reader; "
              "Axiom's deferred tree, the Body a hop never reads never "
              "built", ["parse/quakes-200k", "forward/quakes-2m",
                        "forward/quakes-2k"]),
    "attrlist": ("getAttributes() ~10% of CPU under c14n vs <1%",
                 ["c14n/quakes-200k", "attr_walk/quakes-200k"]),
    "keys": ("crypto object reloaded per request vs cached",
             ["send/quakes-2k", "receive/quakes-2k"]),
    "tokens": ("RAMPART-298: time per request grows with request count",
               ["tokens/100", "tokens/700", "tokens_lookup/100",
                "tokens_lookup/700"]),
    "io": ("attachments 3-12x faster once buffered",
           ["attachment/150k", "attachment/4m", "attachment_file/150k",
            "attachment_file/4m"]),
    "read": ("the socket-read stall: a body read until end of stream "
             "(Load over HTTP below; none in the pipeline's cases)", []),
    "parser": ("how far a DOM fed by a general parser stays from the "
               "limit", ["parse/quakes-200k"]),
    "emit": ("decrypted content written back from the tree vs from the "
             "bytes it was parsed from; the Body's canonical form written "
             "while parsing vs a walk when it is signed",
             ["receive/quakes-2m", "send/quakes-2m", "parse/quakes-200k"]),
    "hash": ("an unkeyed hash that input can flood (oCERT-2011-003)",
             ["worst/collide-names", "worst/collide-attrs",
              "worst/collide-ids", "parse/quakes-200k"]),
}
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

# The floor of a stage: floor cases and how many times each counts.  The
# send and receive floors: SHA-256 over the canonical bytes
# twice, AES-256-GCM (the pipeline's default) over the Body, one RSA
# signature operation and one RSA-OAEP operation.
SEND_FLOOR = {"sha256": 2, "aes256gcm": 1, "rsa_sign": 1,
              "rsa_oaep_wrap": 1}
RECEIVE_FLOOR = {"sha256": 2, "aes256gcm": 1, "rsa_verify": 1,
                 "rsa_oaep_unwrap": 1}
STAGE_FLOOR = {
    "parse": {"memcpy": 1},
    "c14n": {"memcpy": 1},
    "sign": {"sha256": 1, "rsa_sign": 1},
    "verify": {"sha256": 1, "rsa_verify": 1},
    "encrypt": {"aes256gcm": 1, "rsa_oaep_wrap": 1},
    "decrypt": {"aes256gcm": 1, "rsa_oaep_unwrap": 1},
    "send": SEND_FLOOR,
    "receive": RECEIVE_FLOOR,
}
FLOOR_PARTS = ["memcpy", "memchr", "sha256", "aes256gcm", "aes128cbc",
               "rsa_sign", "rsa_verify", "rsa_oaep_wrap", "rsa_oaep_unwrap"]


def load(path):
    """{case name: entry}, the median aggregate when there are repetitions."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    rows = {}
    for b in doc["benchmarks"]:
        if b.get("error_occurred"):
            continue
        if b["run_type"] == "aggregate":
            if b["aggregate_name"] == "median":
                rows[b["run_name"]] = dict(b, cv=None)
        elif b["run_name"] not in rows:
            rows[b["run_name"]] = dict(b, cv=None)
    for b in doc["benchmarks"]:
        if b.get("aggregate_name") == "cv" and b["run_name"] in rows:
            rows[b["run_name"]]["cv"] = b["cpu_time"]
    return doc["context"], rows


def load_icount(path):
    """{case name: instructions per iteration} from compare.sh's TSV."""
    counts = {}
    if not os.path.exists(path):
        return counts
    with open(path, encoding="utf-8") as f:
        for line in f:
            name, total, iters = line.rstrip("\n").split("\t")
            counts[name] = int(total) / int(iters)
    return counts


def load_variants(path):
    """{variant: {axis: choice}} from compare.sh's variants.txt."""
    axes = {}
    if not os.path.exists(path):
        return axes
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if words:
                axes[words[0]] = dict(w.split("=", 1) for w in words[1:])
    return axes


def us(b):
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
    return b["cpu_time"] * scale


def us_real(b):
    """Wall-clock time per iteration in us (threaded cases: per message,
    all threads together)."""
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
    return b["real_time"] * scale


def num(x):
    """About three significant digits."""
    if x is None:
        return "-"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def count(x):
    return "-" if x is None else f"{x:,.0f}"


def ratio(a, b):
    return num(a / b) if a is not None and b else "-"


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


class Run:
    """Every number of one compare run, by (stage, dataset, label)."""

    def __init__(self, rundir, names):
        self.stages, self.datasets, self.labels = [], [], []
        self.table = {}   # (stage, dataset, label) -> entry
        self.icount = {}  # (stage, dataset, label) -> instructions/iter
        self.floor = {}   # (part, dataset) -> entry
        self.floor_ir = {}
        self.threads = {}  # (stage, dataset, label, threads) -> entry
        self.context = None
        self.reps = {}  # run -> {case: [CPU us of each repetition]}
        for r in names:
            ctx, rows = load(os.path.join(rundir, r + ".json"))
            # The machine's context as the first variant's run saw it.
            if self.context is None or r == names[0]:
                self.context = ctx
            self.reps[r] = spread.repetitions(os.path.join(rundir,
                                                           r + ".json"))
            counts = load_icount(os.path.join(rundir, r + ".icount.tsv"))
            for name, b in rows.items():
                self.add(r, name, b, counts.get(name))
        self.axes = load_variants(os.path.join(rundir, "variants.txt"))

    def add(self, run, name, b, ir):
        label = run
        if "/threads:" in name:
            self.add_threaded(run, name, b)
            return
        if name.startswith("floor:"):
            part, dataset = name[len("floor:"):].split("/", 1)
            self.floor[part, dataset] = b
            if ir is not None:
                self.floor_ir[part, dataset] = ir
            return
        if name.startswith("ref:"):
            name, label = name[len("ref:"):], "ref"
        elif name.startswith("pugi:"):
            name, label = name[len("pugi:"):], "pugixml"
        elif run in ("ref", "floor", "pugixml"):
            return
        stage, dataset = name.split("/", 1)
        for lst, x in ((self.stages, stage), (self.datasets, dataset),
                       (self.labels, label)):
            if x not in lst:
                lst.append(x)
        self.table[stage, dataset, label] = b
        if ir is not None:
            self.icount[stage, dataset, label] = ir

    def add_threaded(self, run, name, b):
        """stage/dataset/real_time/threads:T; the control is labelled
        with the run it was measured in, ref's included."""
        label = run
        if name.startswith("ref:"):
            name, label = name[len("ref:"):], "ref"
        elif run == "floor":
            return
        stage, dataset = name.split("/")[:2]
        self.threads[stage, dataset, label, int(b["threads"])] = b

    def time(self, stage, dataset, label):
        b = self.table.get((stage, dataset, label))
        return None if b is None else us(b)

    def floor_sum(self, parts, dataset, ir=False):
        """A floor in us (or instructions), None if a part is missing."""
        total = 0.0
        for part, times in parts.items():
            if ir:
                x = self.floor_ir.get((part, dataset))
            else:
                b = self.floor.get((part, dataset))
                x = None if b is None else us(b)
            if x is None:
                return None
            total += times * x
        return total

    def has_icount(self):
        return bool(self.icount)


def header(run, a):
    ctx = run.context
    name = os.path.basename(os.path.normpath(a.dir))
    print(f"# bench run {name}\n")
    print(f"- date: {ctx['date']}")
    print(f"- machine: {len(os.sched_getaffinity(0))} CPUs "
          f"({ctx['num_cpus']} at {ctx['mhz_per_cpu']} MHz), "
          f"kernel {platform.release()}, {gcc_version()}, "
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


def send_receive(run):
    """Each variant's send and receive as multiples of the floor."""
    sets = [d for d in run.datasets
            if any((s, d, v) in run.table
                   for s in ("send", "receive") for v in run.labels)]
    if not sets:
        return
    ic = run.has_icount()
    print("## Send and receive against the floor\n")
    print("Send floor: SHA-256 of the canonical message x2 + AES-256-GCM of "
          "the Body + RSA sign + RSA-OAEP wrap; receive floor: SHA-256 x2 + "
          "AES-256-GCM + RSA verify + RSA-OAEP unwrap, all measured in this "
          "run (the floor table below has the parts).\n")
    head = ["dataset", "variant", "send us", "x floor", "x ref", "x best"]
    if ic:
        head += ["send instr", "instr x floor"]
    head += ["receive us", "x floor", "x ref", "x best"]
    if ic:
        head += ["receive instr", "instr x floor"]
    rows = []
    for d in sets:
        floors = {s: (run.floor_sum(p, d), run.floor_sum(p, d, ir=True))
                  for s, p in (("send", SEND_FLOOR),
                               ("receive", RECEIVE_FLOOR))}
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


def paired_table(rundir):
    """best, ref and the floor's parts measured in one process with their
    repetitions interleaved at random (compare.sh's paired run)."""
    path = os.path.join(rundir, "paired.json")
    if not os.path.exists(path):
        return
    _, rows = load(path)

    def t(name):
        b = rows.get(name)
        return None if b is None else us(b)

    print("## Side by side: best, ref and the floor in one process\n")
    print("The same cases again in one `domlab-bench bench --ref --floor` "
          "process, 9 repetitions of each interleaved at random "
          "(`--benchmark_enable_random_interleaving`), medians: what the "
          "machine does meanwhile falls on best, ref and the floor alike, "
          "where the separate runs above sit minutes apart.  `ref / best` "
          "is how many times faster best is; `best / floor` how far above "
          "the floor (its parts as in the table above).\n")
    head = ["dataset", "stage", "best us", "ref us", "floor us",
            "ref / best", "best / floor"]
    out = []
    for d in ("quakes-2k", "ints-800", "quakes-200k", "quakes-2m"):
        for stage, parts in (("send", SEND_FLOOR),
                             ("receive", RECEIVE_FLOOR)):
            best, ref = t(f"{stage}/{d}"), t(f"ref:{stage}/{d}")
            if best is None:
                continue
            fl = 0.0
            for part, times in parts.items():
                x = t(f"floor:{part}/{d}")
                fl = None if x is None or fl is None else fl + times * x
            out.append([d, stage, num(best), num(ref), num(fl),
                        ratio(ref, best), ratio(best, fl)])
    table(head, out)


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
        finding, cases = FINDINGS.get(ax, ("-", []))
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
          "memchr over the message's bytes, SHA-256 over its exclusive "
          "canonical form, AES over the Body's content, the RSA operations "
          "with alice's and bob's 2048-bit keys.\n")
    parts = [p for p in FLOOR_PARTS if any((p, d) in run.floor for d in sets)]
    head = ["dataset"] + parts + ["send floor", "receive floor"]
    rows = []
    for d in sets:
        cells = [d] + [num(us(run.floor[p, d])) if (p, d) in run.floor
                       else "-" for p in parts]
        cells += [num(run.floor_sum(SEND_FLOOR, d)),
                  num(run.floor_sum(RECEIVE_FLOOR, d))]
        rows.append(cells)
    table(head, rows)


def stage_tables(run):
    ic = run.has_icount()
    has_best = "best" in run.labels
    for stage in run.stages:
        has_ref = any((stage, d, "ref") in run.table for d in run.datasets)
        parts = STAGE_FLOOR.get(stage)
        has_floor = parts is not None and any(
            run.floor_sum(parts, d) for d in run.datasets)
        print(f"## {stage}\n")
        if has_floor:
            what = " + ".join((f"{n} x " if n > 1 else "") + p
                              for p, n in parts.items())
            print(f"Floor: {what}.\n")
        head = ["dataset", "variant", "time us", "cv %"]
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
                cells = [d, v, num(t), num(cv)]
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
                    cells.append(ratio(t, run.floor_sum(parts, d)))
                if ic and has_ref:
                    cells.append(ratio(ir, run.icount.get((stage, d, "ref"))))
                if ic and has_best:
                    cells.append(ratio(ir,
                                       run.icount.get((stage, d, "best"))))
                rows.append(cells)
        table(head, rows)


def input_bytes(b):
    """The case's input size, from its rate and its time."""
    return b.get("bytes_per_second", 0) * us(b) * 1e-6


def plots(run, rundir):
    """PNGs into rundir/plots (harness/reports/plots.py); returns their names, or
    None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    import plots as charts  # needs matplotlib; imports this module
    return charts.plots(run, rundir, plt)


def numbers(run, a):
    """What the README's results table is made from (summary.json):
    send and receive per quakes dataset, side by side when the paired run
    ran, else from the separate runs; parse and memory at the largest."""
    out = {"run": os.path.basename(os.path.normpath(a.dir)),
           "commit": a.commit, "mode": a.mode, "cases": a.cases,
           "instructions": run.has_icount(), "pipeline": [], "parse": []}
    paired = {}
    path = os.path.join(a.dir, "paired.json")
    if os.path.exists(path):
        paired = {n: us(b) for n, b in load(path)[1].items()}
    floors = {"send": SEND_FLOOR, "receive": RECEIVE_FLOOR}
    for d in run.datasets:
        for s in ("send", "receive"):
            if run.time(s, d, "best") is None:
                continue
            row = {"dataset": d, "stage": s, "paired": f"{s}/{d}" in paired,
                   "bytes": input_bytes(run.table[s, d, "best"])}
            if row["paired"]:
                fl = 0.0
                for part, times in floors[s].items():
                    x = paired.get(f"floor:{part}/{d}")
                    fl = None if x is None or fl is None else fl + times * x
                row.update(best=paired[f"{s}/{d}"],
                           ref=paired.get(f"ref:{s}/{d}"), floor=fl)
            else:
                row.update(best=run.time(s, d, "best"),
                           ref=run.time(s, d, "ref"),
                           floor=run.floor_sum(floors[s], d))
            row["best_instr"] = run.icount.get((s, d, "best"))
            row["ref_instr"] = run.icount.get((s, d, "ref"))
            b = run.table[s, d, "best"]
            row["best_peak"] = b.get("peak_bytes")
            out["pipeline"].append(row)
    for d in run.datasets:
        for v in run.labels:
            b = run.table.get(("parse", d, v))
            if b is not None:
                out["parse"].append({"dataset": d, "label": v, "us": us(b),
                                     "bytes_per_element":
                                         b.get("bytes_per_element")})
    out["worst"] = worst_rows(run)
    return out


def machine(run, a):
    """machine.txt: where and from what the run was made."""
    ctx = run.context
    return "\n".join([
        f"run: {os.path.basename(os.path.normpath(a.dir))}",
        f"commit: {a.commit}",
        f"date: {ctx['date']}",
        f"cpus: {len(os.sched_getaffinity(0))} usable, {ctx['num_cpus']} "
        f"at {ctx['mhz_per_cpu']} MHz",
        f"kernel: {platform.release()}",
        f"compiler: {gcc_version()}",
        f"libxml2: {ctx.get('libxml2', '?')}",
        f"xmlsec1: {version(['pkg-config', '--modversion', 'xmlsec1'])}",
        f"openssl: {version(['openssl', 'version'])}",
        "load average at start: "
        + " ".join(f"{x:.2f}" for x in ctx.get("load_avg", [])),
        f"mode: {a.mode}; flags: {a.flags.strip()}",
        f"instruction counts: {'yes' if run.has_icount() else 'no'}",
        f"wall time (builds included): {a.elapsed} s", ""])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--flags", required=True)
    ap.add_argument("--elapsed", required=True)
    ap.add_argument("--mode", default="-")
    ap.add_argument("--cases", default="")
    ap.add_argument("--plots", action="store_true")
    ap.add_argument("--paired", action="store_true")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()

    run = Run(a.dir, a.runs)
    with open(os.path.join(a.dir, "summary.json"), "w",
              encoding="utf-8") as f:
        json.dump(numbers(run, a), f, indent=1)
    with open(os.path.join(a.dir, "machine.txt"), "w",
              encoding="utf-8") as f:
        f.write(machine(run, a))
    header(run, a)
    if a.plots:
        made = plots(run, a.dir)
        if made is None:
            print("Plots: matplotlib is missing (apt-get install "
                  "python3-matplotlib).\n")
        else:
            print("Plots: " + ", ".join(f"[{m}](plots/{m})" for m in made)
                  + "\n")
    send_receive(run)
    if a.paired:
        paired_table(a.dir)
    forward_table(run)
    latency_table(run)
    threads_table(run)
    axes_table(run)
    worst_table(run)
    floor_table(run)
    for line in loadreport.load_table(a.dir) + loadreport.scenario_tables(
            a.dir):
        print(line)
    stage_tables(run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
