#!/bin/sh
# load.sh OUT SECONDS RUN... - the load scenario over HTTP: for each RUN
# (a built variant's canonical name, or `ref`: the reference peer behind
# LOAD_HOST's server), `domlab serve --stats` on a free loopback port, then
# `domlab load` from 1, 2 and 4 kept-alive clients for SECONDS each with
# the 2 KB quakes envelope; OUT/load/RUN.json and RUN.md are its report,
# OUT/load/commands.tsv the commands as run.  Client and server share the
# machine: a level's throughput is the pair's, its CPU per request the
# server's alone (from its GET /stats).
#
# With LOAD_FULL=1 (compare.sh's FULL=1), the scenarios of the original reports go through the
# endpoint as requests too, each on a fresh server:
#   OUT/tokens/RUN.*    RAMPART-298's token store: `serve --tokens`, and
#                       TOKEN_REQUESTS (600) requests from one client, each
#                       secured anew (a fresh token), the first tenth's
#                       latency against the last's; for the presets, `ref`
#                       and every RUN with a tokens= choice;
#   OUT/attach/RUN-SIZE.*  SOAP with Attachments: multipart/related
#                       requests with an attachment of 150 KB (1 and 2
#                       clients, 20 requests each) and 4 MB (1 client, 3
#                       requests: io=unbuffered spends seconds of CPU on
#                       each), read through the io axis; for the
#                       presets and every RUN with an io= choice (the
#                       reference peer takes no attachments).
#
# Not for: the tables (harness/reports/loadreport.py) or correctness
# (tests/http.sh).
#
# LOAD_ROUNDS=K runs all of it K times (in_rounds.sh): round 1 into OUT,
# round K into OUT/round.K, the RUNs in reverse order in even rounds, so
# that a ratio between RUNs carries the interval one more round lands in
# (harness/reports/loadreport.py; `make scenarios`, `make stall`).
#
# Environment: BUILD_DIR (default build), LOAD_HOST (the variant whose
# binaries serve `ref` and make the envelope; default best), READ_TIMEOUT
# (serve --read-timeout, default the server's), LOAD_FULL, TOKEN_REQUESTS,
# LOAD_BASE=0 (the scenarios alone, without the load levels: `make
# scenarios`, harness/reports/scenarios.sh).
set -eu
out=${1:?usage: load.sh OUT SECONDS RUN...}
secs=${2:?usage: load.sh OUT SECONDS RUN...}
shift 2
rounds=${LOAD_ROUNDS:-1}
if [ "$rounds" -gt 1 ]; then
	sh "$(dirname "$0")/in_rounds.sh" LOAD_ROUNDS "$rounds" "$0" "$out" \
		"$secs" -- "$@"
	exit 0
fi
BUILD_DIR=${BUILD_DIR:-build}
host=${LOAD_HOST:-best}
keys=$BUILD_DIR/keys
mkdir -p "$out/load"
msg=$out/load/quakes-2k.xml
"$BUILD_DIR/$host/domlab" gen quakes --size 2048 --seed 5 -o "$msg"

# scenario DIR NAME RUN SERVE_ARGS LOAD_ARGS: RUN's server (`serve
# --stats` and SERVE_ARGS) on a free port, then `domlab load` with
# LOAD_ARGS into DIR/NAME.json and DIR/NAME.md; the commands go to
# DIR/commands.tsv.  Paths hold no spaces (the Makefile's neither): the
# argument strings are split into words.
scenario() {
	dir=$1 name=$2 r=$3 sargs=$4 largs=$5
	mkdir -p "$dir"
	bin=$BUILD_DIR/$r/domlab
	stack=domlab
	if [ "$r" = ref ]; then
		bin=$BUILD_DIR/$host/domlab
		stack=ref
	fi
	# The log exists before the server opens it: the background
	# command's redirection happens in its own process, maybe after the
	# first look below.
	: >"$dir/$name.serve.log"
	# shellcheck disable=SC2086
	"$bin" serve --key "$keys/bob.key.pem" --cert "$keys/bob.cert.pem" \
		--trust "$keys/alice.cert.pem" --stack $stack --stats --port 0 \
		${READ_TIMEOUT:+--read-timeout "$READ_TIMEOUT"} $sargs \
		>"$dir/$name.serve.log" 2>&1 &
	pid=$!
	port=
	i=0
	while [ -z "$port" ] && [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do
		port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$dir/$name.serve.log")
		[ -n "$port" ] || sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$port" ]; then
		echo "load: $name's server did not start; see $dir/$name.serve.log" >&2
		kill $pid 2>/dev/null || true
		exit 1
	fi
	args="load --url http://127.0.0.1:$port/soap --key $keys/alice.key.pem"
	args="$args --cert $keys/alice.cert.pem --peer-cert $keys/bob.cert.pem"
	args="$args --json $dir/$name.json -o $dir/$name.md $largs"
	printf '%s\t%s serve --stack %s %s...; %s %s\n' "$name" "$bin" "$stack" \
		"$sargs${sargs:+ }" "$bin" "$args" >>"$dir/commands.tsv"
	status=0
	# shellcheck disable=SC2086
	"$bin" $args || status=$?
	kill -TERM $pid
	wait $pid || status=1
	[ $status = 0 ] || { echo "load: $name failed; see $dir/$name.serve.log" >&2; exit 1; }
}

if [ "${LOAD_BASE:-1}" != 0 ]; then
	: >"$out/load/commands.tsv"
	for r in "$@"; do
		echo "[load] $r: 1, 2, 4 clients, $secs s each"
		scenario "$out/load" "$r" "$r" "" "--clients 4 --seconds $secs $msg"
	done
fi
[ "${LOAD_FULL:-}" = 1 ] || exit 0

n=${TOKEN_REQUESTS:-600}
mkdir -p "$out/tokens"
: >"$out/tokens/commands.tsv"
for r in "$@"; do
	case $r in
	doom2010 | xerces | best | ref | *tokens=*) ;;
	*) continue ;;
	esac
	echo "[tokens] $r: $n requests, each with a fresh token"
	scenario "$out/tokens" "$r" "$r" --tokens \
		"--tokens --clients 1 --requests $n $msg"
done

# The attachments are made again by these commands, and removed at the
# end: a run's folder keeps reports, not 4 MB of generated bytes.
mkdir -p "$out/attach"
: >"$out/attach/commands.tsv"
for s in 150k:150000 4m:4000000; do
	"$BUILD_DIR/$host/domlab" gen bytes --size "${s#*:}" --seed 5 -o "$out/attach/${s%%:*}.bin"
	printf '%s\t%s gen bytes --size %s --seed 5 -o %s\n' "${s%%:*}.bin" \
		"$BUILD_DIR/$host/domlab" "${s#*:}" "$out/attach/${s%%:*}.bin" >>"$out/attach/commands.tsv"
done
for r in "$@"; do
	case $r in
	doom2010 | xerces | best | *io=*) ;;
	*) continue ;;
	esac
	echo "[attach] $r: 150 KB and 4 MB attachments"
	scenario "$out/attach" "$r-150k" "$r" "" \
		"--attach $out/attach/150k.bin --clients 2 --requests 20 $msg"
	scenario "$out/attach" "$r-4m" "$r" "" \
		"--attach $out/attach/4m.bin --clients 1 --requests 3 $msg"
done
rm -f "$out/attach/150k.bin" "$out/attach/4m.bin"
