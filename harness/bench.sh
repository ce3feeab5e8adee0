#!/bin/sh
# bench.sh - what `make bench` runs: builds each variant named on the
# command line, runs `domlab bench` on each and the libxml2 reference once,
# and writes results/<run-id>/ (one Google Benchmark JSON and console log
# per variant, ref.json, summary.md); results/latest points at the newest.
#
# Not for: choosing what is measured (harness/cases.c) or how
# (harness/bench.cc).  results/README.md explains the output.
#
#   sh harness/bench.sh VARIANT...     (the first variant also runs the ref)
set -eu

if [ $# -eq 0 ]; then
	echo "usage: sh harness/bench.sh VARIANT..." >&2
	exit 1
fi
cd "$(dirname "$0")/.."

start=$(date +%s)
elapsed() {
	echo $(($(date +%s) - start))
}

commit=$(git rev-parse --short HEAD 2>/dev/null || echo nogit)
# Results from a tree that differs from the commit must say so.
if [ "$commit" != nogit ] && [ -n "$(git status --porcelain)" ]; then
	commit="$commit-dirty"
fi
run=$(date -u +%Y%m%dT%H%M%SZ)-$commit
out=results/$run
mkdir -p "$out"

# The malloc settings harness/memhooks.c applies with mallopt(), here from
# the process's first allocation on (Google Benchmark's static set-up).
tunables=glibc.malloc.trim_threshold=1073741824
tunables=$tunables:glibc.malloc.mmap_threshold=33554432
# 3 x 0.1 s per case keeps 8 variants well under 5 minutes on 2 cores.
flags="--benchmark_min_time=0.1 --benchmark_repetitions=3"
flags="$flags --benchmark_report_aggregates_only=true"

n=$#
k=0
for v in "$@"; do
	k=$((k + 1))
	echo "[$k/$n] build $v ($(elapsed) s)"
	if ! make -s -j"$(nproc)" VARIANT="$v" "build/$v/domlab" \
		>"$out/build-$v.log" 2>&1; then
		cat "$out/build-$v.log" >&2
		exit 1
	fi
done

# bench NAME VARIANT [ARGS...]: one domlab run into $out/NAME.{json,log}.
# $flags stays unquoted: it is a list of words.
bench() {
	b_name=$1
	b_bin=build/$2/domlab
	shift 2
	if ! env GLIBC_TUNABLES="$tunables" "$b_bin" bench "$@" $flags \
		--benchmark_out="$out/$b_name.json" --benchmark_out_format=json \
		>"$out/$b_name.log" 2>&1; then
		tail -n 20 "$out/$b_name.log" >&2
		echo "bench: $b_name failed; see $out/$b_name.log" >&2
		exit 1
	fi
}

k=0
for v in "$@"; do
	k=$((k + 1))
	echo "[$k/$n] run $v ($(elapsed) s)"
	bench "$v" "$v"
done
echo "[ref] run libxml2 reference in build/$1 ($(elapsed) s)"
bench ref "$1" --ref --benchmark_filter='^ref:'

python3 harness/summary.py --dir "$out" --commit "$commit" \
	--flags "$flags" --elapsed "$(elapsed)" "$@" ref >"$out/summary.md"
ln -sfn "$run" results/latest
echo "done in $(elapsed) s: $out/summary.md"
