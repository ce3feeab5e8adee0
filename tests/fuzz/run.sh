#!/bin/sh
# run.sh smoke|fuzz DIR N RESULTS TARGET... - runs the fuzz targets built
# in DIR/bin, one at a time.
#   smoke: N is RUNS/SECONDS: each target from a fresh work corpus with a
#          fixed seed for RUNS inputs or SECONDS, whichever ends first,
#          then each input under tests/fuzz/regress/<target>/ once; prints
#          "N passed, N failed" (one per target run and per regression
#          input) and appends it to RESULTS unless that is "-".
#   fuzz:  N seconds each, growing the work corpus DIR/corpus/<target>;
#          prints each target's executions and what it found.
# Seeds: tests/fuzz/corpus/<target>/ and DIR/seeds/<target>/ (or
# DIR/seeds/xml for a target without its own; seeds.sh).  A crash's input
# is saved as DIR/artifacts/<target>-crash-...: make it a regression input.
set -u
usage="usage: run.sh smoke|fuzz DIR N RESULTS TARGET..."
MODE=${1:?$usage}
DIR=${2:?$usage}
N=${3:?$usage}
RESULTS=${4:?$usage}
shift 4
HERE=$(cd "$(dirname "$0")" && pwd)
pass=0
fail=0
mkdir -p "$DIR/artifacts" "$DIR/logs"
for t in "$@"; do
	bin=$DIR/bin/$t
	seeds=
	[ -d "$HERE/corpus/$t" ] && seeds="$HERE/corpus/$t"
	if [ -d "$DIR/seeds/$t" ]; then seeds="$seeds $DIR/seeds/$t"; else seeds="$seeds $DIR/seeds/xml"; fi
	log=$DIR/logs/$t.$MODE.log
	if [ "$MODE" = smoke ]; then
		work=$DIR/smoke/$t
		rm -rf "$work"
		mkdir -p "$work"
		opts="-runs=${N%/*} -max_total_time=${N#*/} -seed=1"
	else
		work=$DIR/corpus/$t
		mkdir -p "$work"
		opts="-max_total_time=$N -print_final_stats=1"
	fi
	# shellcheck disable=SC2086 # opts and seeds are lists (no spaces in paths)
	if "$bin" $opts -artifact_prefix="$DIR/artifacts/$t-" "$work" $seeds >"$log" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL fuzz: $t ($DIR) found a crash; log: $log"
		grep -m 3 'ERROR\|SUMMARY\|Test unit written' "$log"
	fi
	if [ "$MODE" = fuzz ]; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "fuzz $t ($DIR): $N s, ${execs:-?} executions, corpus $(ls "$work" | wc -l) inputs"
		continue
	fi
	[ -d "$HERE/regress/$t" ] || continue
	for r in "$HERE/regress/$t"/*; do
		[ -f "$r" ] || continue
		if "$bin" "$r" >"$DIR/logs/$t.regress.log" 2>&1; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL fuzz: $t on regression input $r; log: $DIR/logs/$t.regress.log"
			grep -m 3 'ERROR\|SUMMARY' "$DIR/logs/$t.regress.log"
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$RESULTS" = - ] || echo "$pass passed, $fail failed" >>"$RESULTS"
[ "$fail" -eq 0 ]
