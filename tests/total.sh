#!/bin/sh
# total.sh FILE - sums the "N passed, N failed" lines that the test runs
# appended to FILE and prints the total as the last line; exits non-zero if
# anything failed or if no test ran at all.
set -eu
f=${1:?usage: total.sh results-file}
awk '
/^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3; runs++ }
END {
	printf "%d passed, %d failed\n", p, f
	exit (runs == 0 || p == 0 || f > 0) ? 1 : 0
}' "$f"
