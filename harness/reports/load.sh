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
# Not for: the tables (harness/reports/loadreport.py) or correctness
# (tests/http.sh).
#
# Environment: BUILD_DIR (default build), LOAD_HOST (the variant whose
# binaries serve `ref` and make the envelope; default best), READ_TIMEOUT
# (serve --read-timeout, default the server's).
set -eu
out=${1:?usage: load.sh OUT SECONDS RUN...}
secs=${2:?usage: load.sh OUT SECONDS RUN...}
shift 2
BUILD_DIR=${BUILD_DIR:-build}
host=${LOAD_HOST:-best}
keys=$BUILD_DIR/keys
dir=$out/load
mkdir -p "$dir"
msg=$dir/quakes-2k.xml
"$BUILD_DIR/$host/domlab" gen quakes --size 2048 --seed 5 -o "$msg"
: >"$dir/commands.tsv"
for r in "$@"; do
	bin=$BUILD_DIR/$r/domlab
	stack=domlab
	if [ "$r" = ref ]; then
		bin=$BUILD_DIR/$host/domlab
		stack=ref
	fi
	"$bin" serve --key "$keys/bob.key.pem" --cert "$keys/bob.cert.pem" \
		--trust "$keys/alice.cert.pem" --stack $stack --stats --port 0 \
		${READ_TIMEOUT:+--read-timeout "$READ_TIMEOUT"} \
		>"$dir/$r.serve.log" 2>&1 &
	pid=$!
	port=
	i=0
	while [ -z "$port" ] && [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do
		port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$dir/$r.serve.log")
		[ -n "$port" ] || sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$port" ]; then
		echo "load: $r's server did not start; see $dir/$r.serve.log" >&2
		kill $pid 2>/dev/null || true
		exit 1
	fi
	# Paths hold no spaces (the Makefile's neither): one word each.
	args="load --url http://127.0.0.1:$port/soap --key $keys/alice.key.pem"
	args="$args --cert $keys/alice.cert.pem --peer-cert $keys/bob.cert.pem"
	args="$args --clients 4 --seconds $secs --json $dir/$r.json -o $dir/$r.md $msg"
	printf '%s\t%s serve --stack %s ...; %s %s\n' "$r" "$bin" "$stack" \
		"$bin" "$args" >>"$dir/commands.tsv"
	echo "[load] $r: 1, 2, 4 clients, $secs s each"
	status=0
	# shellcheck disable=SC2086
	"$bin" $args || status=$?
	kill -TERM $pid
	wait $pid || status=1
	[ $status = 0 ] || { echo "load: $r failed; see $dir/$r.serve.log" >&2; exit 1; }
done
