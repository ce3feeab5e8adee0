#!/bin/sh
# suite.sh RESULTS NAME COMMAND... - runs one test suite, appends its output
# to RESULTS and prints its last line (after its failures and its count of
# tests not run).  A suite that crashes or exits
# non-zero without reporting a failure (an abort, a sanitizer report, a
# signal) is counted as one failure, so tests/total.sh cannot sum a dead
# suite as a clean one.
set -u
results=${1:?usage: suite.sh RESULTS NAME COMMAND...}
name=${2:?usage: suite.sh RESULTS NAME COMMAND...}
shift 2
out=$(mktemp)
"$@" >"$out" 2>&1
status=$?
last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
failed=$(echo "$last" | awk '{ print ($3 == "" ? 0 : $3) }')
if [ "$status" -ne 0 ] && [ "${failed:-0}" -eq 0 ]; then
	echo "FAIL $name: exited with status $status without reporting a failure" >>"$out"
	tail -n 20 "$out" | sed 's/^/  | /' >&2
	echo "0 passed, 1 failed" >>"$out"
fi
cat "$out" >>"$results"
grep -E '^FAIL' "$out" | head -n 20
grep -E '^[0-9]+ not run$' "$out"
tail -n 1 "$out"
rm -f "$out"
