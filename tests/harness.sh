#!/bin/sh
# harness.sh DOMLAB - the benchmark harness end to end on a tiny run:
# `domlab bench` with the floor writes Google Benchmark JSON whose cases,
# counters and context are checked, and harness/summary.py turns it into
# the tables; the latency and threaded cases likewise, and
# harness/findings.py finds a finding's pair in a two-variant run made
# from one.  Checks shape, never timing: a time only has to be > 0.
#
# Environment: DOMLAB_KEYS (tests/make-keys.sh's keys, for the floor's RSA).
set -u
DOMLAB=${1:?usage: harness.sh path/to/domlab}
K=${DOMLAB_KEYS:-build/keys}
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL harness: $*"; }

# The JSON checks' output in $T/checks (a line per failed check, then
# "checked N") as that many passes and failures.
tally_checks() {
	if grep -q '^checked [0-9]*$' "$T/checks"; then
		ok
		grep -v '^checked' "$T/checks" | while IFS= read -r line; do
			echo "FAIL harness: json: $line"
		done
		nbad=$(grep -vc '^checked' "$T/checks")
		fail=$((fail + nbad))
		pass=$((pass + $(sed -n 's/^checked //p' "$T/checks") - nbad))
	else
		bad "json check crashed: $(tail -n 3 "$T/checks")"
	fi
}

# expect_lines FILE PATTERN...: one check per grep pattern, each passing
# when a line of FILE matches it.
expect_lines() {
	file=$1
	shift
	for want in "$@"; do
		if grep -q "$want" "$file"; then ok; else
			bad "${file##*/} lacks '$want'"
		fi
	done
}

if ! "$DOMLAB" bench --quick --floor --keys "$K" \
	--benchmark_filter='parse/quakes-2k|floor:sha256/quakes-2k' \
	--benchmark_min_time=0.01 --benchmark_out="$T/run.json" \
	--benchmark_out_format=json >"$T/log" 2>&1; then
	bad "domlab bench failed: $(tail -n 5 "$T/log")"
	echo "$pass passed, $fail failed"
	exit 1
fi
ok

# One line per failed check on stdout, then "checked N".
name=$("$DOMLAB" variant | sed -n 's/^variant=//p')
"$PY" - "$T/run.json" "$name" >"$T/checks" 2>&1 <<'EOF'
import json, sys
n = 0
def check(cond, what):
    global n
    n += 1
    if not cond:
        print(what)
doc = json.load(open(sys.argv[1]))
ctx = doc.get("context", {})
check(ctx.get("domlab_variant") == sys.argv[2],
      f"context's domlab_variant is {ctx.get('domlab_variant')!r}, "
      f"not {sys.argv[2]!r}")
check(ctx.get("quick") == "yes", "context does not say quick")
byname = {b["name"]: b for b in doc.get("benchmarks", [])}
for name in ("parse/quakes-2k", "floor:sha256/quakes-2k"):
    b = byname.get(name)
    check(b is not None, f"{name} missing; have {sorted(byname)}")
    if b is None:
        continue
    check(not b.get("error_occurred"), f"{name}: {b.get('error_message')}")
    check(b.get("cpu_time", 0) > 0 and b.get("real_time", 0) > 0,
          f"{name}: time not > 0")
    check(b.get("iterations", 0) > 0, f"{name}: no iterations")
    for c in ("allocs", "alloc_bytes", "peak_bytes", "cold_ns"):
        check(c in b, f"{name}: counter {c} missing")
check(byname.get("parse/quakes-2k", {}).get("allocs", 0) > 0,
      "parse/quakes-2k allocates nothing")
check(byname.get("parse/quakes-2k", {}).get("elements") == 23,
      "parse/quakes-2k: elements is not 23")
check(len(byname) == 2, f"the filter ran {sorted(byname)}")
print(f"checked {n}")
EOF
tally_checks

# summary.py: the run as a variant, its floor beside it.
cp "$T/run.json" "$T/best.json"
if "$PY" "$HERE/harness/summary.py" --dir "$T" --commit test --flags test \
	--elapsed 0 best >"$T/summary.md" 2>"$T/err"; then
	ok
	expect_lines "$T/summary.md" '^# bench run ' '^## The floor$' \
		'^## parse$' '^| dataset | variant | time us |' \
		'^| quakes-2k | best | ' \
		'^| dataset | sha256 | send floor | receive floor |' \
		'^| quakes-2k | [0-9.]* | - | - |$'
else
	bad "summary.py failed: $(tail -n 3 "$T/err")"
fi

# compare.sh's paired run: best, ref and the floor in one process with
# repetitions interleaved, and summary.py's "Side by side" table of it
# (ratios only need numbers: the times are not checked).
if "$DOMLAB" bench --quick --ref --floor --keys "$K" \
	--benchmark_filter='^(ref:send|send|floor:sha256|floor:aes256gcm|floor:rsa_sign|floor:rsa_oaep_wrap)/quakes-2k$' \
	--benchmark_min_time=0.01 --benchmark_repetitions=2 \
	--benchmark_enable_random_interleaving=true \
	--benchmark_report_aggregates_only=true \
	--benchmark_out="$T/paired.json" --benchmark_out_format=json \
	>"$T/log" 2>&1 &&
	"$PY" "$HERE/harness/summary.py" --dir "$T" --commit test --flags test \
		--elapsed 0 --paired best >"$T/summary.md" 2>"$T/err"; then
	ok
	expect_lines "$T/summary.md" \
		'^## Side by side: best, ref and the floor in one process$' \
		'^| quakes-2k | send | [0-9,.]* | [0-9,.]* | [0-9,.]* | [0-9.]* | [0-9.]* |$'
else
	bad "paired run: $(tail -n 3 "$T/log" "$T/err" 2>/dev/null)"
fi

# --floor alone adds cases; without it there are none.
if "$DOMLAB" bench --quick --keys "$K" --benchmark_list_tests=true |
	grep -q '^floor:'; then
	bad "floor cases listed without --floor"
else
	ok
fi
# --icount runs one case outside Google Benchmark (what callgrind counts).
if "$DOMLAB" bench --keys "$K" --icount floor:sha256/quakes-2k \
	--icount-iterations 2 2>"$T/err" |
	grep -qx 'floor:sha256/quakes-2k: 2 iterations'; then
	ok
else
	bad "--icount: $(cat "$T/err")"
fi

# tokens_lookup refuses a store not put back between runs, so these pass
# only if the reset the case asks for happens (list) or is not needed (hash).
if "$DOMLAB" bench --keys "$K" --benchmark_filter='^tokens_lookup/100$' \
	--benchmark_min_time=0.01 >"$T/log" 2>&1; then
	ok
else
	bad "tokens_lookup: $(tail -n 3 "$T/log")"
fi
if "$DOMLAB" bench --keys "$K" --icount tokens_lookup/100 \
	--icount-iterations 3 2>"$T/err" |
	grep -qx 'tokens_lookup/100: 3 iterations'; then
	ok
else
	bad "--icount tokens_lookup: $(cat "$T/err")"
fi

# The latency and threaded cases: names, thread counts up to twice the
# CPUs, wall-clock timing, and summary.py's tables of them.
if "$DOMLAB" bench --quick --keys "$K" \
	--benchmark_filter='^latency_(plain|secure)/ints-200$|^threads_(send|control)/quakes-20k/|^attr_lookup/wide$' \
	--benchmark_min_time=0.01 --benchmark_out="$T/small.json" \
	--benchmark_out_format=json >"$T/log" 2>&1; then
	ok
else
	bad "domlab bench (latency, threads) failed: $(tail -n 5 "$T/log")"
fi
cpus=$("$PY" -c 'import os; print(len(os.sched_getaffinity(0)))')
"$PY" - "$T/small.json" "$cpus" >"$T/checks" 2>&1 <<'EOF2'
import json, sys
n = 0
def check(cond, what):
    global n
    n += 1
    if not cond:
        print(what)
byname = {b["name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
top = 2 * int(sys.argv[2])
for name in ("latency_plain/ints-200", "latency_secure/ints-200"):
    b = byname.get(name, {})
    check(b.get("cpu_time", 0) > 0 and not b.get("error_occurred"),
          f"{name} missing or failed; have {sorted(byname)}")
    check(b.get("allocs", 0) > 0, f"{name} allocates nothing")
counts = sorted(b["threads"] for k, b in byname.items()
                if k.startswith("threads_send/"))
want = sorted({min(1 << i, top) for i in range(top.bit_length() + 1)})
check(counts == want, f"threads_send ran on {counts} threads, want {want}")
for t in want:
    b = byname.get(f"threads_send/quakes-20k/real_time/threads:{t}", {})
    check(b.get("real_time", 0) > 0 and not b.get("error_occurred"),
          f"threads_send on {t} threads missing or failed")
    check(b.get("allocs", 0) > 0, f"threads_send on {t}: no allocs")
print(f"checked {n}")
EOF2
tally_checks

# A two-variant run made from that one: best as it ran, and the attrs
# ablation with attr_lookup/wide three times slower; findings.py must
# find the pair from variants.txt, report 3.00, quote the recorded
# commands, and say "not measured" for every other finding.
mkdir -p "$T/run"
axes=$("$DOMLAB" variant | grep -v '^preset=\|^variant=' | tr '\n' ' ')
old=$(echo "$axes" | sed 's/attrs=[a-z]*/attrs=vector/')
new=$(echo "$axes" | sed 's/attrs=[a-z]*/attrs=adaptive/')
printf 'best %s\nflipped %s\n' "$new" "$old" >"$T/run/variants.txt"
printf 'best\tdomlab bench --one\nflipped\tdomlab bench --two\n' \
	>"$T/run/commands.tsv"
cp "$T/small.json" "$T/run/best.json"
"$PY" - "$T/small.json" "$T/run/flipped.json" <<'EOF2'
import json, sys
doc = json.load(open(sys.argv[1]))
for b in doc["benchmarks"]:
    if b["name"] == "attr_lookup/wide":
        b["cpu_time"] *= 3
json.dump(doc, open(sys.argv[2], "w"))
EOF2
if "$PY" "$HERE/harness/findings.py" --dir "$T/run" best flipped ref \
	floor >"$T/FINDINGS.md" 2>"$T/err"; then
	ok
	expect_lines "$T/FINDINGS.md" '^# Findings of run run$' \
		'^| findNamePoint.* | `attrs` | .* | 3\.00x (vector / adaptive, attr_lookup/wide; share 67%) |$' \
		'^| attr_lookup/wide | attrs=vector (flipped) | attrs=adaptive (best) | .* | 3\.00 | 67% |$' \
		'^- flipped: `domlab bench --two`$' \
		"^- \`domlab bench --one --benchmark_filter='^(attr_lookup/wide|attr_lookup/quakes-200k)\$'\`\$" \
		'^| the token store .* | not measured in this run |$' \
		'^| attachments read .* | not measured in this run |$'
	# attrs alone has a pair; every other finding says so, with no number.
	n=$(grep -c '^| .* | not measured in this run |$' "$T/FINDINGS.md")
	if [ "$n" -eq 7 ]; then ok; else
		bad "FINDINGS.md: $n findings not measured, want 7"
	fi
else
	bad "findings.py failed: $(tail -n 3 "$T/err")"
fi
if "$PY" "$HERE/harness/summary.py" --dir "$T/run" --commit test \
	--flags test --elapsed 0 best flipped >"$T/summary.md" 2>"$T/err"; then
	ok
	expect_lines "$T/summary.md" '^## Small-message latency$' \
		'^| call | items | plain best | secure best |$' \
		'^| getInt | 200 | [0-9.,]* | [0-9.,]* |$' '^## Threads$' \
		'^| threads_send/quakes-20k | best | 2 | [0-9.,]* | [0-9.]* | ' \
		'^| threads_control/quakes-20k | flipped | 1 | [0-9.,]* | 1\.00 | '
else
	bad "summary.py (latency, threads) failed: $(tail -n 3 "$T/err")"
fi

# Variant names (the Makefile): a preset, then +axis=choice for each axis
# that differs, in axis order, however VARIANT and the axis variables
# spell it; what is not a preset and axis=choice pairs is refused.
# The environment is emptied: the variables of a make running this suite
# (VARIANT, axis variables, MAKEFLAGS) would otherwise reach this one.
name_of() { # name_of WANT MAKE-ARGS...
	n_want=$1
	shift
	n_got=$(env -i PATH="$PATH" make -C "$HERE" -s --no-print-directory "$@" variant-name 2>&1)
	[ "$n_got" = "$n_want" ] && ok || bad "make $* variant-name: '$n_got', want '$n_want'"
}
name_of best
name_of best VARIANT=best
name_of best VARIANT=best+attrs=adaptive
name_of doom2010+parser=insitu VARIANT=doom2010+parser=insitu
name_of best+build=built+parser=libxml2 VARIANT=best+parser=libxml2+build=built
name_of best+attrs=hash+build=built ATTRS=hash BUILD=built
name_of doom2010+parser=insitu VARIANT=doom2010 PARSER=insitu
name_of xerces VARIANT=xerces+attrs=hash ATTRS=vector
for v in nope best+attrs=nope best+color=red best+attrs adaptive-shared-direct; do
	env -i PATH="$PATH" make -C "$HERE" -s --no-print-directory VARIANT="$v" variant-name >"$T/out" 2>"$T/err" &&
		bad "make VARIANT=$v was accepted: $(cat "$T/out")" ||
		{ grep -q "VARIANT=$v\|is not one of" "$T/err" && ok || bad "make VARIANT=$v: $(cat "$T/err")"; }
done
# This binary's own name is the canonical one.
name_of "$name" VARIANT="$name"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
