#!/usr/bin/env python3
"""doc_axes.py --check | --write - the axis and preset tables of
README.md, docs/dom.md and docs/design.md, generated from the Makefile's
axis list (`make axes-list` on standard input: "presets P...", then
"axis NAME VARIABLE DOOM2010 XERCES BEST OTHERS...").

Each table sits between <!-- axes:begin --> and <!-- axes:end -->, or
<!-- presets:begin --> and <!-- presets:end -->.  The script owns every
name in them: the axis rows (in the Makefile's order), each axis's
choices (doom2010's, xerces's, the others, best's; README's column names
them with best's in bold, the docs' give each its description, kept by
choice), and the preset table's choice columns.  The prose columns ("what
it reproduces", "what it is") are kept by axis or preset.  --check prints
what differs and exits 1 (`make lint`); --write rewrites the files (`make
axes-docs`).  A new axis or choice gets a cell saying it is undescribed,
which the check then reports until someone describes it.

Not for: checking anything else in the docs (tests/doc_check.py).
"""
import re
import sys

DOCS = ("README.md", "docs/dom.md", "docs/design.md")
UNDESCRIBED = "UNDESCRIBED"


def read_axes(lines):
    presets, axes = [], []
    for line in lines:
        w = line.split()
        if w and w[0] == "presets":
            presets = w[1:]
        elif w and w[0] == "axis":
            name, var, picks, others = w[1], w[2], w[3:6], w[6:]
            order = []
            for c in picks[:2] + others + picks[2:]:
                if c not in order:
                    order.append(c)
            axes.append({"name": name, "var": var,
                         "pick": dict(zip(("doom2010", "xerces", "best"),
                                          picks)),
                         "choices": order})
    if not presets or not axes:
        sys.exit("doc_axes.py: no axis list on standard input "
                 "(make -s axes-list | python3 tests/doc_axes.py ...)")
    return presets, axes


def cells(row):
    return [c.strip() for c in row.strip().strip("|").split(" | ")]


def row(cs):
    return "| " + " | ".join(cs) + " |"


def described(cell):
    """{choice: its description} of a cell "`a` (...), `b` (...)"."""
    out, depth, i, starts = {}, 0, 0, []
    while i < len(cell):
        ch = cell[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "`" and depth == 0:
            m = re.match(r"`([a-z0-9]+)`", cell[i:])
            if m and (not starts or cell[:i].rstrip().endswith(",")):
                starts.append((i, m.group(1)))
                i += len(m.group(0))
                continue
        i += 1
    for k, (at, name) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(cell)
        out[name] = cell[at:end].rstrip().rstrip(",").rstrip()
    return out


def axis_table(lines, axes, presets):
    head = cells(lines[0])
    bold = "bold" in head[1]
    kept = {cells(r)[0].strip("`"): cells(r) for r in lines[2:]}
    out = [lines[0], lines[1]]
    for a in axes:
        old = kept.get(a["name"], [])
        if bold:
            choice = ", ".join(f"**{c}**" if c == a["pick"]["best"] else c
                               for c in a["choices"])
        else:
            have = described(old[1]) if len(old) > 1 else {}
            choice = ", ".join(have.get(c, f"`{c}` ({UNDESCRIBED})")
                               for c in a["choices"])
        rest = old[2:] if len(old) > 2 else [UNDESCRIBED] * (len(head) - 2)
        out.append(row([f"`{a['name']}`", choice] + rest))
    return out


def preset_table(lines, axes, presets):
    head = cells(lines[0])
    names = {a["name"] for a in axes}
    extra = [h for h in head[1:] if h not in names]
    kept = {}
    for r in lines[2:]:
        cs = cells(r)
        kept[cs[0].strip("`")] = dict(zip(head, cs))
    out = [row(["preset"] + [a["name"] for a in axes] + extra),
           row(["---"] * (1 + len(axes) + len(extra))).replace(" ", "")]
    for p in presets:
        old = kept.get(p, {})
        out.append(row([f"`{p}`"] + [a["pick"][p] for a in axes]
                       + [old.get(h, UNDESCRIBED) for h in extra]))
    return out


def regenerate(text, axes, presets):
    for tag, make in (("axes", axis_table), ("presets", preset_table)):
        pat = re.compile(rf"(<!-- {tag}:begin -->\n)(.*?)(\n<!-- {tag}:end -->)",
                         re.S)
        m = pat.search(text)
        if m is None:
            return None, f"no <!-- {tag}:begin --> ... <!-- {tag}:end -->"
        new = "\n".join(make(m.group(2).split("\n"), axes, presets))
        text = text[:m.start(2)] + new + text[m.end(2):]
    return text, None


def main():
    mode = sys.argv[1] if len(sys.argv) == 2 else ""
    if mode not in ("--check", "--write"):
        sys.exit("usage: make -s axes-list | doc_axes.py --check|--write")
    presets, axes = read_axes(sys.stdin)
    bad = 0
    for path in DOCS:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new, why = regenerate(text, axes, presets)
        if why:
            print(f"{path}: {why}")
            bad += 1
            continue
        if mode == "--write" and new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"{path}: axis tables rewritten")
        elif mode == "--check" and new != text:
            old_rows = set(text.split("\n"))
            for line in new.split("\n"):
                if line not in old_rows:
                    print(f"{path}: should read: {line[:160]}")
            print(f"{path}: the axis tables differ from the Makefile's axis "
                  "list (make axes-docs rewrites them)")
            bad += 1
        if UNDESCRIBED in new:
            print(f"{path}: an axis, choice or preset is {UNDESCRIBED}")
            bad += 1
    print(f"doc_axes: {len(DOCS) - min(bad, len(DOCS))} of {len(DOCS)} "
          "files agree with the axis list")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
