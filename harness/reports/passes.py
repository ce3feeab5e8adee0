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
# that called them.  Patterns match whole names.  With callgrind's
# --separate-callers=N a function's name carries its N callers
# ("take'lab_buf_put'dom_serialize"), and the innermost of them that is a
# pass's takes its cost, exactly; what is deeper than N is split.
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
    (r"lab_base64_\w+|dom_b64_\w+|dom_create_text_b64",
     "base64"),
    (r"dom_serialize\w*", "serialize"),
    (r"wss_rsa_\w+", "RSA (sign, verify, key wrap)"),
    (r"wss_read\w*|lab_read\w*", "read"),
    (r"explicit_bzero|OPENSSL_cleanse", "wipe (secrets cleared on free)"),
]
OTHER = "other (tree, lookups, set-up)"
BEFORE = "before the loop (set-up, the input)"
_PASS_RE = [(re.compile(r"(?:%s)$" % p), name) for p, name in PASSES]
# Allocation wrappers: a heap block is named after the first frame that is
# none of these.
_ALLOC_RE = re.compile(
    r"(malloc|calloc|realloc|free|lab_malloc|lab_calloc|lab_realloc|"
    r"dom_arena\w*|lab_chunk_alloc|chunk_new|alloc_alone|lab_buf_\w+|"
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


def context_pass(key):
    """The pass of a read_callgrind key: of the function, or else of the
    innermost caller its name carries."""
    for name in key.split("'"):
        label = pass_of(name.split("@")[0])
        if label:
            return label
    return None


def read_callgrind(path):
    """(events, desc lines, self costs {fn: [..]}, call edges
    {(caller, callee): [..]}) from a callgrind.out file.  A call edge's
    cost is the callee's inclusive cost for the calls from that caller,
    as callgrind records it.  A function is keyed by its name, object
    and file, so two static functions of one name stay apart."""
    events, desc, self_, edges = [], [], {}, {}
    npos, tables = 1, {"fn": {}, "ob": {}, "fl": {}}
    here = {"ob": None, "fl": None}    # the function's object and file
    callee = {"ob": None, "fl": None}  # the next call's, cob=/cfi= set
    fn = cfn = None
    in_call = False

    def ref(table, value):
        m = re.match(r"\((\d+)\)(?: (.*))?$", value)
        if not m:
            return value
        if m.group(2) is not None:
            tables[table][m.group(1)] = m.group(2)
        return tables[table].get(m.group(1), value)

    def key(name, where):
        # "f'2'g": f at recursion level 2, called from g; levels dropped
        parts = [clean_name(p) for p in name.split("'") if not p.isdigit()]
        return "'".join(parts) + f"@{where['ob']}:{where['fl']}"

    def add(table, k, costs):
        row = table.setdefault(k, [0] * len(events))
        for i, c in enumerate(costs[:len(events)]):
            row[i] += c

    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            tag, _, value = line.partition("=")
            if line[:1].isdigit() or line[:1] in ("+", "-", "*"):
                costs = [int(x) for x in line.split()[npos:]]
                if in_call:
                    add(edges, (fn, cfn), costs)
                    in_call = False
                    callee.update(here)  # cob=/cfi= name one call only
                elif fn is not None:
                    add(self_, fn, costs)
            elif line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("positions:"):
                npos = len(line.split()) - 1
            elif line.startswith("desc:"):
                desc.append(line[5:].strip())
            elif tag in ("ob", "fl"):
                here[tag] = callee[tag] = ref(tag, value)
            elif tag in ("fi", "fe"):
                ref("fl", value)  # inlined code's file: names only
            elif tag == "cob":
                callee["ob"] = ref("ob", value)
            elif tag in ("cfi", "cfl"):
                callee["fl"] = ref("fl", value)
            elif tag == "fn":
                fn = key(ref("fn", value), here)
                callee.update(here)
            elif tag == "cfn":
                cfn = key(ref("fn", value), callee)
            elif tag == "calls":
                in_call = True
    if not events:
        raise ValueError(f"{path}: no 'events:' line (not callgrind output)")
    return events, desc, self_, edges


def attribute(self_, edges, nevents):
    """{pass: [cost per event]}: each function's own cost given to the
    pass of the innermost pass function above it.  Callgrind keeps one
    cost per caller-callee pair (per chain of callers with
    --separate-callers), not per whole stack, so a function that is no
    pass's own is split among its callers in proportion to what each
    caller's calls cost (per event), and those callers' shares likewise."""
    callers = {}
    for (a, b), cost in edges.items():
        if a != b:
            callers.setdefault(b, []).append((a, cost))
    fns = set(self_) | {f for pair in edges for f in pair}
    share = {}  # fn -> [ {pass: fraction} per event ]
    for f in fns:
        own = context_pass(f)
        share[f] = [{own or OTHER: 1.0} for _ in range(nevents)]
    fixed = {f for f in fns if context_pass(f)}
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
    figures = {}
    for name in [n for _, n in PASSES] + [OTHER, "total"]:
        row = total if name == "total" else per.get(name)
        if row is None or ev(row, "Ir") < 0.5:
            continue
        d1, ll = ev(row, "D1mr", "D1mw"), ev(row, "DLmr", "DLmw")
        f = figures[name] = {
            "Ir": ev(row, "Ir") / div, "Dr": ev(row, "Dr") / div,
            "Dw": ev(row, "Dw") / div, "D1": d1 / div, "LL": ll / div,
            "D1_bytes": d1 * line / div, "LL_bytes": ll * line / div,
            "share": 100.0 * ev(row, "Ir") / max(ev(total, "Ir"), 1)}
        label = f"**{name}**" if name == "total" else name
        out.append(
            f"| {label} | {f['Ir']:.2f} | {f['Dr']:.3f} | {f['Dw']:.3f} | "
            f"{f['D1']:.4f} | {f['LL']:.4f} | {f['D1_bytes']:.2f} | "
            f"{f['LL_bytes']:.2f} | {f['share']:.1f}% |")
    return out, caches, figures


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
    """'0x1419DA: lab_malloc (alloc.c:35)' -> 'lab_malloc'."""
    m = re.match(r"(?:0x[0-9A-Fa-f]+: )?(.*?)(?: \(.*\))?$", frame)
    return clean_name(m.group(1))


def block_label(stack):
    """(pass, site): the innermost pass function of the allocation stack,
    and the first frame that is not allocation machinery with its
    caller."""
    i = next((i for i, f in enumerate(stack) if not _ALLOC_RE.match(f)),
             len(stack))
    site = " < ".join(stack[i:i + 2]) or "?"
    label = next((pass_of(f) for f in stack if pass_of(f)), OTHER)
    return label, site


def heap_table(few, many, extra_iters, nbytes, floor=0.05, most=15):
    """Markdown rows from DHAT runs of few and few+extra_iters iterations:
    the difference is what extra_iters iterations did, so set-up and the
    warm-up call cancel, and a block made before the loop (the input)
    still shows its reads.  Rows are the allocation sites whose blocks
    were read or written at least floor bytes per input byte, the most
    most; the others are summed."""
    a, b = read_dhat(few), read_dhat(many)
    div = max(extra_iters, 1) * max(nbytes, 1)
    sites, tot = {}, [0, 0, 0]
    for stack in set(a) | set(b):
        ra, rb_ = a.get(stack, [0] * 4), b.get(stack, [0] * 4)
        diff = [rb_[i] - ra[i] for i in range(3)]
        label, site = block_label(stack)
        if diff[0] == 0 and ra[0] > 0:
            label = BEFORE  # the same blocks in both runs
        row = sites.setdefault((label, site), [0, 0, 0, 0, 0])
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
        if max(rd, wr) < floor * div or len(out) - 2 == most:
            rest = [rest[0] + made, rest[1] + rd, rest[2] + wr]
            continue
        # bytes of block per iteration: what the loop made, or the one
        # block made before it (of several, grown by realloc, which one
        # was read is not known)
        base = made / max(extra_iters, 1) if made > 0 else tb
        per_it = max(extra_iters, 1) * max(base, 1)
        each = ("- | -" if made == 0 and blocks > 1 else
                f"{rd / per_it:.2f} | {wr / per_it:.2f}")
        out.append(
            f"| {label} | `{site}` | {tb / max(blocks, 1) / nbytes:.3f} | "
            f"{made / div:.2f} | {rd / div:.2f} | {wr / div:.2f} | {each} |")
    out.append(f"| other sites | | | {rest[0] / div:.2f} | "
               f"{rest[1] / div:.2f} | {rest[2] / div:.2f} | | |")
    out.append(f"| **all heap** | | | {tot[0] / div:.2f} | "
               f"{tot[1] / div:.2f} | {tot[2] / div:.2f} | | |")
    return out, {"allocated": tot[0] / div, "read": tot[1] / div,
                 "written": tot[2] / div}
