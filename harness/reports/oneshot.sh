#!/bin/sh
# oneshot.sh - what `make oneshot` runs: the whole-process instruction
# count (callgrind, start-up and exit included) of one `domlab send` and
# one `domlab receive` at 2 KB and 200 KB (the benchmark's quakes-2k and
# quakes-200k), for every variant named and for the reference peer
# (`domlab-bench ref send|receive`, libxml2 + xmlsec1, which also loads
# Google Benchmark and pugixml).  Each receive reads what the same stack
# sent.  Writes results/oneshot/: oneshot.tsv (the counts),
# send-2k.profile.txt (callgrind_annotate's inclusive list of the
# first variant's 2 KB send), machine.txt, then oneshot.py's oneshot.md
# and docs/measuring.md's one-shot table.
#
# Not for: per-message costs inside a long-running process (the
# benchmark's ICOUNT=1 counts, docs/measuring.md), or time.
#
#   sh harness/reports/oneshot.sh VARIANT...
#
# Environment: BUILD_DIR, where the variants are built (default build).
set -eu

if [ $# -eq 0 ]; then
	echo "usage: sh harness/reports/oneshot.sh VARIANT..." >&2
	exit 1
fi
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
K=$BUILD_DIR/keys
NOW=1796000000
out=results/oneshot
# The commit measured, taken before this run rewrites its own outputs.
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo -dirty)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
first=$1

# count NAME CMD...: CMD's whole-process instructions, one line of
# oneshot.tsv; callgrind's output stays in $tmp/NAME.cg.
count() {
	run=$1
	shift
	if ! valgrind --tool=callgrind --callgrind-out-file="$tmp/$run.cg" \
		"$@" >/dev/null 2>"$tmp/$run.log"; then
		echo "oneshot: $run failed:" >&2
		cat "$tmp/$run.log" >&2
		exit 1
	fi
	n=$(sed -n 's/.*Collected : \([0-9]*\)$/\1/p' "$tmp/$run.log")
	[ -n "$n" ] || { echo "oneshot: $run: no count" >&2; exit 1; }
	printf '%s\t%s\n' "$run" "$n" >>"$tmp/oneshot.tsv"
	echo "  $run: $n instructions"
}

# stack NAME BIN...: send, then receive what was sent, at each size.
stack() {
	name=$1
	shift
	for size in 2k 200k; do
		count "$name-send-$size" "$@" send --key "$K/alice.key.pem" \
			--cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" \
			--now $NOW "$tmp/q$size.xml" -o "$tmp/$name-$size.sent"
		count "$name-receive-$size" "$@" receive --key "$K/bob.key.pem" \
			--trust "$K/alice.cert.pem" --now $NOW \
			"$tmp/$name-$size.sent" -o "$tmp/$name-$size.back"
	done
}

# dir VARIANT: the variant's build folder.
dir() {
	echo "$BUILD_DIR/$(make -s --no-print-directory VARIANT="$1" variant-name)"
}
gen=$(dir "$first")/domlab
"$gen" gen quakes --size 2048 >"$tmp/q2k.xml"
"$gen" gen quakes --size 204800 >"$tmp/q200k.xml"
printf 'run\tinstructions\n' >"$tmp/oneshot.tsv"
for v in "$@"; do
	stack "$v" "$(dir "$v")/domlab"
done
stack ref "$(dir "$first")/domlab-bench" ref

callgrind_annotate --inclusive=yes "$tmp/$first-send-2k.cg" 2>/dev/null |
	head -n 220 >"$out/send-2k.profile.txt"
mv "$tmp/oneshot.tsv" "$out/oneshot.tsv"
{
	echo "commit $commit"
	echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "variants $*"
	echo "cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "valgrind $(valgrind --version)"
	echo "openssl $(openssl version)"
	echo "libc $(ldd --version | head -n 1)"
} >"$out/machine.txt"
python3 harness/reports/oneshot.py --run "$out" --doc docs/measuring.md
echo "oneshot: $out/oneshot.md and docs/measuring.md's one-shot table"
