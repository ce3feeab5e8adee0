#!/usr/bin/env python3
"""oneshot.py - the one-shot tables from what harness/reports/oneshot.sh
measured (results/oneshot/: oneshot.tsv, send-2k.profile.txt,
machine.txt): writes oneshot.md there, and the same tables into
docs/measuring.md between the <!-- oneshot:begin --> and
<!-- oneshot:end --> markers.  Everything else in the doc is left as it is.

Not for: measuring (oneshot.sh does), or per-message costs inside a
long-running process.  Standard library only.

    python3 harness/reports/oneshot.py [--run results/oneshot] [--doc docs/measuring.md]
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readme_results import write_between  # noqa: E402
from run import num  # noqa: E402  (summary.md's number format)

BEGIN = "<!-- oneshot:begin -->"
END = "<!-- oneshot:end -->"
SIZES = [("2k", "2 KB"), ("200k", "200 KB")]
# Where the first variant's 2 KB send goes: (label, function, indent), each
# count inclusive of what the function calls; indented rows are part of
# the row above them.
PARTS = [
    ("the private key (wss/keyfile.c's direct path)", "wss_privkey_load", 0),
    ("the recipient's certificate (`d2i_X509`, its key read directly)",
     "wss_cert_load", 0),
    ("the RSA signature", "wss_rsa_sign_sha256", 0),
    ("blinding set-up (`BN_BLINDING_create_param`)",
     "BN_BLINDING_create_param", 1),
    ("the random generator's first instantiation (`RAND_get0_private`)",
     "RAND_get0_private", 2),
    ("a constant-time modular inverse (`int_bn_mod_inverse`)",
     "int_bn_mod_inverse", 2),
    ("the private-key operation (`rsa_ossl_mod_exp`)", "rsa_ossl_mod_exp", 1),
]
# OpenSSL's one-time set-up, inside the parts above wherever it falls.
ONCE = [
    ("every algorithm of a kind built at its first fetch "
     "(`ossl_method_construct`)", "ossl_method_construct"),
    ("the name map (`ossl_namemap_stored`)", "ossl_namemap_stored"),
]
LINE = re.compile(r"^\s*([\d,]+) \([^)]*\)\s+(\S+?):([^\s:]+) \[")


def mega(n):
    return "-" if n is None else f"{num(n / 1e6)} M"


def read_counts(run):
    counts = {}
    with open(os.path.join(run, "oneshot.tsv"), encoding="utf-8") as f:
        for line in f.read().splitlines()[1:]:
            name, n = line.split("\t")
            counts[name] = int(n)
    return counts


def read_profile(run):
    """Function name -> inclusive count, and the program's total."""
    incl, total = {}, None
    with open(os.path.join(run, "send-2k.profile.txt"),
              encoding="utf-8") as f:
        for line in f:
            if "PROGRAM TOTALS" in line:
                total = int(line.split()[0].replace(",", ""))
            m = LINE.match(line)
            if m:
                incl.setdefault(m.group(3), int(m.group(1).replace(",", "")))
    return incl, total


def machine(run):
    with open(os.path.join(run, "machine.txt"), encoding="utf-8") as f:
        return dict(line.rstrip("\n").split(" ", 1) for line in f if " " in line)


def count_table(counts, stacks):
    head = ["message", "stage"] + stacks + ["ref", f"ref / {stacks[0]}"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for size, label in SIZES:
        for stage in ("send", "receive"):
            row = [counts.get(f"{s}-{stage}-{size}") for s in stacks]
            ref = counts.get(f"ref-{stage}-{size}")
            ratio = num(ref / row[0]) if ref and row[0] else "-"
            out.append("| " + " | ".join(
                [f"quakes {label}" if stage == "send" else "", stage] +
                [mega(n) for n in row] + [mega(ref), ratio]) + " |")
    return out


def parts_table(incl, total):
    main = incl.get("main")
    out = ["| part | instructions |", "|---|---|",
           f"| whole process | {mega(total)} |",
           "| start-up and exit outside `main` (the dynamic loader, libc) "
           f"| {mega(total - main if total and main else None)} |"]
    rest = main
    for label, fn, depth in PARTS:
        n = incl.get(fn)
        if depth == 0 and rest is not None and n is not None:
            rest -= n
        out.append(f"| {'&nbsp;&nbsp;' * 2 * depth}{label} | {mega(n)} |")
    out.append("| the rest: the command line, OpenSSL's initialisation, the "
               "own certificate's bytes, the message itself (parse, c14n, "
               "digests, AES, OAEP, output) "
               f"| {mega(rest)} |")
    out += ["", "OpenSSL's one-time set-up inside the parts above:", "",
            "| what | instructions |", "|---|---|"]
    out += [f"| {label} | {mega(incl.get(fn))} |" for label, fn in ONCE]
    return out


def block(run):
    m = machine(run)
    stacks = m["variants"].split()
    incl, total = read_profile(run)
    return ([f"Written by `harness/reports/oneshot.py` from "
             f"[results/oneshot/](../results/oneshot/) (`make oneshot`, "
             f"commit {m['commit']}, {m['date']}): instructions of one "
             "whole process, start-up and exit included (callgrind); "
             "`ref` is `domlab-bench ref`, libxml2 + xmlsec1.", ""] +
            count_table(read_counts(run), stacks) +
            ["", f"Where {stacks[0]}'s 2 KB send goes (inclusive counts of "
             "the functions named, from `send-2k.profile.txt`):", ""] +
            parts_table(incl, total))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", default="results/oneshot")
    ap.add_argument("--doc", default="docs/measuring.md")
    a = ap.parse_args()
    lines = block(a.run)
    with open(os.path.join(a.run, "oneshot.md"), "w", encoding="utf-8") as f:
        f.write("# One command, one process\n\n" + "\n".join(lines)
                .replace("](../results/oneshot/)", "](./)") + "\n")
    return write_between(a.doc, BEGIN, END, lines, "oneshot")


if __name__ == "__main__":
    sys.exit(main())
