#!/bin/sh
# profile.sh VARIANT DATASET STAGE - what `make profile` runs: one case of
# `domlab-bench bench` (STAGE/DATASET, e.g. send/quakes-200k) profiled four
# ways into results/<run-id>/profiles/<variant>/<stage>-<dataset>/:
#   cpu.prof, pprof.txt, callgraph.svg   gperftools' sampling CPU profiler
#   pprof-addresses.txt                  its samples by address
#   callgrind.out, callgrind.txt         instructions inside the case
#                                        (--icount, ITERS iterations)
#   callgrind-passes.out                 the same with data accesses,
#                                        simulated D1/LL misses and each
#                                        function's 12 callers
#   massif.out, massif.txt               heap over time, and its peak
#   dhat-1.json, dhat-<ITERS+1>.json     bytes read and written per heap
#                                        block, 1 and ITERS+1 iterations
#   run.txt                              commit, date, load, valgrind, CPU
#   profile.md                           top functions, the share of each
#                                        pipeline stage and DOM function,
#                                        each pass's accesses and misses per
#                                        input byte, heap bytes touched
# Environment: PROFILE_ITERS (default 3) iterations counted; PROFILE_LL
# (default 2) the cache level simulated as cachegrind's LL, read with the
# D1's geometry from /sys or getconf (cachegeom.sh; valgrind's own guess,
# with a warning, when neither says).
# Not for: comparing variants (make compare does that).
set -eu
variant=${1:?usage: profile.sh VARIANT DATASET STAGE}
dataset=${2:?dataset}
stage=${3:?stage}
BUILD_DIR=${BUILD_DIR:-build}
cd "$(dirname "$0")/../.."

python=/usr/bin/python3
[ -x "$python" ] || python=python3
iters=${PROFILE_ITERS:-3}
for tool in google-pprof valgrind callgrind_annotate ms_print dot; do
	command -v $tool >/dev/null || {
		echo "profile: $tool is missing; run 'make deps' (as root) or install" \
			"google-perftools libgoogle-perftools-dev valgrind graphviz" >&2
		exit 1
	}
done
# shellcheck source=harness/reports/profiler.sh
. harness/reports/profiler.sh
profiler=$(lab_profiler) || { echo "profile: libprofiler.so not found (libgoogle-perftools-dev)" >&2; exit 1; }

variant=$(make -s --no-print-directory VARIANT="$variant" variant-name) || exit 1
make -s BUILD_DIR="$BUILD_DIR" VARIANT="$variant" domlab-bench keys
bin=$BUILD_DIR/$variant/domlab-bench
commit=$(git rev-parse --short HEAD 2>/dev/null || echo nogit)
run=${RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$commit}
out=results/$run/profiles/$variant/$stage-$dataset
mkdir -p "$out"
# What the counts depend on; valgrind's counts do not depend on the load,
# the gperftools samples do.
{
	echo "commit $commit"
	echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
	echo "valgrind $(valgrind --version)"
	# As machine.txt names it: model, family and the crypto features.
	echo "cpu $(cd harness/reports && $python -c 'from run import cpu_id; print(cpu_id())')"
} >"$out/run.txt"
filter="^$stage/$dataset\$"
bench="$bin bench --keys $BUILD_DIR/keys --benchmark_filter=$filter"
# The timed loop must be the case's: refuse a name that matches nothing.
$bench --benchmark_list_tests=true | grep -qx "$stage/$dataset" || {
	echo "profile: no case $stage/$dataset (domlab-bench bench --benchmark_list_tests=true lists them)" >&2
	exit 1
}
. harness/reports/icount.sh
export GLIBC_TUNABLES="$lab_tunables"

echo "[1/4] gperftools CPU profile of $stage/$dataset ($variant)"
LD_PRELOAD=$profiler CPUPROFILE=$out/cpu.prof CPUPROFILE_FREQUENCY=1000 \
	$bench --benchmark_min_time=2 >"$out/bench.txt" 2>&1
google-pprof --text "$bin" "$out/cpu.prof" >"$out/pprof.txt" 2>/dev/null
# By address too: pprof misnames code in libraries without symbols.
google-pprof --text --addresses "$bin" "$out/cpu.prof" \
	>"$out/pprof-addresses.txt" 2>/dev/null
google-pprof --svg "$bin" "$out/cpu.prof" >"$out/callgraph.svg" 2>/dev/null

# The caches valgrind simulates: this CPU's (cachegeom.sh).
d1=$(sh harness/reports/cachegeom.sh 1 Data)
ll=$(sh harness/reports/cachegeom.sh "${PROFILE_LL:-2}" Unified)
geometry=""
[ -n "$d1" ] && geometry="--D1=$d1"
[ -n "$ll" ] && geometry="$geometry --LL=$ll"
[ -n "$d1" ] && [ -n "$ll" ] ||
	echo "profile: neither /sys nor getconf gives this CPU's L1 data and" \
		"level-${PROFILE_LL:-2} caches; valgrind guesses them, and profile.md" \
		"records what it simulated: check it before reading the misses" >&2

# Only icount_loop is measured (--icount: ITERS calls after an untimed
# warm-up), so set-up and Google Benchmark's own work stay out.
runfn=icount_loop
icount="$bin bench --keys $BUILD_DIR/keys --icount $stage/$dataset --icount-iterations"
echo "[2/4] callgrind (inside $runfn, $iters iterations), then with --cache-sim=yes"
# shellcheck disable=SC2086 # $bin's arguments are words
lab_icount "$out/callgrind" "$stage/$dataset" "$iters" \
	$bin bench --keys $BUILD_DIR/keys || true
bytes=$(sed -n "s|^$stage/$dataset: \([0-9]*\) bytes\$|\1|p" "$out/callgrind.log")
if ! lab_icount_total "$out/callgrind" "$stage/$dataset" "$iters" >/dev/null ||
	[ -z "$bytes" ]; then
	echo "profile: callgrind run failed, see $out/callgrind.log" >&2
	exit 1
fi
# Callers in the names, so a helper two passes share (a writer, memcpy)
# counts for the pass that called it, not for both in proportion.
# shellcheck disable=SC2086 # $geometry is two options or none
valgrind --tool=callgrind --cache-sim=yes $geometry --separate-callers=12 \
	--toggle-collect="$lab_icount_fn" --callgrind-out-file="$out/callgrind-passes.out" \
	$icount "$iters" >"$out/callgrind-passes.log" 2>&1 || {
	echo "profile: callgrind run failed, see $out/callgrind-passes.log" >&2
	exit 1
}
callgrind_annotate --show=Ir --auto=no --threshold=100 --inclusive=yes "$out/callgrind.out" >"$out/callgrind-inclusive.txt" 2>/dev/null
callgrind_annotate --show=Ir --auto=no --threshold=100 "$out/callgrind.out" >"$out/callgrind.txt" 2>/dev/null

echo "[3/4] massif (heap)"
# shellcheck disable=SC2086 # $bench's arguments are words
valgrind --tool=massif --massif-out-file="$out/massif.out" \
	$bench --benchmark_min_time=0.001 >/dev/null 2>"$out/massif.log"
ms_print "$out/massif.out" >"$out/massif.txt"

# Two runs, so their difference is ITERS iterations without set-up.
echo "[4/4] DHAT (heap bytes read and written, 1 and $((iters + 1)) iterations)"
for n in 1 $((iters + 1)); do
	# shellcheck disable=SC2086 # $icount's arguments are words
	valgrind --tool=dhat --num-callers=64 --dhat-out-file="$out/dhat-$n.json" \
		$icount "$n" >"$out/dhat-$n.log" 2>&1 || {
		echo "profile: DHAT run failed, see $out/dhat-$n.log" >&2
		exit 1
	}
done

$python harness/reports/profile_report.py --variant "$variant" --case "$stage/$dataset" \
	--runfn "$runfn" --dir "$out" --iterations "$iters" --bytes "$bytes" \
	>"$out/profile.md"
echo "wrote $out/profile.md"
