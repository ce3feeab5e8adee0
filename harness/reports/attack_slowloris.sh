#!/bin/sh
# attack_slowloris.sh DOMLAB OUT [CONNS [SECONDS]] - `domlab serve` under
# slow connections: harness/attack/slowloris holds CONNS (default 1000)
# connections from 127.0.0.2, each dribbling its headers a byte a second
# and reconnecting when the server cuts it, for SECONDS (default 40),
# while the valid client (harness/reports/attack_valid.py) at 127.0.0.3
# posts a secured request on a new connection each time.  The server
# runs with its defaults but --max-connections-per-ip 0, so the one
# attacking address is not turned away by the per-address cap: what is
# measured is what held connections cost.  Writes OUT/slowloris-
# <variant>.json: the valid client's requests sent and answered and its
# p50/p99 (ms), unattacked and attacked; the connections the server held;
# its peak RSS; the attacker's tally; the load average.  Exit 0 when the
# run was clean: >= 90% answered, p99 under 10x unattacked.
# Loopback only; bounded by SECONDS; stops the server and the attacker.
# Environment: DOMLAB_KEYS (alice, bob: tests/make-keys.sh), CC.
set -u
DOMLAB=${1:?usage: attack_slowloris.sh DOMLAB OUT [CONNS [SECONDS]]}
OUT=${2:?usage: attack_slowloris.sh DOMLAB OUT [CONNS [SECONDS]]}
CONNS=${3:-1000}
SECONDS_=${4:-40}
K=${DOMLAB_KEYS:-build/keys}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
PID=
ATT=
cleanup() {
	[ -n "$ATT" ] && kill "$ATT" 2>/dev/null
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$OUT"
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$T/slowloris" "$HERE/../attack/slowloris.c" || exit 1
NAME=attack_slowloris
. "$HERE/attack_serve.sh"
"$DOMLAB" gen quakes --seed 5 -o "$T/q.xml"
secured_request "$T/q.xml" "$T/req.xml"
serve_start
VALID_SECONDS=$((SECONDS_ / 2))
base=$(python3 "$HERE/attack_valid.py" --port "$PORT" --seconds "$VALID_SECONDS" "$T/req.xml")
"$T/slowloris" --target "127.0.0.1:$PORT" --source 127.0.0.2 --conns "$CONNS" \
	--seconds "$SECONDS_" >"$T/att.out" 2>&1 &
ATT=$!
# Until the attacker holds most of its connections (bounded).
i=0
while [ $i -lt 100 ] && [ "$(stat connections)" -lt $((CONNS * 9 / 10)) ]; do sleep 0.1; i=$((i + 1)); done
held=$(stat connections)
attacked=$(python3 "$HERE/attack_valid.py" --port "$PORT" --seconds "$VALID_SECONDS" "$T/req.xml")
held_after=$(stat connections)
load=$(cut -d ' ' -f 1-3 /proc/loadavg)
wait "$ATT"
ATT=
rss=$(stat maxrss_kb)
kill "$PID"
wait "$PID"
PID=
json="{\"variant\": \"$VARIANT\", \"attack\": \"slowloris\", \"conns\": $CONNS, \"seconds\": $SECONDS_, \
\"server_connections\": [$held, $held_after], \"maxrss_kb\": $rss, \
\"attacker\": \"$(cat "$T/att.out")\", \"unattacked\": $base, \"attacked\": $attacked, \
\"loadavg\": \"$load\"}"
echo "$json" >"$OUT/slowloris-$VARIANT.json"
echo "$json"
python3 -c 'import json, sys; r = json.loads(sys.argv[1]); a, b = r["attacked"], r["unattacked"]
sys.exit(0 if a["sent"] and a["answered"] >= 0.9 * a["sent"] and a["p99_ms"] < 10 * b["p99_ms"] else 1)' "$json"
