#!/bin/sh
# attack_memory.sh DOMLAB OUT [CONNS [SECONDS [BUDGET]]] - `domlab serve`
# under large bodies: CONNS (default 64) clients at 127.0.0.2 post an
# unsigned 15 MB envelope over and over for SECONDS (default 30) to a
# server whose --max-memory is BUDGET bytes (default 2 GiB), while the
# valid client (harness/reports/attack_valid.py) at 127.0.0.3 posts a
# secured request on a new connection each time.  First, one secured
# request of about 15 MB measures the expansion (the peak RSS it adds
# per body byte), the figure serve's --memory-factor default is set
# from.  Writes OUT/memory-<variant>.json: the valid client's requests sent and answered and its
# p50/p99 (ms), unattacked and attacked; the server's peak RSS from
# GET /stats (getrusage) against the budget; the attackers' 200/503
# counts; the load average.  Exit 0 when the run was clean: peak RSS
# under the budget and every valid request answered.
# Loopback only; bounded by SECONDS; stops the server and every client
# it started.
# Environment: DOMLAB_KEYS (alice, bob: tests/make-keys.sh).
set -u
DOMLAB=${1:?usage: attack_memory.sh DOMLAB OUT [CONNS [SECONDS [BUDGET]]]}
OUT=${2:?usage: attack_memory.sh DOMLAB OUT [CONNS [SECONDS [BUDGET]]]}
CONNS=${3:-64}
SECONDS_=${4:-30}
BUDGET=${5:-2147483648}
K=${DOMLAB_KEYS:-build/keys}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
PID=
ATTACKERS=
cleanup() {
	for p in $ATTACKERS; do kill "$p" 2>/dev/null; done
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$OUT"
NAME=attack_memory
. "$HERE/attack_serve.sh"
"$DOMLAB" gen quakes --seed 5 -o "$T/q.xml"
secured_request "$T/q.xml" "$T/req.xml"
"$DOMLAB" gen quakes --size 15000000 --seed 3 -o "$T/big.xml"
# A secured request just under the body limit: what one costs.
"$DOMLAB" gen quakes --size 11500000 --seed 4 -o "$T/mid.xml"
secured_request "$T/mid.xml" "$T/signed.xml"
serve_start --max-memory "$BUDGET"
# The expansion: the peak RSS one secured request adds, per body byte.
rss0=$(stat rss_kb)
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: text/xml' \
	--data-binary @"$T/signed.xml" "http://127.0.0.1:$PORT/soap")
[ "$code" = 200 ] || { echo "attack_memory: the large secured request got $code" >&2; exit 1; }
expansion=$(awk -v a="$rss0" -v b="$(stat maxrss_kb)" -v n="$(wc -c <"$T/signed.xml")" \
	'BEGIN { printf "%.1f", (b - a) * 1024 / n }')
VALID_SECONDS=$((SECONDS_ / 2))
base=$(python3 "$HERE/attack_valid.py" --port "$PORT" --seconds "$VALID_SECONDS" "$T/req.xml")
end=$(($(date +%s) + SECONDS_))
c=0
while [ $c -lt "$CONNS" ]; do
	(while [ "$(date +%s)" -lt $end ]; do
		curl -s -o /dev/null -w '%{http_code}\n' --interface 127.0.0.2 --max-time 60 \
			-H 'Content-Type: text/xml' --data-binary @"$T/big.xml" "http://127.0.0.1:$PORT/soap"
	done >"$T/att.$c") &
	ATTACKERS="$ATTACKERS $!"
	c=$((c + 1))
done
sleep 3
attacked=$(python3 "$HERE/attack_valid.py" --port "$PORT" --seconds "$VALID_SECONDS" "$T/req.xml")
load=$(cut -d ' ' -f 1-3 /proc/loadavg)
wait $ATTACKERS
ATTACKERS=
rss=$(stat maxrss_kb)
held_peak=$(stat held_peak_bytes)
factor_seen=$(stat factor_seen)
factor=$(stat factor)
cat "$T"/att.* | sort | uniq -c | awk '{printf "\"%s\": %s, ", $2, $1}' >"$T/codes"
kill "$PID"
wait "$PID"
PID=
json="{\"variant\": \"$VARIANT\", \"attack\": \"memory\", \"conns\": $CONNS, \"seconds\": $SECONDS_, \
\"body_bytes\": $(wc -c <"$T/big.xml"), \"budget_bytes\": $BUDGET, \"factor\": $factor, \
\"expansion_measured\": $expansion, \"expansion_body_bytes\": $(wc -c <"$T/signed.xml"), \
\"factor_seen\": $factor_seen, \"held_peak_bytes\": $held_peak, \"maxrss_kb\": $rss, \
\"attacker_codes\": {$(sed 's/, $//' "$T/codes")}, \"unattacked\": $base, \"attacked\": $attacked, \
\"loadavg\": \"$load\"}"
echo "$json" >"$OUT/memory-$VARIANT.json"
echo "$json"
# Clean: under the budget, every valid request answered.
python3 -c 'import json, sys; r = json.loads(sys.argv[1]); a = r["attacked"]
sys.exit(0 if r["maxrss_kb"] * 1024 < r["budget_bytes"] and a["sent"] == a["answered"] > 0 else 1)' "$json"
