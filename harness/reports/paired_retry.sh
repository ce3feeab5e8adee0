# paired_retry.sh - sourced by compare.sh: a paired process made, judged
# by its noise (preflight.py --during) and, while it is noisier than
# PAIRED_NOISE and the run has retries left, set aside and made again.
# Apart from compare.sh so that tests/harness.sh can run this policy on
# processes it makes up, in a second, without a benchmark.
#
# lab_paired_made OUT NAME DURING MAKER...: MAKER (a command or the
# caller's function) writes OUT/NAME.json and OUT/NAME.log; DURING names
# the process in what is printed.  Once a process is steady enough (or
# PAIRED_NOISE is empty), lab_paired_stop is empty; when the run must
# stop, it is 1, with the reason in lab_paired_why (empty when
# preflight.py said it already).  It returns 0 either way: called
# within `||` or `if`, set -e would be off in MAKER too.
# A process set aside goes to OUT/noisy/NAME.<n>.{json,log}, <n>
# counting the run's set-asides, with its line in OUT/noisy.txt; it is
# made again after PAIRED_PAUSE seconds, or with PAIRED_WAIT once
# lab_paired_check passes (until_quiet.sh and preflight.sh, the check
# `make reference` starts with), whose lines go into noisy.txt too.
#
# The caller sets PAIRED_NOISE, PAIRED_RETRIES (for the whole run: each
# set-aside spends one), PAIRED_PAUSE, PAIRED_WAIT, BUILD_DIR and
# KEYS_DIR as compare.sh documents them, and defines elapsed, the run's
# seconds so far.  Not for: making the process, or judging a whole run
# (steady.py).
# shellcheck shell=sh disable=SC2034 # the caller reads lab_paired_stop, _why

lab_paired_left=${PAIRED_RETRIES:-0}
lab_paired_stop=
lab_paired_why=
lab_paired_py=/usr/bin/python3
[ -x "$lab_paired_py" ] || lab_paired_py=python3

lab_paired_made() {
	m_out=$1
	m_name=$2
	m_during=$3
	shift 3
	lab_paired_stop=
	lab_paired_why=
	while :; do
		"$@"
		[ -n "$PAIRED_NOISE" ] || return 0
		m_rc=0
		m_line=$("$lab_paired_py" harness/reports/preflight.py \
			--json "$m_out/$m_name.json" --noise "$PAIRED_NOISE" \
			--during "$m_during" 2>"$m_out/.why") || m_rc=$?
		[ -z "$m_line" ] || echo "$m_line"
		m_why=$(cat "$m_out/.why")
		rm -f "$m_out/.why"
		if [ "$m_rc" = 0 ]; then
			[ -z "$m_why" ] || echo "$m_why" >&2
			return 0
		fi
		# 1 is noisy; anything else, a process it could not judge.
		if [ "$m_rc" != 1 ] || [ "$lab_paired_left" -le 0 ]; then
			echo "$m_why" >&2
			lab_paired_stop=1
			return 0
		fi
		lab_paired_set_aside "$m_out" "$m_name" "$m_line"
		[ -z "$lab_paired_stop" ] || return 0
		if [ -z "$PAIRED_WAIT" ]; then
			echo "compare: $m_during set aside as noisy; made again in $PAIRED_PAUSE s ($lab_paired_left more allowed in this run)" >&2
			sleep "$PAIRED_PAUSE"
		else
			echo "compare: $m_during set aside as noisy; made again once the machine is quiet, up to $PAIRED_WAIT min ($lab_paired_left more allowed in this run)" >&2
			lab_paired_wait "$m_out" "$m_during"
			[ -z "$lab_paired_stop" ] || return 0
		fi
	done
}

# lab_paired_set_aside OUT NAME LINE: NAME's files into OUT/noisy/,
# numbered in the run's order so that no name is taken twice, and
# preflight.py's LINE for it into noisy.txt; spends one retry.  A step
# that fails stops the run.
lab_paired_set_aside() {
	lab_paired_left=$((lab_paired_left - 1))
	s_to=noisy/$2.$((PAIRED_RETRIES - lab_paired_left))
	if ! { mkdir -p "$1/noisy" && mv "$1/$2.json" "$1/$s_to.json" &&
		mv "$1/$2.log" "$1/$s_to.log" &&
		echo "$3; set aside as $s_to.json at $(elapsed) s" >>"$1/noisy.txt"; }; then
		lab_paired_why="$2 could not be set aside in $1/noisy"
		lab_paired_stop=1
	fi
}

# lab_paired_wait OUT DURING: PAIRED_WAIT's wait before the process
# DURING names is made again; the check's lines go into noisy.txt, and
# one that never passed, or could not run, stops the run.
lab_paired_wait() {
	w_rc=0
	w_lines=$(lab_paired_check "$2, the check before it was made again") ||
		w_rc=$?
	echo "$w_lines" | awk -v p="$2" '/^waited/ { $0 = p ": " $0 } 1' \
		>>"$1/noisy.txt"
	if [ "$w_rc" = 1 ]; then
		lab_paired_why="the machine was not quiet within $PAIRED_WAIT min"
		lab_paired_stop=1
	elif [ "$w_rc" != 0 ]; then
		lab_paired_why="the check before $2 was made again could not run"
		lab_paired_stop=1
	fi
}

# lab_paired_check DURING: the check, waiting up to PAIRED_WAIT minutes
# for it to pass; its lines for noisy.txt on stdout.
lab_paired_check() {
	BUILD_DIR=$BUILD_DIR KEYS_DIR=$KEYS_DIR PAUSE=$PAIRED_PAUSE \
		sh harness/reports/until_quiet.sh "$PAIRED_WAIT" noise \
		sh harness/reports/preflight.sh "$PAIRED_NOISE" "$1"
}
