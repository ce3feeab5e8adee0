#!/bin/sh
# preflight.sh NOISE [DURING] - `make reference`'s check before it
# starts: best's domlab-bench runs the paired process without its 2 MB
# message (paired.sh's cases and flags; about a minute) into
# $BUILD_DIR/.reference-preflight.json, and preflight.py judges its
# noise against NOISE (0.03: 3%).  Prints preflight.py's lines for
# machine.txt (with DURING, its one line naming DURING: compare.sh's
# PAIRED_WAIT runs it within a run); exits 1 when the process was
# noisier (unless FORCE=1), 2 when it could not be measured or judged.
#
# Not for: the load (quiet.sh) or judging the paired processes of a run
# (compare.sh).  BUILD_DIR and KEYS_DIR as the Makefile has them.
set -u
noise=${1:?usage: preflight.sh NOISE [DURING]}
during=${2:-}
BUILD_DIR=${BUILD_DIR:-build}
KEYS_DIR=${KEYS_DIR:-$BUILD_DIR/keys}
python=/usr/bin/python3
[ -x "$python" ] || python=python3
. harness/reports/tunables.sh
. harness/reports/paired.sh
# shellcheck disable=SC2046 # the flags are words
if ! GLIBC_TUNABLES=$lab_tunables "$BUILD_DIR/best/domlab-bench" bench \
	--ref --floor --keys "$KEYS_DIR" \
	--benchmark_filter="^($lab_paired_cases)/($lab_paired_preflight_datasets)\$" \
	$(lab_paired_flags 0.1) \
	--benchmark_out="$BUILD_DIR/.reference-preflight.json" \
	--benchmark_out_format=json >/dev/null \
	2>"$BUILD_DIR/.reference-preflight.log"; then
	echo "preflight: domlab-bench failed; see $BUILD_DIR/.reference-preflight.log" >&2
	exit 2
fi
exec "$python" harness/reports/preflight.py \
	--json "$BUILD_DIR/.reference-preflight.json" --noise "$noise" \
	${during:+--during "$during"}
