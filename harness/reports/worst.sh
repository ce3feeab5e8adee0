#!/bin/sh
# worst.sh - what `make worst` runs: each hostile shape `domlab gen` makes,
# at the size the hostile-input acceptance criteria name, and a friendly
# quakes input of the same size, through the same domlab command, one
# process each, for every variant named; user+sys CPU seconds and peak
# RSS of the child (/usr/bin/time), the exit code, and worst / typical.
# Also the endless pipe: zeros past --max-input into `domlab parse`,
# which must end with exit 2 and a peak RSS near the limit.  Writes
# results/worst-<UTC date>/worst.md (and the raw measurements in
# worst.tsv); results/README.md explains results/.
#
# Not for: the per-MB worst cases inside `make bench` (harness/bench/
# cases_worst.c, summary.py's "Worst case" table), or checking refusals
# and outputs (tests/hostile.sh, tests/cli.sh).
#
#   sh harness/reports/worst.sh VARIANT...
#
# Environment:
#   BUILD_DIR        where the variants are built (default build)
#   WORST_PIPE_LIMIT the endless pipe's --max-input (default: none given,
#                    so the default of 1 GiB; the pipe sends that + 1 MiB)
set -eu

if [ $# -eq 0 ]; then
	echo "usage: sh harness/reports/worst.sh VARIANT..." >&2
	exit 1
fi
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
PIPE_LIMIT=${WORST_PIPE_LIMIT:-}
K=$BUILD_DIR/keys
NOW=1796000000 # collide-ids' Timestamp is good then (datasets/hostile.c)
MB=1048576
[ -x /usr/bin/time ] || {
	echo "worst: needs /usr/bin/time (apt-get install time)" >&2
	exit 1
}

run=$(date -u +%Y%m%dT%H%M%SZ)
out=results/worst-$run
data=$out/data
mkdir -p "$data"

# The shapes: name, command, gen arguments, note.  Sizes are the
# acceptance criteria's; collide-attrs holds about 50,000 names in
# elements of 10,000 (the default --max-attrs).
shapes() {
	cat <<EOF
collide-names	parse	collide-names --size $MB	1 MB, ~52k colliding names
collide-names-4m	parse	collide-names --size 3984588	3.8 MB, ~200k colliding names
collide-attrs	parse	collide-attrs --size 1800000	~50k colliding attribute names
collide-ids	receive	collide-ids --size $MB	1 MB of colliding Id values
many-enc	receive	many-enc --count 30000	30k DataReferences and EncryptedData
many-attrs	parse	many-attrs --size 1500000	150k attributes on one element
wide-ns	parse	wide-ns --size $((10 * MB)) --count 9000	9,000 prefixes, each child using them all
signedinfo-junk	receive	signedinfo-junk --size 1258291	junk prefixes inside SignedInfo
deep	parse	deep --size $((10 * MB))	250-deep chains
EOF
}

# The command a shape meets, reading standard input.
cmd() {
	case $2 in
	parse) echo "$1 parse" ;;
	receive) echo "$1 receive --key $K/bob.key.pem --trust $K/alice.cert.pem --now $NOW" ;;
	esac
}

# The inputs, made once with the first variant's gen (its output is the
# same on every variant; the preauth shapes' bytes vary, their shape not).
gen=$BUILD_DIR/$1/domlab
signer="--key $K/alice.key.pem --cert $K/alice.cert.pem --now $NOW"
shapes | while IFS='	' read -r name command args note; do
	kind=${args%% *}
	case $kind in
	many-enc) extra="$signer --peer-cert $K/bob.cert.pem" ;;
	signedinfo-junk) extra=$signer ;;
	*) extra="" ;;
	esac
	# shellcheck disable=SC2086
	"$gen" gen $args $extra -o "$data/$name.xml"
	size=$(wc -c <"$data/$name.xml")
	"$gen" gen quakes --size "$size" -o "$data/$name.quakes.xml"
	if [ "$command" = receive ]; then
		"$gen" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" \
			--peer-cert "$K/bob.cert.pem" --now "$NOW" \
			"$data/$name.quakes.xml" -o "$data/$name.typical.xml"
	else
		mv "$data/$name.quakes.xml" "$data/$name.typical.xml"
	fi
	rm -f "$data/$name.quakes.xml"
done

# measure FILE CMD...: runs CMD with stdin from FILE and stdout dropped;
# prints "exit cpu_seconds peak_kb".
measure() {
	m_in=$1
	shift
	/usr/bin/time -f '%x %U %S %M' -o "$out/.time" "$@" <"$m_in" \
		>/dev/null 2>"$out/.err" || true
	# A failing command's first line is time's "Command exited with ...".
	tail -n 1 "$out/.time" | awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }'
}

# The endless pipe: zeros past the limit into parse, through a pipe so
# the limit must hold while reading.  /usr/bin/time's peak RSS is the
# largest of the shell's children, domlab's.
pipe() {
	p_limit=${PIPE_LIMIT:-1073741824}
	p_flag=${PIPE_LIMIT:+--max-input $PIPE_LIMIT}
	/usr/bin/time -f '%x %U %S %M' -o "$out/.time" sh -c \
		"head -c $((p_limit + MB)) /dev/zero | $1 parse $p_flag >/dev/null 2>/dev/null" \
		</dev/null || true
	echo "$((p_limit + MB)) $(tail -n 1 "$out/.time" |
		awk '{ printf "%s %.2f %s", $1, $2 + $3, $4 }') $p_limit"
}

: >"$out/worst.tsv"
for v in "$@"; do
	d=$BUILD_DIR/$v/domlab
	shapes | while IFS='	' read -r name command args note; do
		echo "[worst] $v $name ($command)" >&2
		c=$(cmd "$d" "$command")
		# shellcheck disable=SC2086
		w=$(measure "$data/$name.xml" $c)
		# shellcheck disable=SC2086
		t=$(measure "$data/$name.typical.xml" $c)
		echo "$v $name $command $(wc -c <"$data/$name.xml") $w" \
			"$(wc -c <"$data/$name.typical.xml") $t" |
			tr ' ' '\t' >>"$out/worst.tsv"
	done
	echo "[worst] $v endless pipe" >&2
	echo "$v endless-pipe parse $(pipe "$d")" | tr ' ' '\t' >>"$out/pipe.tsv"
done

# worst.md from the two TSVs.
{
	echo "# Worst case, one process per input: $run"
	echo
	echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo nogit)"
	echo "- machine: $(nproc) CPUs, load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "- command: \`sh harness/reports/worst.sh $*\`; inputs in data/"
	echo
	echo "CPU is user+sys seconds of the domlab process, RSS its peak"
	echo "(/usr/bin/time).  typical: a quakes document of the same size"
	echo "through the same command (receive: that document as alice sends it"
	echo "to bob).  x typical: worst CPU / typical CPU (typical CPU under"
	echo "0.01 s counts as 0.01 s).  parse and receive are"
	echo "\`domlab parse\` and \`domlab receive --key bob --trust alice --now $NOW\`"
	echo "with default limits."
	echo
	echo "| shape | what | command | variant | bytes | exit | CPU s | RSS MB | typical exit | typical CPU s | typical RSS MB | x typical |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	shapes | while IFS='	' read -r name command args note; do
		awk -F'\t' -v n="$name" -v note="$note" '$2 == n {
			t = $10 < 0.01 ? 0.01 : $10
			printf "| %s | %s | %s | %s | %d | %s | %.2f | %.0f | %s | %.2f | %.0f | %.2f |\n",
				$2, note, $3, $1, $4, $5, $6, $7 / 1024, $9, $10, $11 / 1024, $6 / t
		}' "$out/worst.tsv"
	done
	echo
	echo "The endless pipe: zeros past --max-input into \`domlab parse\`"
	echo "(exit 2 expected; peak RSS at most the limit + 64 MB)."
	echo
	echo "| variant | bytes sent | limit | exit | CPU s | RSS MB |"
	echo "|---|---|---|---|---|---|"
	awk -F'\t' '{ printf "| %s | %d | %d | %s | %.2f | %.0f |\n", $1, $4, $8, $5, $6, $7 / 1024 }' "$out/pipe.tsv"
} >"$out/worst.md"
rm -f "$out/.time" "$out/.err"
echo "worst: $out/worst.md"
