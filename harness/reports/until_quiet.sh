#!/bin/sh
# until_quiet.sh MINUTES NAME CHECK... - one of `make reference`'s
# checks before its two hours (NAME: load, quiet.sh; noise,
# preflight.sh), or compare.sh's noise check before it makes a noisy
# paired process again (PAIRED_WAIT), allowed to wait for a quiet
# machine: CHECK runs, and while it exits 1 (not quiet) and MINUTES have
# not gone by, it runs again PAUSE seconds later (default 300), so that
# a run can be started and left to begin (or go on) in the next quiet
# window.  Prints the last attempt's standard output (the lines
# machine.txt records), how long it slept between attempts and how many
# it made; exits with that attempt's status.  Any other status (the
# check could not run) ends the wait at once.  MINUTES 0 is one attempt.
#
# Not for: judging a process the run made (compare.sh, preflight.py
# --during).
set -u
minutes=${1:?usage: until_quiet.sh MINUTES NAME CHECK...}
name=${2:?usage: until_quiet.sh MINUTES NAME CHECK...}
shift 2
pause=${PAUSE:-300}
start=$(date +%s)
slept=0
attempts=0
last=$(mktemp)
trap 'rm -f "$last"' EXIT
while :; do
	rc=0
	attempts=$((attempts + 1))
	"$@" >"$last" || rc=$?
	waited=$(($(date +%s) - start))
	if [ "$rc" != 1 ] || [ $((waited + pause)) -ge $((minutes * 60)) ]; then
		break
	fi
	echo "until_quiet: the $name check failed; again in $pause s (waited $waited s of $minutes min)" >&2
	sleep "$pause"
	slept=$((slept + pause))
done
cat "$last"
times=attempts
[ "$attempts" = 1 ] && times=attempt
echo "waited before the $name check: $slept s, $attempts $times (up to $minutes min)"
exit "$rc"
