#!/bin/sh
# profile_diff.sh A B STAGE DATASET - what `make profile-diff` runs: one
# case of `domlab-bench bench` (STAGE/DATASET, e.g. c14n/quakes-200k)
# profiled on two variants, and one report of where they differ, in
# results/<run-id>/profile-diff/<A>-vs-<B>/:
#   a.callgrind.out, b.callgrind.out   instructions inside icount_loop
#                                      (--icount: the case's run calls only)
#   a.*.txt, b.*.txt                   callgrind_annotate, inclusive and self
#   a.prof, b.prof, pprof-diff.txt     gperftools' CPU samples of as many
#                                      runs on each side, and B with A
#                                      subtracted (pprof --base)
#   a.flame.svg, b.flame.svg           a flame graph of each side
#   report.md                          instructions per iteration of each,
#                                      functions and pipeline stages ranked
#                                      by their difference
# Not for: one variant's profile (profile.sh) or timing (make compare).
set -eu
A=${1:?usage: profile_diff.sh A B STAGE DATASET}
B=${2:?usage: profile_diff.sh A B STAGE DATASET}
stage=${3:?stage}
dataset=${4:?dataset}
BUILD_DIR=${BUILD_DIR:-build}
ITERS=${ICOUNT_ITERS:-3}
cd "$(dirname "$0")/../.."
python=/usr/bin/python3
[ -x "$python" ] || python=python3

for tool in valgrind callgrind_annotate; do
	command -v $tool >/dev/null || {
		echo "profile-diff: $tool is missing; run 'make deps' (as root) or install valgrind" >&2
		exit 1
	}
done
# gperftools' part is left out, and the report says so, without it.
# shellcheck source=harness/reports/profiler.sh
. harness/reports/profiler.sh
profiler=$(lab_profiler) || profiler=""
command -v google-pprof >/dev/null || profiler=""

a=$(make -s --no-print-directory VARIANT="$A" variant-name) || exit 1
b=$(make -s --no-print-directory VARIANT="$B" variant-name) || exit 1
case=$stage/$dataset
commit=$(git rev-parse --short HEAD 2>/dev/null || echo nogit)
run=${RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$commit}
out=results/$run/profile-diff/$a-vs-$b
mkdir -p "$out"
. harness/reports/icount.sh
export GLIBC_TUNABLES="$lab_tunables"

# count SIDE VARIANT: the case's instructions on one side, $out/SIDE.*
count() {
	side=$1 v=$2
	make -s BUILD_DIR="$BUILD_DIR" VARIANT="$v" domlab-bench keys
	bench="$BUILD_DIR/$v/domlab-bench bench --keys $BUILD_DIR/keys"
	$bench --benchmark_list_tests=true | grep -qxF "$case" || {
		echo "profile-diff: no case $case (domlab-bench bench --benchmark_list_tests=true lists them)" >&2
		exit 1
	}
	echo "[$side] callgrind: $case on $v, $ITERS iterations"
	# shellcheck disable=SC2086
	lab_icount "$out/$side.callgrind" "$case" "$ITERS" $bench || true
	lab_icount_total "$out/$side.callgrind" "$case" "$ITERS" >/dev/null || {
		echo "profile-diff: callgrind of $case on $v failed; see $out/$side.callgrind.log" >&2
		exit 1
	}
	callgrind_annotate --auto=no --threshold=100 --inclusive=yes \
		"$out/$side.callgrind.out" >"$out/$side.inclusive.txt" 2>/dev/null
	callgrind_annotate --auto=no --threshold=100 \
		"$out/$side.callgrind.out" >"$out/$side.self.txt" 2>/dev/null
}

# sample SIDE VARIANT N: gperftools on N runs of the case; the stacks
# under icount_loop only, so set-up is out and both sides do the same work.
sample() {
	side=$1 v=$2 n=$3
	bin=$BUILD_DIR/$v/domlab-bench
	echo "[$side] gperftools: $case on $v, $n iterations"
	LD_PRELOAD=$profiler CPUPROFILE=$out/$side.prof CPUPROFILE_FREQUENCY=1000 \
		"$bin" bench --keys "$BUILD_DIR/keys" --icount "$case" \
		--icount-iterations "$n" >"$out/$side.sample.log" 2>&1
	grep -qxF "$case: $n iterations" "$out/$side.sample.log" || {
		echo "profile-diff: gperftools run of $case on $v failed; see $out/$side.sample.log" >&2
		exit 1
	}
	# --raw carries the side's own symbols: A's and B's profiles come
	# from two binaries.
	google-pprof --raw "$bin" "$out/$side.prof" >"$out/$side.raw" 2>/dev/null
	google-pprof --collapsed --focus=icount_loop "$bin" "$out/$side.prof" \
		>"$out/$side.collapsed" 2>/dev/null
	google-pprof --text --focus=icount_loop "$out/$side.raw" 2>/dev/null |
		sed -n 's/^Total: \([0-9]*\) samples$/\1/p' >"$out/$side.samples"
	"$python" harness/reports/flamegraph.py --title "$case, $v" \
		"$out/$side.collapsed" >"$out/$side.flame.svg"
}

count a "$a"
count b "$b"
if [ -n "$profiler" ]; then
	# As many iterations as make the larger side about 2e10 instructions
	# (seconds of CPU: the profiler's 1 kHz is the kernel tick's, often
	# 250 Hz, at most), the same on both.
	most=$(sed -n 's/^totals: *//p' "$out/a.callgrind.out" "$out/b.callgrind.out" | sort -n | tail -n 1)
	n=$((20000000000 * ITERS / (most + 1) + 1))
	[ "$n" -ge "$ITERS" ] || n=$ITERS
	sample a "$a" "$n"
	sample b "$b" "$n"
	google-pprof --text --focus=icount_loop --base="$out/a.raw" "$out/b.raw" \
		>"$out/pprof-diff.txt" 2>/dev/null
	echo "$n" >"$out/sample-iterations"
fi
"$python" harness/reports/profile_diff_report.py --a "$a" --b "$b" \
	--case "$case" --iterations "$ITERS" --dir "$out" >"$out/report.md"
echo "wrote $out/report.md"
