#!/bin/sh
# remake.sh RUN [README] - a committed run's reports made again from its
# files: summary.md (with summary.json and the plots), FINDINGS.md and
# recheck.md, and, given README, its results table
# (harness/reports/readme_results.py).  What `make recheck KEEP=1` runs
# after keeping a recheck in RUN, whose intervals then count it.
#
# Not for: measuring anything (compare.sh, recheck.py), or a run still
# being made (compare.sh writes its reports itself).
set -eu
run=${1:?usage: remake.sh RUN [README]}
readme=${2:-}
python=/usr/bin/python3
[ -x "$python" ] || python=python3
[ -f "$run/commands.tsv" ] || {
	echo "remake: $run has no commands.tsv: not a run" >&2
	exit 1
}
# The run's own variants and peers: every command but the paired ones.
runs=$(cut -f1 "$run/commands.tsv" | grep -v '^paired' | tr '\n' ' ')
# shellcheck disable=SC2086
"$python" harness/reports/summary.py --dir "$run" --plots $runs \
	>"$run/summary.md.tmp"
mv "$run/summary.md.tmp" "$run/summary.md"
# shellcheck disable=SC2086
"$python" harness/reports/findings.py --dir "$run" $runs >"$run/FINDINGS.md.tmp"
mv "$run/FINDINGS.md.tmp" "$run/FINDINGS.md"
"$python" harness/reports/recheck.py --run "$run" --history
[ -z "$readme" ] ||
	"$python" harness/reports/readme_results.py --run "$run" --readme "$readme"
if [ -n "$readme" ]; then
	echo "remake: the reports of $run made again, and the results table of $readme"
else
	echo "remake: the reports of $run made again"
fi
