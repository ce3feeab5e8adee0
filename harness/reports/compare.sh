#!/bin/sh
# compare.sh - what `make compare` and `make bench` run: builds each
# variant named on the command line, runs `domlab-bench bench` on each with
# repetitions, runs the libxml2 reference (--ref; the gSOAP peer's gsoap:
# cases with it, when domlab-bench has them), the pugixml peer (its
# pugi: cases, also behind --ref) and the floor (--floor) once each;
# between those runs, spread evenly, best, ref, gsoap and the floor's send
# and receive side by side in one process (PAIRED_RUNS times) and the
# rounds of the pairs of variants (ALTERNATE); then it
# optionally counts instructions per iteration under callgrind, runs the
# load scenario over HTTP (harness/reports/load.sh), and writes
# results/<run-id>/ (Google Benchmark JSON, console log and command per
# run, summary.md, FINDINGS.md, plots/); results/latest points at the
# newest.
#
# Not for: choosing what is measured (harness/bench/cases.c), how it is timed
# (harness/bench/bench.cc) or how it is reported (harness/reports/summary.py,
# harness/reports/findings.py).
# results/README.md explains the output.
#
#   sh harness/reports/compare.sh VARIANT...
#
# VARIANT is a name as the Makefile takes it (best, best+attrs=vector);
# each is built and reported under its canonical name (`make
# variant-name`).  Names hold '+' and '=': a build path is never an
# argument to env or to make, which would read it as an assignment.
#
# Environment (the Makefile passes its variables of the same names):
#   BUILD_DIR   where the variants are built (default build)
#   QUICK=1     the quick compare `make bench` is: 3 repetitions
#   FULL=1      adds the full-only datasets (quakes-20m), 10 repetitions,
#               and the token-store and attachment scenarios over HTTP
#   CASES       an extended regular expression: only the cases whose names
#               match it, without their ref:/gsoap:/pugi:/floor: prefix, run, in
#               every variant and in ref, pugixml and floor alike (a run
#               left with no case is skipped); e.g. '^(tokens|attachment)'.
#               One that matches a two-thread case's name only without
#               its tail (send_pipelined/quakes-2m$, for the case named
#               send_pipelined/quakes-2m/process_time/real_time) stops
#               the run before it starts (case_tails.sh)
#   ICOUNT=1    also instructions per iteration, callgrind (see icount())
#   ICOUNT_ITERS  iterations counted per case (default 3)
#   ICOUNT_CASES  an extended regular expression: count only the cases
#               whose full names (prefix included) match it (default: all)
#   MIN_TIME    --benchmark_min_time per repetition (default 0.1 s)
#   ALTERNATE=K K rounds of each pair of variants that FINDINGS.md and
#               the ablation chart compare, narrowed to the pair's cases
#               (with CASES, to the run's), the two one right after the
#               other (harness/reports/rounds.py; alternate/): a round's
#               ratio is free of the drift between runs minutes apart,
#               and with 3 or more rounds each ratio has the interval one
#               more round lands in
#   PAIRED_RUNS=K  the paired run in K processes (paired.json,
#               paired.2.json .. paired.K.json; default 1): with 3 or
#               more, each ratio of the side-by-side table has the
#               interval one more process lands in (summary.py)
#               The paired processes and the rounds run spread evenly
#               across the variants' runs (see the slots below).
#   PAIRED_NOISE  the most noise a paired process may show (0.03: its
#               cases' repetitions vary by a median coefficient of
#               variation of 3%; harness/reports/preflight.py --during):
#               a noisier one stops the run there, exit 1, unless FORCE=1
#               (`make reference` sets it: steady.py would refuse the run
#               at its end); unset, no process is judged
#   PAIRED_RETRIES=N  a paired process noisier than PAIRED_NOISE is set
#               aside (noisy/, its noise in noisy.txt) and made again
#               after PAIRED_PAUSE seconds (default 300), up to N times
#               in the run (default 0), before the run stops: a
#               neighbour's burst costs minutes instead of the run
#   PAIRED_WAIT=M  before a set-aside process is made again, wait for
#               the machine to be quiet instead of PAIRED_PAUSE once:
#               preflight.sh's minute-long check, again every
#               PAIRED_PAUSE seconds while it finds noise, for up to M
#               minutes (until_quiet.sh), and the run stops when it
#               never passes; so a burst longer than the pause spends
#               minutes of waiting, not the retries (paired_retry.sh)
#   DATA        a SOAP envelope or a folder of them (--data): each file
#               a dataset of its own in every run, ref's included; a path
#               relative to the checkout, without white space
set -eu

if [ $# -eq 0 ]; then
	echo "usage: sh harness/reports/compare.sh VARIANT..." >&2
	exit 1
fi
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
QUICK=${QUICK:-}
FULL=${FULL:-}
CASES=${CASES:-}
ICOUNT=${ICOUNT:-}
ICOUNT_ITERS=${ICOUNT_ITERS:-3}
ICOUNT_CASES=${ICOUNT_CASES:-}
MIN_TIME=${MIN_TIME:-0.1}
ALTERNATE=${ALTERNATE:-0}
PAIRED_RUNS=${PAIRED_RUNS:-1}
PAIRED_NOISE=${PAIRED_NOISE:-}
PAIRED_RETRIES=${PAIRED_RETRIES:-0}
PAIRED_PAUSE=${PAIRED_PAUSE:-300}
PAIRED_WAIT=${PAIRED_WAIT:-}
DATA=${DATA:-}
keys=$BUILD_DIR/keys
python=/usr/bin/python3
[ -x "$python" ] || python=python3

if [ "$ICOUNT" = 1 ] && ! command -v valgrind >/dev/null; then
	echo "compare: ICOUNT=1 needs valgrind (apt-get install valgrind)" >&2
	exit 1
fi

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

# The malloc settings harness/bench/memhooks.c applies with mallopt(), here from
# the process's first allocation on (Google Benchmark's static set-up).
. harness/reports/tunables.sh
tunables=$lab_tunables
. harness/reports/icount.sh

# Quick: 3 x 0.1 s per case keeps 9 variants near 5 minutes on 2 cores.
mode=default
reps=5
data=""
if [ "$FULL" = 1 ]; then
	mode=full
	reps=10
	data="--full"
elif [ "$QUICK" = 1 ]; then
	mode=quick
	reps=3
fi
# $data is split into words where it is used: a path with white space in
# it would come apart.
if [ -n "$DATA" ]; then
	case $DATA in
	*[[:space:]]*)
		echo "compare: DATA='$DATA': a path with white space is not taken" >&2
		exit 1
		;;
	esac
	[ -e "$DATA" ] || { echo "compare: DATA=$DATA: no such file or folder" >&2; exit 1; }
	data="$data --data $DATA"
fi
flags="--benchmark_min_time=$MIN_TIME --benchmark_repetitions=$reps"
flags="$flags --benchmark_display_aggregates_only=true"
# paired: best's send and receive, ref's and the floor's parts, in one
# process with their repetitions in random order, so that what the
# machine does meanwhile falls on all three alike; the runs sit minutes
# apart, and drift between them goes straight into a ratio.  summary.py's
# "Side by side" table.  Only in a run that has all three; with CASES,
# the cases of these that CASES matches.  harness/reports/paired.sh
# names them.
. harness/reports/paired.sh
paired_filter="^($lab_paired_cases)/($lab_paired_datasets)\$"
paired_flags=$(lab_paired_flags "$MIN_TIME")

names=""
for v in "$@"; do
	v=$(make -s --no-print-directory VARIANT="$v" variant-name) || exit 1
	names="$names${names:+ }$v"
done
# shellcheck disable=SC2086
set -- $names
n=$#
k=0
: >"$out/variants.txt"
for v in "$@"; do
	k=$((k + 1))
	echo "[build $k/$n] $v ($(elapsed) s)"
	if ! make -s -j"$(nproc)" BUILD_DIR="$BUILD_DIR" VARIANT="$v" \
		domlab domlab-bench domlab-http >"$out/build-$v.log" 2>&1; then
		cat "$out/build-$v.log" >&2
		exit 1
	fi
	# summary.py reads each variant's choices from here.
	echo "$v $("$BUILD_DIR/$v/domlab" variant | grep -v '^preset=\|^variant=' |
		tr '\n' ' ')" >>"$out/variants.txt"
done

# The reference, pugixml and the floor never touch the DOM: any binary
# will do.
host=$1
for v in "$@"; do
	[ "$v" = best ] && host=best
done

# words ARG...: the arguments as one command line a shell reads back the
# same, each quoted when it holds anything but plain characters.
words() {
	w_line=""
	for w in "$@"; do
		case $w in
		*[!A-Za-z0-9_./=:,+@%-]*)
			w="'$(printf '%s' "$w" | sed "s/'/'\\\\''/g")'"
			;;
		esac
		w_line="$w_line${w_line:+ }$w"
	done
	printf '%s\n' "$w_line"
}

# base RUN: the domlab-bench flags that select RUN's cases before CASES.
base() {
	case $1 in
	# The threads control beside ref's threaded cases, as in every run.
	ref) echo "--ref --benchmark_filter=^(ref|gsoap):|^threads_control/" ;;
	pugixml) echo "--ref --benchmark_filter=^pugi:" ;;
	floor) echo "--floor --benchmark_filter=^floor:" ;;
	paired) echo "--ref --floor --benchmark_filter=$paired_filter" ;;
	*) echo "" ;;
	esac
}

# bin RUN: the binary RUN runs in.
bin() {
	case $1 in
	ref | pugixml | floor) echo "$BUILD_DIR/$host/domlab-bench" ;;
	paired) echo "$BUILD_DIR/best/domlab-bench" ;;
	*) echo "$BUILD_DIR/$1/domlab-bench" ;;
	esac
}

# matching RUN: RUN's cases that CASES matches, one per line.  The prefix
# (ref:, gsoap:, pugi:, floor:) is left out of the match, so one CASES picks the
# same stages and datasets in every run.  QUICK leaves the gSOAP peer
# out: its 2 MB send and receive alone take longer than a minute and a
# half, and the first look is best, the presets and ref.
matching() {
	# $data and base's options are words to split (see above).
	# shellcheck disable=SC2046,SC2086
	"$(bin "$1")" bench $data $(base "$1") --keys "$keys" \
		--benchmark_list_tests=true |
		awk -v re="$CASES" -v quick="$QUICK" '
			quick == "1" && /^gsoap:/ { next }
			{ n = $0; sub(/^(ref|gsoap|pugi|floor):/, "", n) }
			n ~ re { print }'
}

# args RUN: the domlab-bench flags that select RUN's cases: base's, or with
# CASES an anchored list of the cases `matching` lists.
args() {
	if [ -z "$CASES" ]; then
		base "$1"
		return
	fi
	a_pat=$(matching "$1" | paste -sd'|' -)
	case $1 in
	ref | pugixml) echo "--ref --benchmark_filter=^($a_pat)\$" ;;
	floor) echo "--floor --benchmark_filter=^($a_pat)\$" ;;
	paired) echo "--ref --floor --benchmark_filter=^($a_pat)\$" ;;
	*) echo "--benchmark_filter=^($a_pat)\$" ;;
	esac
}

# progress LABEL TOTAL LOG: copies Google Benchmark's console output to
# LOG and prints one line per case as its first result line arrives.
progress() {
	p_k=0
	p_last=""
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$3"
		p_name=${line%% *}
		for s in _mean _median _stddev _cv; do
			p_name=${p_name%"$s"}
		done
		case $p_name in
		[a-z]*/*) ;;
		*) continue ;;
		esac
		[ "$p_name" = "$p_last" ] && continue
		p_last=$p_name
		p_k=$((p_k + 1))
		echo "[$1] $p_k/$2 $p_name ($(elapsed) s)"
	done
}

# run_flags RUN: the timing flags of RUN.
run_flags() {
	if [ "$1" = paired ]; then
		echo "$paired_flags"
	else
		echo "$flags"
	fi
}

# record RUN [NAME]: the command that runs RUN into $out/NAME.json, into
# commands.tsv, for FINDINGS.md (harness/reports/findings.py) and for
# the rounds, which may run a variant's command before its own run.
record() {
	# shellcheck disable=SC2046,SC2086
	printf '%s\t%s\n' "${2:-$1}" "$(words GLIBC_TUNABLES="$tunables" \
		"$(bin "$1")" bench $data $(args "$1") --keys "$keys" \
		$(run_flags "$1") --benchmark_out="$out/${2:-$1}.json" \
		--benchmark_out_format=json)" >>"$out/commands.tsv"
}

# bench RUN K [NAME]: one domlab-bench run into $out/NAME.{json,log}
# (NAME: RUN by default): the very command record wrote for NAME, read
# back from commands.tsv (words() quoted it for the shell).  Word lists
# ($data, args' output) stay unquoted.
bench() {
	b_name=${3:-$1}
	case $b_name in
	paired) b_label="paired process 1/$PAIRED_RUNS" ;;
	paired.*) b_label="paired process ${b_name#paired.}/$PAIRED_RUNS" ;;
	*) b_label="run $2/$nruns $1" ;;
	esac
	b_cmd=$(awk -F '\t' -v n="$b_name" '$1 == n { print $2 }' \
		"$out/commands.tsv")
	# shellcheck disable=SC2046,SC2086
	b_total=$("$(bin "$1")" bench $data $(args "$1") --keys "$keys" \
		--benchmark_list_tests=true | wc -l)
	: >"$out/$b_name.log"
	{
		if eval "$b_cmd" 2>&1; then
			echo 0 >"$out/.rc"
		else
			echo $? >"$out/.rc"
		fi
	} | progress "$b_label" "$b_total" "$out/$b_name.log"
	if [ "$(cat "$out/.rc")" != 0 ]; then
		tail -n 20 "$out/$b_name.log" >&2
		echo "compare: $b_name failed; see $out/$b_name.log" >&2
		exit 1
	fi
	rm -f "$out/.rc"
}

# icount RUN K: instructions per iteration of every case RUN ran, into
# $out/RUN.icount.tsv (case, instructions, iterations).  Each case runs
# in its own process under callgrind, ICOUNT_ITERS iterations
# (harness/reports/icount.sh).  Counts do not depend on the machine's
# load, so the cases run nproc at a time.
icount() {
	i_bin=$(bin "$1")
	i_dir=$out/callgrind/$1
	mkdir -p "$i_dir"
	# Threaded cases are send and receive again: counted as those.
	"$python" -c 'import json, sys
seen = []
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["run_name"] not in seen and "/threads:" not in b["run_name"]:
        seen.append(b["run_name"])
print("\n".join(seen))' "$out/$1.json" |
		grep -E "${ICOUNT_CASES:-.}" >"$i_dir/cases" || true
	i_total=$(wc -l <"$i_dir/cases")
	i_k=0
	i_par=$(nproc)
	: >"$out/$1.icount.tsv"
	while IFS= read -r c; do
		i_k=$((i_k + 1))
		i_file=$i_dir/$(echo "$c" | tr '/:' '__')
		echo "[icount $2/$nruns $1] $i_k/$i_total $c ($(elapsed) s)"
		# shellcheck disable=SC2086 # $data: words to split
		lab_icount "$i_file" "$c" "$ICOUNT_ITERS" \
			"$i_bin" bench $data --keys "$keys" &
		# A batch of nproc at a time; the check below finds failures.
		if [ $((i_k % i_par)) = 0 ] || [ "$i_k" = "$i_total" ]; then
			wait
		fi
	done <"$i_dir/cases"
	while IFS= read -r c; do
		i_file=$i_dir/$(echo "$c" | tr '/:' '__')
		if ! i_ir=$(lab_icount_total "$i_file" "$c" "$ICOUNT_ITERS"); then
			echo "compare: icount of $c failed; see $i_file.log" >&2
			exit 1
		fi
		printf '%s\t%s\t%s\n' "$c" "$i_ir" "$ICOUNT_ITERS" \
			>>"$out/$1.icount.tsv"
	done <"$i_dir/cases"
}

# The runs; with CASES, those left with no case are skipped.
runs=""
for r in "$@" ref pugixml floor; do
	if [ -n "$CASES" ] && [ -z "$(matching "$r")" ]; then
		echo "[cases] $r: no case matches '$CASES'; skipped"
		continue
	fi
	runs="$runs${runs:+ }$r"
done
if [ -z "$runs" ]; then
	echo "compare: no case matches CASES='$CASES'" >&2
	exit 1
fi
if [ -n "$CASES" ]; then
	# shellcheck source=harness/reports/case_tails.sh
	. harness/reports/case_tails.sh
	# $data: words to split (see above).
	# shellcheck disable=SC2086
	refusal=$("$(bin "$1")" bench $data --keys "$keys" \
		--benchmark_list_tests=true | lab_cases_tail_refusal "$CASES")
	if [ -n "$refusal" ]; then
		echo "compare: $refusal" >&2
		exit 1
	fi
fi
nruns=$(echo "$runs" | wc -w)

# paired_name P: the P-th paired process's name into pname.
paired_name() {
	pname=paired
	if [ "$1" -gt 1 ]; then
		pname=paired.$1
	fi
}

: >"$out/commands.tsv"
has() {
	case " $runs " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}
npaired=0
if has best && has ref && has floor &&
	{ [ -z "$CASES" ] || [ -n "$(matching paired)" ]; }; then
	npaired=$PAIRED_RUNS
fi
for r in $runs; do
	record "$r"
done
p=0
while [ "$p" -lt "$npaired" ]; do
	p=$((p + 1))
	paired_name $p
	record paired "$pname"
done

# paired_process P NAME: the P-th paired process, NAME, made again while
# it is noisy and retries are left (paired_retry.sh); otherwise a noisy
# one stops the run.  The reports read NAME.json only; noisy.txt says
# what was set aside and why.
KEYS_DIR=$keys
# shellcheck source=harness/reports/paired_retry.sh
. harness/reports/paired_retry.sh
paired_process() {
	lab_paired_made "$out" "$2" "paired process $1/$npaired" \
		bench paired "$nruns" "$2"
	[ -z "$lab_paired_stop" ] || stop_run "$lab_paired_why"
}

# stop_run WHY: the run ends here (exit 1), saying WHY (may be empty),
# when, and that what it measured is kept.
stop_run() {
	echo "compare: ${1:+$1; }stopped after $(elapsed) s; what it measured stays in $out" >&2
	exit 1
}

# The paired processes and the rounds (ALTERNATE;
# harness/reports/rounds.py) in slots spread evenly across the runs:
# slot i after run ceil(i * nruns / slots), holding paired process i
# and round i where there are that many.  Their spread then holds the
# machine's drift over the whole run, as a rerun hours later meets it,
# not only over the minutes they would take one after the other.
nslots=$npaired
if [ "$ALTERNATE" -gt "$nslots" ]; then
	nslots=$ALTERNATE
fi
slot() {
	if [ "$1" -le "$npaired" ]; then
		paired_name "$1"
		paired_process "$1" "$pname"
	fi
	if [ "$1" -le "$ALTERNATE" ]; then
		echo "[round $1/$ALTERNATE] ($(elapsed) s)"
		"$python" harness/reports/rounds.py --dir "$out" \
			--rounds "$ALTERNATE" --round "$1" --cases "$CASES"
	fi
}
k=0
i=0
for r in $runs; do
	k=$((k + 1))
	bench "$r" "$k"
	while [ "$i" -lt "$nslots" ] &&
		[ $(((i + 1) * nruns)) -le $((k * nslots)) ]; do
		i=$((i + 1))
		slot "$i"
	done
done
if [ "$ICOUNT" = 1 ]; then
	k=0
	for r in $runs; do
		k=$((k + 1))
		icount "$r" "$k"
	done
fi

# The load scenario over HTTP, every variant and the reference behind the
# same server (harness/reports/load.sh): seconds per client level.  FULL
# adds the token-store and attachment scenarios through the endpoint.
if [ -z "$CASES" ]; then
	load_secs=3
	[ "$QUICK" = 1 ] && load_secs=2
	[ "$FULL" = 1 ] && load_secs=5
	BUILD_DIR=$BUILD_DIR LOAD_HOST=$host LOAD_FULL=$FULL \
		sh harness/reports/load.sh "$out" "$load_secs" "$@" ref
fi

echo "[summary] ($(elapsed) s)"
# shellcheck disable=SC2086
"$python" harness/reports/summary.py --dir "$out" --commit "$commit" \
	--mode "$mode" --flags "$data $flags" --elapsed "$(elapsed)" \
	--cases "$CASES" --plots $runs >"$out/summary.md"
# shellcheck disable=SC2086
"$python" harness/reports/findings.py --dir "$out" --cases "$CASES" $runs \
	>"$out/FINDINGS.md"
ln -sfn "$run" results/latest
echo "done in $(elapsed) s: $out/summary.md, $out/FINDINGS.md"
