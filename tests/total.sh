#!/bin/sh
# total.sh FILE - sums the "N passed, N failed" lines that the test runs
# appended to FILE and prints the total as the last line; exits non-zero if
# anything failed or if no test ran at all.  Tests a suite could not run (a
# missing optional peer: "N not run") are summed on a line of their own,
# never counted as passed.
set -eu
f=${1:?usage: total.sh results-file}
awk '
/^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3; runs++ }
/^[0-9]+ not run$/ { n += $1 }
END {
	if (n > 0)
		printf "%d not run\n", n
	printf "%d passed, %d failed\n", p, f
	exit (runs == 0 || p == 0 || f > 0) ? 1 : 0
}' "$f"
