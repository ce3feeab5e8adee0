# icount.sh - sourced by the scripts that count a case's instructions
# (compare.sh, profile_diff.sh, ab.sh): one domlab-bench case under
# callgrind, and the check that the count is whole.  `domlab-bench bench
# --icount CASE --icount-iterations N` sets up, calls the case once
# untimed, then N times inside icount_loop(); callgrind collects only
# inside that function, with the lab's malloc settings (tunables.sh), and
# domlab-bench prints "CASE: N iterations" only when every call
# succeeded.  A count is taken only with that line: valgrind's exit code
# is the program's, and a crash can still leave a partial totals: line.
# Not for: choosing the cases or what is done with the counts.
# shellcheck shell=sh

# shellcheck source=harness/reports/tunables.sh
. harness/reports/tunables.sh

# What callgrind collects inside (--toggle-collect): icount_loop, or a
# clone of it the compiler made.
lab_icount_fn='icount_loop*'

# lab_icount FILE CASE N COMMAND...: COMMAND (a domlab-bench and its
# arguments up to --icount) on CASE, N iterations, under callgrind into
# FILE.out, its output into FILE.log; the status is valgrind's, which
# lab_icount_total does not trust.  May run in the background.
lab_icount() {
	lab_f=$1 lab_c=$2 lab_n=$3
	shift 3
	GLIBC_TUNABLES=$lab_tunables valgrind --tool=callgrind \
		--toggle-collect="$lab_icount_fn" \
		--callgrind-out-file="$lab_f.out" \
		"$@" --icount "$lab_c" --icount-iterations "$lab_n" \
		>"$lab_f.log" 2>&1
}

# lab_icount_total FILE CASE N: prints the instructions FILE.out counted
# over the N iterations; fails when domlab-bench did not report all N.
lab_icount_total() {
	lab_ir=$(sed -n 's/^totals: *//p' "$1.out" 2>/dev/null)
	grep -qxF "$2: $3 iterations" "$1.log" 2>/dev/null &&
		[ -n "$lab_ir" ] && echo "$lab_ir"
}
