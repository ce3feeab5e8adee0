#!/usr/bin/env python3
"""attackreport.py - summary.md of a `make attack` run
(harness/reports/attack.sh): per preset, a row per attack with the valid
clients' throughput (done requests/s), p99 and the server's peak RSS,
each beside the unattacked run's, the valid requests that failed and
why, and what the attack itself got from the server.  A run in rounds
(ATTACK_ROUNDS: RUN/round.K/) adds, per preset, each ratio as the
median over the rounds with the interval one more round lands in
(harness/reports/spread.py).

Not for: running it (attack.sh, attack.py).  Standard library only.

    /usr/bin/python3 harness/reports/attackreport.py --dir RUN
"""
import argparse
import json
import os
import sys

import spread
from loadreport import round_dirs

ORDER = ["none", "slowloris", "bodies", "smuggle", "wrap", "cbc", "serial"]
WHAT = {
    "none": "unattacked",
    "slowloris": "slow connections (headers dribbled)",
    "bodies": "many concurrent large unsigned bodies",
    "smuggle": "ambiguous framing, a request smuggled behind",
    "wrap": "wrapping through an EncryptedHeader",
    "cbc": "CBC oracle probes (IV bytes changed)",
    "serial": "a huge X509SerialNumber",
}


def read(path, parse=json.loads):
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read().strip()
        return parse(text) if text else None
    except (OSError, ValueError):
        return None


def machine(rundir):
    out = {}
    for line in (read(os.path.join(rundir, "machine.txt"), str) or "").splitlines():
        k, _, v = line.partition(" ")
        if k == "load":
            w, _, v = v.partition(" ")
            k = "load " + w
        out[k] = v
    return out


def runs(rundir):
    """{preset: {attack: {load, attack, rss, rc}}} of the run's files."""
    out = {}
    for f in sorted(os.listdir(rundir)):
        if not f.endswith(".load.rc"):
            continue
        name = f[:-len(".load.rc")]
        preset, _, attack = name.rpartition("-")
        p = os.path.join(rundir, name)
        out.setdefault(preset, {})[attack] = {
            "load": read(p + ".load.json"),
            "attack": read(p + ".attack.json"),
            "rss": read(p + ".rss", int),
            "rc": read(p + ".load.rc", int),
        }
    return out


def ratio(x, base):
    if x is None or not base:
        return "-"
    return f"{x / base:.2f}x"


def level(r):
    lv = (r.get("load") or {}).get("levels") or [{}]
    return lv[0]


def failures(lv):
    fs = lv.get("failures") or []
    if not fs:
        return "none"
    return "; ".join(f"{f['count']} {f['reason']}" for f in fs)


def attack_said(a, d):
    """What the attack got, in a few words."""
    if d is None:
        return "-"
    if a == "slowloris":
        return d.get("tally", "-")
    if a == "bodies":
        return (f"{d['sent']} bodies of {d['size']:,} B answered "
                f"{d['statuses']}, {d['errors']} connection errors")
    if a == "smuggle":
        return (f"{d['tries']} tries: first answers {d['first']}; "
                f"smuggled requests answered {d['smuggled_answered']}, "
                f"connections left open {d['left_open']}, "
                f"{d['errors']} tries with no answer in 2 s")
    ms = d.get("ms_per_request")
    ms = f", {ms:.1f} ms each" if ms is not None else ""
    faults = d.get("faults") or {}
    return (f"{d['sent']} sent{ms}: statuses {d['statuses']}; "
            f"{len(faults)} distinct Fault message(s)"
            + (": " + " / ".join(f"'{k}' x{v}" for k, v in faults.items())
               if faults else ""))


def table(preset, by):
    base = by.get("none")
    blv = level(base) if base else {}
    b_rps, b_p99 = blv.get("requests_per_s"), blv.get("p99_ms")
    b_rss = base.get("rss") if base else None
    head = ["attack", "valid done/s", "vs unattacked", "valid p99 ms",
            "vs unattacked", "server peak RSS MB", "vs unattacked",
            "valid sent / failed", "why valid requests failed",
            "what the attack got"]
    rows = []
    for a in ORDER + sorted(set(by) - set(ORDER)):
        if a not in by:
            continue
        r = by[a]
        lv = level(r)
        rps, p99, rss = lv.get("requests_per_s"), lv.get("p99_ms"), r["rss"]
        rows.append([
            WHAT.get(a, a),
            "-" if rps is None else f"{rps:.1f}",
            ratio(rps, b_rps) if a != "none" else "",
            "-" if p99 is None or not lv.get("done") else f"{p99:.1f}",
            ratio(p99, b_p99) if a != "none" and lv.get("done") else "",
            "-" if rss is None else f"{rss / 1024:.0f}",
            ratio(rss, b_rss) if a != "none" else "",
            f"{lv.get('requests', '-')} / {lv.get('errors', '-')}",
            failures(lv), attack_said(a, r["attack"]) if a != "none" else ""])
    out = [f"## {preset}\n", "| " + " | ".join(head) + " |",
           "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c).replace("|", "/") for c in row) + " |"
            for row in rows]
    return out + [""]


def metrics(by, a):
    """(done/s, p99, RSS) of attack a over the unattacked row's, each
    None where either is missing."""
    base, r = by.get("none"), by.get(a)
    if base is None or r is None:
        return (None, None, None)
    blv, lv = level(base), level(r)
    out = []
    for x, b in ((lv.get("requests_per_s"), blv.get("requests_per_s")),
                 (lv.get("p99_ms") if lv.get("done") else None,
                  blv.get("p99_ms") if blv.get("done") else None),
                 (r.get("rss"), base.get("rss"))):
        out.append(x / b if x and b else None)
    return tuple(out)


def over(ratios):
    """The median and interval of one ratio over the rounds, or '-'."""
    got = [x for x in ratios if x is not None]
    r = spread.over_rounds(got) if len(got) == len(ratios) else None
    if r is None:
        return "-"
    return f"{r.ratio:.2f}x ({r.low:.2f}-{r.high:.2f})"


def rounds_table(preset, per_round):
    """Each attack's ratios to the unattacked row over the rounds."""
    attacks = [a for a in ORDER + sorted({a for by in per_round for a in by}
                                         - set(ORDER))
               if a != "none" and all(a in by for by in per_round)]
    head = ["attack", "rounds", "valid done/s vs unattacked",
            "valid p99 vs unattacked", "server peak RSS vs unattacked",
            "valid failed, all rounds"]
    rows = []
    for a in attacks:
        ms = [metrics(by, a) for by in per_round]
        failed = sum(level(by[a]).get("errors") or 0 for by in per_round)
        rows.append([WHAT.get(a, a), str(len(per_round))] +
                    [over([m[i] for m in ms]) for i in range(3)] +
                    [str(failed)])
    out = [f"### {preset} over {len(per_round)} rounds\n",
           "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    m = machine(a.dir)
    print("# Attack under load\n")
    print(f"`make attack` (harness/reports/attack.sh): commit "
          f"{m.get('commit', '?')}, {m.get('date', '?')}, "
          f"{m.get('cpus', '?')} CPUs; load average "
          f"{m.get('load before', '?')} before, {m.get('load after', '?')} "
          "after.  The machine is shared with other work: read the ratios "
          "against the unattacked row, not the absolute numbers.\n")
    print(f"Valid traffic: `domlab load --rate {m.get('rate', '?')} --clients "
          f"{m.get('clients', '?')} --seconds {m.get('seconds', '?')}`, open "
          "loop (latency from each request's intended send time), the 2 KB "
          "quakes envelope signed and encrypted; a request is done when its "
          "answer is 2xx and verifies.  Each row is a fresh `domlab serve "
          "--stats` with its default limits, under `ulimit -v "
          f"{m.get('vmem_kb', '?')}` (kB); the attack starts first and runs "
          "through the load; server peak RSS is its VmHWM at the end.  "
          "commands.tsv has every command.  An attack row whose statuses "
          "include 200 for wrap was accepted; more than one distinct Fault "
          "message for cbc is an oracle.\n")
    by_preset = runs(a.dir)
    per_round = [runs(d) for d in round_dirs(a.dir)]
    if len(per_round) > 1:
        print(f"The run went {len(per_round)} rounds (attack.sh's "
              "ATTACK_ROUNDS; round K in round.K/, the presets' order turned "
              "in even rounds).  The first table of each preset is round 1; "
              "the second gives each ratio to the unattacked row as the "
              "median over the rounds, and in brackets where one more "
              "round lands 99 times in 100 (harness/reports/spread.py; "
              f"{spread.MIN_PROCESSES} rounds at least).\n")
    order = m.get("presets", "").split()
    for preset in order + sorted(set(by_preset) - set(order)):
        if preset not in by_preset:
            continue
        print("\n".join(table(preset, by_preset[preset])))
        mine = [r[preset] for r in per_round if preset in r]
        if len(mine) > 1:
            print("\n".join(rounds_table(preset, mine)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
