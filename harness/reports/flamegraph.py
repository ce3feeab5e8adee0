#!/usr/bin/env python3
"""flamegraph.py - renders collapsed stacks ("main;f;g 12" per line, as
`google-pprof --collapsed` writes them) as a flame graph in one SVG file:
a frame's width is its share of the samples, its callers below it, a
<title> on each frame giving its samples and share.  Debian has no flame
graph renderer (`apt-cache search flamegraph` finds none), so
harness/reports/profile_diff.sh draws with this.

Standard library only.  Not for: interactive viewing (no zoom or search)
or collecting the stacks.
"""
import argparse
import hashlib
import html
import sys

WIDTH = 1200
ROW = 16
FONT = 11
MIN_PX = 0.3  # narrower frames are not drawn


def read_stacks(path):
    """The call tree as nested dicts: {name: [samples, children]}."""
    root = [0, {}]
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if not stack or not n.isdigit():
                continue
            node = root
            node[0] += int(n)
            for frame in stack.split(";"):
                node = node[1].setdefault(frame, [0, {}])
                node[0] += int(n)
    return root


def depth(node):
    return 1 + max((depth(c) for c in node[1].values()), default=0)


def colour(name):
    """A warm colour fixed by the name, so a function keeps its colour in
    both sides of a comparison."""
    h = hashlib.sha1(name.encode()).digest()
    return f"rgb({205 + h[0] % 50},{80 + h[1] % 130},{h[2] % 60})"


def frames(node, x, level, scale, out):
    """Appends (name, x, level, width, samples) for node's children."""
    for name, child in sorted(node[1].items()):
        w = child[0] * scale
        if w >= MIN_PX:
            out.append((name, x, level, w, child[0]))
            frames(child, x, level + 1, scale, out)
        x += w


def render(root, title):
    total = max(root[0], 1)
    levels = depth(root) - 1
    height = (levels + 2) * ROW + 10
    out = []
    frames(root, 0.0, 0, WIDTH / total, out)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
           f'height="{height}" font-family="monospace" font-size="{FONT}">',
           f'<text x="4" y="{ROW - 4}">{html.escape(title)} '
           f'({root[0]} samples)</text>']
    for name, x, level, w, n in out:
        y = height - (level + 1) * ROW
        label = html.escape(name)
        svg.append(f'<g><title>{label}: {n} samples, '
                   f'{100.0 * n / total:.2f}%</title>'
                   f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" '
                   f'height="{ROW - 1}" fill="{colour(name)}"/>')
        chars = int(w / (FONT * 0.62))
        if chars >= 3:
            text = name if len(name) <= chars else name[:chars - 2] + ".."
            svg.append(f'<text x="{x + 2:.1f}" y="{y + ROW - 4}">'
                       f'{html.escape(text)}</text>')
        svg.append("</g>")
    svg.append("</svg>")
    return "\n".join(svg) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("collapsed")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    sys.stdout.write(render(read_stacks(a.collapsed), a.title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
