#!/bin/sh
# ab.sh BASE - what `make ab BASE=rev` runs: is the working tree faster
# than the commit BASE?  One variant (VARIANT, default best) is built
# twice: from BASE's files (git archive, into the run's folder) and from
# the working tree as it stands, uncommitted changes included.  The two
# domlab-bench binaries then run in alternating processes, ROUNDS of
# them each, old first in odd rounds and new first in even ones; each
# process runs the cases and a control, a floor part the change does not
# touch (CONTROL, default floor:sha256 at 2 MB), with their repetitions
# interleaved at random.  harness/reports/ab.py turns the rounds into
# old / new per case, with the interval one more round lands in, and
# says when the control moved (the machine drifted between the
# binaries, and no verdict can be trusted).  ICOUNT=1 adds callgrind's
# instructions per iteration of each case on each side, which are
# repeatable where time is not.
#
# Into results/ab-<time>/ (AB_OUT to choose): src/ and build/ (the base),
# runs/old.K.json and runs/new.K.json (Google Benchmark, round K),
# rounds.txt (when, at which load, in which order), icount.tsv, report.md.
#
# Environment (the Makefile passes its variables of the same names):
#   VARIANT   the variant both sides build (default best)
#   CASES     an extended regex of case names, as make compare takes it
#             (default ^(send|receive)/(quakes-200k|quakes-2m)$); one
#             that matches a two-thread case only without its name's
#             tail is refused (case_tails.sh)
#   CONTROL   the same for the control (default ^floor:sha256/quakes-2m$)
#   ROUNDS    processes per side (default 10, at least 3)
#   REPS      repetitions per process (default 5)
#   MIN_TIME  Google Benchmark's --benchmark_min_time (default 0.1)
# report.md prints the command that makes the run again, BASE resolved.
#   ICOUNT=1  callgrind's instructions too
# Not for: comparing variants (make compare, make profile-diff), or a
# published number (make reference): the base is built here, on this
# machine, as the working tree is.
set -eu
base=${1:?usage: ab.sh BASE}
BUILD_DIR=${BUILD_DIR:-build}
VARIANT=${VARIANT:-best}
CASES=${CASES:-^(send|receive)/(quakes-200k|quakes-2m)\$}
CONTROL=${CONTROL:-^floor:sha256/quakes-2m\$}
ROUNDS=${ROUNDS:-10}
REPS=${REPS:-5}
MIN_TIME=${MIN_TIME:-0.1}
ICOUNT=${ICOUNT:-0}
cd "$(dirname "$0")/../.."
python=/usr/bin/python3
[ -x "$python" ] || python=python3

fail() {
	echo "ab: $*" >&2
	exit 1
}
# The binary of a side, old or new.
bin_of() {
	if [ "$1" = old ]; then echo "$old"; else echo "$new"; fi
}
case $ROUNDS in '' | *[!0-9]*) fail "ROUNDS=$ROUNDS is not a number" ;; esac
[ "$ROUNDS" -ge 3 ] || fail "ROUNDS=$ROUNDS: an interval needs 3 rounds or more"
rev=$(git rev-parse --verify --quiet "$base^{commit}") ||
	fail "'$base' is not a commit of this repository"
head=$(git rev-parse HEAD)
dirty=no
git diff --quiet HEAD -- || dirty=yes

out=${AB_OUT:-results/ab-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out/src" "$out/runs"
out=$(cd "$out" && pwd)
echo "[1/3] building $VARIANT at $(git rev-parse --short "$rev") and from the working tree"
git archive "$rev" | tar -x -C "$out/src"
name=$(make -s --no-print-directory variant-name VARIANT="$VARIANT")
make -s --no-print-directory -C "$out/src" VARIANT="$VARIANT" \
	BUILD_DIR="$out/build" domlab-bench >"$out/build.log" 2>&1 ||
	fail "the base did not build, see $out/build.log"
make -s --no-print-directory VARIANT="$VARIANT" keys domlab-bench
old=$out/build/$name/domlab-bench
new=$BUILD_DIR/$name/domlab-bench
[ -x "$old" ] || fail "the base built no $old (is '$VARIANT' a variant at that commit?)"

filter="($CASES)|($CONTROL)"
# The two ways a filter typed for `make ab` most often selects nothing.
hint="a two-thread case's name goes on past its dataset (send_pipelined/quakes-2m/process_time/real_time), and on make's command line each '\$' is written '\$\$'"
for side in old new; do
	"$(bin_of "$side")" bench --floor --keys "$BUILD_DIR/keys" --benchmark_filter="$filter" \
		--benchmark_list_tests=true >"$out/$side.cases" 2>/dev/null || true
done
[ -s "$out/new.cases" ] || fail "no case matches $filter (domlab-bench bench --benchmark_list_tests=true lists them; $hint)"
cmp -s "$out/old.cases" "$out/new.cases" ||
	fail "the two sides do not have the same cases for $filter: $(diff "$out/old.cases" "$out/new.cases" | grep '^[<>]' | tr '\n' ' ')"
grep -Eq "$CONTROL" "$out/new.cases" || fail "no case matches the control $CONTROL"
grep -Evq "$CONTROL" "$out/new.cases" || fail "no case but the control matches $filter ($hint)"
# shellcheck source=harness/reports/case_tails.sh
. harness/reports/case_tails.sh
refusal=$("$new" bench --floor --keys "$BUILD_DIR/keys" \
	--benchmark_list_tests=true 2>/dev/null | lab_cases_tail_refusal "$CASES")
[ -z "$refusal" ] || fail "$refusal"

# shellcheck source=harness/reports/tunables.sh
. harness/reports/tunables.sh
# shellcheck source=harness/reports/icount.sh
. harness/reports/icount.sh
{
	echo "base $rev"
	echo "head $head"
	echo "uncommitted $dirty"
	echo "variant $name"
	echo "filter $filter"
	echo "control $CONTROL"
	# As make takes it: a '$' in a value is written '$$'.
	echo "command make ab BASE=$(git rev-parse --short "$rev") VARIANT=$VARIANT" \
		"CASES='$(printf '%s' "$CASES" | sed 's/\$/$$/g')'" \
		"CONTROL='$(printf '%s' "$CONTROL" | sed 's/\$/$$/g')'" \
		"ROUNDS=$ROUNDS REPS=$REPS MIN_TIME=$MIN_TIME ICOUNT=$ICOUNT"
	echo "repetitions $REPS"
	echo "min_time $MIN_TIME"
	echo "cpu $(cd harness/reports && $python -c 'from run import cpu_id; print(cpu_id())')"
} >"$out/rounds.txt"
echo "[2/3] $ROUNDS rounds of a process each side ($REPS repetitions of $(wc -l <"$out/new.cases") cases)"
# Named, so that a case the filter left out unawares shows here.
sed 's/^/      /' "$out/new.cases"
k=0
while [ "$k" -lt "$ROUNDS" ]; do
	k=$((k + 1))
	order="old new"
	[ $((k % 2)) = 1 ] || order="new old"
	echo "round $k $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) order $order" >>"$out/rounds.txt"
	for side in $order; do
		GLIBC_TUNABLES=$lab_tunables "$(bin_of "$side")" bench --floor \
			--keys "$BUILD_DIR/keys" --benchmark_filter="$filter" \
			--benchmark_repetitions="$REPS" \
			--benchmark_min_time="$MIN_TIME" \
			--benchmark_enable_random_interleaving=true \
			--benchmark_out="$out/runs/$side.$k.json" \
			--benchmark_out_format=json >"$out/runs/$side.$k.log" 2>&1 ||
			fail "round $k's $side process failed, see $out/runs/$side.$k.log"
	done
	printf '.'
done
echo

: >"$out/icount.tsv"
if [ "$ICOUNT" = 1 ]; then
	echo "[3/3] instructions (callgrind)"
	grep -Ev "$CONTROL" "$out/new.cases" | while read -r c; do
		for side in old new; do
			lab_icount "$out/runs/cg" "$c" 3 \
				"$(bin_of "$side")" bench --keys "$BUILD_DIR/keys" || true
			ir=$(lab_icount_total "$out/runs/cg" "$c" 3) ||
				fail "callgrind of $side's $c failed, see $out/runs/cg.log"
			printf '%s\t%s\t%s\n' "$c" "$side" "$((ir / 3))" >>"$out/icount.tsv"
		done
	done
	rm -f "$out/runs/cg.out" "$out/runs/cg.log"
else
	echo "[3/3] instructions: not counted (ICOUNT=1 counts them)"
fi
$python harness/reports/ab.py --dir "$out" >"$out/report.md"
cat "$out/report.md"
echo "wrote $out/report.md"
