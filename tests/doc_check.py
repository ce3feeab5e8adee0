#!/usr/bin/env python3
"""doc_check.py - every path, make target and command-line option that
the documentation names exists (`make lint`).

Read: README.md, SECURITY.md, docs/*.md and the other README.md files
(every path, make target and option), and the comments of the C sources,
scripts and makefiles (every path).  Checked:
  - paths: a word under one of the repository's folders (dom/x.c,
    harness/reports/, tests/fuzz/*.c) matches a file or folder, and a
    Markdown link's target exists (relative to its page); paths under
    build/ and results/<run>/ are made by runs and left out, as are words
    with a placeholder (<variant>, ...);
  - make targets: each word after `make` that is no VAR=value or flag is
    a target the Makefile defines (`make -pq`);
  - options: each --long-option in the Markdown is one some C source of
    the repository spells (its option tables), one of Google Benchmark's
    (--benchmark_*), or one of the other tools' the documents quote
    (OTHER_TOOLS).
Prints one line per dangling name and "N checked, N dangling"; exits 1
when any dangles.

Not for: the axis tables (tests/doc_axes.py) or the prose.
"""
import glob
import os
import re
import subprocess
import sys

TOP = ("util", "dom", "wss", "variants", "datasets", "harness", "tests",
       "examples", "docs", "mk", ".ci", "results")
GENERATED = ("build/", "results/latest", "results/<", "results/stall-",
             "results/worst-", "results/20")
# Long options of other tools that the documents quote, by tool.
OTHER_TOOLS = {
    "git": ["--always", "--dirty"],
    "valgrind": ["--tool", "--toggle-collect", "--callgrind-out-file",
                 "--dump-instr", "--leak-check", "--error-exitcode",
                 "--errors-for-leak-kinds", "--show-leak-kinds"],
    "curl": ["--data-binary", "--output", "--header", "--fail"],
    "xmlsec1": ["--verify", "--sign", "--decrypt", "--encrypt",
                "--privkey-pem", "--pubkey-cert-pem", "--id-attr",
                "--trusted-pem", "--session-key", "--enabled-key-data",
                "--lax-key-search", "--pwd", "--xml-data", "--node-xpath",
                "--node-id", "--node-name", "--store-signatures",
                "--trusted-der", "--verification-gmt-time",
                "--pubkey-cert-der", "--hmackey", "--privkey-der"],
    "xmllint": ["--c14n", "--noout", "--schema"],
    "h2load": ["--h1"],
    "openssl": ["--version"],
    "cppcheck": ["--enable", "--inline-suppr", "--std", "--quiet",
                 "--error-exitcode", "--suppress"],
    "make": ["--no-print-directory", "--jobs"],
    "apt-get": ["--no-install-recommends"],
    "pkg-config": ["--cflags", "--libs", "--static", "--modversion"],
    "libFuzzer": ["--fork"],
    "gperftools": ["--text", "--svg", "--callgrind", "--base",
                   "--lines", "--functions"],
    "callgrind_annotate": ["--inclusive", "--threshold", "--auto"],
}

PATH_RE = re.compile(r"(?<![\w./-])((?:%s)/[\w./*<>{}|=+-]*)" %
                     "|".join(re.escape(t) for t in TOP))
BRACE_RE = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*)\{([\w.,-]+)\}([\w./-]*)" %
                      "|".join(re.escape(t) for t in TOP))
LINK_RE = re.compile(r"\]\(([^)\s]+)\)")
MAKE_RE = re.compile(r"(?:^|[;&|(]\s*)make((?: +[\w.=/'\"<>,+^|()$:-]+)+)")
OPT_RE = re.compile(r"(?<![\w!-])(--[a-z][a-z0-9_-]*)")


def markdown_files():
    files = ["README.md", "SECURITY.md"] + sorted(glob.glob("docs/*.md"))
    for path in sorted(glob.glob("**/README.md", recursive=True)):
        if not path.startswith(("build/", "results/")) and path not in files:
            files.append(path)
    return files


def comment_files():
    out = []
    for top in TOP + ("Makefile",):
        if os.path.isfile(top):
            out.append(top)
            continue
        for root, _dirs, names in os.walk(top):
            if root.startswith(("results", "tests/fuzz/corpus",
                                "tests/fuzz/regress", "tests/data",
                                "tests/vectors")):
                continue
            out += [os.path.join(root, n) for n in names
                    if n.endswith((".c", ".h", ".cc", ".sh", ".py", ".mk"))
                    or n == "Makefile"]
    return sorted(out)


def comments(path, text):
    """The comment text of a source file: C's /* */ and //, # in the
    scripts and makefiles."""
    if path.endswith((".c", ".h", ".cc")):
        return "\n".join(re.findall(r"/\*.*?\*/|//[^\n]*", text, re.S))
    return "\n".join(m.group(1) for m in re.finditer(r"#([^\n]*)", text))


def paths(text):
    """The paths a text names, each brace list (dom/{a,b}.c) expanded;
    Markdown link targets are left to the link check."""
    text = LINK_RE.sub("]", text)
    out = [a + b + c for a, bs, c in BRACE_RE.findall(text)
           for b in bs.split(",")]
    out += PATH_RE.findall(BRACE_RE.sub(" ", text))
    return [p.rstrip(".,;:)") for p in out]


def path_exists(p):
    p = p.rstrip(".,;:)")
    if not p or any(p.startswith(g) for g in GENERATED):
        return True
    # Placeholders (<variant>, TARGET, X/Y), build products (.o) and
    # words that name no file (a test, wss/soap12: no extension, no
    # trailing slash) are no paths to check.
    parts = p.rstrip("/").split("/")
    if re.search(r"[<>{}|=+]|\$|\.\.\.", p) or p.endswith(".o") or \
            any(re.fullmatch(r"[A-Z][A-Z0-9_]*(\.\w+)?", c) for c in parts):
        return True
    if not p.endswith("/") and "." not in parts[-1] and len(parts) > 1:
        return True
    if "*" in p:
        return bool(glob.glob(p))
    return os.path.exists(p)


def make_targets():
    out = subprocess.run(["make", "-pRrq", "-f", "Makefile", "__none__"],
                         capture_output=True, text=True).stdout
    targets = set()
    for line in out.split("\n"):
        m = re.match(r"^([A-Za-z0-9_./%-]+):(?!=)", line)
        if m:
            targets.add(m.group(1))
    return targets


def source_options():
    opts = set()
    for path in comment_files():
        if path.endswith((".c", ".h", ".cc", ".sh", ".py", ".mk")) or \
                path == "Makefile":
            with open(path, encoding="utf-8", errors="replace") as f:
                opts.update(OPT_RE.findall(f.read()))
    return opts


def main():
    checked, dangling = 0, []
    targets = make_targets()
    known = source_options()
    for tool in OTHER_TOOLS.values():
        known.update(tool)
    for page in markdown_files():
        with open(page, encoding="utf-8") as f:
            text = f.read()
        base = os.path.dirname(page)
        fenced = False
        for n, line in enumerate(text.split("\n"), 1):
            where = f"{page}:{n}"
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            # Targets and options are read in code only: prose says
            # "make it" and quotes other tools.
            spans = [line.split("#")[0].strip()] if fenced else \
                re.findall(r"`([^`]*)`", line)
            for t in LINK_RE.findall(line):
                if re.match(r"[a-z]+:", t) or t.startswith("#"):
                    continue
                checked += 1
                target = os.path.normpath(os.path.join(base, t.split("#")[0]))
                if not path_exists(target):
                    dangling.append(f"{where}: link to {t}: no such file")
            for p in paths(line):
                checked += 1
                if not path_exists(p):
                    dangling.append(f"{where}: path {p}: no such file")
            for m in (m for c in spans for m in MAKE_RE.finditer(c)):
                # make -C DIR: another folder's Makefile.
                if "-C" in m.group(1).split():
                    continue
                for w in m.group(1).split():
                    w = w.strip("'\",;:.)(")
                    if "=" in w or w.startswith("-"):
                        continue
                    if not re.fullmatch(r"[a-z][a-z0-9-]*", w):
                        break
                    checked += 1
                    if w not in targets:
                        dangling.append(f"{where}: make {w}: no such target")
            for o in (o for c in spans for o in OPT_RE.findall(c)):
                if o.startswith("--benchmark_"):
                    continue
                checked += 1
                if o not in known:
                    dangling.append(f"{where}: option {o}: no source names it")
    for path in comment_files():
        with open(path, encoding="utf-8", errors="replace") as f:
            text = comments(path, f.read())
        for p in paths(text):
            checked += 1
            if not path_exists(p):
                dangling.append(f"{path}: comment names {p}: no such file")
    for d in dangling:
        print(d)
    print(f"doc_check: {checked} checked, {len(dangling)} dangling")
    return 1 if dangling else 0


if __name__ == "__main__":
    sys.exit(main())
