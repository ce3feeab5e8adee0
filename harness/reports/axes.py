#!/usr/bin/env python3
"""axes.py - what each axis's flip from best is measured on, in one place:
the claim of the original report it tests (docs/findings.md), the cases
where it shows besides send and receive (summary.py's per-axis table),
and its own case, where it shows most directly, which the ablation chart
draws beside the whole pipeline's send (plots.py).  A new axis is added
here and nowhere else in the reports.

Not for: the findings with their original figures (findings.py), or
which variants flip which axis (variants.txt, run.py).  Standard library
only.
"""
from collections import namedtuple

Axis = namedtuple("Axis", "claim cases own")

# The own case: the token store's own work for tokens, the attachment
# for io, the intermediary for build; read's is the stall over HTTP
# (plots.STALL_CASE), from the load scenario.
AXES = {
    "attrs": Axis("findNamePoint's linear search vs a HashMap and its "
                  "memory cost",
                  ["attr_lookup/wide", "attr_lookup/quakes-200k"],
                  "attr_lookup/wide"),
    "userdata": Axis("a Hashtable per node cost 4-6%",
                     ["userdata/quakes-200k", "parse/quakes-200k"],
                     "userdata/quakes-200k"),
    "build": Axis("OM tree then DOOM tree vs DOOM built from the StAX "
                  "reader; Axiom's deferred tree, the Body a hop never "
                  "reads never built",
                  ["parse/quakes-200k", "forward/quakes-2m",
                   "forward/quakes-2k"],
                  "forward/quakes-2m"),
    "attrlist": Axis("getAttributes() ~10% of CPU under c14n vs <1%",
                     ["c14n/quakes-200k", "attr_walk/quakes-200k"],
                     "c14n/quakes-200k"),
    "keys": Axis("crypto object reloaded per request vs cached",
                 ["send/quakes-2k", "receive/quakes-2k"],
                 "send/quakes-2k"),
    "tokens": Axis("RAMPART-298: time per request grows with request "
                   "count",
                   ["tokens/100", "tokens/700", "tokens_lookup/100",
                    "tokens_lookup/700"],
                   "tokens_lookup/700"),
    "io": Axis("attachments 3-12x faster once buffered",
               ["attachment/150k", "attachment/4m", "attachment_file/150k",
                "attachment_file/4m"],
               "attachment/150k"),
    "read": Axis("the socket-read stall: a body read until end of stream "
                 "(Load over HTTP below; none in the pipeline's cases)",
                 [], "stall"),
    "parser": Axis("how far a DOM fed by a general parser stays from the "
                   "limit", ["parse/quakes-200k"], "parse/quakes-200k"),
    "emit": Axis("decrypted content written back from the tree vs from "
                 "the bytes it was parsed from; the Body's canonical form "
                 "written while parsing vs a walk when it is signed",
                 ["receive/quakes-2m", "send/quakes-2m",
                  "parse/quakes-200k"],
                 "send/quakes-2m"),
    "hash": Axis("an unkeyed hash that input can flood (oCERT-2011-003)",
                 ["worst/collide-names", "worst/collide-attrs",
                  "worst/collide-ids", "parse/quakes-200k"],
                 "worst/collide-names"),
    "pass": Axis("the Body's ciphertext decoded, decrypted (and on send "
                 "digested, encrypted, encoded) one whole pass per step "
                 "vs in pieces that stay in L1",
                 ["receive/quakes-2m", "send/quakes-2m",
                  "receive/quakes-200k", "send/quakes-200k"],
                 "receive/quakes-2m"),
}
