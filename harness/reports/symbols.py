"""symbols.py - names for code in shared libraries shipped without a
symbol table (Debian's libcrypto.so.3 has only its exported names).

callgrind calls a function there by its address in the library
("0x000000000029ad80"), and pprof by the nearest exported name below the
sampled address, which is another function: SHA-256's assembly sampled as
`SHA1_Init`, RSA's Montgomery multiplication as
`BN_X931_generate_prime_ex`.  profile.md names such code by library and
address instead, as `libcrypto.so.3+0x29ad80`, and says which named
function calls it (callgrind's call graph) or which addresses the samples
fell on (pprof).

Standard library and binutils' nm only.  Not for: symbolizing where there
are symbols (callgrind and pprof do that).
"""
import collections
import os
import re
import subprocess

import passes

HEX = re.compile(r"^0x[0-9a-f]+$")
# One line of /proc/self/maps, as gperftools appends them to its profile.
MAPS = re.compile(rb"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]+) \S+ \d+\s+(/\S+)$",
                  re.M)
# `pprof --text --addresses`: flat flat% sum% cum cum% address name location
ADDR_ROW = re.compile(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+"
                      r"([0-9a-f]+) (.*) (\S+)$")


def callgrind_graph(path):
    """({address name: {object paths}}, {callee: Counter(caller: Ir)})
    from a callgrind.out file (passes.read_callgrind parses it), a
    caller weighed by the instructions its calls cost."""
    where = collections.defaultdict(set)
    callers = collections.defaultdict(collections.Counter)
    try:
        events, _, self_, edges = passes.read_callgrind(path)
    except ValueError:  # no events: no costs, and no graph to read
        return where, callers
    ir = events.index("Ir") if "Ir" in events else 0

    def split(k):  # passes' key: "name@object:file"
        name, _, at = k.partition("@")
        return name, at.rpartition(":")[0]

    for k in list(self_) + [k for edge in edges for k in edge]:
        name, ob = split(k)
        if HEX.match(name):
            where[name].add(ob)
    for (caller, callee), costs in edges.items():
        callers[split(callee)[0]][split(caller)[0]] += costs[ir]
    return where, callers


def named_caller(fn, callers, depth=8):
    """The first function with a name on fn's costliest call path
    upwards, or None."""
    seen = {fn}
    for _ in range(depth):
        up = callers.get(fn)
        if not up:
            return None
        fn = up.most_common(1)[0][0]
        if fn in seen:
            return None
        if not HEX.match(fn):
            return fn
        seen.add(fn)
    return None


def callgrind_label(fn, where, callers):
    """fn itself, or `lib+0xADDR, called from NAME` for an address in a
    library without symbols (fn itself when two objects have code at that
    address: callgrind_annotate's names do not tell them apart)."""
    if not HEX.match(fn) or len(where.get(fn, ())) != 1:
        return fn
    label = f"{os.path.basename(next(iter(where[fn])))}+0x{int(fn, 16):x}"
    caller = named_caller(fn, callers)
    return f"{label}, called from {caller}" if caller else label


def stripped_exports(path):
    """{exported name: (start, size)} when the library at path has no
    symbol table (only dynamic symbols); None when it has one, or nm
    cannot read it."""
    try:
        full = subprocess.run(["nm", "--defined-only", path],
                              capture_output=True, text=True, check=False)
        if full.returncode == 0 and full.stdout.strip():
            return None
        dyn = subprocess.run(["nm", "-D", "-S", "--defined-only", path],
                             capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    exports = {}
    for line in dyn.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4:
            name = parts[3].split("@", 1)[0]
            exports[name] = (int(parts[0], 16), int(parts[1], 16))
    return exports


def stripped_maps(prof):
    """[(start, end, load base, library path, exports)] for the executable
    mappings of libraries without symbols, from the maps a gperftools
    profile ends with."""
    with open(prof, "rb") as f:
        data = f.read()
    base, execs, exports = {}, [], {}
    for m in MAPS.finditer(data):
        start, end, perm, off = (int(m.group(1), 16), int(m.group(2), 16),
                                 m.group(3), int(m.group(4), 16))
        lib = m.group(5).decode("utf-8", "replace")
        if off == 0:
            base.setdefault(lib, start)
        if perm[2:3] == b"x":
            execs.append((start, end, lib))
    out = []
    for start, end, lib in execs:
        if lib not in exports:
            exports[lib] = stripped_exports(lib)
        if exports[lib] is not None and lib in base:
            out.append((start, end, base[lib], lib, exports[lib]))
    return out


def pprof_regroup(addresses, prof):
    """What `pprof --text --addresses` output says of the libraries
    without symbols: ({name: own samples}, {pprof's name: [own, with
    callees]}).  The first holds the samples that lie outside the
    exported function pprof names them by, grouped under `lib+0xLO-0xHI`
    (the addresses sampled past that export); the second, for each such
    name, the samples that do lie inside it.  A name that is not one of
    the library's exports came from its debug symbols and stands.  A
    group has no with-callees count: its addresses may be several
    functions on one stack, which a sum would count twice."""
    maps = stripped_maps(prof)
    moved, kept = {}, {}  # moved: (lib, name) -> [own, lo, hi]
    with open(addresses, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = ADDR_ROW.match(line.rstrip("\n"))
            if m is None:
                continue
            own, cum, addr = int(m.group(1)), int(m.group(2)), int(m.group(3), 16)
            name = m.group(4)
            for start, end, base, lib, exports in maps:
                if not start <= addr < end:
                    continue
                at = addr - base
                export = exports.get(name.split("@", 1)[0])
                if export is None:
                    break  # a name from elsewhere (debug symbols): kept
                if export[0] <= at < export[0] + export[1]:
                    r = kept.setdefault(name, [0, 0])
                    r[0] += own
                    r[1] += cum
                else:
                    r = moved.setdefault((os.path.basename(lib), name),
                                         [0, at, at])
                    r[0] += own
                    r[1], r[2] = min(r[1], at), max(r[2], at)
                break
    named = {}
    for (lib, _), (own, lo, hi) in moved.items():
        span = f"0x{lo:x}" if lo == hi else f"0x{lo:x}-0x{hi:x}"
        named[f"{lib}+{span}"] = own
    return named, {n: kept.get(n, [0, 0]) for _, n in moved}
