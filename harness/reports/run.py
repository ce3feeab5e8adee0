#!/usr/bin/env python3
"""run.py - one compare run read from its folder (results/<run>/), the
model every report of it uses: summary.py (summary.md, summary.json),
plots.py (the charts), findings.py (FINDINGS.md) and readme_results.py
(the README's results table, through summary.json).

A run is the Google Benchmark JSON of each variant and of `ref`,
`pugixml` and the floor (RUN.json, or RUN.json.gz as a committed run
keeps it), the paired run (paired.json: best, ref and the floor in one
process; paired.2.json .. paired.K.json: the same command in processes
of its own, PAIRED_RUNS=K), instruction counts (RUN.icount.tsv), variants.txt,
commands.tsv and the rounds of the findings' pairs (ALTERNATE=K,
harness/reports/rounds.py: alternate/OLD..NEW/VARIANT.ROUND.json).  The
rechecks kept since (rechecks/STAMP/, `make recheck KEEP=1`) each add
one more paired process and one more round of each pair, so that the
intervals hold the drift between runs hours or days apart.
Run reads them once and answers by (stage, dataset, label); the floor of
each stage is defined here, once (docs/measuring.md derives it).

Not for: laying out tables or charts, or running anything
(harness/reports/compare.sh does).  Standard library only.
"""
import gzip
import json
import os
import platform
from statistics import mean, median, stdev

import spread

SCALE = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
RECHECKS = "rechecks"

# The floor of each stage: the floor cases (harness/bench/cases_floor.c)
# and how many times each counts.  What the profile must do per message,
# each once: send digests the Body's canonical form (sha256) and the
# Timestamp and SignedInfo (sha256_small), encrypts the Body's content
# (aes256gcm), signs and wraps the session key; receive does the mirror
# image.  Parse and c14n touch every byte once (memcpy).
FLOORS = {
    "parse": {"memcpy": 1},
    "c14n": {"memcpy": 1},
    "sign": {"sha256": 1, "sha256_small": 1, "rsa_sign": 1},
    "verify": {"sha256": 1, "sha256_small": 1, "rsa_verify": 1},
    "encrypt": {"aes256gcm": 1, "rsa_oaep_wrap": 1},
    "decrypt": {"aes256gcm_decrypt": 1, "rsa_oaep_unwrap": 1},
    "send": {"sha256": 1, "sha256_small": 1, "aes256gcm": 1,
             "rsa_sign": 1, "rsa_oaep_wrap": 1},
    "receive": {"sha256": 1, "sha256_small": 1, "aes256gcm_decrypt": 1,
                "rsa_verify": 1, "rsa_oaep_unwrap": 1},
}
# A part a run did not measure, and what stands in for it: GCM decrypts
# with the same counter mode and GHASH it encrypts with; the small
# digests are a few hundred bytes (about 2 us), left out, which can only
# lower the floor.  The report names every stand-in it used.
STAND_IN = {"aes256gcm_decrypt": "aes256gcm", "sha256_small": None}
FLOOR_PARTS = ["memcpy", "memchr", "sha256", "sha256_small", "aes256gcm",
               "aes256gcm_decrypt", "aes128cbc", "rsa_sign", "rsa_verify",
               "rsa_oaep_wrap", "rsa_oaep_unwrap"]


def floor_text(stage):
    """The stage's floor in words, e.g. "sha256 + rsa_sign"."""
    return " + ".join((f"{n} x " if n > 1 else "") + p
                      for p, n in FLOORS[stage].items())


# ---- reading files --------------------------------------------------------

def json_path(rundir, name):
    """RUN/name.json, or RUN/name.json.gz; None when neither is there."""
    for p in (os.path.join(rundir, name + ".json"),
              os.path.join(rundir, name + ".json.gz")):
        if os.path.exists(p):
            return p
    return None


def read_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def medians(doc):
    """{case name: entry}, the median aggregate when there are
    repetitions, each with its cv (None without)."""
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
    return rows


def repetitions(doc):
    """{case name: [CPU us of each repetition]} (a JSON written with every
    repetition, --benchmark_display_aggregates_only); a case run once has
    one entry."""
    reps = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        reps.setdefault(b["run_name"], []).append(
            b["cpu_time"] * SCALE[b["time_unit"]])
    return reps


def noise(reps):
    """How much the machine moved while one process ran: the median over
    its cases ({case: [CPU us of each repetition]}) of each case's
    coefficient of variation (standard deviation over mean), None
    without a case of two repetitions or more.  A quiet host gives well
    under 0.02, one whose neighbours come and go ten times that."""
    cvs = [stdev(xs) / mean(xs) for xs in reps.values()
           if len(xs) > 1 and mean(xs) > 0]
    return median(cvs) if cvs else None


def merge_medians(procs):
    """{case: entry} from several runs' medians ({case: entry} each): the
    first run's entry with its times the median over the runs that have
    the case, in us."""
    out = {}
    for case, first in (procs[0].items() if procs else ()):
        bs = [p[case] for p in procs if case in p]
        out[case] = dict(first, time_unit="us",
                         cpu_time=median([us(b) for b in bs]),
                         real_time=median([us_real(b) for b in bs]))
    return out


def load(path):
    """(context, {case name: median entry}) of one JSON file."""
    doc = read_json(path)
    return doc["context"], medians(doc)


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


def load_commands(path):
    """{run: the command line compare.sh ran} from commands.tsv."""
    cmds = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                run, _, cmd = line.rstrip("\n").partition("\t")
                cmds[run] = cmd
    return cmds


def recheck_dirs(rundir):
    """The rechecks kept in rundir (rechecks/STAMP/, recheck.py --keep),
    oldest first: each a folder with paired.json.gz, alternate/ and
    recheck.txt."""
    base = os.path.join(rundir, RECHECKS)
    names = sorted(os.listdir(base)) if os.path.isdir(base) else []
    return [os.path.join(base, n) for n in names
            if os.path.isdir(os.path.join(base, n))]


# The CPU features that change how fast OpenSSL's SHA-256 (SHA-NI),
# AES-GCM (AVX2, VAES and VPCLMULQDQ) and RSA (AVX-512 IFMA) run: two
# machines that differ in them differ in the floor's parts.
CRYPTO_FLAGS = ("avx2", "sha_ni", "vaes", "vpclmulqdq", "avx512ifma")


def cpu_id(path="/proc/cpuinfo"):
    """The CPU a run measures on, as machine.txt and recheck.txt record
    it: "AMD EPYC (family 26, model 2; avx2 sha_ni vaes vpclmulqdq
    avx512ifma)", the flags those of CRYPTO_FLAGS it has; "?" where path
    does not say."""
    facts = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                facts[key.strip()] = value.strip()
    except OSError:
        return "?"
    if "model name" not in facts:
        return "?"
    flags = facts.get("flags", "").split()
    have = " ".join(x for x in CRYPTO_FLAGS if x in flags) or "none of " \
        + " ".join(CRYPTO_FLAGS)
    return (f"{facts['model name']} (family {facts.get('cpu family', '?')}, "
            f"model {facts.get('model', '?')}; {have})")


VULNERABILITIES = "/sys/devices/system/cpu/vulnerabilities"


def mitigations_id(folder=VULNERABILITIES):
    """The kernel's mitigations of speculative execution, as machine.txt
    and recheck.txt record them: "meltdown (Mitigation: PTI),
    spectre_v2 (Mitigation: Retpolines)", each file of folder whose
    value is not "Not affected", in name order, with its value's first
    clause.  Several run on every entry into the kernel (page-table
    isolation, buffer and return-stack flushes) and so set what a system
    call costs: a case that makes one per byte (io=unbuffered) moves by
    several times between two kernels that differ here, on one CPU.
    "none" when every file says "Not affected"; "?" where folder cannot
    be read."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return "?"
    out = []
    for name in names:
        try:
            with open(os.path.join(folder, name), encoding="utf-8",
                      errors="replace") as f:
                value = f.read().strip()
        except OSError:
            continue
        if value and value != "Not affected":
            out.append(f"{name} ({value.split(';')[0].strip()})")
    return ", ".join(out) or "none"


def machine_id():
    """What of this machine decides whether a run's ratios hold here, as
    machine.txt and recheck.txt record it: the CPU, the kernel and its
    mitigations."""
    return {"cpu": cpu_id(), "kernel": platform.release(),
            "mitigations": mitigations_id()}


def read_facts(path):
    """{key: value} of a file of `key: value` lines (machine.txt,
    recheck.txt); {} when there is none."""
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return dict(line.rstrip("\n").split(": ", 1) for line in f
                    if ": " in line)


def run_name(rundir):
    """The run's id: machine.txt's `run:` line (a committed run keeps it
    under another folder name), else the folder's name."""
    return (read_facts(os.path.join(rundir, "machine.txt")).get("run")
            or os.path.basename(os.path.normpath(rundir)))


# ---- numbers ----------------------------------------------------------------

def us(b):
    return b["cpu_time"] * SCALE[b["time_unit"]]


def us_real(b):
    """Wall-clock time per iteration in us (threaded cases: per message,
    all threads together)."""
    return b["real_time"] * SCALE[b["time_unit"]]


def input_bytes(b):
    """The case's input size, from its rate and its time."""
    return b.get("bytes_per_second", 0) * us(b) * 1e-6


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


def split_case(name):
    """(label, stage, dataset) of a case name: ref:, gsoap: and pugi:
    cases are labelled ref, gsoap (the gSOAP peer, harness/gsoap/, run in
    ref's run) and pugixml, floor: cases floor, the others None."""
    label = None
    for prefix, lab in (("ref:", "ref"), ("gsoap:", "gsoap"),
                        ("pugi:", "pugixml"),
                        ("floor:", "floor")):
        if name.startswith(prefix):
            name, label = name[len(prefix):], lab
            break
    stage, _, dataset = name.partition("/")
    return label, stage, dataset


class Run:
    """Every number of one compare run.

    rows[run] / reps[run] / icounts[run]: {case: median entry},
    {case: [CPU us per repetition]}, {case: instructions per iteration}
    of each run read; table[stage, dataset, label] and icount[...]: the
    same by label (a variant, `ref`, `pugixml`); floor[part, dataset]
    and floor_ir; threads[stage, dataset, label, threads]; paired and
    paired_procs: the paired run's, by case name (paired_procs: each
    process's medians and repetitions); axes: variants.txt;
    commands; rounds[old, new]: the rounds of that pair, each
    ({case: entry} of old, of new), and round_commands their commands
    (alternate/commands.tsv).  rechecks: how many kept rechecks the
    paired processes and the rounds include (recheck_dirs; limit: the
    first limit of them, None for all)."""

    def __init__(self, rundir, names, limit=None):
        self.dir = rundir
        self.stages, self.datasets, self.labels = [], [], []
        self.rows, self.reps, self.icounts = {}, {}, {}
        self.table, self.icount = {}, {}
        self.floor, self.floor_ir, self.threads = {}, {}, {}
        self.context = None
        self.missing = []
        for r in names:
            path = json_path(rundir, r)
            if path is None:
                self.missing.append(r)
                continue
            doc = read_json(path)
            # The machine's context as the first variant's run saw it.
            if self.context is None or r == names[0]:
                self.context = doc["context"]
            self.rows[r] = medians(doc)
            self.reps[r] = repetitions(doc)
            self.icounts[r] = load_icount(
                os.path.join(rundir, r + ".icount.tsv"))
            for name, b in self.rows[r].items():
                self.add(r, name, b, self.icounts[r].get(name))
        # [(medians, repetitions)] of each paired process, the run's
        # then each recheck's; paired: the median over them of each
        # case's median.
        self.paired_procs, self.paired_dates = [], []
        self.rounds = {}
        rechecks = recheck_dirs(rundir)[:limit]
        self.rechecks = len(rechecks)
        for folder in [rundir] + rechecks:
            self.load_paired(folder)
            self.load_rounds(folder)
        self.paired = merge_medians([m for m, _ in self.paired_procs])
        self.axes = load_variants(os.path.join(rundir, "variants.txt"))
        self.commands = load_commands(os.path.join(rundir, "commands.tsv"))
        self.round_commands = load_commands(
            os.path.join(rundir, "alternate", "commands.tsv"))

    def load_paired(self, folder):
        """Appends folder's paired processes (paired.json, paired.2.json
        .. paired.K.json) to paired_procs and paired_dates."""
        k = 1
        while True:
            path = json_path(folder, "paired" if k == 1 else f"paired.{k}")
            if path is None:
                return
            doc = read_json(path)
            self.paired_procs.append((medians(doc), repetitions(doc)))
            self.paired_dates.append(doc.get("context", {}).get("date"))
            k += 1

    def load_rounds(self, rundir):
        """Appends rundir's rounds to rounds: {(old, new): [({case: entry}
        of old, of new) per round, in round order]} from rounds.py
        (alternate/OLD..NEW/VARIANT.K.json)."""
        folder = os.path.join(rundir, "alternate")
        rounds = self.rounds
        pairs = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        for pair in pairs:
            old, sep, new = pair.partition("..")
            if not sep:
                continue
            k = 1
            while True:
                po = json_path(os.path.join(folder, pair), f"{old}.{k}")
                pn = json_path(os.path.join(folder, pair), f"{new}.{k}")
                if po is None or pn is None:
                    break
                rounds.setdefault((old, new), []).append(
                    (load(po)[1], load(pn)[1]))
                k += 1

    def add(self, run, name, b, ir):
        label, stage, dataset = split_case(name)
        if dataset.endswith("/process_time/real_time"):
            # One message on two threads (send_pipelined,
            # receive_pipelined): its time is the wall clock's, the CPU
            # of both threads kept beside it.
            dataset = dataset.split("/")[0]
            b = dict(b, cpu_time=b["real_time"],
                     process_cpu_time=b["cpu_time"])
        if "/threads:" in name:
            # stage/dataset/real_time/threads:T; the control is labelled
            # with the run it was measured in, ref's included.
            if label != "floor":
                self.threads[stage, dataset.split("/")[0],
                             label or run, int(b["threads"])] = b
            return
        if label == "floor":
            self.floor[stage, dataset] = b
            if ir is not None:
                self.floor_ir[stage, dataset] = ir
            return
        if label is None:
            if run in ("ref", "floor", "pugixml"):
                return
            label = run
        for lst, x in ((self.stages, stage), (self.datasets, dataset),
                       (self.labels, label)):
            if x not in lst:
                lst.append(x)
        self.table[stage, dataset, label] = b
        if ir is not None:
            self.icount[stage, dataset, label] = ir

    def has_icount(self):
        return bool(self.icount)

    def time(self, stage, dataset, label):
        b = self.table.get((stage, dataset, label))
        return None if b is None else us(b)

    def entry(self, variant, case):
        return self.rows.get(variant, {}).get(case)

    # ---- the floor ----------------------------------------------------

    def floor_part(self, part, dataset, source, paired=None):
        """A floor part in us, instructions or the paired run's us
        (source "time", "ir" or "paired"; paired: one paired process's
        medians instead of their median), its stand-in's when the run
        lacks it; (value, stand-in used or None), value None when
        neither was measured."""
        def get(p):
            if source == "ir":
                return self.floor_ir.get((p, dataset))
            if source == "paired":
                b = (self.paired if paired is None else paired).get(
                    f"floor:{p}/{dataset}")
            else:
                b = self.floor.get((p, dataset))
            return None if b is None else us(b)
        x = get(part)
        if x is not None or part not in STAND_IN:
            return x, None
        other = STAND_IN[part]
        if other is None:
            return 0.0, "left out"
        y = get(other)
        return (y, other) if y is not None else (None, None)

    def floor_sum(self, stage, dataset, source="time", paired=None):
        """The stage's floor on dataset, None if a part is missing."""
        total = 0.0
        for part, times in FLOORS[stage].items():
            x, _ = self.floor_part(part, dataset, source, paired)
            if x is None:
                return None
            total += times * x
        return total

    def stand_ins(self, stages, source="time"):
        """["part: what stood in", ...] the floors of stages used, on the
        datasets where the run has the stage's floor at all (its other
        parts measured)."""
        out = []
        for stage in stages:
            sets = [d for d in self.datasets
                    if all(self.floor_part(p, d, source)[0] is not None
                           for p in FLOORS[stage] if p not in STAND_IN)]
            for part in FLOORS[stage]:
                for d in sets:
                    x, used = self.floor_part(part, d, source)
                    if x is not None and used:
                        note = (f"{part} left out (not measured in this "
                                "run; a few hundred bytes of SHA-256)"
                                if used == "left out" else
                                f"{part} measured as {used} (not measured "
                                "in this run)")
                        if note not in out:
                            out.append(note)
                        break
        return out

    def floor_reps(self, stage, dataset, reps):
        """One paired process's floor, repetition by repetition (the i-th
        repetition of each part added up, from reps), for an interval;
        None when a part has no repetitions."""
        sums = None
        for part, times in FLOORS[stage].items():
            xs = reps.get(f"floor:{part}/{dataset}")
            if xs is None and part in STAND_IN:
                other = STAND_IN[part]
                if other is None:
                    continue
                xs = reps.get(f"floor:{other}/{dataset}")
            if not xs:
                return None
            xs = [times * x for x in xs]
            sums = xs if sums is None else [a + b for a, b in zip(sums, xs)]
        return sums

    # ---- the paired run -------------------------------------------------

    def paired_time(self, case, paired=None):
        """case's time in the paired run (paired: one process's medians
        instead of their median), None when it did not run."""
        b = (self.paired if paired is None else paired).get(case)
        return None if b is None else us(b)

    def paired_row(self, stage, dataset):
        """best, ref and the floor's stage on dataset in the paired run
        (medians over its processes), with ref / best and best / floor,
        their intervals (paired_intervals) and the kind of interval;
        None when best's case is not in it."""
        best = self.paired_time(f"{stage}/{dataset}")
        if best is None:
            return None
        ref = self.paired_time(f"ref:{stage}/{dataset}")
        fl = self.floor_sum(stage, dataset, "paired")
        row = {"best": best, "ref": ref, "floor": fl,
               "gsoap": self.paired_time(f"gsoap:{stage}/{dataset}"),
               "processes": len(self.paired_procs),
               "rechecks": self.rechecks}
        row.update(self.paired_intervals(stage, dataset))
        return row

    def paired_ratios(self, stage, dataset):
        """[(ref / best, best / floor)] of each paired process, from its
        medians (None where a side is missing)."""
        out = []
        for rows, _ in self.paired_procs:
            best = self.paired_time(f"{stage}/{dataset}", rows)
            ref = self.paired_time(f"ref:{stage}/{dataset}", rows)
            fl = self.floor_sum(stage, dataset, "paired", rows)
            out.append((ref / best if ref and best else None,
                        best / fl if best and fl else None))
        return out

    def paired_intervals(self, stage, dataset):
        """ref_best_interval and best_floor_interval, and interval_kind:
        with 3 or more processes, where one more process's ratio lands
        ("prediction", spread.prediction); with fewer, the first
        process's Hodges-Lehmann interval over its repetitions
        ("repetitions"), which says nothing of the next process."""
        out = {"ref_best_interval": None, "best_floor_interval": None,
               "interval_kind": "repetitions"}
        if len(self.paired_procs) >= spread.MIN_PROCESSES:
            out["interval_kind"] = "prediction"
            per = self.paired_ratios(stage, dataset)
            for i, key in enumerate(("ref_best_interval",
                                     "best_floor_interval")):
                xs = [p[i] for p in per]
                if all(xs):
                    out[key] = spread.prediction(xs)
            return out
        if not self.paired_procs:
            return out
        reps = self.paired_procs[0][1]
        xs = reps.get(f"{stage}/{dataset}")
        ys = reps.get(f"ref:{stage}/{dataset}")
        fs = self.floor_reps(stage, dataset, reps)
        if xs and ys:
            out["ref_best_interval"] = interval(spread.Spread(ys, xs))
        if xs and fs:
            out["best_floor_interval"] = interval(spread.Spread(xs, fs))
        return out

    # ---- pairs of variants ------------------------------------------------

    def spread(self, old, new, case):
        """old / new's Spread on case, None without repetitions."""
        xs = self.reps.get(old, {}).get(case)
        ys = self.reps.get(new, {}).get(case)
        return spread.Spread(xs, ys) if xs and ys else None

    def round_pairs(self, old, new, case):
        """[(old's entry, new's entry)] on case, one per round of the pair
        (either way round: then each swapped back)."""
        if (old, new) in self.rounds:
            rs = self.rounds[old, new]
        else:
            rs = [(o, n) for n, o in self.rounds.get((new, old), [])]
        return [(o[case], n[case]) for o, n in rs
                if case in o and case in n]

    def round_spread(self, old, new, case):
        """old / new over the pair's rounds on case (spread.Rounds), None
        with fewer than spread.MIN_PROCESSES rounds."""
        return spread.over_rounds([us(o) / us(n) for o, n in
                                   self.round_pairs(old, new, case)
                                   if us(n)])

    def round_spreads(self):
        """[((old, new), case, spread.Rounds)]: every case of every pair
        that has rounds enough for an interval."""
        out = []
        for pair, rs in self.rounds.items():
            for case in rs[0][0]:
                sp = self.round_spread(*pair, case)
                if sp is not None:
                    out.append((pair, case, sp))
        return out

    def round_entries(self, old, new, case):
        """(old's, new's) entry on case, each time the median over the
        pair's rounds; None without rounds of it."""
        rs = self.round_pairs(old, new, case)
        if not rs:
            return None
        return tuple(merge_medians([{case: r[i]} for r in rs])[case]
                     for i in (0, 1))

    def pairs(self, axis, old, new_choice=None):
        """[(old variant, new variant)] that ran and differ on axis alone,
        the old one with the choice old, the new one with new_choice when
        given; pairs with best first, one pair per combination of
        choices."""
        found, seen = [], set()
        ran = [v for v in self.axes if v in self.rows]
        # A spelled-out ablation before a preset with the same choices.
        ran.sort(key=lambda v: (v != "best", "+" not in v))
        for new in ran:
            n = self.axes[new]
            if axis not in n or n[axis] == old or \
                    new_choice not in (None, n[axis]):
                continue
            for o in ran:
                a = self.axes[o]
                if a.get(axis) != old or set(a) != set(n):
                    continue
                if any(a[x] != n[x] for x in a if x != axis):
                    continue
                key = tuple(sorted(n.items()))
                if key not in seen:
                    seen.add(key)
                    found.append((o, new))
        return found


def interval(sp):
    """(low, high) of a Spread's interval, None when it has none."""
    return (sp.low, sp.high) if sp.low is not None else None
