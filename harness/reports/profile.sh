#!/bin/sh
# profile.sh VARIANT DATASET STAGE - what `make profile` runs: one case of
# `domlab-bench bench` (STAGE/DATASET, e.g. send/quakes-200k) profiled three
# ways into results/<run-id>/profiles/<variant>/:
#   cpu.prof, pprof.txt, callgraph.svg   gperftools' sampling CPU profiler
#   callgrind.out, callgrind.txt         instruction counts inside the case
#   massif.out, massif.txt               heap over time, and its peak
#   profile.md                           top functions, the share of each
#                                        pipeline stage and DOM function
# Not for: comparing variants (make compare does that).
set -eu
variant=${1:?usage: profile.sh VARIANT DATASET STAGE}
dataset=${2:?dataset}
stage=${3:?stage}
BUILD_DIR=${BUILD_DIR:-build}
cd "$(dirname "$0")/../.."

for tool in google-pprof valgrind callgrind_annotate ms_print dot; do
	command -v $tool >/dev/null || {
		echo "profile: $tool is missing; run 'make deps' (as root) or install" \
			"google-perftools libgoogle-perftools-dev valgrind graphviz" >&2
		exit 1
	}
done
profiler=$(ls /usr/lib/*/libprofiler.so 2>/dev/null | head -n 1)
[ -n "$profiler" ] || { echo "profile: libprofiler.so not found (libgoogle-perftools-dev)" >&2; exit 1; }

variant=$(make -s --no-print-directory VARIANT="$variant" variant-name) || exit 1
make -s BUILD_DIR="$BUILD_DIR" VARIANT="$variant" domlab-bench keys
bin=$BUILD_DIR/$variant/domlab-bench
commit=$(git rev-parse --short HEAD 2>/dev/null || echo nogit)
run=${RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$commit}
out=results/$run/profiles/$variant
mkdir -p "$out"
filter="^$stage/$dataset\$"
bench="$bin bench --keys $BUILD_DIR/keys --benchmark_filter=$filter"
# The timed loop must be the case's: refuse a name that matches nothing.
$bench --benchmark_list_tests=true | grep -qx "$stage/$dataset" || {
	echo "profile: no case $stage/$dataset (domlab-bench bench --benchmark_list_tests=true lists them)" >&2
	exit 1
}
export GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=33554432

echo "[1/3] gperftools CPU profile of $stage/$dataset ($variant)"
LD_PRELOAD=$profiler CPUPROFILE=$out/cpu.prof CPUPROFILE_FREQUENCY=1000 \
	$bench --benchmark_min_time=2 >"$out/bench.txt" 2>&1
google-pprof --text "$bin" "$out/cpu.prof" >"$out/pprof.txt" 2>/dev/null
google-pprof --svg "$bin" "$out/cpu.prof" >"$out/callgraph.svg" 2>/dev/null

# Only the case's run function is measured, so set-up and Google
# Benchmark's own work stay out of the counts.
case $stage in
c14n | sign | verify | send | receive) runfn=lab_wss_run_$stage ;;
*) runfn=run_$stage ;;
esac
echo "[2/3] callgrind (instructions inside $runfn)"
valgrind --tool=callgrind --toggle-collect="$runfn" \
	--callgrind-out-file="$out/callgrind.out" \
	$bench --benchmark_min_time=0.3 >/dev/null 2>"$out/callgrind.log"
callgrind_annotate --auto=no --threshold=100 --inclusive=yes "$out/callgrind.out" >"$out/callgrind-inclusive.txt" 2>/dev/null
callgrind_annotate --auto=no --threshold=100 "$out/callgrind.out" >"$out/callgrind.txt" 2>/dev/null

echo "[3/3] massif (heap)"
valgrind --tool=massif --massif-out-file="$out/massif.out" \
	$bench --benchmark_min_time=0.001 >/dev/null 2>"$out/massif.log"
ms_print "$out/massif.out" >"$out/massif.txt"

python3 harness/reports/profile_report.py --variant "$variant" --case "$stage/$dataset" \
	--runfn "$runfn" --dir "$out" >"$out/profile.md"
echo "wrote $out/profile.md"
