"""passes.py - what profile_report.py says about memory traffic: each
pipeline pass's instructions, data accesses and simulated cache misses from
a callgrind run with --cache-sim=yes, and the bytes each heap buffer has
read from it and written to it from two DHAT runs (docs/measuring.md,
"Bytes touched").  Every figure is per iteration and per byte of the case's
input.

Standard library only.  Not for: instruction shares of named functions
(profile_report.py) or comparing variants (profile_diff_report.py).
"""
import json
import re

# A function belongs to the first pass whose pattern matches its name; what
# it calls belongs to that pass too, unless the callee starts a pass of its
# own.  OpenSSL's stripped functions (0x... names) so fall to the wrapper
# that called them.  Patterns match whole names.
PASSES = [
    (r"move_in_order|record_reorder|dom__insitu_order_in_place|move_to",
     "reorder (check pass)"),
    (r"dom_parse\w*|dom__parse\w*|dom__insitu\w*|parse_doc|xmlReadMemory|"
     r"xmlParse\w*|xercesc\w*|pugi\w*", "parse, check pass"),
    (r"wss_c14n\w*|canonicalize", "canonicalize"),
    (r"wss_sha256\w*|wss_sha1|wss_digest_bytes", "SHA-256"),
    (r"wss_encrypt\w*|wss_decrypt\w*|wss_enc_\w+|wss_dec_\w+|"
     r"gcm_encrypt|gcm_decrypt|cbc_encrypt|cbc_decrypt|wss_seal\w*|"
     r"seal_\w+", "AES-GCM"),
    (r"wss_base64_\w+|lab_base64_\w+|dom_b64_\w+|dom_create_text_b64",
     "base64"),
    (r"dom_serialize\w*", "serialize"),
    (r"wss_rsa_\w+", "RSA (sign, verify, key wrap)"),
    (r"wss_read\w*|lab_read\w*", "read"),
]
OTHER = "other (tree, lookups, set-up)"
_PASS_RE = [(re.compile(r"(?:%s)$" % p), name) for p, name in PASSES]
# Allocation wrappers: a heap block is named after the first frame that is
# none of these.
_ALLOC_RE = re.compile(
    r"(malloc|calloc|realloc|free|dom_malloc|dom_calloc|dom_realloc|"
    r"dom_arena\w*|dom_chunk_alloc|chunk_new|alloc_alone|lab_buf_\w+|"
    r"reserve\w*|grow|CRYPTO_\w*alloc|operator new\w*|xmlMalloc\w*|"
    r"xmlRealloc\w*|\?\?\?)$")


def clean_name(name):
    """Callgrind's 'func'2 (recursion level) and gcc's .part.N, .isra.N,
    .constprop.N and .cold suffixes off: one name per source function."""
    name = re.sub(r"'\d+$", "", name.strip())
    return re.sub(r"(\.(part|isra|constprop|cold|lto_priv)(\.\d+)?)+$", "",
                  name)


def pass_of(name):
    for rx, label in _PASS_RE:
        if rx.match(name):
            return label
    return None


def read_callgrind(path):
    """(events, desc lines, self costs {fn: [..]}, call edges
    {(caller, callee): [..]}) from a callgrind.out file.  A call edge's
    cost is the callee's inclusive cost for the calls from that caller,
    as callgrind records it; functions named by address are kept apart
    per object file."""
    events, desc, self_, edges = [], [], {}, {}
    npos, names, objs = 1, {}, {}
    ob = cob = fn = cfn = None
    in_call = False

    def ref(table, value):
        m = re.match(r"\((\d+)\)(?: (.*))?$", value)
        if not m:
            return value
        if m.group(2) is not None:
            table[m.group(1)] = m.group(2)
        return table.get(m.group(1), value)

    def key(name, obj):
        name = clean_name(name)
        return f"{name}@{obj}" if name.startswith("0x") else name

    def add(table, k, costs):
        row = table.setdefault(k, [0] * len(events))
        for i, c in enumerate(costs[:len(events)]):
            row[i] += c

    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()[npos:]
                costs = [int(x) for x in parts]
                if in_call:
                    add(edges, (fn, cfn), costs)
                    in_call = False
                    cob = ob  # a call's cob= names that call's only
                elif fn is not None:
                    add(self_, fn, costs)
            elif line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("positions:"):
                npos = len(line.split()) - 1
            elif line.startswith("desc:"):
                desc.append(line[5:].strip())
            elif line.startswith("ob="):
                ob = cob = ref(objs, line[3:])
            elif line.startswith("cob="):
                cob = ref(objs, line[4:])
            elif line.startswith("fn="):
                fn = key(ref(names, line[3:]), ob)
                cob = ob
            elif line.startswith("cfn="):
                cfn = key(ref(names, line[4:]), cob)
            elif line.startswith("calls="):
                in_call = True
    if not events:
        raise ValueError(f"{path}: no 'events:' line (not callgrind output)")
    return events, desc, self_, edges


def attribute(self_, edges, nevents):
    """{pass: [cost per event]}: each function's own cost given to the
    pass of the innermost pass function above it.  Callgrind keeps one
    cost per caller-callee pair, not per call stack, so a function that is
    no pass's own is split among its callers in proportion to what each
    caller's calls cost (per event), and those callers' shares likewise."""
    callers = {}
    for (a, b), cost in edges.items():
        if a != b:
            callers.setdefault(b, []).append((a, cost))
    fns = set(self_) | {f for pair in edges for f in pair}
    share = {}  # fn -> [ {pass: fraction} per event ]
    for f in fns:
        own = pass_of(f.split("@")[0])
        share[f] = [{own or OTHER: 1.0} for _ in range(nevents)]
    fixed = {f for f in fns if pass_of(f.split("@")[0])}
    for _ in range(200):
        changed = False
        for f in fns - fixed:
            new = []
            for e in range(nevents):
                tot = sum(cost[e] for _, cost in callers.get(f, []))
                if tot == 0:
                    new.append(share[f][e])
                    continue
                d = {}
                for a, cost in callers[f]:
                    for p, x in share[a][e].items():
                        d[p] = d.get(p, 0.0) + x * cost[e] / tot
                new.append(d)
            if any(abs(new[e].get(p, 0) - share[f][e].get(p, 0)) > 1e-9
                   for e in range(nevents)
                   for p in set(new[e]) | set(share[f][e])):
                changed = True
            share[f] = new
        if not changed:
            break
    out = {}
    for f, cost in self_.items():
        for e in range(nevents):
            for p, x in share[f][e].items():
                out.setdefault(p, [0.0] * nevents)[e] += x * cost[e]
    return out


def cache_lines(desc):
    """{'D1': '32768 B, 64 B, 8-way associative', ...} from desc lines."""
    out = {}
    for d in desc:
        m = re.match(r"(I1|D1|LL) cache:\s*(.*)$", d)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def pass_table(path, iters, nbytes):
    """Markdown rows: per pass, per iteration and input byte."""
    events, desc, self_, edges = read_callgrind(path)
    per = attribute(self_, edges, len(events))
    ix = {e: i for i, e in enumerate(events)}

    def ev(row, *names):
        return sum(row[ix[n]] for n in names if n in ix)

    caches = cache_lines(desc)
    m = re.match(r"\d+ B, (\d+) B", caches.get("D1", ""))
    line = int(m.group(1)) if m else 64
    div = max(iters, 1) * max(nbytes, 1)
    out = ["| pass | Ir/B | data reads/B | data writes/B | D1 misses/B "
           "| LL misses/B | bytes into D1 per byte | bytes into LL per byte "
           "| share of Ir |", "|---|---|---|---|---|---|---|---|---|"]
    total = [sum(r[i] for r in per.values()) for i in range(len(events))]
    order = [name for _, name in PASSES] + [OTHER]
    for name in order + ["total"]:
        row = total if name == "total" else per.get(name)
        if row is None or ev(row, "Ir") < 0.5:
            continue
        d1 = ev(row, "D1mr", "D1mw")
        ll = ev(row, "DLmr", "DLmw")
        label = f"**{name}**" if name == "total" else name
        out.append(
            f"| {label} | {ev(row, 'Ir') / div:.2f} | "
            f"{ev(row, 'Dr') / div:.3f} | {ev(row, 'Dw') / div:.3f} | "
            f"{d1 / div:.4f} | {ll / div:.4f} | {d1 * line / div:.2f} | "
            f"{ll * line / div:.2f} | "
            f"{100.0 * ev(row, 'Ir') / max(ev(total, 'Ir'), 1):.1f}% |")
    return out, caches, total, ix


def read_dhat(path):
    """{allocation stack (tuple of function names): [bytes allocated,
    bytes read, bytes written, blocks]}."""
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    if d.get("mode") != "heap":
        raise ValueError(f"{path}: not a DHAT heap profile")
    ftbl = d["ftbl"]
    out = {}
    for pp in d["pps"]:
        stack = tuple(frame_name(ftbl[i]) for i in pp["fs"])
        row = out.setdefault(stack, [0, 0, 0, 0])
        for i, k in enumerate(("tb", "rb", "wb", "tbk")):
            row[i] += pp[k]
    return out


def frame_name(frame):
    """'0x1419DA: dom_malloc (alloc.c:35)' -> 'dom_malloc'."""
    m = re.match(r"(?:0x[0-9A-Fa-f]+: )?(.*?)(?: \(.*\))?$", frame)
    return clean_name(m.group(1))


def block_label(stack):
    """(pass, site): the innermost pass function of the allocation stack,
    and the first frame that is not allocation machinery."""
    site = next((f for f in stack if not _ALLOC_RE.match(f)), "?")
    label = next((pass_of(f) for f in stack if pass_of(f)), OTHER)
    return label, site


def heap_table(few, many, extra_iters, nbytes, floor=0.05):
    """Markdown rows from DHAT runs of few and few+extra_iters iterations:
    the difference is what extra_iters iterations did, so set-up and the
    warm-up call cancel, and a block made before the loop (the input)
    still shows its reads.  Rows are allocation sites whose blocks were
    read or written at least floor bytes per input byte."""
    a, b = read_dhat(few), read_dhat(many)
    div = max(extra_iters, 1) * max(nbytes, 1)
    sites, tot = {}, [0, 0, 0]
    for stack in set(a) | set(b):
        ra, rb_ = a.get(stack, [0] * 4), b.get(stack, [0] * 4)
        diff = [rb_[i] - ra[i] for i in range(3)]
        row = sites.setdefault(block_label(stack), [0, 0, 0, 0, 0])
        for i in range(3):
            row[i] += diff[i]
            tot[i] += diff[i]
        # the average block, from the run that made more
        row[3] += max(ra[0], rb_[0])
        row[4] += max(ra[3], rb_[3])
    out = ["| allocated in | by | average block (B per input B) "
           "| allocated/B | read/B | written/B | reads per block byte "
           "| writes per block byte |", "|---|---|---|---|---|---|---|---|"]
    rest = [0, 0, 0]
    for (label, site), (made, rd, wr, tb, blocks) in sorted(
            sites.items(), key=lambda kv: -(kv[1][1] + kv[1][2])):
        if max(rd, wr) < floor * div:
            rest = [rest[0] + made, rest[1] + rd, rest[2] + wr]
            continue
        # bytes of block per iteration: what the loop made, or the block
        # made before it
        base = made / max(extra_iters, 1) if made > 0 else tb
        per_it = max(extra_iters, 1) * max(base, 1)
        out.append(
            f"| {label} | `{site}` | {tb / max(blocks, 1) / nbytes:.3f} | "
            f"{made / div:.2f} | {rd / div:.2f} | {wr / div:.2f} | "
            f"{rd / per_it:.2f} | {wr / per_it:.2f} |")
    out.append(f"| other sites | | | {rest[0] / div:.2f} | "
               f"{rest[1] / div:.2f} | {rest[2] / div:.2f} | | |")
    out.append(f"| **all heap** | | | {tot[0] / div:.2f} | "
               f"{tot[1] / div:.2f} | {tot[2] / div:.2f} | | |")
    return out, tot
