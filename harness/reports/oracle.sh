#!/bin/sh
# oracle.sh - what `make oracle` runs: the oracle/* benchmark cases
# (harness/bench/cases.c) for each variant named, every case repeated
# and randomly interleaved with the others in one process, into
# results/oracle/<variant>.json, then oracle.py's ratio table into
# results/oracle/oracle.md.
#
# Not for: the refusals' messages and exit codes (tests/cli.sh).
#
#   sh harness/reports/oracle.sh VARIANT...
#
# Environment: BUILD_DIR (default build); ORACLE_REPS, the repetitions
# (default 30).
set -eu

if [ $# -eq 0 ]; then
	echo "usage: sh harness/reports/oracle.sh VARIANT..." >&2
	exit 1
fi
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
out=results/oracle
mkdir -p "$out"
files=
for v in "$@"; do
	"$BUILD_DIR/$v/domlab-bench" bench --keys "$BUILD_DIR/keys" \
		--benchmark_filter='^oracle/' --benchmark_min_time=0.2 \
		--benchmark_repetitions="${ORACLE_REPS:-30}" \
		--benchmark_enable_random_interleaving=true \
		--benchmark_out="$out/$v.json" --benchmark_out_format=json \
		>/dev/null
	files="$files $out/$v.json"
done
# shellcheck disable=SC2086 # one argument per file
python3 harness/reports/oracle.py $files >"$out/oracle.md"
cat "$out/oracle.md"
