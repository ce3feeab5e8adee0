#!/bin/sh
# harness.sh DOMLAB - the benchmark harness end to end on a tiny run:
# `domlab bench` with the floor writes Google Benchmark JSON whose cases,
# counters and context are checked, and harness/summary.py turns it into
# the tables.  Checks shape, never timing: a time only has to be > 0.
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
"$PY" - "$T/run.json" >"$T/checks" 2>&1 <<'EOF'
import json, sys
n = 0
def check(cond, what):
    global n
    n += 1
    if not cond:
        print(what)
doc = json.load(open(sys.argv[1]))
ctx = doc.get("context", {})
check(ctx.get("domlab_variant"), "context has no domlab_variant")
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

# summary.py: the run as a variant, its floor beside it.
cp "$T/run.json" "$T/best.json"
if "$PY" "$HERE/harness/summary.py" --dir "$T" --commit test --flags test \
	--elapsed 0 best >"$T/summary.md" 2>"$T/err"; then
	ok
	for want in '^# bench run ' '^## The floor$' '^## parse$' \
		'^| dataset | variant | time us |' '^| quakes-2k | best | ' \
		'^| dataset | sha256 | send floor | receive floor |' \
		'^| quakes-2k | [0-9.]* | - | - |$'; do
		if grep -q "$want" "$T/summary.md"; then ok; else
			bad "summary.md lacks '$want'"
		fi
	done
else
	bad "summary.py failed: $(tail -n 3 "$T/err")"
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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
