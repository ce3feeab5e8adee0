#!/bin/sh
# quiet.sh LIMIT - whether the machine is quiet enough for the run the
# documentation quotes (`make reference`): prints the load average, and
# refuses (exit 1, saying why) when its 1-minute value is above LIMIT,
# unless FORCE=1, which lets the run go on and says so; exits 2 when it
# cannot read the load.  Its two lines on standard output (the load, and
# whether it was forced past the limit) are what machine.txt records.
#
# Not for: judging a run afterwards (machine.txt records the load each
# run saw at its start).  LOADAVG_FILE reads another file in
# /proc/loadavg's format (the tests give it a made-up load).
set -u
limit=${1:?usage: quiet.sh LIMIT}
file=${LOADAVG_FILE:-/proc/loadavg}
if ! read -r one five fifteen _ <"$file"; then
	echo "quiet: cannot read the load average from $file" >&2
	exit 2
fi
echo "load average: $one $five $fifteen (limit $limit on the 1-minute value)"
if awk -v x="$one" -v l="$limit" 'BEGIN { exit !(x + 0 > l + 0) }'; then
	if [ "${FORCE:-}" = 1 ]; then
		echo "forced above the limit: yes"
		echo "quiet: load $one above $limit, going on as FORCE=1 asks" >&2
		exit 0
	fi
	echo "quiet: load $one above $limit: the numbers would carry the other work on this machine; wait for a quiet machine, or FORCE=1 to run anyway (machine.txt will say so)" >&2
	exit 1
fi
echo "forced above the limit: no"
exit 0
