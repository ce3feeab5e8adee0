#!/bin/sh
# check.sh - `make oss-fuzz-check`: runs build.sh as OSS-Fuzz's builder
# would (a temporary $SRC holding the checkout as $SRC/domlab, $WORK and
# $OUT; clang; ASan and UBSan in $CFLAGS; libFuzzer as
# $LIB_FUZZING_ENGINE), then checks what it made: every fuzzer in $OUT has
# a non-empty seed zip and a dictionary libFuzzer accepts, runs over every
# seed once (-runs=0), and runs a short bounded campaign from them (a fixed
# seed, CHECK_RUNS inputs or CHECK_SECONDS, whichever ends first), each
# from a working folder other than $OUT, as the engines run them.  One
# pass or failure per fuzzer; prints "N passed, N failed".
# Not for: the engine itself (no docker, no OSS-Fuzz checkout), or the
# Makefile's smoke run (`make check`).
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/src" "$T/work" "$T/out" "$T/run"
ln -s "$ROOT" "$T/src/domlab"
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
SRC=$T/src WORK=$T/work OUT=$T/out CC=clang CXX=clang++ \
	CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only $san -fsanitize=fuzzer-no-link" \
	CXXFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only $san -fsanitize=fuzzer-no-link" \
	LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
	bash "$ROOT/tests/fuzz/oss-fuzz/build.sh"

runs=${CHECK_RUNS:-2000}
secs=${CHECK_SECONDS:-10}
pass=0
fail=0
for f in "$T"/out/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	n=$(basename "$f")
	log=$T/run/$n.log
	mkdir -p "$T/run/$n/seeds" "$T/run/$n/corpus"
	if [ ! -s "$f.dict" ] || [ ! -s "${f}_seed_corpus.zip" ] ||
		! unzip -q "${f}_seed_corpus.zip" -d "$T/run/$n/seeds"; then
		fail=$((fail + 1))
		echo "FAIL oss-fuzz: $n has no dictionary or no seed zip"
		continue
	fi
	if (cd "$T/run" && "$f" -dict="$f.dict" -runs=0 "$n/seeds" &&
		"$f" -dict="$f.dict" -seed=1 -runs="$runs" \
			-max_total_time="$secs" "$n/corpus" "$n/seeds") \
		>"$log" 2>&1; then
		pass=$((pass + 1))
		echo "oss-fuzz $n: $(ls "$T/run/$n/seeds" | wc -l) seeds; $(grep 'DONE' "$log" | tail -1)"
	else
		fail=$((fail + 1))
		echo "FAIL oss-fuzz: $n; its log:"
		grep -m 5 'ERROR\|SUMMARY\|receive_diff:\|Parse error' "$log" || tail -5 "$log"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
