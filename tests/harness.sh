#!/bin/sh
# harness.sh DOMLAB DOMLAB_BENCH - the benchmark harness end to end on a
# tiny run: `domlab-bench bench` with the floor writes Google Benchmark JSON whose cases,
# counters and context are checked, and harness/reports/summary.py turns it into
# the tables; the latency and threaded cases likewise, and
# harness/reports/findings.py finds a finding's pair in a two-variant run made
# from one, with the interval and the U test over repetitions made up
# for it; the intermediary's summary table and FINDINGS.md's
# deferred-tree row; summary.py's charts, summary.json and machine.txt, and
# readme_results.py on a summary.json written here; `bench --data` on a
# folder of one envelope and one file that is none, and on envelopes of
# every shape (tests/data/envelopes/); profile-diff's report
# and flame graph, profile.sh's passes and heap bytes touched and the
# caches it simulates (cachegeom.sh), compare.sh's noisy paired
# processes set aside and made again (paired_retry.sh), the paired
# run in several processes with its prediction intervals and recheck.py
# against them, a recheck kept in the run and its reports made again
# (remake.sh), on inputs made up here.  Checks shape, never
# timing: a time only has to be > 0.
#
# Environment: DOMLAB_KEYS (tests/make-keys.sh's keys, for the floor's RSA).
set -u
SUITE=harness
DOMLAB=${1:?usage: harness.sh path/to/domlab path/to/domlab-bench}
BENCH=${2:?usage: harness.sh path/to/domlab path/to/domlab-bench}
K=${DOMLAB_KEYS:-build/keys}
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
. "$(dirname "$0")/lib.sh"

# The JSON checks' output in $T/checks (a line per failed check, then
# "checked N") as that many passes and failures.
tally_checks() {
	if grep -q '^checked [0-9]*$' "$T/checks"; then
		ok
		grep -v '^checked' "$T/checks" | while IFS= read -r line; do
			echo "FAIL $SUITE: json: $line"
		done
		nbad=$(grep -vc '^checked' "$T/checks")
		fail=$((fail + nbad))
		pass=$((pass + $(sed -n 's/^checked //p' "$T/checks") - nbad))
	else
		bad "json check crashed: $(tail -n 3 "$T/checks")"
	fi
}

# This machine's CPU as run.py's cpu_id gives it (machine.txt's `cpu:`).
run_cpu() {
	"$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import run; print(run.cpu_id())' \
		"$HERE/harness/reports"
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

if ! "$BENCH" bench --quick --floor --keys "$K" \
	--benchmark_filter='parse/quakes-2k|floor:sha256/quakes-2k' \
	--benchmark_min_time=0.01 --benchmark_out="$T/run.json" \
	--benchmark_out_format=json >"$T/log" 2>&1; then
	bad "domlab-bench bench failed: $(tail -n 5 "$T/log")"
	finish
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
if "$PY" "$HERE/harness/reports/summary.py" --dir "$T" --commit test --flags test \
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
# (ratios only need numbers: the times are not checked).  paired PEERS:
# that run of send/quakes-2k with PEERS' sends too (ref:send, ...), its
# summary in $T/summary.md.
paired() {
	"$BENCH" bench --quick --ref --floor --keys "$K" \
		--benchmark_filter="^($1|send|floor:sha256|floor:sha256_small|floor:aes256gcm|floor:rsa_sign|floor:rsa_oaep_wrap)/quakes-2k\$" \
		--benchmark_min_time=0.01 --benchmark_repetitions=2 \
		--benchmark_enable_random_interleaving=true \
		--benchmark_report_aggregates_only=true \
		--benchmark_out="$T/paired.json" --benchmark_out_format=json \
		>"$T/log" 2>&1 &&
		"$PY" "$HERE/harness/reports/summary.py" --dir "$T" --commit test --flags test \
			--elapsed 0 best >"$T/summary.md" 2>"$T/err"
}
if paired 'ref:send'; then
	ok
	expect_lines "$T/summary.md" \
		'^## Side by side: best, ref and the floor in one process$' \
		'^| quakes-2k | send | [0-9,.]* | [0-9,.]* | [0-9,.]* | [0-9.]* | - | [0-9.]* | - |$'
else
	bad "paired run: $(tail -n 3 "$T/log" "$T/err" 2>/dev/null)"
fi

# The floor checks itself: a made-up run whose best sends in 100 us
# against a floor of 200 (its parts 10 + 1 + 9 + 150 + 30; the floor's
# JSON gzipped, as a committed run keeps it) makes summary.py warn on
# stderr and at the top of summary.md; at 300 us it says nothing.  The
# receive floor lacks aes256gcm_decrypt, which aes256gcm stands in for,
# and says so.
mkdir -p "$T/under"
"$PY" - "$T/under" "$HERE/tests" <<'EOF2'
import os, sys
sys.path.insert(0, sys.argv[2])
from fake_bench import case, write
d = sys.argv[1]
parts = {"sha256": 10, "sha256_small": 1, "aes256gcm": 9, "rsa_sign": 150,
         "rsa_oaep_wrap": 30, "rsa_verify": 20, "rsa_oaep_unwrap": 150}
write(os.path.join(d, "floor.json.gz"),
      [case(f"floor:{p}/quakes-2k", us) for p, us in parts.items()])
for name, us in (("best", 100), ("above", 300)):
    write(os.path.join(d, name + ".json"),
          [case("send/quakes-2k", us), case("receive/quakes-2k", 250)])
EOF2
cp "$T/under/best.json" "$T/under/under.json"
if "$PY" "$HERE/harness/reports/summary.py" --dir "$T/under" --commit test \
	--flags test --elapsed 0 under floor >"$T/under.md" 2>"$T/err"; then
	ok
	expect_lines "$T/under.md" '^## WARNING: numbers below the floor$' \
		'^- \*\*send/quakes-2k under: 100 us, 0\.50x its floor (200)\*\*$' \
		'^| quakes-2k | floor | 200 | 1\.00 | - | - | 190 | 1\.00 | - | - |$' \
		'aes256gcm_decrypt measured as aes256gcm (not measured in this run)'
	expect_lines "$T/err" '^summary.py: WARNING: below the floor: send/quakes-2k under: 100 us, 0\.50x its floor (200)$'
else
	bad "summary.py (under the floor) failed: $(tail -n 3 "$T/err")"
fi
rm -f "$T/under/machine.txt"
cp "$T/under/above.json" "$T/under/best.json"
if "$PY" "$HERE/harness/reports/summary.py" --dir "$T/under" --commit test \
	--flags test --elapsed 0 best floor >"$T/above.md" 2>"$T/err"; then
	ok
	grep -q 'WARNING' "$T/above.md" "$T/err" &&
		bad "a run above its floor warned: $(grep WARNING "$T/above.md" "$T/err")" || ok
	expect_lines "$T/above.md" '^| quakes-2k | best | 300 | 1\.50 | '
else
	bad "summary.py (above the floor) failed: $(tail -n 3 "$T/err")"
fi

# One message on two threads beside the one-thread case and the floor:
# send_pipelined's wall clock 240 us and CPU 420 us against send's 300
# and the floor's 200: wall / one 0.80, CPU / one 1.40, wall / floor
# 1.20; receive_pipelined's 200 and 330 against receive's 250 and its
# floor's 190: 0.80, 1.32, 1.05.  A variant without them has no row.
# The send's steps (t_<step> counters) in the order they ended; the
# receive, which marked none, has no schedule row.
"$PY" - "$T/under" "$HERE/tests" <<'EOF2'
import os, sys
sys.path.insert(0, sys.argv[2])
from fake_bench import case, write
c = case("send_pipelined/quakes-2k/process_time/real_time", 420)
c["real_time"] = 240
c.update({"t_signed": 180, "t_parsed": 100, "t_ahead_hashed": 150.4})
r = case("receive_pipelined/quakes-2k/process_time/real_time", 330)
r["real_time"] = 200
write(os.path.join(sys.argv[1], "best.json"),
      [case("send/quakes-2k", 300), case("receive/quakes-2k", 250), c, r])
EOF2
if "$PY" "$HERE/harness/reports/summary.py" --dir "$T/under" --commit test \
	--flags test --elapsed 0 best above floor >"$T/pipe.md" 2>"$T/err"; then
	expect_lines "$T/pipe.md" '^## Two cores for one message$' \
		'^| send | quakes-2k | best | 300 | 240 | 420 | 0\.80 | 1\.40 | 200 | 1\.20 |$' \
		'^| receive | quakes-2k | best | 250 | 200 | 330 | 0\.80 | 1\.32 | 190 | 1\.05 |$' \
		'^| send | quakes-2k | best | parsed 100 · ahead_hashed 150 · signed 180 |$'
	[ "$(grep -c ' · ' "$T/pipe.md")" = 1 ] && ok ||
		bad "the schedule has a row for a case without steps"
	awk '/^## Two cores/ {on = 1; next} /^## / {on = 0} on' "$T/pipe.md" |
		grep -q '| above |' &&
		bad "a variant without the two-thread cases has a two-core row" || ok
	# summary.json keeps best's rows for the README.
	"$PY" -c 'import json, sys
rows = json.load(open(sys.argv[1]))["two_cores"]
want = [("send", 300, 240, 420, 200), ("receive", 250, 200, 330, 190)]
got = [(r["stage"], round(r["one"]), round(r["wall"]), round(r["cpu"]),
        round(r["floor"])) for r in rows]
sys.exit(got != want)' "$T/under/summary.json" && ok ||
		bad "summary.json two_cores: $(head -c 400 "$T/under/summary.json")"
else
	bad "summary.py (send_pipelined, receive_pipelined) failed: $(tail -n 3 "$T/err")"
fi

# The paired run in three processes (PAIRED_RUNS=3): times are medians
# over them, and each ratio's interval is where a fourth process lands
# 99 times in 100.  ref / best is 20, 21 and 22: the logarithms' mean
# 3.04377 and deviation 0.04766, times t(0.995, 2) = 9.925 and
# sqrt(1 + 1/3), give 12.15-36.23 (worked by hand).  The floor is 80, 82
# and 78 (rsa_sign 40, 42, 38).  recheck.py then sets one more process
# against the intervals: inside, exit 0; ref / best 40, exit 1; a run
# without summary.json, exit 2.
mkdir -p "$T/procs"
"$PY" - "$T/procs" "$HERE/tests" <<'EOF2'
import os, sys
sys.path.insert(0, sys.argv[2])
from fake_bench import case, write
d = sys.argv[1]
for name, ref, sign in (("paired", 2000, 40), ("paired.2", 2100, 42),
                        ("paired.3", 2200, 38), ("again", 2500, 40),
                        ("apart", 4000, 40)):
    parts = {"sha256": 10, "sha256_small": 1, "aes256gcm": 9,
             "rsa_sign": sign, "rsa_oaep_wrap": 20}
    write(os.path.join(d, name + ".json"),
          [case("send/quakes-2k", 100), case("ref:send/quakes-2k", ref)] +
          [case(f"floor:{p}/quakes-2k", us) for p, us in parts.items()])
write(os.path.join(d, "best.json"), [case("send/quakes-2k", 100)])
EOF2
if "$PY" "$HERE/harness/reports/summary.py" --dir "$T/procs" --commit test \
	--flags test --elapsed 0 best >"$T/procs.md" 2>"$T/err"; then
	ok
	expect_lines "$T/procs.md" \
		'^| quakes-2k | send | 100 | 2,100 | 80\.0 | 21\.0 | 12\.15-36\.23 | 1\.25 | 0\.94-1\.67 |$' \
		'The command ran in 3 processes' 'lands 99 times in 100'
	grep -q '"interval_kind": "prediction"' "$T/procs/summary.json" && ok ||
		bad "summary.json: no prediction interval: $(head -c 300 "$T/procs/summary.json")"
else
	bad "summary.py (3 paired processes) failed: $(tail -n 3 "$T/err")"
fi
"$PY" "$HERE/harness/reports/recheck.py" --run "$T/procs" \
	--result "$T/procs/again.json" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q '^| send/quakes-2k | ref / best | 21\.0 | 12\.2-36\.2 | 25\.0 | yes |$' "$T/out" &&
	grep -q '^2 of 2 ratios inside their intervals\.$' "$T/out" && ok ||
	bad "recheck.py inside: exit $rc: $(cat "$T/out" "$T/err")"
"$PY" "$HERE/harness/reports/recheck.py" --run "$T/procs" \
	--result "$T/procs/apart.json" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q '^| send/quakes-2k | ref / best | 21\.0 | 12\.2-36\.2 | 40\.0 | \*\*no\*\* |$' "$T/out" && ok ||
	bad "recheck.py outside: exit $rc: $(cat "$T/out" "$T/err")"
# On the CPU the run recorded, no word about it; on another, or where
# the run recorded none, a warning that names both, the exit as before.
grep -q 'the run measured on' "$T/err" &&
	bad "recheck.py on the run's own machine: $(cat "$T/err")" || ok
cp "$T/procs/machine.txt" "$T/machine.keep"
recheck_on() { # COMMAND...: recheck.py on the run whose machine.txt
	# COMMAND makes of the run's own
	"$@" "$T/machine.keep" >"$T/procs/machine.txt"
	"$PY" "$HERE/harness/reports/recheck.py" --run "$T/procs" \
		--result "$T/procs/again.json" >"$T/out" 2>"$T/err"
}
recheck_on sed 's/^cpu: .*/cpu: Other CPU (family 1, model 1; none)/'
rc=$?
[ "$rc" -eq 0 ] && grep -q "^recheck: this CPU, $(run_cpu), is not the one the run measured on (Other CPU (family 1, model 1; none))" "$T/err" && ok ||
	bad "recheck.py on another CPU: exit $rc: $(cat "$T/err")"
recheck_on grep -v '^cpu: '
grep -q 'is not the one the run measured on (not recorded)' "$T/err" && ok ||
	bad "recheck.py on a run without its CPU: $(cat "$T/err")"
# The kernel's mitigations likewise, and only they when only they differ.
recheck_on sed 's/^mitigations: .*/mitigations: meltdown (Mitigation: Other)/'
rc=$?
[ "$rc" -eq 0 ] && [ "$(grep -c 'the run measured on' "$T/err")" -eq 1 ] &&
	grep -q "^recheck: this kernel's mitigations, .*, are not those the run measured on (meltdown (Mitigation: Other)): what a system call costs differs" "$T/err" && ok ||
	bad "recheck.py under other mitigations: exit $rc: $(cat "$T/err")"
recheck_on grep -v '^mitigations: '
grep -q "mitigations, .*, are not those the run measured on (not recorded)" "$T/err" && ok ||
	bad "recheck.py on a run without its mitigations: $(cat "$T/err")"
cp "$T/machine.keep" "$T/procs/machine.txt"
mkdir -p "$T/nosummary"
"$PY" "$HERE/harness/reports/recheck.py" --run "$T/nosummary" \
	--result "$T/procs/again.json" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'no side-by-side rows' "$T/err" && ok ||
	bad "recheck.py without summary.json: exit $rc: $(cat "$T/out" "$T/err")"

# recheck.py --keep keeps one more process in the run only from a
# checkout of the code the run measured (machine.txt's commit; here a
# repository made for the test): refused with an uncommitted change to
# the code, taken with one to the docs.  The run's reports then count
# it: ref / best 20, 21, 22 and the kept 25 give the logarithms' mean
# 3.08754 and deviation 0.09581, times t(0.995, 3) = 5.841 and
# sqrt(1 + 1/4): 11.73-40.99, and times the median of the four
# (2,150; worked by hand).  --history holds the kept one to the three
# processes alone (12.2-36.2), between recheck.md's markers, below what
# the file held before.
mkdir -p "$T/repo/docs"
(cd "$T/repo" && git init -q && echo 'int x;' >code.c && echo a >docs/a.md &&
	git add . && git -c user.name=t -c user.email=t@t commit -qm x) >/dev/null 2>&1
head=$(git -C "$T/repo" rev-parse --short HEAD 2>/dev/null)
sed "s/^commit: .*/commit: $head/" "$T/procs/machine.txt" >"$T/procs/m" &&
	mv "$T/procs/m" "$T/procs/machine.txt"
echo 'int y;' >>"$T/repo/code.c"
(cd "$T/repo" && "$PY" "$HERE/harness/reports/recheck.py" --run "$T/procs" \
	--result "$T/procs/again.json" --keep) >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "cannot keep: this checkout's code differs from $head" "$T/err" &&
	[ ! -d "$T/procs/rechecks" ] && ok ||
	bad "recheck.py --keep from other code: exit $rc: $(cat "$T/err")"
git -C "$T/repo" checkout -q code.c && echo b >>"$T/repo/docs/a.md"
# A process whose repetitions varied too much is not kept (exit 2),
# unless FORCE=1 (kept in a copy of the run): send's 90, 100, 110 and
# ref's 2000, 2100, 2200 vary by 10% and 4.76%, a median of 7.4%
# (worked by hand); the ratios are still reported.
"$PY" - "$T/procs/noisy.json" "$HERE/tests" <<'EOF2'
import sys
sys.path.insert(0, sys.argv[2])
from fake_bench import case, write
parts = {"sha256": 10, "sha256_small": 1, "aes256gcm": 9, "rsa_sign": 40,
         "rsa_oaep_wrap": 20}
write(sys.argv[1],
      [case("send/quakes-2k", us) for us in (90, 100, 110)] +
      [case("ref:send/quakes-2k", us) for us in (2000, 2100, 2200)] +
      [case(f"floor:{p}/quakes-2k", us) for p, us in parts.items()])
EOF2
(cd "$T/repo" && FORCE= "$PY" "$HERE/harness/reports/recheck.py" --run "$T/procs" \
	--result "$T/procs/noisy.json" --keep --noise 0.03) >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'not kept: its repetitions varied by 7.4%, above 3.0%' "$T/err" &&
	grep -q 'ref / best' "$T/out" && [ ! -d "$T/procs/rechecks" ] && ok ||
	bad "recheck.py --keep of a noisy process: exit $rc: $(cat "$T/err")"
cp -R "$T/procs" "$T/procs-forced"
(cd "$T/repo" && FORCE=1 "$PY" "$HERE/harness/reports/recheck.py" --run "$T/procs-forced" \
	--result "$T/procs/noisy.json" --keep --noise 0.03) >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] && ls "$T/procs-forced/rechecks"/*/paired.json.gz >/dev/null 2>&1 && ok ||
	bad "recheck.py --keep FORCE=1 of a noisy process: exit $rc: $(cat "$T/err")"
# The run's reports then give each paired process's noise: none for the
# three of one repetition, 7.4% for the kept one, in summary.json and
# in words under the side-by-side table.
if "$PY" "$HERE/harness/reports/summary.py" --dir "$T/procs-forced" best \
	>"$T/forced.md" 2>"$T/err"; then
	"$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["paired_noise"])' \
		"$T/procs-forced/summary.json" >"$T/out" 2>&1
	grep -qx '\[None, None, None, 0.0738[0-9]*\]' "$T/out" &&
		grep -q 'coefficient of variation of 7.4-7.4% (the median over its cases)' "$T/forced.md" &&
		ok || bad "paired_noise: $(cat "$T/out")"
else
	bad "summary.py with a noisy kept recheck: $(tail -n 3 "$T/err")"
fi
(cd "$T/repo" && "$PY" "$HERE/harness/reports/recheck.py" --run "$T/procs" \
	--result "$T/procs/again.json" --keep) >"$T/out" 2>"$T/err"
rc=$?
kept=$(ls -d "$T/procs/rechecks"/*/ 2>/dev/null | head -n 1)
[ "$rc" -eq 0 ] && [ -f "$kept/paired.json.gz" ] &&
	grep -q "^commit: $head$" "$kept/recheck.txt" &&
	grep -qxF "cpu: $(run_cpu)" "$kept/recheck.txt" && ok ||
	bad "recheck.py --keep: exit $rc, kept '$kept': $(cat "$T/err")"
printf 'best\tdomlab-bench bench\npaired\tdomlab-bench bench --ref --floor\n' \
	>"$T/procs/commands.tsv"
printf '# make recheck against this run\n\n## Written before\n' >"$T/procs/recheck.md"
if sh "$HERE/harness/reports/remake.sh" "$T/procs" >"$T/log" 2>"$T/err"; then
	ok
	expect_lines "$T/procs/summary.md" \
		'^| quakes-2k | send | 100 | 2,150 | 80\.0 | 21\.5 | 11\.73-40\.99 | ' \
		'The command ran in 4 processes (3 in the run, 1 in the rechecks kept since'
	expect_lines "$T/procs/recheck.md" '^## Written before$' \
		'^<!-- kept:begin -->$' '^## 20[0-9-]* [0-9:]*-[0-9:]* UTC$' \
		'held to the run alone\.$' \
		'^| send/quakes-2k | ref / best | 21\.0 | 12\.2-36\.2 | 25\.0 | yes |$'
else
	bad "remake.sh failed: $(cat "$T/err")"
fi

# make reference's load check (harness/reports/quiet.sh) on made-up load
# averages: refused above the limit, unless FORCE=1; taken at or below.
printf '1.50 0.90 0.40 2/300 12345\n' >"$T/loadavg"
LOADAVG_FILE="$T/loadavg" FORCE= sh "$HERE/harness/reports/quiet.sh" 1.0 >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q 'load 1.50 above 1.0' "$T/err" && ok ||
	bad "quiet.sh at 1.50: exit $rc: $(cat "$T/err")"
LOADAVG_FILE="$T/loadavg" FORCE=1 sh "$HERE/harness/reports/quiet.sh" 1.0 >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q 'going on as FORCE=1 asks' "$T/err" &&
	grep -q '^load average: 1.50 0.90 0.40 ' "$T/out" &&
	grep -qx 'forced above the limit: yes' "$T/out" && ok ||
	bad "quiet.sh FORCE=1 at 1.50: exit $rc: $(cat "$T/err")"
printf '1.00 3.00 3.00 1/300 12345\n' >"$T/loadavg"
LOADAVG_FILE="$T/loadavg" FORCE= sh "$HERE/harness/reports/quiet.sh" 1.0 >"$T/out" 2>"$T/err" &&
	grep -qx 'forced above the limit: no' "$T/out" && ok ||
	bad "quiet.sh at 1.00: $(cat "$T/out" "$T/err")"

# make reference's wait for a quiet machine (harness/reports/until_quiet.sh)
# around quiet.sh, whose made-up load falls below the limit at the third
# attempt: waited for with REFERENCE_WAIT, refused at once without; a
# check that cannot run ends the wait.
cat >"$T/attempt.sh" <<'EOF2'
n=$(($(cat "$1") + 1))
echo "$n" >"$1"
[ "$n" -ge 3 ] && printf '0.50 0.50 0.50 1/300 12345\n' >"$2"
LOADAVG_FILE="$2" FORCE= sh "$3" 1.0
EOF2
until_quiet() { # MINUTES, the load file
	echo 0 >"$T/attempts"
	PAUSE=0 sh "$HERE/harness/reports/until_quiet.sh" "$1" load \
		sh "$T/attempt.sh" "$T/attempts" "$2" \
		"$HERE/harness/reports/quiet.sh" >"$T/out" 2>"$T/err"
}
printf '1.50 0.90 0.40 2/300 12345\n' >"$T/loadavg"
until_quiet 1 "$T/loadavg"
rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$T/attempts")" = 3 ] &&
	[ "$(grep -c 'the load check failed; again in 0 s' "$T/err")" = 2 ] &&
	grep -q '^load average: 0.50 0.50 0.50 ' "$T/out" &&
	grep -qx 'forced above the limit: no' "$T/out" &&
	grep -qx 'waited before the load check: 0 s, 3 attempts (up to 1 min)' "$T/out" &&
	[ "$(wc -l <"$T/out")" = 3 ] && ok ||
	bad "until_quiet.sh 1: exit $rc: $(cat "$T/attempts" "$T/out" "$T/err")"
printf '1.50 0.90 0.40 2/300 12345\n' >"$T/loadavg"
until_quiet 0 "$T/loadavg"
rc=$?
[ "$rc" -eq 1 ] && [ "$(cat "$T/attempts")" = 1 ] &&
	grep -q 'load 1.50 above 1.0' "$T/err" &&
	grep -q '^load average: 1.50 ' "$T/out" &&
	grep -qx 'waited before the load check: 0 s, 1 attempt (up to 0 min)' "$T/out" && ok ||
	bad "until_quiet.sh 0: exit $rc: $(cat "$T/attempts" "$T/out" "$T/err")"
until_quiet 1 "$T/no-such-loadavg"
rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$T/attempts")" = 1 ] &&
	grep -q 'cannot read the load average' "$T/err" && ok ||
	bad "until_quiet.sh on a check that cannot run: exit $rc: $(cat "$T/attempts" "$T/err")"

# make reference's steadiness check (harness/reports/steady.py) on
# made-up summaries: intervals within the limit pass and the widest and
# the noisiest process are named; a wider interval, a noisier process or
# a number under its floor is refused unless FORCE=1; a run without
# intervals cannot be judged.
steady_run() { # folder, pipeline rows, below_floor list[, paired_noise]
	mkdir -p "$T/$1"
	printf '{"pipeline": [%s], "below_floor": [%s], "paired_noise": [%s]}\n' \
		"$2" "$3" "${4:-0.01, null, 0.02}" >"$T/$1/summary.json"
}
steady_row() { # stage, ref / best low, high[, best / floor low, high]
	fl=null
	[ $# -lt 5 ] || fl="[$4, $5]"
	printf '{"dataset": "d", "stage": "%s", "ref_best_interval": [%s, %s], "best_floor_interval": %s}' \
		"$1" "$2" "$3" "$fl"
}
steady_check() { # FORCE's value, folder: steady.py at 1.35 and 3%
	FORCE=$1 "$PY" "$HERE/harness/reports/steady.py" --run "$T/$2" \
		--limit 1.35 --noise 0.03 >"$T/out" 2>"$T/err"
}
steady_run steady "$(steady_row send 10 12), $(steady_row receive 9 10 1.1 1.3)" ""
steady_check "" steady &&
	grep -qx 'widest interval: 1.20 (send/d ref / best 10.00-12.00; limit 1.35)' "$T/out" &&
	grep -qx 'noisiest paired process: 2.0% (process 3; limit 3.0%)' "$T/out" &&
	grep -qx 'forced past the steadiness check: no' "$T/out" && ok ||
	bad "steady.py on a steady run: $(cat "$T/out" "$T/err")"
steady_run wide "$(steady_row send 10 12 1.0 1.5)" ""
steady_check "" wide
rc=$?
[ "$rc" -eq 1 ] &&
	grep -q 'send/d best / floor 1.00-1.50 is 1.50 times as high' "$T/err" &&
	! grep -q 'ref / best' "$T/err" && ok ||
	bad "steady.py on a wide interval: exit $rc: $(cat "$T/err")"
steady_check 1 wide &&
	grep -qx 'forced past the steadiness check: yes' "$T/out" && ok ||
	bad "steady.py FORCE=1 on a wide interval: $(cat "$T/out" "$T/err")"
steady_run under "$(steady_row send 10 12 1.0 1.1)" '"send/d best: 9 us"'
steady_check "" under
rc=$?
[ "$rc" -eq 1 ] && grep -q 'below the floor: send/d best: 9 us' "$T/err" && ok ||
	bad "steady.py under the floor: exit $rc: $(cat "$T/err")"
steady_run noisy "$(steady_row send 10 12 1.0 1.1)" "" "0.01, 0.05"
steady_check "" noisy
rc=$?
[ "$rc" -eq 1 ] && grep -q 'paired process 2: .* by a median 5.0% (limit 3.0%)' "$T/err" &&
	! grep -q 'paired process 1' "$T/err" && ok ||
	bad "steady.py on a noisy process: exit $rc: $(cat "$T/err")"
steady_run none '{"dataset": "d", "stage": "send"}' ""
steady_check "" none
rc=$?
[ "$rc" -eq 2 ] && grep -q 'no interval to judge' "$T/err" && ok ||
	bad "steady.py without intervals: exit $rc: $(cat "$T/err")"
# make reference's check before it starts (harness/reports/preflight.py)
# on made-up processes: repetitions 99, 100, 101 and 1980, 2000, 2020
# vary by 1.0%, which starts; 90, 100, 110 and 2000, 2100, 2200 by a
# median 7.4% (10% and 4.8%), refused unless FORCE=1; one repetition
# each cannot be judged.
preflight_json() { # file, then each case's repetitions as "a b c"
	"$PY" - "$HERE/tests" "$@" <<'EOF2'
import sys
sys.path.insert(0, sys.argv[1])
from fake_bench import case, write
write(sys.argv[2], [case(f"c{k}", float(us))
                    for k, reps in enumerate(sys.argv[3:])
                    for us in reps.split()])
EOF2
}
preflight() { # FORCE's value, file
	FORCE=$1 "$PY" "$HERE/harness/reports/preflight.py" --json "$2" \
		--noise 0.03 >"$T/out" 2>"$T/err"
}
# cpu_id: the first processor's model name, family and model, and the
# crypto flags it has, in CRYPTO_FLAGS' order; "?" without a model name
# or a file.
printf 'processor\t: 0\nvendor_id\t: X\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: Made Up CPU 9\nflags\t\t: fpu vaes sse2 avx2 sha_ni\n\nprocessor\t: 1\nmodel name\t: Second\n' \
	>"$T/cpuinfo"
printf 'processor\t: 0\nflags\t\t: avx2\n' >"$T/cpuinfo.bare"
printf 'model name\t: Old\nflags\t\t: fpu sse2\n' >"$T/cpuinfo.old"
"$PY" - "$HERE/harness/reports" "$T" >"$T/out" 2>"$T/err" <<'EOF2'
import sys
sys.path.insert(0, sys.argv[1])
from run import cpu_id
t = sys.argv[2]
for f in ("cpuinfo", "cpuinfo.bare", "cpuinfo.old", "missing"):
    print(cpu_id(f"{t}/{f}"))
EOF2
printf '%s\n' 'Made Up CPU 9 (family 25, model 1; avx2 sha_ni vaes)' '?' \
	'Old (family ?, model ?; none of avx2 sha_ni vaes vpclmulqdq avx512ifma)' '?' |
	cmp -s - "$T/out" && ok || bad "cpu_id: $(cat "$T/out" "$T/err")"
# mitigations_id: of a made-up vulnerabilities folder, each file not
# "Not affected", in name order, with its value's first clause; "none"
# when all are; "?" without the folder.
mkdir -p "$T/vuln" "$T/vuln.none"
printf 'Mitigation: Retpolines; STIBP: disabled; RSB filling\n' >"$T/vuln/spectre_v2"
printf 'Mitigation: PTI\n' >"$T/vuln/meltdown"
printf 'Not affected\n' >"$T/vuln/mds"
printf 'Not affected\n' >"$T/vuln.none/mds"
"$PY" - "$HERE/harness/reports" "$T" >"$T/out" 2>"$T/err" <<'EOF2'
import sys
sys.path.insert(0, sys.argv[1])
from run import mitigations_id
t = sys.argv[2]
for f in ("vuln", "vuln.none", "missing"):
    print(mitigations_id(f"{t}/{f}"))
EOF2
printf '%s\n' 'meltdown (Mitigation: PTI), spectre_v2 (Mitigation: Retpolines)' \
	none '?' | cmp -s - "$T/out" && ok || bad "mitigations_id: $(cat "$T/out" "$T/err")"

# The settings the scripts give GLIBC_TUNABLES are the ones the bench
# gives mallopt().
define() { # the value of bench.h's #define $1
	expr=$(sed -n "s/^#define $1 //p" "$HERE/harness/bench/bench.h" |
		sed 's/(size_t)//g')
	echo $(($expr))
}
. "$HERE/harness/reports/tunables.sh"
[ "$lab_tunables" = "glibc.malloc.trim_threshold=$(define LAB_BENCH_TRIM_THRESHOLD):glibc.malloc.mmap_threshold=$(define LAB_BENCH_MMAP_THRESHOLD)" ] &&
	ok || bad "tunables.sh ($lab_tunables) differs from bench.h's mallopt() settings"
preflight_json "$T/quiet.json" "99 100 101" "1980 2000 2020"
preflight "" "$T/quiet.json" &&
	grep -qx 'noise before the run: 1.0% (limit 3.0%)' "$T/out" &&
	grep -qx 'forced past the check before the run: no' "$T/out" && ok ||
	bad "preflight.py on a quiet process: $(cat "$T/out" "$T/err")"
preflight_json "$T/noisy.json" "90 100 110" "2000 2100 2200"
preflight "" "$T/noisy.json"
rc=$?
[ "$rc" -eq 1 ] && grep -qx 'noise before the run: 7.4% (limit 3.0%)' "$T/out" &&
	grep -q 'varied by a median 7.4% between repetitions' "$T/err" && ok ||
	bad "preflight.py on a noisy process: exit $rc: $(cat "$T/out" "$T/err")"
preflight 1 "$T/noisy.json" && grep -q 'going on as FORCE=1 asks' "$T/err" &&
	grep -qx 'forced past the check before the run: yes' "$T/out" && ok ||
	bad "preflight.py FORCE=1 on a noisy process: $(cat "$T/out" "$T/err")"
# The same check after each paired process of the run (--during): one
# line naming the process; a noisy one exits 1 unless FORCE=1, and its
# message leaves what follows to the caller.
FORCE= "$PY" "$HERE/harness/reports/preflight.py" --json "$T/quiet.json" \
	--noise 0.03 --during "paired process 2/5" >"$T/out" 2>"$T/err" &&
	printf 'paired process 2/5: noise 1.0%% (limit 3.0%%)\n' | cmp -s - "$T/out" &&
	[ ! -s "$T/err" ] && ok ||
	bad "preflight.py --during on a quiet process: $(cat "$T/out" "$T/err")"
FORCE= "$PY" "$HERE/harness/reports/preflight.py" --json "$T/noisy.json" \
	--noise 0.03 --during "paired process 2/5" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && grep -qx 'paired process 2/5: noise 7.4% (limit 3.0%)' "$T/out" &&
	grep -q '^preflight: paired process 2/5 varied by a median 7.4% .*would be refused when made' "$T/err" &&
	! grep -q 'stopping' "$T/err" && ok ||
	bad "preflight.py --during on a noisy process: exit $rc: $(cat "$T/out" "$T/err")"
FORCE=1 "$PY" "$HERE/harness/reports/preflight.py" --json "$T/noisy.json" \
	--noise 0.03 --during "paired process 2/5" >"$T/out" 2>"$T/err" &&
	grep -q 'going on as FORCE=1 asks' "$T/err" && ok ||
	bad "preflight.py --during FORCE=1 on a noisy process: $(cat "$T/out" "$T/err")"
preflight_json "$T/once.json" "100" "2000"
preflight "" "$T/once.json"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'no case with two repetitions' "$T/err" && ok ||
	bad "preflight.py on single repetitions: exit $rc: $(cat "$T/err")"
# The committed reference passes the check make reference applies,
# unless its machine.txt says it was forced past it.
limit=$(sed -n 's/^REFERENCE_SPREAD := //p' "$HERE/mk/bench.mk")
noise=$(sed -n 's/^REFERENCE_NOISE := //p' "$HERE/mk/bench.mk")
if grep -qx 'forced past the steadiness check: yes' "$HERE/results/reference/machine.txt"; then
	ok
else
	FORCE= "$PY" "$HERE/harness/reports/steady.py" --run "$HERE/results/reference" \
		--limit "$limit" --noise "$noise" >"$T/out" 2>"$T/err" && ok ||
		bad "the committed reference fails steady.py at $limit, $noise: $(cat "$T/err")"
fi

# The gSOAP peer in the paired run, when domlab-bench has it: its
# columns in the "Side by side" table (tests/gsoap.sh checks the peer).
if ! "$BENCH" gsoap --help >/dev/null 2>&1; then
	echo "SKIP $SUITE: $BENCH was built without gSOAP: its paired columns not checked"
	gsoap_notrun=1
elif paired 'gsoap:send|ref:send'; then
	ok
	expect_lines "$T/summary.md" \
		'^| dataset | stage | best us | ref us | gsoap us | floor us | ref / best | interval | gsoap / best | best / floor | interval |$' \
		'^| quakes-2k | send | [0-9,.]* | [0-9,.]* | [0-9,.]* | [0-9,.]* | [0-9.]* | - | [0-9.]* | [0-9.]* | - |$'
else
	bad "paired run with gsoap: $(tail -n 3 "$T/log" "$T/err" 2>/dev/null)"
fi

# The paired process's cases (harness/reports/paired.sh) are the bench's:
# each name on each dataset is one case domlab-bench lists (gSOAP's only
# when it was built in, and on the quakes datasets: it binds quake
# records), so a renamed case cannot drop out of the paired
# run or the check before the reference unnoticed; the check's datasets
# are the paired run's without quakes-2m.
. "$HERE/harness/reports/paired.sh"
"$BENCH" bench --ref --floor --keys "$K" --benchmark_list_tests=true \
	>"$T/listed" 2>"$T/err"
missing=""
for c in $(echo "$lab_paired_cases" | tr '|' ' '); do
	case $c in gsoap:*) [ -z "${gsoap_notrun:-}" ] || continue ;; esac
	for d in $(echo "$lab_paired_datasets" | tr '|' ' '); do
		case $c/$d in gsoap:*/ints-*) continue ;; esac
		grep -qxF "$c/$d" "$T/listed" || missing="$missing $c/$d"
	done
done
[ -z "$missing" ] &&
	[ "$lab_paired_preflight_datasets" = "$(echo "$lab_paired_datasets" |
		sed 's/|quakes-2m//')" ] && ok ||
	bad "paired.sh names cases domlab-bench does not list:$missing $(cat "$T/err")"

# The intermediary: forward and ref:forward in summary.md's table, and
# FINDINGS.md's deferred-tree row from a run whose second variant is the
# first under build=direct (its JSON a copy: the row's shape is checked,
# not the ratio).
mkdir -p "$T/hop"
if "$BENCH" bench --quick --ref --keys "$K" \
	--benchmark_filter='^(ref:)?forward/quakes-2k$' \
	--benchmark_min_time=0.01 --benchmark_out="$T/hop/best.json" \
	--benchmark_out_format=json >"$T/log" 2>&1; then
	ok
	cp "$T/hop/best.json" "$T/hop/best+build=direct.json"
	axes=$("$DOMLAB" variant | grep -v '^preset=\|^variant=' | tr '\n' ' ')
	printf 'best %s\nbest+build=direct %s\n' \
		"$(echo "$axes" | sed 's/build=[a-z]*/build=deferred/')" \
		"$(echo "$axes" | sed 's/build=[a-z]*/build=direct/')" \
		>"$T/hop/variants.txt"
	"$PY" "$HERE/harness/reports/summary.py" --dir "$T/hop" --commit test \
		--flags test --elapsed 0 best best+build=direct \
		>"$T/summary.md" 2>"$T/err" && ok ||
		bad "summary.py (forward) failed: $(tail -n 3 "$T/err")"
	expect_lines "$T/summary.md" '^## The intermediary (forward)$' \
		'^| quakes-2k | best | deferred | [0-9.,]* | [0-9.]* | 1\.00 | [0-9,]* | [0-9.]* |$' \
		'^| quakes-2k | best+build=direct | direct | [0-9.,]* | [0-9.]* | 1\.00 | [0-9,]* | [0-9.]* |$' \
		'^| quakes-2k | ref | libxml2 | [0-9.,]* | 1\.00 | [0-9.]* | [0-9,]* | [0-9.]* |$'
	"$PY" "$HERE/harness/reports/findings.py" --dir "$T/hop" best \
		best+build=direct ref >"$T/FINDINGS.md" 2>"$T/err" && ok ||
		bad "findings.py (forward) failed: $(tail -n 3 "$T/err")"
	expect_lines "$T/FINDINGS.md" \
		"^| Axiom's deferred tree.* | \`build\` | .* | 1\.00x (direct / deferred, forward/quakes-2k; .*) |\$" \
		'^| forward/quakes-2k | build=direct (best+build=direct) | build=deferred (best) | [0-9.,]* | [0-9.,]* | 1\.00 | .* | [0-9,]* | [0-9,]* |$'
else
	bad "forward run: $(tail -n 3 "$T/log")"
fi

# The worst cases at a tiny --worst-size (a shape smaller than the
# preauth shapes' base message would hold nothing hostile), beside the
# typical input they are compared with: summary.md's "Worst case" table
# and summary.json's "worst" rows, each shape with finite numbers and
# refused or parsed as its case expects (a failed case is an error here).
mkdir -p "$T/worst"
if "$BENCH" bench --keys "$K" --worst-size 16384 \
	--benchmark_filter='^worst/|^(parse|receive)/quakes-200k$' \
	--benchmark_min_time=0.01 --benchmark_out="$T/worst/best.json" \
	--benchmark_out_format=json >"$T/log" 2>&1 &&
	"$PY" "$HERE/harness/reports/summary.py" --dir "$T/worst" --commit test \
		--flags test --elapsed 0 best >"$T/worst.md" 2>"$T/err"; then
	ok
	expect_lines "$T/worst.md" '^## Worst case$' \
		'^| shape | command | variant | ms/MB | peak/B | typical ms/MB | typical peak/B | time x typical | peak x typical |$'
	for shape in collide-names collide-attrs wide-ns deep-chains many-attrs; do
		expect_lines "$T/worst.md" \
			"^| $shape | parse | best | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]* |\$"
	done
	for shape in collide-ids many-enc signedinfo-junk; do
		expect_lines "$T/worst.md" \
			"^| $shape | receive | best | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]* |\$"
	done
	"$PY" - "$T/worst/summary.json" >"$T/checks" 2>&1 <<'EOF2'
import json, math, sys
n = 0
def check(cond, what):
    global n
    n += 1
    if not cond:
        print(what)
rows = json.load(open(sys.argv[1])).get("worst", [])
shapes = sorted(r["shape"] for r in rows)
check(shapes == sorted(["collide-names", "collide-attrs", "wide-ns",
                        "deep-chains", "many-attrs", "collide-ids",
                        "many-enc", "signedinfo-junk", "oracle-decrypt",
                        "oracle-signature"]),
      f"summary.json's worst shapes: {shapes}")
for r in rows:
    for k in ("us_per_mb", "peak_per_byte", "typical_us_per_mb",
              "typical_peak_per_byte", "time_ratio", "peak_ratio"):
        x = r.get(k)
        check(isinstance(x, float) and math.isfinite(x) and x > 0,
              f"{r['shape']}: {k} is {x!r}")
# --worst-size took: each worst case's input near 16 KB, not 200 KB.
for b in json.load(open(sys.argv[1].replace("summary.json", "best.json")))["benchmarks"]:
    if b["name"].startswith("worst/"):
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        size = b["bytes_per_second"] * b["cpu_time"] * scale
        check(8000 < size < 40000, f"{b['name']}: input of {size:.0f} bytes")
print(f"checked {n}")
EOF2
	tally_checks
else
	bad "worst cases: $(tail -n 3 "$T/log" "$T/err" 2>/dev/null)"
fi

# The layout cases, domlab's and the reference's: each runs (a failed case
# is an error in the JSON), on quakes-200k only.
if "$BENCH" bench --ref --keys "$K" \
	--benchmark_filter='(send|receive)_encrypt' \
	--benchmark_min_time=0.001 --benchmark_out="$T/layouts.json" \
	--benchmark_out_format=json >"$T/log" 2>&1; then
	ok
	"$PY" - "$T/layouts.json" >"$T/checks" 2>&1 <<'EOF2'
import json, sys
runs = json.load(open(sys.argv[1]))["benchmarks"]
names = sorted(r["name"] for r in runs if not r.get("error_occurred"))
want = sorted(p + s + "_" + l + "/quakes-200k" for p in ("", "ref:")
              for s in ("send", "receive")
              for l in ("encrypt_sign", "encrypt_signature", "encrypted_header"))
print("ok" if names == want else "cases %s, want %s" % (names, want))
EOF2
	grep -qx ok "$T/checks" && ok || bad "layout cases: $(cat "$T/checks")"
else
	bad "domlab-bench bench (layouts) failed: $(tail -n 5 "$T/log")"
fi

# --floor alone adds cases; without it there are none.
if "$BENCH" bench --quick --keys "$K" --benchmark_list_tests=true |
	grep -q '^floor:'; then
	bad "floor cases listed without --floor"
else
	ok
fi
# A filter makes only the datasets its cases run on: every filter lists
# what the whole list holds that matches it, no case lost with its
# dataset (the threaded and pipelined names carry Google Benchmark's
# suffixes, matched here too).
"$BENCH" bench --ref --floor --keys "$K" --benchmark_list_tests=true \
	>"$T/all.list" 2>"$T/err" || bad "list: $(cat "$T/err")"
for re in '^worst/collide-ids$' '^(send|ref:receive)/quakes-2m$' \
	'/real_time/threads:2$' 'pipelined/quakes-2m/process_time' \
	'collide|^floor:sha256/' '-^worst/'; do
	"$BENCH" bench --ref --floor --keys "$K" --benchmark_filter="$re" \
		--benchmark_list_tests=true >"$T/some.list" 2>"$T/err"
	if [ "${re#-}" = "$re" ]; then
		grep -E "$re" "$T/all.list" >"$T/want.list"
	else
		grep -vE "${re#-}" "$T/all.list" >"$T/want.list"
	fi
	[ -s "$T/want.list" ] && cmp -s "$T/some.list" "$T/want.list" && ok ||
		bad "list --benchmark_filter='$re': $(diff "$T/want.list" "$T/some.list" | head -n 5)"
done
# --icount runs one case outside Google Benchmark (what callgrind counts).
if "$BENCH" bench --keys "$K" --icount floor:sha256/quakes-2k \
	--icount-iterations 2 2>"$T/err" |
	grep -qx 'floor:sha256/quakes-2k: 2 iterations'; then
	ok
else
	bad "--icount: $(cat "$T/err")"
fi

# tokens_lookup refuses a store not put back between runs, so these pass
# only if the reset the case asks for happens (list) or is not needed (hash).
if "$BENCH" bench --keys "$K" --benchmark_filter='^tokens_lookup/100$' \
	--benchmark_min_time=0.01 >"$T/log" 2>&1; then
	ok
else
	bad "tokens_lookup: $(tail -n 3 "$T/log")"
fi
if "$BENCH" bench --keys "$K" --icount tokens_lookup/100 \
	--icount-iterations 3 2>"$T/err" |
	grep -qx 'tokens_lookup/100: 3 iterations'; then
	ok
else
	bad "--icount tokens_lookup: $(cat "$T/err")"
fi

# The latency and threaded cases: names, thread counts up to twice the
# CPUs, wall-clock timing, and summary.py's tables of them.
if "$BENCH" bench --quick --keys "$K" \
	--benchmark_filter='^latency_(plain|secure)/ints-200$|^threads_(send|control)/quakes-20k/|^attr_lookup/wide$' \
	--benchmark_min_time=0.01 --benchmark_out="$T/small.json" \
	--benchmark_out_format=json >"$T/log" 2>&1; then
	ok
else
	bad "domlab-bench bench (latency, threads) failed: $(tail -n 5 "$T/log")"
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
# ablation.  attr_lookup/wide gets three repetitions a side, the
# ablation's each three times one of best's, so old / new is 3.00 and the
# interval the whole range of the pairwise ratios, 3 x 1.00 / 1.04 to
# 3 x 1.04 / 1.00 (90%: all that 3 + 3 repetitions allow), p = 2 / 20;
# attr_lookup/quakes-200k gets interleaved repetitions, which must read
# "no measurable difference".  findings.py must find the pair from
# variants.txt, quote the recorded commands, and say "not measured" for
# every other finding.
mkdir -p "$T/run"
axes=$("$DOMLAB" variant | grep -v '^preset=\|^variant=' | tr '\n' ' ')
old=$(echo "$axes" | sed 's/attrs=[a-z]*/attrs=vector/')
new=$(echo "$axes" | sed 's/attrs=[a-z]*/attrs=adaptive/')
printf 'best %s\nflipped %s\n' "$new" "$old" >"$T/run/variants.txt"
printf 'best\tdomlab bench --one\nflipped\tdomlab bench --two\n' \
	>"$T/run/commands.tsv"
"$PY" - "$T/small.json" "$T/run/best.json" "$T/run/flipped.json" <<'EOF2'
import copy, json, sys
doc = json.load(open(sys.argv[1]))
wide = next(b for b in doc["benchmarks"] if b["name"] == "attr_lookup/wide")
keep = [b for b in doc["benchmarks"] if b["run_name"] != "attr_lookup/wide"]
def reps(name, factors, scale):
    out = []
    for i, f in enumerate(factors):
        b = copy.deepcopy(wide)
        b.update(name=name, run_name=name, run_type="iteration",
                 repetitions=3, repetition_index=i,
                 cpu_time=wide["cpu_time"] * f * scale)
        out.append(b)
    med = copy.deepcopy(out[1])
    med.update(name=name + "_median", run_type="aggregate",
               aggregate_name="median")
    return out + [med]
for path, scale, lookup in ((sys.argv[2], 1, (1.00, 1.02, 1.04)),
                            (sys.argv[3], 3, (1.01, 1.03, 1.05))):
    d = dict(doc, benchmarks=keep
             + reps("attr_lookup/wide", (1.00, 1.02, 1.04), scale)
             + reps("attr_lookup/quakes-200k", lookup, 1))
    json.dump(d, open(path, "w"))
EOF2
if "$PY" "$HERE/harness/reports/findings.py" --dir "$T/run" best flipped ref \
	floor >"$T/FINDINGS.md" 2>"$T/err"; then
	ok
	expect_lines "$T/FINDINGS.md" '^# Findings of run run$' \
		'^| findNamePoint.* | `attrs` | .* | 3\.00x, interval 2\.88-3\.12 (90%) (vector / adaptive, attr_lookup/wide); [0-9,.]* against [0-9,.]* bytes per element (attr_lookup/wide) |$' \
		'^| attr_lookup/wide | attrs=vector (flipped) | attrs=adaptive (best) | .* | 3\.00 | 2\.88-3\.12 (90%) | 0\.100 | old slower | 67% | ' \
		'^| attr_lookup/quakes-200k | attrs=vector (flipped) | attrs=adaptive (best) | .* | 1\.01 | 0\.97-1\.05 (90%) | 0\.700 | no measurable difference | ' \
		'^- flipped: `domlab bench --two`$' \
		"^- \`domlab bench --one --benchmark_filter='^(attr_lookup/wide|attr_lookup/quakes-200k)\$'\`\$" \
		'^| the token store .* | not measured in this run |$' \
		'^| attachments read .* | not measured in this run |$' \
		'^| the socket-read stall.* | `read` | .* | not measured in this run |$' \
		"^| Axiom's deferred tree.* | \`build\` | .* | not measured in this run |\$" \
		'^not measured in this run: no two variants of this run differ only in `build` with one of them `build=direct` and the other `build=deferred`.$'
	# attrs alone has a pair; every other finding says so, with no number.
	n=$(grep -c '^| .* | not measured in this run |$' "$T/FINDINGS.md")
	if [ "$n" -eq 11 ]; then ok; else
		bad "FINDINGS.md: $n findings not measured, want 11"
	fi
	# The run measured nothing over HTTP: the token store's and the
	# attachments' sections quote the committed `make scenarios`, named.
	expect_lines "$T/FINDINGS.md" \
		'^Measured by `make scenarios` (results/scenarios/, commit [0-9a-f]*.*load average [0-9.]* [0-9.]* [0-9.]* before' \
		'^| `best+tokens=list` | list | [0-9]* | 0 | [0-9.]* | [0-9.]* | [0-9.]* | [0-9]* | [0-9.]* |$' \
		'^| `best+io=unbuffered` | unbuffered | 150,000 | 1 | '
else
	bad "findings.py failed: $(tail -n 3 "$T/err")"
fi
# The scenarios in rounds (scenarios.sh): made-up rounds where the
# list's last tenth / first tenth is 1.0, 1.1 and 1.2 and the hash's
# 1.0, and unbuffered's p50 is 20, 22 and 18 times buffered's.  The
# list over the hash: median 1.100; the logarithms' mean 0.09254 and
# deviation 0.09119, times t(0.995, 2) = 9.925 and sqrt(1 + 1/3), give
# 0.386-3.119 for one more round, and times t(0.975, 2) = 4.303 and
# sqrt(1/3) give 0.875-1.376 for the mean, which holds 1 (worked by
# hand).
"$PY" - "$T/sc" <<'EOF3'
import json, os, sys
out = sys.argv[1]
def level(**kw):
    lv = {"clients": 1, "requests": 10, "errors": 0, "requests_per_s": 1,
          "p50_ms": 1, "max_ms": 1, "server_cpu_ms_per_request": 1}
    lv.update(kw)
    return lv
for k, (grow, slow) in enumerate(((1.0, 20), (1.1, 22), (1.2, 18)), 1):
    d = out if k == 1 else os.path.join(out, f"round.{k}")
    for sub in ("tokens", "attach"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    for name, store, g in (("best", "hash", 1.0),
                           ("best+tokens=list", "list", grow)):
        json.dump({"tokens_store": store, "levels": [
            level(first_ms=2.0, last_ms=2.0 * g)]},
            open(os.path.join(d, "tokens", name + ".json"), "w"))
    for name, io, p50 in (("best-4m", "buffered", 10.0),
                          ("best+io=unbuffered-4m", "unbuffered",
                           10.0 * slow)):
        json.dump({"io": io, "attachment_bytes": 4000000, "levels": [
            level(p50_ms=p50)]},
            open(os.path.join(d, "attach", name + ".json"), "w"))
EOF3
if "$PY" "$HERE/harness/reports/http_findings.py" --dir "$T/sc" >"$T/sc.md" 2>"$T/err"; then
	expect_lines "$T/sc.md" '^## Over the rounds$' \
		"^| tokens: list's last / first over hash's | 3 | 1\.100 | 0\.386-3\.119 | 0\.875-1\.376 | no measurable difference from 1 |\$" \
		'^| tokens: `best+tokens=list` (list), last tenth / first tenth p50 | 3 | 1\.100 | ' \
		'^| attachment 4,000,000 B, 1 client: unbuffered / buffered p50 | 3 | 20\.000 | [0-9.]*-[0-9.]* | [0-9.]*-[0-9.]* | above 1 |$'
else
	bad "http_findings.py (rounds) failed: $(tail -n 3 "$T/err")"
fi
# The stall in rounds (make stall): eof's p50 300, 310 and 290 ms against
# framed's 1: median 300, and the stall's median 299.0 and range
# 289.0-309.0.
"$PY" - "$T/st" <<'EOF3'
import json, os, sys
out = sys.argv[1]
for k, p50 in enumerate((300.0, 310.0, 290.0), 1):
    d = os.path.join(out if k == 1 else os.path.join(out, f"round.{k}"),
                     "load")
    os.makedirs(d, exist_ok=True)
    for name, ms in (("best", 1.0), ("best+read=eof", p50)):
        json.dump({"levels": [{"clients": 1, "requests_per_s": 1000 / ms,
                               "p50_ms": ms, "stalls_per_request": 1.0}]},
                  open(os.path.join(d, name + ".json"), "w"))
EOF3
if "$PY" "$HERE/harness/reports/loadreport.py" --dir "$T/st" --stall >"$T/st.md" 2>"$T/err"; then
	expect_lines "$T/st.md" \
		'^| 1 | 3 | 300 | [0-9]*-[0-9]* | 299\.0 | 289\.0-309\.0 |$'
else
	bad "loadreport.py --stall (rounds) failed: $(tail -n 3 "$T/err")"
fi
# attackreport.py: an attacked row against the unattacked one, from
# the files attack.sh writes (made up here).
mkdir -p "$T/att"
printf 'commit abc1234\nrate 50\nload before 0.50 0.40 0.30\nload after 0.60 0.50 0.40\n' >"$T/att/machine.txt"
printf '{"levels": [{"requests": 100, "errors": 0, "done": 100, "requests_per_s": 10.0, "p99_ms": 5.0, "failures": []}]}' \
	>"$T/att/best-none.load.json"
printf '{"levels": [{"requests": 100, "errors": 50, "done": 50, "requests_per_s": 5.0, "p99_ms": 20.0, "failures": [{"reason": "timeout", "count": 50, "first": ""}]}]}' \
	>"$T/att/best-bodies.load.json"
printf '{"attack": "bodies", "conns": 1, "size": 1000, "sent": 3, "statuses": {"500": 3}, "errors": 0}' \
	>"$T/att/best-bodies.attack.json"
printf 0 >"$T/att/best-none.load.rc"
printf 4 >"$T/att/best-bodies.load.rc"
printf 1024 >"$T/att/best-none.rss"
printf 4096 >"$T/att/best-bodies.rss"
if "$PY" "$HERE/harness/reports/attackreport.py" --dir "$T/att" >"$T/attack.md" 2>"$T/err"; then
	expect_lines "$T/attack.md" '^## best$' \
		'^| unattacked | 10\.0 |  | 5\.0 |  | 1 |  | 100 / 0 | none |  |$' \
		"^| many concurrent large unsigned bodies | 5\\.0 | 0\\.50x | 20\\.0 | 4\\.00x | 4 | 4\\.00x | 100 / 50 | 50 timeout | 3 bodies of 1,000 B answered {'500': 3}, 0 connection errors |\$" \
		'load average 0\.50 0\.40 0\.30 before, 0\.60 0\.50 0\.40 after'
else
	bad "attackreport.py failed: $(tail -n 3 "$T/err")"
fi
# The same run in three rounds (ATTACK_ROUNDS): the bodies' p99 is 4.0,
# 4.4 and 3.6 times the unattacked one's, whose logarithms' mean and
# deviation times t(0.995, 2) = 9.925 and sqrt(1 + 1/3) give 1.26-12.60
# (worked by hand); throughput 0.50 and RSS 4.00 every round; 50 + 10 +
# 0 valid requests failed.
for k in 2 3; do
	mkdir -p "$T/att/round.$k"
	cp "$T/att/machine.txt" "$T/att/best-none.load.json" "$T/att/best-none.load.rc" \
		"$T/att/best-none.rss" "$T/att/best-bodies.attack.json" "$T/att/best-bodies.load.rc" \
		"$T/att/best-bodies.rss" "$T/att/round.$k/"
done
printf '{"levels": [{"requests": 100, "errors": 10, "done": 50, "requests_per_s": 5.0, "p99_ms": 22.0, "failures": []}]}' \
	>"$T/att/round.2/best-bodies.load.json"
printf '{"levels": [{"requests": 100, "errors": 0, "done": 50, "requests_per_s": 5.0, "p99_ms": 18.0, "failures": []}]}' \
	>"$T/att/round.3/best-bodies.load.json"
if "$PY" "$HERE/harness/reports/attackreport.py" --dir "$T/att" >"$T/attack3.md" 2>"$T/err"; then
	expect_lines "$T/attack3.md" '^### best over 3 rounds$' 'The run went 3 rounds' \
		'^| many concurrent large unsigned bodies | 3 | 0\.50x (0\.50-0\.50) | 4\.00x (1\.26-12\.60) | 4\.00x (4\.00-4\.00) | 60 |$'
	grep -q '^### ' "$T/attack.md" && bad "a run of one round has a rounds table" || ok
else
	bad "attackreport.py (rounds) failed: $(tail -n 3 "$T/err")"
fi
# The rounds of the same run (ALTERNATE, harness/reports/rounds.py).
# rounds.py first runs them: the recorded commands stand in by
# tests/fake_bench.py, flipped taking 300 us and best 100, so each round
# of the pair narrows both to the pair's cases and old / new is 3.00.
# Then made-up rounds with flipped's times scaled by 1.0, 0.9 and 1.1
# round by round: old / new on attr_lookup/wide is 3.00 (the median of
# 2.70, 3.00 and 3.30); the logarithms' mean 1.09526 and deviation
# 0.10038, times t(0.995, 2) = 9.925 and sqrt(1 + 1/3), give 0.95-9.45
# for one more round, and times t(0.975, 2) = 4.303 and sqrt(1/3) give
# 2.33-3.84 for the mean, which excludes 1: "old slower" (worked by
# hand).  recheck.py sets one more round against that: 4.00 inside,
# exit 0; 12.00 outside, exit 1.
cp -r "$T/run" "$T/ran"
printf 'best\t%s %s 100 --benchmark_out=x.json\nflipped\t%s %s 300\n' \
	"$PY" "$HERE/tests/fake_bench.py" "$PY" "$HERE/tests/fake_bench.py" \
	>"$T/ran/commands.tsv"
if "$PY" "$HERE/harness/reports/rounds.py" --dir "$T/ran" --rounds 3 \
	--cases '^attr_lookup/' >"$T/out" 2>"$T/err"; then
	ok
	expect_lines "$T/ran/alternate/commands.tsv" \
		"^flipped\.\.best/flipped\.1	.* 300 --benchmark_filter='\^(attr_lookup/wide|attr_lookup/quakes-200k)\\\$'\$" \
		"^flipped\.\.best/best\.2	.* 100 --benchmark_filter='\^(attr_lookup/wide|attr_lookup/quakes-200k)\\\$'\$" \
		'^flipped\.\.best/flipped\.3	'
	# Old first in odd rounds, new first in even ones.
	order=$(cut -f1 "$T/ran/alternate/commands.tsv" | tr '\n' ' ')
	[ "$order" = "flipped..best/flipped.1 flipped..best/best.1 flipped..best/best.2 flipped..best/flipped.2 flipped..best/flipped.3 flipped..best/best.3 " ] &&
		ok || bad "rounds.py order: $order"
	expect_lines "$T/ran/alternate/rounds.txt" '^rounds: 3$' \
		'^round 1: [0-9T:-]*Z load average [0-9.]* [0-9.]* [0-9.]*$' \
		'^round 3: '
	"$PY" "$HERE/harness/reports/findings.py" --dir "$T/ran" best flipped \
		>"$T/FINDINGS.ran.md" 2>"$T/err" &&
		expect_lines "$T/FINDINGS.ran.md" \
			'^| attr_lookup/wide | attrs=vector (flipped) | attrs=adaptive (best) | 300 | 100 | 3\.00 | 3\.00-3\.00 (99%, one more round; 3 rounds) | - | old slower | 67% |' \
			"^- \`$PY $HERE/tests/fake_bench.py 300 --benchmark_filter=" ||
		bad "findings.py (rounds run) failed: $(tail -n 3 "$T/err")"
else
	bad "rounds.py failed: $(cat "$T/out" "$T/err")"
fi
# With CASES a pair's rounds take every case of the run it matches, a
# finding's or not; matching none, there are no rounds and no error.
cp -r "$T/run" "$T/narrow" && cp "$T/ran/commands.tsv" "$T/narrow/"
if "$PY" "$HERE/harness/reports/rounds.py" --dir "$T/narrow" --rounds 1 \
	--cases '^latency_' >"$T/out" 2>"$T/err"; then
	expect_lines "$T/narrow/alternate/commands.tsv" \
		"^flipped\.\.best/flipped\.1	.* --benchmark_filter='\^(latency_[a-z]*/ints-200|latency_[a-z]*/ints-200)\\\$'\$"
else
	bad "rounds.py --cases '^latency_' failed: $(cat "$T/err")"
fi
"$PY" "$HERE/harness/reports/rounds.py" --dir "$T/narrow" --rounds 1 \
	--cases '^nothing$' >"$T/out" 2>"$T/err" &&
	grep -q 'no rounds$' "$T/err" && ok ||
	bad "rounds.py with no pair: $(cat "$T/err")"
# One round at a time (--round), as compare.sh spreads them across the
# run: round 1, before flipped's own run, takes flipped's cases from its
# command's list and keeps the plan; round 2 runs that plan, and
# rounds.txt has each round's start.
mkdir -p "$T/slots" && cp "$T/run/variants.txt" "$T/run/best.json" "$T/slots/" &&
	printf 'best\t%s %s 100\nflipped\t%s %s 300 attr_lookup/wide attr_lookup/x\n' \
		"$PY" "$HERE/tests/fake_bench.py" "$PY" "$HERE/tests/fake_bench.py" \
		>"$T/slots/commands.tsv"
if "$PY" "$HERE/harness/reports/rounds.py" --dir "$T/slots" --rounds 2 \
	--round 1 >"$T/out" 2>"$T/err" &&
	cp "$T/run/flipped.json" "$T/slots/" &&
	"$PY" "$HERE/harness/reports/rounds.py" --dir "$T/slots" --rounds 2 \
		--round 2 >"$T/out" 2>"$T/err"; then
	expect_lines "$T/slots/alternate/plan.tsv" \
		'^flipped	best	attr_lookup/wide$'
	expect_lines "$T/slots/alternate/rounds.txt" '^rounds: 2$' \
		'^round 1: [0-9T:-]*Z load average [0-9.]* [0-9.]* [0-9.]*$' \
		'^round 2: '
	[ "$(cut -f1 "$T/slots/alternate/commands.tsv" | tr '\n' ' ')" = "flipped..best/flipped.1 flipped..best/best.1 flipped..best/best.2 flipped..best/flipped.2 " ] &&
		ok || bad "rounds.py --round: $(cut -f1 "$T/slots/alternate/commands.tsv")"
	"$PY" "$HERE/harness/reports/findings.py" --dir "$T/slots" best flipped \
		>"$T/FINDINGS.slots.md" 2>"$T/err" &&
		expect_lines "$T/FINDINGS.slots.md" \
			'spread across the run; each started at: [0-9T:-]*Z (load average [0-9. ]*); [0-9T:-]*Z (load average [0-9. ]*)\.' ||
		bad "findings.py (spread rounds) failed: $(tail -n 3 "$T/err")"
else
	bad "rounds.py --round failed: $(cat "$T/out" "$T/err")"
fi
"$PY" "$HERE/harness/reports/rounds.py" --dir "$T/slots" --rounds 2 \
	--round 3 >"$T/out" 2>"$T/err" && bad "rounds.py --round 3 of 2 ran" ||
	expect_lines "$T/err" '^rounds: --round 3: not one of 1\.\.2$'
"$PY" "$HERE/harness/reports/rounds.py" --dir "$T/ran" --variants >"$T/out" &&
	[ "$(cat "$T/out")" = "flipped best" ] && ok ||
	bad "rounds.py --variants: $(cat "$T/out")"
cp -r "$T/run" "$T/alt" && mkdir -p "$T/alt/alternate/flipped..best" \
	"$T/again/alternate/flipped..best" "$T/apart/alternate/flipped..best"
echo '{"pipeline": []}' >"$T/alt/summary.json"
"$PY" - "$T" <<'EOF2'
import json, os, sys
t = sys.argv[1]
def scaled(v, f, path):
    doc = json.load(open(os.path.join(t, "run", v + ".json")))
    for b in doc["benchmarks"]:
        b["cpu_time"] *= f
    json.dump(doc, open(path, "w"))
for k, f in ((1, 1.0), (2, 0.9), (3, 1.1)):
    for v, scale in (("best", 1.0), ("flipped", f)):
        scaled(v, scale, os.path.join(t, "alt", "alternate", "flipped..best",
                                      f"{v}.{k}.json"))
for d, f in (("again", 4 / 3), ("apart", 4.0)):
    for v, scale in (("best", 1.0), ("flipped", f)):
        scaled(v, scale, os.path.join(t, d, "alternate", "flipped..best",
                                      f"{v}.1.json"))
EOF2
if "$PY" "$HERE/harness/reports/findings.py" --dir "$T/alt" best flipped \
	>"$T/FINDINGS.alt.md" 2>"$T/err"; then
	ok
	expect_lines "$T/FINDINGS.alt.md" \
		'^| findNamePoint.* | `attrs` | .* | 3\.00x, interval 0\.95-9\.45 (99%, one more round; 3 rounds) (vector / adaptive, attr_lookup/wide); ' \
		'^| attr_lookup/wide | attrs=vector (flipped) | attrs=adaptive (best) | .* | 3\.00 | 0\.95-9\.45 (99%, one more round; 3 rounds) | - | old slower | 67% | ' \
		'The times are measured in 3 rounds'
else
	bad "findings.py (rounds) failed: $(tail -n 3 "$T/err")"
fi
"$PY" "$HERE/harness/reports/recheck.py" --run "$T/alt" --rounds "$T/again" \
	>"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q '^| attr_lookup/wide | flipped / best | 3\.00 | 0\.95-9\.45 | 4\.00 | yes |$' "$T/out" && ok ||
	bad "recheck.py rounds inside: exit $rc: $(cat "$T/out" "$T/err")"
"$PY" "$HERE/harness/reports/recheck.py" --run "$T/alt" --rounds "$T/apart" \
	>"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q '^| attr_lookup/wide | flipped / best | 3\.00 | 0\.95-9\.45 | 12\.0 | \*\*no\*\* |$' "$T/out" && ok ||
	bad "recheck.py rounds outside: exit $rc: $(cat "$T/out" "$T/err")"
"$PY" "$HERE/harness/reports/summary.py" --dir "$T/alt" --commit test \
	--flags test --elapsed 0 best flipped >"$T/summary.alt.md" 2>"$T/err" &&
	expect_lines "$T/summary.alt.md" \
		'^## Pairs side by side, round by round (ALTERNATE)$' \
		'^| flipped / best | attr_lookup/wide | 3 | 3\.00 | 0\.95-9\.45 | old slower |$' ||
	bad "summary.py (rounds) failed: $(tail -n 3 "$T/err")"
if "$PY" "$HERE/harness/reports/summary.py" --dir "$T/run" --commit test \
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
# best defers, which libxml2 cannot: the refusal names the variant meant.
env -i PATH="$PATH" make -C "$HERE" -s --no-print-directory VARIANT=best+parser=libxml2 variant-name >"$T/out" 2>"$T/err" &&
	bad "make VARIANT=best+parser=libxml2 was accepted: $(cat "$T/out")" ||
	{ grep -q 'best+build=direct+parser=libxml2' "$T/err" && ok || bad "make VARIANT=best+parser=libxml2: $(cat "$T/err")"; }
name_of best+build=direct+parser=libxml2 VARIANT=best+parser=libxml2+build=direct
# This binary's own name is the canonical one.
name_of "$name" VARIANT="$name"
# The charts: this run has one axis flipped, so the ablation chart alone
# (the headline and memory charts need send and parse over several sizes).
if "$PY" "$HERE/harness/reports/summary.py" --dir "$T/run" --commit test \
	--flags test --elapsed 0 --plots best flipped >"$T/summary.md" \
	2>"$T/err"; then
	ok
	if "$PY" -c 'import matplotlib' 2>/dev/null; then
		expect_lines "$T/summary.md" '^Plots: \[ablation.png\](plots/ablation.png)$'
		if [ "$(head -c 4 "$T/run/plots/ablation.png" | od -An -c | tr -d ' ')" = '211PNG' ]; then
			ok
		else
			bad "plots/ablation.png is not a PNG"
		fi
	else
		expect_lines "$T/summary.md" '^Plots: matplotlib is missing'
	fi
	# summary.json and machine.txt beside summary.md.
	if "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["run"] == "run" and d["commit"] == "test" and "pipeline" in d))' \
		"$T/run/summary.json"; then ok; else
		bad "summary.json: $(head -c 200 "$T/run/summary.json")"
	fi
	expect_lines "$T/run/machine.txt" '^commit: test$' '^cpus: ' '^cpu: '
else
	bad "summary.py --plots failed: $(tail -n 3 "$T/err")"
fi

# readme_results.py: the tables between the markers from a summary.json,
# the rest of the README untouched, the same README when run again, and a
# README without markers refused.  Two cores: send_pipelined's wall 4,000
# us against one thread's 5,000 and the floor's 4,000 (0.80, 1.00),
# receive_pipelined's 4,400 against 5,000 and 2,500 (0.88, 1.76).
mkdir -p "$T/ref"
cat >"$T/ref/summary.json" <<'EOF2'
{"run": "R1", "commit": "abc1234", "mode": "default", "cases": "",
 "instructions": true, "load_avg": [0.25, 0.5, 0.75],
 "floor": {"send": "sha256 + rsa_sign", "receive": "sha256 + rsa_verify"},
 "floor_stand_ins": [],
 "pipeline": [{"dataset": "quakes-2m", "stage": "send", "paired": true,
   "bytes": 2097193, "best": 5000, "ref": 100000, "floor": 4000,
   "ref_best_interval": [19.5, 20.5], "best_floor_interval": [1.2, 1.3],
   "best_instr": 1e8, "ref_instr": 1.2e9, "best_peak": 1}],
 "two_cores": [{"stage": "send", "dataset": "quakes-2m", "label": "best",
   "one": 5000, "wall": 4000, "cpu": 6000, "floor": 4000},
  {"stage": "receive", "dataset": "quakes-2m", "label": "best",
   "one": 5000, "wall": 4400, "cpu": 5300, "floor": 2500}],
 "parse": [{"dataset": "quakes-2m", "label": "best", "us": 700,
   "build": "deferred", "bytes_per_element": 291.7},
  {"dataset": "quakes-2m", "label": "best+build=direct", "us": 1900,
   "build": "direct", "bytes_per_element": 286.0},
  {"dataset": "quakes-2m", "label": "pugixml", "us": 2000,
   "build": null, "bytes_per_element": 341.0}]}
EOF2
printf 'before\n<!-- results:begin -->\nold table\n<!-- results:end -->\nafter\n' \
	>"$T/README.md"
if "$PY" "$HERE/harness/reports/readme_results.py" --run "$T/ref" \
	--readme "$T/README.md" 2>"$T/err"; then
	ok
	expect_lines "$T/README.md" '^before$' '^after$' \
		'^Run `R1` (commit abc1234, default mode, load average at start 0.25 0.50 0.75)' \
		'^| quakes-2m (2.1 MB) | send | 5,000 | 100,000 | 20.0 (19.5-20.5) | 1.25 (1.20-1.30) | 12.0 |$' \
		'one process, their repetitions interleaved at random' \
		'The send floor is sha256 + rsa_sign, the receive floor sha256 + rsa_verify' \
		'^| quakes-2m | send | 5,000 | 4,000 | 6,000 | 0\.80 | 1\.00 |$' \
		'^| quakes-2m | receive | 5,000 | 4,400 | 5,300 | 0\.88 | 1\.76 |$'
	# Whole trees first, the deferred parse last in a row that says so.
	expect_lines "$T/README.md" \
		'^| best+build=direct (insitu parser) | 1,900 | 286 | the whole tree |$' \
		'^| pugixml | 2,000 | 341 | the whole tree |$' \
		"^| best (insitu parser) | 700 | 292 | a check pass; the Body's tree is built on first use, so not a whole tree |\$"
	order=$(grep '^| ' "$T/README.md" | sed -n '7,9p' | cut -d'|' -f2 | tr -d '\n')
	[ "$order" = " best+build=direct (insitu parser)  pugixml  best (insitu parser) " ] && ok ||
		bad "README parse table's order: '$order'"
	if grep -q '^old table$' "$T/README.md"; then
		bad "readme_results.py left the old table"
	else ok; fi
	grep -q 'quakes-canon-2m' "$T/README.md" &&
		bad "README's two-core note names quakes-canon-2m without its row" || ok
	cp "$T/README.md" "$T/README.first"
	"$PY" "$HERE/harness/reports/readme_results.py" --run "$T/ref" \
		--readme "$T/README.md"
	if cmp -s "$T/README.md" "$T/README.first"; then ok; else
		bad "readme_results.py changed its own table"
	fi
else
	bad "readme_results.py failed: $(cat "$T/err")"
fi
# With quakes-canon-2m's send (3,000 us on two threads against 5,000 on
# one and a floor of 2,500: 0.60, 1.20), its row and what it is.
mkdir -p "$T/canon"
"$PY" - "$T/ref/summary.json" "$T/canon/summary.json" <<'EOF2'
import json, sys
nums = json.load(open(sys.argv[1]))
nums["two_cores"].append({"stage": "send", "dataset": "quakes-canon-2m",
                          "label": "best", "one": 5000, "wall": 3000,
                          "cpu": 5500, "floor": 2500})
# Measured by the separate runs only, as summary.py writes it.
nums["pipeline"].append({"dataset": "quakes-canon-2m", "stage": "send",
                         "paired": False, "bytes": 2097193, "best": 5000,
                         "ref": None, "floor": 2500, "best_instr": 1e8,
                         "ref_instr": None, "best_peak": 1})
json.dump(nums, open(sys.argv[2], "w"))
EOF2
printf '<!-- results:begin -->\n<!-- results:end -->\n' >"$T/README.md"
if "$PY" "$HERE/harness/reports/readme_results.py" --run "$T/canon" \
	--readme "$T/README.md" 2>"$T/err"; then
	expect_lines "$T/README.md" \
		'^| quakes-canon-2m | send | 5,000 | 3,000 | 5,500 | 0\.60 | 1\.20 |$' \
		'quakes-canon-2m is quakes-2m with each start tag.s attributes in C14N.s order' \
		'one process, their repetitions interleaved at random'
	# Its separate runs' row stays out of the paired run's table.
	grep -q '^| quakes-canon-2m (2.1 MB)' "$T/README.md" &&
		bad "README's paired table holds a row the paired run did not measure" || ok
else
	bad "readme_results.py with quakes-canon-2m failed: $(cat "$T/err")"
fi
printf 'no markers\n' >"$T/README.md"
if "$PY" "$HERE/harness/reports/readme_results.py" --run "$T/ref" \
	--readme "$T/README.md" 2>"$T/err"; then
	bad "readme_results.py took a README without markers"
elif grep -q 'needs one <!-- results:begin -->' "$T/err"; then ok; else
	bad "readme_results.py without markers: $(cat "$T/err")"
fi

# --data (make bench DATA=...): a folder of one envelope and one file that
# is none.  The envelope is a dataset named after its file in every stage,
# ref's included, and in summary.md; the other file is left out with a
# message naming it, and the run goes on.
mkdir -p "$T/data" "$T/datarun"
cp "$HERE/tests/data/install/order.xml" "$T/data/order.xml"
printf '<a>not SOAP</a>\n' >"$T/data/plain.xml"
if "$BENCH" bench --quick --ref --keys "$K" --data "$T/data" \
	--benchmark_filter='^(ref:)?(parse|c14n|send|receive)/order.xml$' \
	--benchmark_min_time=0.01 --benchmark_out="$T/datarun/best.json" \
	--benchmark_out_format=json >"$T/log" 2>"$T/err"; then
	ok
	expect_lines "$T/err" "^domlab-bench: bench: --data: $T/data/plain.xml left out: malformed input: not a SOAP 1.1 or 1.2 envelope"
	grep -q 'order.xml left out' "$T/err" && bad "--data left the envelope out: $(cat "$T/err")" || ok
	if "$PY" "$HERE/harness/reports/summary.py" --dir "$T/datarun" --commit test \
		--flags test --elapsed 0 best >"$T/summary.md" 2>"$T/err"; then
		ok
		expect_lines "$T/summary.md" '^## receive$' '^| order.xml | best | ' \
			'^| order.xml | ref | ' '^| order.xml | best | [0-9.]* | ' \
			'^## Your messages (DATA)$' '^### order.xml (' \
			'^| send | best | [0-9.,]* | [0-9.]* |$' \
			'^| receive | ref | [0-9.,]* | - |$'
		[ "$(grep -c '^| order.xml | ' "$T/summary.md")" -ge 8 ] && ok ||
			bad "summary.md lacks order.xml's rows: $(grep -c '^| order.xml | ' "$T/summary.md")"
		grep -q 'plain.xml' "$T/summary.md" && bad "summary.md has the left-out file" || ok
	else
		bad "summary.py on the --data run failed: $(tail -n 3 "$T/err")"
	fi
else
	bad "bench --data failed: $(tail -n 5 "$T/err")"
fi

# --data on envelopes of every shape (tests/data/envelopes/: SOAP 1.1 and
# 1.2, no Header, an empty one, header blocks, WS-Addressing headers, a
# default namespace): every case that takes a file runs on each, the
# cases that add a header of their own (the encrypted header layout) or a
# wsa:To (forward) included, ours and ref's; none is skipped and the run
# ends with status 0 -- a case that aborts on one fails the run.
shapes=$(cd "$HERE/tests/data/envelopes" && ls)
data_cases='send receive send_encrypted_header receive_encrypted_header forward'
if "$BENCH" bench --quick --ref --keys "$K" --data "$HERE/tests/data/envelopes" \
	--benchmark_filter="^(ref:)?($(echo $data_cases | tr ' ' '|'))/[a-z0-9-]*[.]xml\$" \
	--benchmark_min_time=0.001 --benchmark_repetitions=1 >"$T/log" 2>"$T/err"; then
	ok
else
	bad "bench --data on every shape: exit $?: $(tail -n 5 "$T/err")"
fi
grep -q 'skipped\|left out' "$T/err" && bad "bench --data skipped a shape: $(grep 'skipped\|left out' "$T/err" | head -n 3)" || ok
for f in $shapes; do
	for c in $data_cases; do
		for p in '' ref:; do
			grep -q "^$p$c/$f " "$T/log" && ok ||
				bad "bench --data: no $p$c/$f in the run"
		done
	done
done

"$BENCH" bench --keys "$K" --data "$T/missing" --benchmark_list_tests=true >"$T/log" 2>"$T/err"
rc=$?
[ "$rc" -eq 4 ] && grep -q "missing: no such file or folder" "$T/err" && ok ||
	bad "bench --data on a missing path: exit $rc: $(cat "$T/err")"

# profile_diff_report.py on callgrind_annotate text made up here (3
# iterations: A 1,000 instructions each, B 500, dom_attributes all of the
# difference), without gperftools' files; flamegraph.py on four stacks.
mkdir -p "$T/pd"
printf 'totals: 3000\n' >"$T/pd/a.callgrind.out"
printf 'totals: 1500\n' >"$T/pd/b.callgrind.out"
printf '%s\n' '3,000 (100.0%)  x.c:icount_loop [bin]' \
	'1,500 (50.0%)  x.c:dom_attributes [bin]' '600 (20.0%)  x.c:malloc [bin]' \
	>"$T/pd/a.inclusive.txt"
printf '%s\n' '1,500 (100.0%)  x.c:icount_loop [bin]' \
	'600 (40.0%)  x.c:malloc [bin]' >"$T/pd/b.inclusive.txt"
printf '%s\n' '900 (30.0%)  x.c:dom_attributes [bin]' '600 (20.0%)  x.c:malloc [bin]' \
	>"$T/pd/a.self.txt"
printf '%s\n' '600 (40.0%)  x.c:malloc [bin]' >"$T/pd/b.self.txt"
if "$PY" "$HERE/harness/reports/profile_diff_report.py" --a va --b vb \
	--case c14n/x --iterations 3 --dir "$T/pd" >"$T/pd/report.md" 2>"$T/err"; then
	ok
	expect_lines "$T/pd/report.md" '^| A `va` | 1,000 |$' '^| B `vb` | 500 |$' \
		'^| B - A | -500 (0.50 x A) |$' \
		'Left out as the case itself .*: `icount_loop`\.$' \
		'^| `dom_attributes` | 500 | 50.0% | 0 | 0.0% | -500 | 100.0% |$' \
		'^| `dom_attributes` | 300 | 30.0% | 0 | 0.0% | -300 | 60.0% |$' \
		'^| `dom_attributes` | dom_attributes() (attrlist axis) | 500 | 0 | -500 | 100.0% |$' \
		'gperftools is not installed'
	grep -q '^| `icount_loop` |' "$T/pd/report.md" && bad "the enclosing frame is ranked" || ok
	grep -q '^| `malloc` |' "$T/pd/report.md" && bad "malloc, the same on both, is ranked" || ok
else
	bad "profile_diff_report.py failed: $(tail -n 3 "$T/err")"
fi
printf '%s\n' 'main;f;g 2' 'main;f;g 1' 'main;h 1' 'bad line' >"$T/pd/stacks"
if "$PY" "$HERE/harness/reports/flamegraph.py" --title t "$T/pd/stacks" >"$T/pd/f.svg" 2>"$T/err"; then
	ok
	[ "$(grep -c '<rect' "$T/pd/f.svg")" = 4 ] && ok || bad "flamegraph.py drew $(grep -c '<rect' "$T/pd/f.svg") frames, not 4"
	expect_lines "$T/pd/f.svg" '<title>main: 4 samples, 100.00%</title><rect x="0.0" y="[0-9]*" width="1200.0"' \
		'<title>g: 3 samples, 75.00%</title><rect x="0.0" y="[0-9]*" width="900.0"' \
		'<title>h: 1 samples, 25.00%</title><rect x="900.0" y="[0-9]*" width="300.0"'
else
	bad "flamegraph.py failed: $(tail -n 3 "$T/err")"
fi

# profile_report.py's memory traffic (harness/reports/passes.py) on a
# callgrind.out and two DHAT profiles made up here, 2 iterations of a
# 100-byte input.  callgrind: memcpy's own cost splits evenly between its
# two callers (other, canonicalize); wss_c14n_pieces'2 is canonicalize
# under its recursion mark; a function of libcrypto (cob=, cfi=) and one
# of the binary at the same address called right after it are both
# SHA-256, under wss_sha256_update; take, named with its callers, is
# serialize's.  DHAT: 1 and 3 calls; the input's copy made in
# the loop in halves under two stacks of one name, the base64 text, the input made
# before the loop, and a small block below the 5% floor.
mkdir -p "$T/pt"
printf 'summary: 1780\n' >"$T/pt/callgrind.out"
cat >"$T/pt/callgrind-passes.out" <<'CG'
# callgrind format
version: 1
positions: line
events: Ir Dr Dw D1mr D1mw DLmr DLmw
desc: D1 cache: 1024 B, 64 B, 2-way associative
summary: 1780 374 172 21 18 6 4

ob=(1) /bin/x
fl=(1) x.c
fn=(1) icount_loop
1 10
cfn=(2) wss_c14n_pieces'2
calls=1 2
+1 1570 314 180 23 12 4 2
cfn=(3) memcpy
calls=1 3
* 100 40 40 2 2

fn=(2)
4 600 100 50 10 5 2 1
cfn=(5) wss_sha256_update
calls=1 0
+1 870 174 22 9 5 2 1
cfn=(3)
calls=1 0
+1 100 40 40 2 2

fn=(5)
7 20 4 2
cob=(2) /lib/libcrypto.so
cfi=(2) ???
cfn=(4) 0x0000000000001000
calls=3 0
+1 800 160 10 8 4 2 1
cfn=(6) 0x0000000000001000
calls=1 0
+1 50 10 10 1 1

fn=(3)
2 200 80 80 4 4

fn=(6)
0 50 10 10 1 1

fn=(7) take'lab_buf_put'dom_serialize'icount_loop
3 100 20 20 2 2 2 2

ob=(2)
fl=(2) ???
fn=(4)
0 800 160 10 8 4 2 1
CG
# dhat FILE CALLS: a DHAT heap profile after CALLS calls (one a warm-up).
dhat() {
	n=$2
	cat >"$1" <<DH
{"dhatFileVersion":2,"mode":"heap","verb":"Allocated","bklt":true,"bkacc":true,
"tu":"instrs","Mtu":"Minstr","tuth":500,"cmd":"x","pid":1,"te":1,"tg":1,
"pps":[
{"tb":$((50 * n)),"tbk":$n,"tl":1,"mb":0,"mbk":0,"gb":0,"gbk":0,"eb":0,"ebk":0,"rb":$((225 * n)),"wb":$((80 * n)),"fs":[1,2,3,4]},
{"tb":$((50 * n)),"tbk":$n,"tl":1,"mb":0,"mbk":0,"gb":0,"gbk":0,"eb":0,"ebk":0,"rb":$((225 * n)),"wb":$((81 * n)),"fs":[1,2,10,4]},
{"tb":100,"tbk":1,"tl":1,"mb":0,"mbk":0,"gb":0,"gbk":0,"eb":0,"ebk":0,"rb":$((100 + 100 * n)),"wb":100,"fs":[1,2,5,6]},
{"tb":$((133 * n)),"tbk":$n,"tl":1,"mb":0,"mbk":0,"gb":0,"gbk":0,"eb":0,"ebk":0,"rb":$((133 * n)),"wb":$((133 * n)),"fs":[1,2,7,8]},
{"tb":$((4 * n)),"tbk":$n,"tl":1,"mb":0,"mbk":0,"gb":0,"gbk":0,"eb":0,"ebk":0,"rb":$n,"wb":0,"fs":[1,9]}],
"ftbl":["[root]","0x1: malloc (in vg)","0x2: lab_malloc (alloc.c:1)",
"0x3: dom__insitu_input (parse.c:5)","0x4: dom__parse_tree (parse.c:9)",
"0x5: input (stages.c:3)","0x6: setup (stages.c:4)",
"0x7: dom_create_text_buf (text.c:1)","0x8: dom_create_text_b64 (text.c:2)",
"0x9: tiny (x.c:1)","0xA: dom__insitu_input.part.0 (parse.c:7)"]}
DH
}
dhat "$T/pt/dhat-1.json" 2
dhat "$T/pt/dhat-3.json" 4
# The stages' shares: callgrind's inclusive Ir, and gperftools' samples
# with callees, a function inlined somewhere counted by its larger row;
# dom_serialize has instructions and no samples' row.
printf '  1,570 (88.2%%)  x.c:wss_c14n_pieces [/bin/x]\n  100 (5.6%%)  x.c:dom_serialize [/bin/x]\n' \
	>"$T/pt/callgrind-inclusive.txt"
cat >"$T/pt/pprof.txt" <<'PP'
Total: 200 samples
      80  40.0%  40.0%       80  40.0% SHA1_Init@@OPENSSL_3.0.0
       0   0.0%  40.0%      120  60.0% wss_sha256_update (inline)
      10   5.0%  45.0%      100  50.0% wss_sha256_update
       5   2.5%  47.5%      150  75.0% wss_c14n_pieces
PP
printf 'send/xy  5 ms  5 ms  1\nsend/x  1000 us  1000 us  10 bytes_per_second=1M/s\n' \
	>"$T/pt/bench.txt"
if "$PY" "$HERE/harness/reports/profile_report.py" --variant v --case send/x \
	--runfn icount_loop --dir "$T/pt" --iterations 2 --bytes 100 \
	>"$T/pt/profile.md" 2>"$T/err"; then
	ok
	expect_lines "$T/pt/profile.md" '1,780 Ir over 2 call(s), \*\*890 Ir per iteration' \
		'^| function | what | share of the case | Ir per iteration | share of CPU samples | us per iteration |$' \
		'^| `wss_c14n_pieces` | canonicalize in pieces (what they feed too) | 88.2% | 785 | 75.0% | 750 |$' \
		'^| `wss_sha256_update` | SHA-256, all of it | 0.0% | 0 | 60.0% | 600 |$' \
		'^| `dom_serialize` | serialize | 5.6% | 50 | - | - |$' \
		'D1 1024 B, 64 B, 2-way associative' \
		'^| canonicalize | 3.50 | 0.700 | 0.450 | 0.0950 | 0.0150 | 6.08 | 0.96 | 39.3% |$' \
		'^| SHA-256 | 4.35 | 0.870 | 0.110 | 0.0700 | 0.0150 | 4.48 | 0.96 | 48.9% |$' \
		'^| serialize | 0.50 | 0.100 | 0.100 | 0.0200 | 0.0200 | 1.28 | 1.28 | 5.6% |$' \
		'^| other (tree, lookups, set-up) | 0.55 | 0.200 | 0.200 | 0.0200 | 0.0000 | 1.28 | 0.00 | 6.2% |$' \
		'^| \*\*total\*\* | 8.90 | 1.870 | 0.860 | 0.2050 | 0.0500 | 13.12 | 3.20 | 100.0% |$' \
		'^| parse, check pass | `dom__insitu_input < dom__parse_tree` | 0.500 | 1.00 | 4.50 | 1.61 | 4.50 | 1.61 |$' \
		'^| base64 | `dom_create_text_buf < dom_create_text_b64` | 1.330 | 1.33 | 1.33 | 1.33 | 1.00 | 1.00 |$' \
		'^| before the loop (set-up, the input) | `input < setup` | 1.000 | 0.00 | 1.00 | 0.00 | 1.00 | 0.00 |$' \
		'^| other sites | | | 0.04 | 0.01 | 0.00 | | |$' \
		'^| \*\*all heap\*\* | | | 2.37 | 6.84 | 2.94 | | |$'
	grep -q '^| AES-GCM |' "$T/pt/profile.md" && bad "a pass that did not run has a row" || ok
	grep -q '^| `dom_parse` |' "$T/pt/profile.md" && bad "a stage that did not run has a row" || ok
else
	bad "profile_report.py failed: $(tail -n 3 "$T/err")"
fi
# Not callgrind's output, and not a DHAT heap profile: refused, by name.
cp "$T/pt/dhat-1.json" "$T/pt/good.json"
sed -i 's/"mode":"heap"/"mode":"copy"/' "$T/pt/dhat-1.json"
expect 1 "profile_report.py on a DHAT profile not of the heap" \
	"$PY" "$HERE/harness/reports/profile_report.py" --variant v --case send/x \
	--runfn icount_loop --dir "$T/pt" --iterations 2 --bytes 100
grep -q 'dhat-1.json: not a DHAT heap profile' "$T/err" && ok || bad "no reason given: $(cat "$T/err")"
cp "$T/pt/good.json" "$T/pt/dhat-1.json"
sed -i '/^events:/d' "$T/pt/callgrind-passes.out"
expect 1 "profile_report.py on a callgrind.out without events" \
	"$PY" "$HERE/harness/reports/profile_report.py" --variant v --case send/x \
	--runfn icount_loop --dir "$T/pt" --iterations 2 --bytes 100
grep -q "callgrind-passes.out: no 'events:' line" "$T/err" && ok || bad "no reason given: $(cat "$T/err")"

# The caches profile.sh simulates (cachegeom.sh): from a /sys folder made
# up here, a Data cache at level 1 and a Unified one at 2, in the
# kernel's K and M sizes; with /sys empty, from getconf, here a script
# first on PATH; nothing where getconf has no associativity (a level-3
# cache some CPUs report as 0-way), nor for a level nobody knows.
mkdir -p "$T/cg/sys/index0" "$T/cg/sys/index1" "$T/cg/sys/index2" \
	"$T/cg/empty" "$T/cg/bin"
cg_index() { # DIR LEVEL TYPE SIZE WAYS LINE
	echo "$2" >"$1/level"
	echo "$3" >"$1/type"
	echo "$4" >"$1/size"
	echo "$5" >"$1/ways_of_associativity"
	echo "$6" >"$1/coherency_line_size"
}
cg_index "$T/cg/sys/index0" 1 Data 48K 12 64
cg_index "$T/cg/sys/index1" 1 Instruction 32K 8 64
cg_index "$T/cg/sys/index2" 2 Unified 1M 16 64
cat >"$T/cg/bin/getconf" <<'GETCONF'
#!/bin/sh
case $1 in
LEVEL1_DCACHE_SIZE) echo 32768 ;; LEVEL1_DCACHE_ASSOC) echo 8 ;;
LEVEL2_CACHE_SIZE) echo 524288 ;; LEVEL2_CACHE_ASSOC) echo 8 ;;
LEVEL3_CACHE_SIZE) echo 532676608 ;; LEVEL3_CACHE_ASSOC) echo 0 ;;
*_LINESIZE) echo 64 ;; *) echo ;;
esac
GETCONF
chmod +x "$T/cg/bin/getconf"
cg() { # SYSFS LEVEL TYPE WANT
	got=$(CACHEGEOM_SYSFS="$1" PATH="$T/cg/bin:$PATH" \
		sh "$HERE/harness/reports/cachegeom.sh" "$2" "$3")
	[ "$got" = "$4" ] && ok || bad "cachegeom.sh $2 $3 from ${1##*/}: '$got', want '$4'"
}
cg "$T/cg/sys" 1 Data 49152,12,64
cg "$T/cg/sys" 2 Unified 1048576,16,64
cg "$T/cg/empty" 1 Data 32768,8,64
cg "$T/cg/empty" 2 Unified 524288,8,64
cg "$T/cg/empty" 3 Unified ""
cg "$T/cg/empty" 4 Unified ""

# Code in a library without a symbol table (symbols.py): a library built
# here and stripped, with a function `hidden` between two exports.  pprof
# names a sample in hidden by the export before it (`first`): the report
# names it by its address range instead, keeps `first` for the sample
# inside first, and keeps a name that is no export (debug symbols).
# callgrind's address of hidden is named by library and address, with
# the named function that calls it.
mkdir -p "$T/sym"
cat >"$T/sym/x.c" <<'C'
int first(int x) { return x * 3 + 1; }
static int __attribute__((noinline)) hidden(int x) { return x * x - 7; }
int second(int x) { return hidden(x) + 2; }
C
if ${CC:-cc} -shared -fPIC -O1 -fno-toplevel-reorder -o "$T/sym/libx.so" \
	"$T/sym/x.c" 2>"$T/err" &&
	hid=$(nm "$T/sym/libx.so" | awk '$3 == "hidden" { print $1 }') &&
	fst=$(nm "$T/sym/libx.so" | awk '$3 == "first" { print $1 }') &&
	strip --strip-all "$T/sym/libx.so" 2>>"$T/err" && [ -n "$hid" ]; then
	base=$((0x7f0000000000))
	{
		printf '%x-%x r--p 00000000 00:00 1      %s\n' $base $((base + 4096)) "$T/sym/libx.so"
		printf '%x-%x r-xp 00001000 00:00 1      %s\n' $((base + 4096)) $((base + 65536)) "$T/sym/libx.so"
	} >"$T/sym/cpu.prof"
	printf 'Total: 10 samples\n       8  80.0%%  80.0%%        8  80.0%% first\n       2  20.0%% 100.0%%        2  20.0%% fromdebug\n' \
		>"$T/sym/pprof.txt"
	{
		echo 'Total: 10 samples'
		printf '       5  50.0%%  50.0%%        5  50.0%% %016x first ??:0\n' $((base + 0x$hid + 1))
		printf '       3  30.0%%  80.0%%        3  30.0%% %016x first ??:0\n' $((base + 0x$fst))
		printf '       2  20.0%% 100.0%%        2  20.0%% %016x fromdebug ??:0\n' $((base + 0x$hid + 2))
	} >"$T/sym/pprof-addresses.txt"
	a=$(printf '0x%016x' $((0x$hid)))
	printf 'version: 1\nevents: Ir\nsummary: 100\nob=(1) /bin/x\nfl=(1) x.c\nfn=(1) icount_loop\n1 10\nfn=(2) second\n2 10\ncob=(2) %s\ncfn=(3) %s\ncalls=4 0\n3 80\nob=(2)\nfn=(3)\n0 80\n' \
		"$T/sym/libx.so" "$a" >"$T/sym/callgrind.out"
	printf '%s\n' '--------' '80 (80.00%)  ???:'"$a"' [libx.so]' \
		'10 (10.00%)  x.c:second [/bin/x]' >"$T/sym/callgrind.txt"
	if "$PY" "$HERE/harness/reports/profile_report.py" --variant v \
		--case send/x --runfn icount_loop --dir "$T/sym" \
		>"$T/sym/profile.md" 2>"$T/err"; then
		ok
		expect_lines "$T/sym/profile.md" \
			"^| \`libx.so+0x$(printf %x $((0x$hid))), called from second\` | 80.0% |" \
			"^| 50.0% | - | \`libx.so+0x$(printf %x $((0x$hid + 1)))\` |\$" \
			'^| 30.0% | 30.0% | `first` |$' \
			'^| 20.0% | 20.0% | `fromdebug` |$'
	else
		bad "profile_report.py on a stripped library failed: $(tail -n 3 "$T/err")"
	fi
else
	bad "could not build and strip a library: $(tail -n 3 "$T/err")"
fi

# profile_record.py: the tables from a record of that one profile.
mkdir -p "$T/rec/profiles/v/send-x"
cp "$T/pt/traffic.json" "$T/rec/profiles/v/send-x/" 2>/dev/null
printf 'commit abc\ndate d\nload 1.00 2.00 3.00\n' >"$T/rec/profiles/v/send-x/run.txt"
printf 'a\n<!-- profile:begin -->\nold\n<!-- profile:end -->\nz\n' >"$T/recdoc.md"
if "$PY" "$HERE/harness/reports/profile_record.py" --record "$T/rec" --doc "$T/recdoc.md" 2>"$T/err"; then
	ok
	expect_lines "$T/recdoc.md" '^a$' '^z$' 'commit abc, d, load average 1.00 2.00 3.00' \
		'^| \[`send/x` (v)\](rec/profiles/v/send-x/profile.md) | 100 B | 8.9 | 0.2050 | 0.0500 | 13.12 | 3.20 | 6.84 | 2.94 |$' \
		'^| serialize | 1.28 / 1.28 |$' \
		'^- `send/x` (v): 3.20 bytes from beyond LL per input byte; serialize 1.28, canonicalize 0.96, SHA-256 0.96\.$'
	grep -q '^old$' "$T/recdoc.md" && bad "profile_record.py left the old tables" || ok
	expect 0 "profile_record.py --check on its own output" \
		"$PY" "$HERE/harness/reports/profile_record.py" --record "$T/rec" --doc "$T/recdoc.md" --check
else
	bad "profile_record.py failed: $(tail -n 3 "$T/err")"
fi
expect 0 "docs/measuring.md's profile tables are what results/profile/ makes" \
	"$PY" "$HERE/harness/reports/profile_record.py" --record "$HERE/results/profile" \
	--doc "$HERE/docs/measuring.md" --check

# fuzz_record.py: sums per target and variant from runs.tsv, the last
# run's coverage, a target with a corpus but no run on best, and
# --check; and SECURITY.md is what results/fuzz/ makes.
mkdir -p "$T/fr"
printf 'target\tvariant\tcpu_s\texecutions\tcov\tft\twork_corpus\tcommit\toutcome\n' >"$T/fr/runs.tsv"
printf 'parse\tbest\t3000\t10\t5\t6\t-\t-\tsummed\n' >>"$T/fr/runs.tsv"
printf 'parse\tbest\t601\t7\t8\t9\t3\tabc\tok\n' >>"$T/fr/runs.tsv"
printf 'parse\tx\t5\t1\t1\t1\t3\tabc\tcrash\n' >>"$T/fr/runs.tsv"
printf 'parse\tx\t5\t1\t1\t1\t3\tabc\tslow\n' >>"$T/fr/runs.tsv"
printf 'target\tvariant\tinputs\tcov\tft\tcommit\n4\tbest\t2\t3\t4\tabc\n' |
	sed 's/^4\t/hash\t/' >"$T/fr/corpus.tsv"
printf 'a\n<!-- fuzz-record:begin -->\nold\n<!-- fuzz-record:end -->\nz\n' >"$T/fr/doc.md"
if "$PY" "$HERE/harness/reports/fuzz_record.py" --record "$T/fr" --doc "$T/fr/doc.md" 2>"$T/err"; then
	ok
	expect_lines "$T/fr/doc.md" '^a$' '^z$' \
		'^| `parse` | best | 3601 s | 17 | 8 / 9 | reached | 0 |$' \
		'^| `parse` | x | 10 s | 2 | 1 / 1 | not yet | 1 |$' \
		'^| `hash` | best | 0 s | 0 | - / - | not yet | 0 |$' \
		'^| `hash` | 2 | best | 3 / 4 | abc |$'
	grep -q '^old$' "$T/fr/doc.md" && bad "fuzz_record.py left the old record" || ok
	expect 0 "fuzz_record.py --check on its own output" \
		"$PY" "$HERE/harness/reports/fuzz_record.py" --record "$T/fr" --doc "$T/fr/doc.md" --check
	printf 'parse\tbest\t1\t1\t1\t1\t3\tabc\tok\n' >>"$T/fr/runs.tsv"
	expect 1 "fuzz_record.py --check after a new run" \
		"$PY" "$HERE/harness/reports/fuzz_record.py" --record "$T/fr" --doc "$T/fr/doc.md" --check
else
	bad "fuzz_record.py failed: $(tail -n 3 "$T/err")"
fi
expect 0 "the fuzzing record is what results/fuzz/ makes (make fuzz-record)" \
	"$PY" "$HERE/harness/reports/fuzz_record.py" --record "$HERE/results/fuzz" \
	--doc "$HERE/results/fuzz/record.md" --check

# make ab's report (harness/reports/ab.py) on 4 rounds made up here:
# send/x takes half the time on the new side (old / new 2.0, 2.0, 1.96,
# 2.04), the control the same; a two-thread case's wall time halves too,
# its CPU time (3 x the control's) does not, and only it gets a CPU
# table; then a control that halved, and a round without its new
# process.  ab.sh refuses what is not a commit, and fewer than 3 rounds,
# before it builds anything.
ab_round() { # ab_round DIR SIDE K SEND_US CONTROL_US
	printf '{"benchmarks":[{"name":"send/x","run_name":"send/x","run_type":"iteration","real_time":%s,"time_unit":"us"},{"name":"floor:sha256/x","run_name":"floor:sha256/x","run_type":"iteration","real_time":%s,"time_unit":"us"},{"name":"send_pipelined/x/process_time/real_time","run_name":"send_pipelined/x/process_time/real_time","run_type":"iteration","real_time":%s,"cpu_time":%s,"time_unit":"us"},{"name":"send/x_median","run_name":"send/x","run_type":"aggregate","real_time":1,"time_unit":"us"}]}\n' \
		"$4" "$5" "$4" "$(awk -v c="$5" 'BEGIN { print c * 3 }')" >"$1/runs/$2.$3.json"
}
mkdir -p "$T/ab/runs"
printf 'base %s\nhead %s\nuncommitted no\nvariant best\nfilter f\ncontrol ^floor:sha256/\ncommand make ab BASE=x ROUNDS=4\nrepetitions 1\ncpu x\n' \
	1111111111111111 2222222222222222 >"$T/ab/rounds.txt"
ab_pair() { # ab_pair K OLD_SEND NEW_SEND OLD_CONTROL NEW_CONTROL
	ab_round "$T/ab" old "$1" "$2" "$4"
	ab_round "$T/ab" new "$1" "$3" "$5"
	echo "round $1 00:00:0$1 load 0.10 0.10 0.10 order old new" >>"$T/ab/rounds.txt"
}
ab_pair 1 100 50 10 10
ab_pair 2 102 51 10 10.1
ab_pair 3 98 50 10 9.9
ab_pair 4 102 50 10 10
if "$PY" "$HERE/harness/reports/ab.py" --dir "$T/ab" >"$T/ab/report.md" 2>"$T/err"; then
	ok
	expect_lines "$T/ab/report.md" '^# best: 111111111111 (old) against 222222222222 (new)$' \
		'^| `send/x` | 101.0 | 50.0 | 2.000 | [0-9.]*-[0-9.]* | 1\.9[0-9]*-2\.0[0-9]* | new faster |$' \
		'^| `floor:sha256/x` (control) | 10.0 | 10.0 | 1.000 | .* | no measurable difference |$' \
		'^| `send_pipelined/x/process_time/real_time` | 101.0 | 50.0 | 2.000 | .* | new faster |$' \
		'^## CPU time of the two-thread cases$' \
		'^| `send_pipelined/x/process_time/real_time` | 30.0 | 30.0 | 1.000 | .* | no measurable difference |$' \
		'^round 4 00:00:04 load 0.10 0.10 0.10 order old new$' \
		'^make ab BASE=x ROUNDS=4$'
	grep -q 'control moved' "$T/ab/report.md" && bad "ab.py: a steady control reported as moved" || ok
	[ "$(grep -c '^| `send/x` ' "$T/ab/report.md")" = 1 ] && ok ||
		bad "ab.py: a one-thread case in the CPU table"
else
	bad "ab.py failed: $(tail -n 3 "$T/err")"
fi
k=0
for cn in 5 5.1 4.9 5; do
	k=$((k + 1))
	ab_round "$T/ab" new $k 50 "$cn"
done
if "$PY" "$HERE/harness/reports/ab.py" --dir "$T/ab" >"$T/ab/report.md" 2>"$T/err"; then
	expect_lines "$T/ab/report.md" '^\*\*The control moved\*\* (floor:sha256/x)'
else
	bad "ab.py failed on a moved control: $(tail -n 3 "$T/err")"
fi
rm "$T/ab/runs/new.4.json"
expect 1 "ab.py on a round without its new process" \
	"$PY" "$HERE/harness/reports/ab.py" --dir "$T/ab"
grep -q '4 old and 3 new processes' "$T/err" && ok || bad "ab.py gave no reason: $(cat "$T/err")"
expect 1 "ab.sh with a base that is not a commit" \
	sh "$HERE/harness/reports/ab.sh" no-such-commit-here
grep -q "'no-such-commit-here' is not a commit" "$T/err" && ok || bad "ab.sh gave no reason: $(cat "$T/err")"
ROUNDS=2 expect 1 "ab.sh with 2 rounds" sh "$HERE/harness/reports/ab.sh" HEAD
grep -q 'needs 3 rounds' "$T/err" && ok || bad "ab.sh gave no reason: $(cat "$T/err")"

# The cases a pattern leaves out by a two-thread case's tail
# (case_tails.sh, which ab.sh and compare.sh refuse), on the names the
# benchmark lists: the pipelined send at 2 MB is left out by a '$' after
# its dataset, and nothing else is named, neither the one-thread send
# nor a throughput case (/real_time/threads:N is a case of its own).
# shellcheck source=harness/reports/case_tails.sh
. "$HERE/harness/reports/case_tails.sh"
"$BENCH" bench --floor --keys "$K" --benchmark_list_tests=true \
	>"$T/all.cases" 2>"$T/err" || bad "domlab-bench --benchmark_list_tests: $(cat "$T/err")"
left_out() {
	lab_cases_left_out "$1" <"$T/all.cases" | paste -sd' ' -
}
[ "$(left_out '^(send|send_pipelined)/quakes-2m$')" = \
	send_pipelined/quakes-2m/process_time/real_time ] && ok ||
	bad "case_tails.sh: '$(left_out '^(send|send_pipelined)/quakes-2m$')'"
lab_cases_tail_refusal '^send_pipelined/quakes-2m$' <"$T/all.cases" |
	grep -qF "CASES='^send_pipelined/quakes-2m\$' leaves out send_pipelined/quakes-2m/process_time/real_time by its name's tail" &&
	[ -z "$(lab_cases_tail_refusal '^send/quakes-2m$' <"$T/all.cases")" ] && ok ||
	bad "case_tails.sh: no refusal, or one for a pattern it should take"
[ -z "$(left_out '^send_pipelined/quakes-2m/')" ] &&
	[ -z "$(left_out '^send_pipelined/quakes-2m/process_time/real_time$')" ] &&
	[ -z "$(left_out '^(send|receive)/(quakes-200k|quakes-2m)$')" ] && ok ||
	bad "case_tails.sh named a case the pattern takes or does not aim at"

# compare.sh's paired processes judged by their noise
# (paired_retry.sh), on processes made up here (preflight_json): each
# one's repetitions are 100 and 100 us (quiet, noise 0), 100 and 120
# (noisy: a coefficient of variation of 12.9%, limit 3%) or 100 alone
# (once: not to be judged), in the order $T/retry/plan gives, and the check PAIRED_WAIT waits for is made up
# too (its lines and exit status from $T/retry/check).
# retry_run RUN NAME...: in a subshell with set -e, as compare.sh runs,
# the paired processes NAME... made one after the other in
# $T/retry/RUN with the PAIRED_* variables as set, so that they share
# the run's retries; for each, "NAME made N stop S why W left L" into
# $T/retry/RUN.result, and what compare.sh would print into RUN.out
# and RUN.err.
mkdir -p "$T/retry"
retry_run() {
	r_run=$1
	shift
	mkdir -p "$T/retry/$r_run"
	(
		# As in compare.sh, a command that fails ends the subshell.
		set -e
		cd "$HERE"
		# shellcheck disable=SC2317 # paired_retry.sh calls it
		elapsed() { echo 7; }
		# shellcheck disable=SC2317 # lab_paired_made calls it
		fake_paired() {
			f_kind=$(head -n 1 "$T/retry/plan")
			sed -i 1d "$T/retry/plan"
			f_reps="100 100"
			[ "$f_kind" = noisy ] && f_reps="100 120"
			[ "$f_kind" = once ] && f_reps=100
			preflight_json "$1/$2.json" "$f_reps"
			echo "$f_kind" >"$1/$2.log"
			made=$((made + 1))
		}
		# shellcheck source=harness/reports/paired_retry.sh
		. harness/reports/paired_retry.sh
		# shellcheck disable=SC2317 # paired_retry.sh calls it
		lab_paired_check() {
			echo "$1" >>"$T/retry/$r_run.checked"
			cat "$T/retry/check"
			return "$(cat "$T/retry/check.rc")"
		}
		r_k=0
		for r_name in "$@"; do
			made=0
			r_k=$((r_k + 1))
			lab_paired_made "$T/retry/$r_run" "$r_name" \
				"paired process $r_k/3" \
				fake_paired "$T/retry/$r_run" "$r_name"
			echo "$r_name made $made stop ${lab_paired_stop:-no} why ${lab_paired_why:-none} left $lab_paired_left" \
				>>"$T/retry/$r_run.result"
		done
	) >"$T/retry/$r_run.out" 2>"$T/retry/$r_run.err"
}
# Without PAIRED_NOISE nothing is judged: a noisy process stands.
printf 'noisy\n' >"$T/retry/plan"
PAIRED_NOISE='' PAIRED_RETRIES=2 PAIRED_PAUSE=0 PAIRED_WAIT='' retry_run unjudged paired
[ "$(cat "$T/retry/unjudged.result")" = "paired made 1 stop no why none left 2" ] &&
	[ ! -e "$T/retry/unjudged/noisy.txt" ] && ok ||
	bad "paired_retry.sh without PAIRED_NOISE: $(cat "$T/retry/unjudged.result" "$T/retry/unjudged.err")"
# Two retries for the run: process 1 is noisy, set aside, made again
# quiet; process 2 is noisy twice, and with the last retry spent the
# second stops the run, its JSON left where the reports would read it;
# process 3 is never made.
printf 'noisy\nquiet\nnoisy\nnoisy\n' >"$T/retry/plan"
PAIRED_NOISE=0.03 PAIRED_RETRIES=2 PAIRED_PAUSE=0 PAIRED_WAIT='' retry_run spent paired paired.2
d=$T/retry/spent
[ "$(cat "$T/retry/spent.result")" = "paired made 2 stop no why none left 1
paired.2 made 2 stop 1 why none left 0" ] && ok ||
	bad "paired_retry.sh with two retries: $(cat "$T/retry/spent.result" "$T/retry/spent.err")"
[ "$(cat "$d/paired.log" "$d/noisy/paired.1.log" "$d/paired.2.log" "$d/noisy/paired.2.2.log" 2>&1)" = \
	"quiet
noisy
noisy
noisy" ] && [ -s "$d/noisy/paired.1.json" ] && [ -s "$d/noisy/paired.2.2.json" ] && ok ||
	bad "paired_retry.sh set aside the wrong processes: $(ls -R "$d")"
[ "$(cat "$d/noisy.txt")" = "paired process 1/3: noise 12.9% (limit 3.0%); set aside as noisy/paired.1.json at 7 s
paired process 2/3: noise 12.9% (limit 3.0%); set aside as noisy/paired.2.2.json at 7 s" ] && ok ||
	bad "paired_retry.sh's noisy.txt: $(cat "$d/noisy.txt")"
grep -q 'paired process 1/3 set aside as noisy; made again in 0 s (1 more allowed in this run)' "$T/retry/spent.err" &&
	grep -q 'preflight: paired process 2/3 varied by a median 12.9% between repetitions (limit 3.0%)' "$T/retry/spent.err" &&
	ok || bad "paired_retry.sh's messages: $(cat "$T/retry/spent.err")"
# A process with one repetition per case cannot be judged: the run
# stops at once, a retry left or not, and nothing is set aside.
printf 'once\n' >"$T/retry/plan"
PAIRED_NOISE=0.03 PAIRED_RETRIES=2 PAIRED_PAUSE=0 PAIRED_WAIT='' retry_run unjudgeable paired
[ "$(cat "$T/retry/unjudgeable.result")" = "paired made 1 stop 1 why none left 2" ] &&
	[ ! -e "$T/retry/unjudgeable/noisy" ] &&
	grep -q 'has no case with two repetitions' "$T/retry/unjudgeable.err" && ok ||
	bad "paired_retry.sh on an unjudgeable process: $(cat "$T/retry/unjudgeable.result" "$T/retry/unjudgeable.err")"
# PAIRED_WAIT: the check runs before the process is made again, named
# for it, and its lines go into noisy.txt, the "waited" line named too.
# It passes: the process is made again.  It never passes (exit 1), or
# cannot run (2): the run stops, saying which.
printf 'noise 1.0%% (limit 3.0%%)\nwaited before the noise check: 0 s, 1 attempt (up to 30 min)\n' >"$T/retry/check"
for w in 0 1 2; do
	echo "$w" >"$T/retry/check.rc"
	printf 'noisy\nquiet\n' >"$T/retry/plan"
	PAIRED_NOISE=0.03 PAIRED_RETRIES=1 PAIRED_PAUSE=0 PAIRED_WAIT=30 retry_run "wait$w" paired
done
[ "$(cat "$T/retry/wait0.result")" = "paired made 2 stop no why none left 0" ] &&
	[ "$(cat "$T/retry/wait0.checked")" = "paired process 1/3, the check before it was made again" ] &&
	[ "$(cat "$T/retry/wait0/noisy.txt")" = "paired process 1/3: noise 12.9% (limit 3.0%); set aside as noisy/paired.1.json at 7 s
noise 1.0% (limit 3.0%)
paired process 1/3: waited before the noise check: 0 s, 1 attempt (up to 30 min)" ] &&
	grep -q 'made again once the machine is quiet, up to 30 min (0 more allowed in this run)' "$T/retry/wait0.err" &&
	ok || bad "paired_retry.sh with PAIRED_WAIT, the check passing: $(cat "$T/retry/wait0.result" "$T/retry/wait0.err" "$T/retry/wait0/noisy.txt")"
[ "$(cat "$T/retry/wait1.result")" = "paired made 1 stop 1 why the machine was not quiet within 30 min left 0" ] &&
	[ "$(cat "$T/retry/wait2.result")" = "paired made 1 stop 1 why the check before paired process 1/3 was made again could not run left 0" ] &&
	ok || bad "paired_retry.sh with PAIRED_WAIT, the check failing: $(cat "$T/retry/wait1.result" "$T/retry/wait2.result")"

# What was not run is said, never counted as passed.
[ -z "${gsoap_notrun:-}" ] || echo "3 not run"
finish
