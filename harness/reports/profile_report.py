#!/usr/bin/env python3
"""profile_report.py - writes profile.md for one profiled case (harness/reports/profile.sh):
the instructions per iteration, the functions that cost the most, and the
share of each pipeline stage and DOM function in the case, from callgrind;
each pass's data accesses and simulated cache misses per input byte, and
the bytes each heap buffer has read and written (passes.py); the sampled
top of gperftools; and the heap peak from massif.

Standard library only.  Not for: comparing variants (summary.py).
"""
import argparse
import json
import os
import re
import sys

import passes
import symbols
from run import SCALE

# Inclusive shares worth reading off every profile, in the pipeline's
# order.  A function that does not run in the case is left out of the
# table.  The fused passes do a stage's work inside another's call (the
# Body's SHA-256 inside the canonicalization on send, inside the
# decryption on receive), so the rows for the pieces they are made of
# (the update calls, the pieces' walks) say where the work went.
STAGES = [
    ("dom_parse", "parse the message (public entry)"),
    ("dom__parse_tree", "parse, every text (the message's, a plaintext's)"),
    ("dom__insitu_input", "the input copied, long runs noted (insitu)"),
    ("dom__insitu_check", "the check pass (insitu)"),
    ("dom__insitu_order_in_place", "tags put in C14N's order, after it"),
    ("dom_parse_into", "parse decrypted plaintext in place"),
    ("dom_replace_parsed_held", "parse a decrypted plaintext"),
    ("wss_keys_acquire", "keys (keys axis)"),
    ("wss_timestamp_check", "timestamp check"),
    ("wss_dsig_sign", "sign"),
    ("wss_dsig_verify", "verify"),
    ("wss_xenc_encrypt", "encrypt"),
    ("wss_xenc_decrypt", "decrypt"),
    ("wss_xenc_rx_step", "a Security header entry on receive (decrypts)"),
    ("wss_c14n", "canonicalize (all calls)"),
    ("wss_c14n_pieces", "canonicalize in pieces (what they feed too)"),
    ("wss_digest", "digest a reference (c14n + SHA-256)"),
    ("wss_sha256_update", "SHA-256, all of it"),
    ("wss_rsa_sign_sha256", "RSA sign"),
    ("wss_rsa_verify_sha256", "RSA verify"),
    ("wss_rsa_oaep_wrap", "RSA-OAEP wrap"),
    ("wss_rsa_oaep_unwrap", "RSA-OAEP unwrap"),
    ("wss_encrypt", "AES encrypt"),
    ("wss_enc_update", "AES encrypt, in pieces"),
    ("wss_decrypt", "AES decrypt"),
    ("wss_dec_more", "AES decrypt, in pieces"),
    ("lab_base64_encode", "base64 encode"),
    ("lab_base64_put", "base64 encode into a text"),
    ("lab_base64_decode", "base64 decode"),
    ("lab_base64_decode_in_place_each",
     "base64 decode in place, and what each piece feeds"),
    ("dom_get_by_id", "ID lookups (index rebuilds)"),
    ("dom_serialize", "serialize"),
]
DOM = [
    ("dom_attributes", "dom_attributes() (attrlist axis)"),
    ("dom_attr_list_release", "dom_attr_list_release()"),
    ("dom_attr_get", "dom_attr_get() (attrs axis)"),
    ("dom__attrs_find", "attribute find (attrs axis)"),
    ("dom__attrs_update", "attribute index upkeep (attrs axis)"),
    ("dom__ud_node_created", "per-node user-data set-up (userdata axis)"),
    ("dom__xml2_build_tree", "tree construction (build=built)"),
    ("dom__xml2_build_sax", "tree construction (build=direct)"),
    ("dom__arena_alloc", "arena allocation"),
    ("dom__names_intern", "name interning"),
    ("dom_text_content", "text content"),
]

# Under the stages table when it has the CPU samples' columns.
STAGE_TIME = (
    "The last two columns are gperftools' samples with callees (1 kHz, "
    "pprof.txt), and that share of the case's time per iteration in the "
    "same run (bench.txt); they cover the whole run, the case's set-up "
    "included, and `-` is a function pprof has no row for (inlined "
    "into its caller, or never sampled). The two kinds of share differ "
    "where the code does: valgrind runs OpenSSL's SHA-256 without SHA-NI, "
    "so SHA-256's share of the instructions is far above its share of "
    "the time, and every other row's the other way (docs/measuring.md).")

# What the two top tables say of code in a library without symbols.
UNNAMED = ("A library without a symbol table (Debian's libcrypto.so.3) "
           "names only its exported functions; callgrind names the others "
           "by their address in the library, written here as "
           "`lib+0xADDR`, with the nearest named function on their "
           "costliest call path (harness/reports/symbols.py). Under "
           "valgrind, OpenSSL runs without SHA-NI and AVX-512: its code "
           "paths and shares are not the native ones.")
UNSAMPLED = ("pprof names a sample in such a library by the nearest exported "
             "function below its address, which is another function where "
             "the sample lies past that function's end: those samples are "
             "named `lib+0xLO-0xHI` instead, the range of addresses they "
             "fell on, to set beside callgrind's addresses above (a range "
             "may span several functions without names, so it has no "
             "with-callees share).")

LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*([\d.]+)%\)\s+(.*)$")


def func_name(field):
    """'/path/file.c:func'2 [obj]' -> 'func' (callgrind marks recursion
    levels with 'N and cloned parts with .part.N)."""
    field = field.split(" [", 1)[0]
    name = field.rsplit(":", 1)[-1].strip()
    return re.sub(r"('\d+|\.part\.\d+)+$", "", name)


def annotate_costs(path):
    """{function: Ir} from callgrind_annotate output (largest per name)."""
    costs = {}
    if not os.path.exists(path):
        return costs
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m or "PROGRAM TOTALS" in line:
                continue
            name = func_name(m.group(3))
            ir = int(m.group(1).replace(",", ""))
            costs[name] = max(costs.get(name, 0), ir)
    return costs


def calls_and_total(path, runfn):
    """How many times runfn was called, and the Ir collected in total."""
    names, calls, total = {}, 0, 0
    cfn = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            for key in ("fn=", "cfn="):
                if line.startswith(key):
                    m = re.match(r"\((\d+)\)(?: (.*))?", line[len(key):])
                    if m:
                        if m.group(2):
                            names[m.group(1)] = m.group(2)
                        name = names.get(m.group(1), "")
                    else:
                        name = line[len(key):]
                    if key == "cfn=":
                        cfn = name
            if line.startswith("calls=") and cfn is not None:
                if cfn.split("'")[0] == runfn:
                    calls += int(line[6:].split()[0])
                cfn = None
            if line.startswith("totals:") or line.startswith("summary:"):
                total = max(total, int(line.split()[1]))
    return calls, total


def massif_peak(path):
    peak = 0
    if os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("mem_heap_B="):
                    peak = max(peak, int(line.split("=")[1]))
    return peak


def read_pprof(d):
    """(total samples, {function: [own, with callees]}) from pprof.txt
    as pprof names them; (0, {}) without a CPU profile."""
    rows, total = {}, 0
    path = os.path.join(d, "pprof.txt")
    if not os.path.exists(path):
        return 0, rows
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if line.startswith("Total:"):
                total = int(parts[1])
            elif len(parts) >= 6 and parts[1].endswith("%"):
                rows[" ".join(parts[5:])] = [int(parts[0]), int(parts[3])]
    return total, rows


def pprof_top(d, n=15):
    """[(own %, with callees %, function)]: pprof.txt's top, where code in
    a library without symbols is named by its addresses (symbols.py)."""
    total, rows = read_pprof(d)
    if not rows:
        return []
    addresses = os.path.join(d, "pprof-addresses.txt")
    if os.path.exists(addresses):
        moved, kept = symbols.pprof_regroup(addresses,
                                            os.path.join(d, "cpu.prof"))
        for name, r in kept.items():
            if r[0] == 0:
                rows.pop(name, None)
            else:
                rows[name] = r
        rows.update((name, [own, None]) for name, own in moved.items())
    top = sorted(rows.items(), key=lambda kv: (-kv[1][0], kv[0]))[:n]
    total = max(total, 1)
    return [(f"{100.0 * own / total:.1f}%",
             "-" if cum is None else f"{100.0 * cum / total:.1f}%", name)
            for name, (own, cum) in top]


def pprof_samples(d):
    """(total, {function: samples with callees}) from pprof.txt; a
    function inlined somewhere is also listed as 'f (inline)', and counts
    as the larger of its two rows (an out-of-line copy may hold the
    inlined one).  (0, {}) without a CPU profile."""
    total, rows = read_pprof(d)
    folded = {}
    for name, (_, cum) in rows.items():
        if name.endswith(" (inline)"):
            name = name[:-len(" (inline)")]
        folded[name] = max(folded.get(name, 0), cum)
    return total, folded


def case_time(d, case):
    """The case's time per iteration in us, from the CPU profile's run of
    it (bench.txt); None where it is not there."""
    path = os.path.join(d, "bench.txt")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[0] == case and parts[2] in SCALE:
                return float(parts[1]) * SCALE[parts[2]]
    return None


def share_table(title, items, incl, total, calls, samples=None):
    """The items' inclusive shares of the case's instructions and, given
    samples (pprof_samples' answer and the case's time), of its CPU
    samples and time."""
    head = "| function | what | share of the case | Ir per iteration |"
    rule = "|---|---|---|---|"
    if samples is not None:
        head += " share of CPU samples | us per iteration |"
        rule += "---|---|"
    out = [f"## {title}", "", head, rule]
    for fn, what in items:
        ir = incl.get(fn, 0)
        row = (f"| `{fn}` | {what} | {100.0 * ir / total:.1f}% | "
               f"{ir // max(calls, 1):,} |")
        hits = 0
        if samples is not None:
            (n, rows), us = samples
            hits = rows.get(fn, 0)
            share = hits / max(n, 1)
            if fn not in rows:
                row += " - | - |"
            else:
                row += (f" {100.0 * share:.1f}% | "
                        + (f"{share * us:,.0f} |" if us is not None
                           else "- |"))
        if ir == 0 and hits == 0:
            continue
        out.append(row)
    if len(out) == 4:
        out.append("| (none ran in this case) | | | |")
    return out + [""]


def traffic(a):
    """The passes' and heap buffers' sections, from the cache-simulating
    callgrind run and the two DHAT runs, when there are."""
    if a.bytes <= 0 or a.iterations <= 0:
        return []
    rows, caches, figures = passes.pass_table(
        os.path.join(a.dir, "callgrind-passes.out"), a.iterations, a.bytes)
    record = {"case": a.case, "variant": a.variant, "bytes": a.bytes,
              "iterations": a.iterations, "caches": caches,
              "passes": figures}
    geometry = "; ".join(f"{k} {v}" for k, v in sorted(caches.items()))
    out = ["## Passes over the message (callgrind --cache-sim=yes)", "",
           f"Per iteration and per byte of the case's input ({a.bytes:,} B), "
           f"over {a.iterations} iterations after a warm-up call. Each "
           "function's own cost counts for the innermost pass among it "
           "and its 12 callers (passes.py's table). Data reads and writes "
           "are accesses, one per instruction whatever its width; misses "
           "are simulated "
           f"({geometry or 'geometry not recorded'}); bytes into D1 is "
           "D1 misses times the line size, and bytes into LL likewise. "
           "docs/measuring.md says how to read them.", ""] + rows + [""]
    few = os.path.join(a.dir, "dhat-1.json")
    many = os.path.join(a.dir, f"dhat-{a.iterations + 1}.json")
    if os.path.exists(few) and os.path.exists(many):
        rows, record["heap"] = passes.heap_table(few, many, a.iterations,
                                                 a.bytes)
    else:
        rows = ["(no DHAT runs: heap bytes touched not measured)"]
    # profile_record.py's input: the figures, unrounded
    with open(os.path.join(a.dir, "traffic.json"), "w",
              encoding="utf-8") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    return out + ["## Heap bytes touched (DHAT)", "",
                  f"Bytes read and written in heap blocks per input byte, "
                  f"from a DHAT run of 1 iteration subtracted from one of "
                  f"{a.iterations + 1}; a site is the allocation stack's "
                  "innermost pass and first function outside the "
                  "allocators, with its caller; blocks both runs have "
                  "alike were made before the loop. "
                  "Reads per block byte is how many times each byte of "
                  "those blocks was read in one iteration.", ""] + rows + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--runfn", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--iterations", type=int, default=0,
                    help="calls inside the callgrind and the larger DHAT "
                    "run (the smaller runs one)")
    ap.add_argument("--bytes", type=int, default=0,
                    help="the case's input bytes, which per-byte figures "
                    "divide by")
    a = ap.parse_args()

    calls, total = calls_and_total(os.path.join(a.dir, "callgrind.out"),
                                   a.runfn)
    if a.iterations > 0:
        calls = a.iterations
    incl = annotate_costs(os.path.join(a.dir, "callgrind-inclusive.txt"))
    self_ = annotate_costs(os.path.join(a.dir, "callgrind.txt"))
    total = max(total, 1)
    out = [f"# profile: `{a.case}`, variant `{a.variant}`", "",
           f"Instructions are counted by callgrind inside `{a.runfn}` only "
           f"(set-up, the warm-up call and Google Benchmark excluded): "
           f"{total:,} Ir over {calls} call(s), **{total // max(calls, 1):,} "
           "Ir per iteration**. Shares are inclusive (a function and what "
           "it calls), so nested rows overlap.", ""]
    n, rows = pprof_samples(a.dir)
    us = case_time(a.dir, a.case)
    out += share_table("Pipeline stages", STAGES, incl, total, calls,
                       ((n, rows), us) if n > 0 else None)
    if n > 0:
        out += [STAGE_TIME, ""]
    try:
        out += traffic(a)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"profile_report: {e}")
    out += share_table("DOM functions", DOM, incl, total, calls)
    out += ["## Top functions by own instructions (callgrind)", "",
            UNNAMED, "",
            "| function | share | Ir per iteration |", "|---|---|---|"]
    where, callers = symbols.callgrind_graph(
        os.path.join(a.dir, "callgrind.out"))
    for fn, ir in sorted(self_.items(), key=lambda kv: -kv[1])[:15]:
        out.append(f"| `{symbols.callgrind_label(fn, where, callers)}` | "
                   f"{100.0 * ir / total:.1f}% | {ir // max(calls, 1):,} |")
    out += ["", "## Top functions by CPU samples (gperftools, 1 kHz)", "",
            UNSAMPLED, "",
            "| own samples | with callees | function |", "|---|---|---|"]
    for own, cum, fn in pprof_top(a.dir):
        out.append(f"| {own} | {cum} | `{fn}` |")
    peak = massif_peak(os.path.join(a.dir, "massif.out"))
    out += ["", "## Heap", "",
            f"massif's peak for the whole run (data generation included): "
            f"{peak:,} bytes. The per-iteration peak of the case is in the "
            "benchmark's `peak_bytes` counter.", "",
            "Files: `pprof.txt`, `pprof-addresses.txt` and "
            "`callgraph.svg` (gperftools; the call graph names code "
            "without symbols as pprof does), "
            "`callgrind.out` (open with kcachegrind or callgrind_annotate), "
            "`callgrind.txt` / `callgrind-inclusive.txt`, `massif.txt`."]
    print("\n".join(out))


if __name__ == "__main__":
    main()
