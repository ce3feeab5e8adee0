#!/bin/bash
# campaign.sh DIR VARIANT TARGET CPU RUNS - a long campaign of one target:
# DIR/bin/TARGET at nice 19, in runs of CHUNK wall seconds (the
# environment's FUZZ_CHUNK, 900 by default), until the runs' CPU time
# (user + system) reaches CPU seconds.  Each run grows the work corpus
# DIR/corpus/TARGET from it, the committed corpus and DIR/seeds, with the
# target's dictionary (dicts.sh), and appends one line to RUNS:
#   target variant cpu_s executions cov ft work_corpus commit outcome
# (tab-separated; executions, cov and ft from libFuzzer's final
# statistics and last status line).  harness/reports/fuzz_record.py makes
# the fuzzing record (results/fuzz/record.md) from RUNS (results/fuzz/runs.tsv).
# CPU time, not wall time, is what a campaign is measured in: at nice 19
# on a shared machine a run gets only the idle CPU.  A crash ends the
# campaign (outcome "crash", or "timeout" for an input that runs over 30 s
# even alone), its input in DIR/artifacts/: make it a regression input
# (tests/fuzz/regress/TARGET/) with its fix.  SIGINT to
# the fuzzer ends it too (outcome "interrupted"), with the run recorded.
# Not for: the smoke run of `make check` (run.sh); merging the work corpus
# into the committed one (`make fuzz-merge`).
set -u
usage="usage: campaign.sh DIR VARIANT TARGET CPU RUNS"
DIR=${1:?$usage}
VARIANT=${2:?$usage}
T=${3:?$usage}
CPU=${4:?$usage}
RUNS=${5:?$usage}
CHUNK=${FUZZ_CHUNK:-900}
HERE=$(cd "$(dirname "$0")" && pwd)
commit=$(git -C "$HERE" rev-parse --short=12 HEAD 2>/dev/null || echo -)
seeds=$DIR/seeds/xml
[ -d "$DIR/seeds/$T" ] && seeds=$DIR/seeds/$T
work=$DIR/corpus/$T
mkdir -p "$work" "$DIR/artifacts" "$DIR/logs" "$(dirname "$RUNS")"
sh "$HERE/dicts.sh" "$T" >"$DIR/$T.dict"
[ -f "$RUNS" ] || printf 'target\tvariant\tcpu_s\texecutions\tcov\tft\twork_corpus\tcommit\toutcome\n' >"$RUNS"
# A timeout (libFuzzer's exit code 70) is a finding only if the input
# also times out run alone: on a loaded machine, or one whose fuzzers were
# paused, the timeout's wall clock runs on while the fuzzer does not.
# "slow": it did not, and the campaign goes on; "timeout": it did.
timed_out() {
	unit=$(sed -n 's/.*Test unit written to //p' "$1" | tail -n 1)
	if [ -n "$unit" ] && "$DIR/bin/$T" -timeout=30 "$unit" >"$1.alone" 2>&1; then
		echo slow
	else
		echo timeout
	fi
}

total=0
n=0
TIMEFORMAT='%U %S'
while [ "$total" -lt "$CPU" ]; do
	n=$((n + 1))
	log=$DIR/logs/$T.campaign.$n.log
	# bash's `time` writes the run's user and system seconds last.
	{ time nice -n 19 "$DIR/bin/$T" -max_total_time="$CHUNK" \
		-print_final_stats=1 -timeout=30 -dict="$DIR/$T.dict" \
		-artifact_prefix="$DIR/artifacts/$T-" \
		"$work" "$HERE/corpus/$T" $seeds >"$log" 2>&1; } 2>"$log.time"
	rc=$?
	cpu=$(awk '{ printf "%d", $1 + $2 + 0.5 }' "$log.time")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	covft=$(grep -E '^#[0-9]+.* cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1 |
		sed -E 's/.* cov: ([0-9]+) ft: ([0-9]+).*/\1\t\2/')
	# libFuzzer's exit code for SIGINT (-interrupted_exitcode): stopped
	# by hand, which ends the campaign but is no finding.
	case $rc in
	0) outcome=ok ;;
	72) outcome=interrupted ;;
	70) outcome=$(timed_out "$log") ;;
	*) outcome=crash ;;
	esac
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$T" "$VARIANT" "$cpu" \
		"${execs:-0}" "${covft:-0	0}" "$(ls "$work" | wc -l)" \
		"$commit" "$outcome" >>"$RUNS"
	total=$((total + cpu))
	echo "campaign $T ($VARIANT): run $n, $cpu s CPU, ${execs:-0} executions; $total of $CPU s"
	[ "$outcome" = interrupted ] && exit 2
	if [ "$cpu" -eq 0 ]; then
		echo "FAIL campaign: $T ($VARIANT): a run took no CPU time; log: $log"
		exit 1
	fi
	if [ "$outcome" != ok ] && [ "$outcome" != slow ]; then
		echo "FAIL campaign: $T ($VARIANT) found a crash; log: $log"
		grep -m 3 'ERROR\|SUMMARY\|Test unit written' "$log"
		exit 1
	fi
done
