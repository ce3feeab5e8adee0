#!/bin/sh
# attack.sh OUT PRESET... - attack under load, as a benchmark: for each
# PRESET and each attack (and once unattacked), a fresh `domlab serve
# --stats` on a free loopback port; the attack (harness/attack/slowloris.c
# or harness/reports/attack.py, bounded clients that stop by themselves,
# from 127.0.0.2 so that per-address caps tell them from the valid
# clients on 127.0.0.1) starts, and WARM seconds later
# `domlab load --rate RATE` sends valid traffic for SECONDS seconds, open
# loop (latency from each request's intended send time); then the
# attack ends and the server's peak RSS (VmHWM) is read before it is
# stopped.  OUT/<preset>-<attack>.load.json (domlab load's JSON, its exit
# code in .rc), .attack.json (what the attack did and was answered), .rss
# (kB), .serve.log (over 64 KB: .serve.log.counts, its lines counted);
# OUT/commands.tsv, OUT/machine.txt (load average
# before and after), and OUT/summary.md (harness/reports/attackreport.py).
#
# The attacks:
#   slowloris  ATTACK_SLOW_CONNS (1000) connections dribbling headers,
#              reconnecting when cut
#   bodies     ATTACK_BODY_CONNS (64) concurrent unsigned envelopes of
#              ATTACK_BODY_SIZE (15 MB) of small elements, again and again
#   smuggle    ambiguous framing with a request smuggled behind the body
#   wrap       a signed message with an attacker's EncryptedHeader whose
#              plaintext is a soap:Body carrying the signed Body's Id
#              (harness/reports/attack_wrap.pl)
#   cbc        CBC padding-oracle probes: an aes128-cbc message with one
#              byte of its IV changed, 16 ways
#   serial     an X509SerialNumber of ATTACK_SERIAL_DIGITS (1,000,000) digits
#
# The server runs under an address-space limit (ATTACK_VMEM_KB, default 8
# GiB: ulimit -v) so that an unbounded server fails its allocations
# instead of the machine running out of memory.  Loopback only; every
# client is bounded in time.
#
# ATTACK_ROUNDS=K runs all of it K times (in_rounds.sh): round 1 into
# OUT, round K into OUT/round.K, the presets in reverse order in even
# rounds; OUT/summary.md then gives each ratio to the unattacked row as
# the median over the rounds with the interval one more round lands in
# (attackreport.py).
#
# Not for: correctness (tests/http.sh) or the load levels (load.sh).
# Environment: BUILD_DIR, ATTACK_RATE (50), ATTACK_CLIENTS (8),
# ATTACK_SECONDS (10), ATTACK_WARM (2), ATTACKS (all of the above),
# ATTACK_ROUNDS (1).
set -eu
out=${1:?usage: attack.sh OUT PRESET...}
shift
here=$(dirname "$0")
rounds=${ATTACK_ROUNDS:-1}
if [ "$rounds" -gt 1 ]; then
	sh "$here/in_rounds.sh" ATTACK_ROUNDS "$rounds" "$0" "$out" -- "$@"
	python3 "$here/attackreport.py" --dir "$out" >"$out/summary.md"
	cat "$out/summary.md"
	exit 0
fi
BUILD_DIR=${BUILD_DIR:-build}
keys=$BUILD_DIR/keys
rate=${ATTACK_RATE:-50}
clients=${ATTACK_CLIENTS:-8}
secs=${ATTACK_SECONDS:-10}
warm=${ATTACK_WARM:-2}
attacks=${ATTACKS:-slowloris bodies smuggle wrap cbc serial}
vmem=${ATTACK_VMEM_KB:-8388608}
SOAP=http://schemas.xmlsoap.org/soap/envelope/
WSU=http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd
mkdir -p "$out/msgs"
: >"$out/commands.tsv"
{
	echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
	echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cpus $(nproc)"
	echo "presets $*"
	echo "attacks $attacks"
	echo "rate $rate"
	echo "clients $clients"
	echo "seconds $secs"
	echo "vmem_kb $vmem"
	echo "load before $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"

# The receiver attacks' messages, made once with the first preset's
# domlab (the attacker needs only bob's certificate; alice's message is
# one alice really sent).
d=$BUILD_DIR/$1/domlab
m=$out/msgs
C="--key $keys/alice.key.pem --cert $keys/alice.cert.pem --peer-cert $keys/bob.cert.pem"
A="$C --ttl 3600"
M="--key $keys/mallory.key.pem --cert $keys/mallory.cert.pem --peer-cert $keys/bob.cert.pem --ttl 3600"
"$d" gen quakes --size 2048 --seed 5 -o "$m/q.xml"
# shellcheck disable=SC2086
"$d" send $A "$m/q.xml" -o "$m/alice.xml"
id=$(perl -ne 'print $1 if /<soap:Body[^>]*wsu:Id="([^"]+)"/' "$m/alice.xml")
printf '<soap:Envelope xmlns:soap="%s" xmlns:wsu="%s"><soap:Header><soap:Body wsu:Id="%s"><pay>1000000 to mallory</pay></soap:Body></soap:Header><soap:Body><x/></soap:Body></soap:Envelope>' \
	"$SOAP" "$WSU" "$id" >"$m/mallory-plain.xml"
# shellcheck disable=SC2086
"$d" send $M --encrypt-header "{$SOAP}Body" "$m/mallory-plain.xml" -o "$m/mallory.xml"
perl "$here/attack_wrap.pl" "$m/alice.xml" "$m/mallory.xml" >"$m/wrap.xml"
# shellcheck disable=SC2086
"$d" send $A --cipher aes128-cbc "$m/q.xml" -o "$m/cbc.xml"
for k in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
	# The k-th base64 character of the Body's CipherValue: the IV's bits.
	perl -0777 -pe 's{(<soap:Body.*?<xenc:CipherValue>.{'$k'})(.)}{$1 . ($2 eq "A" ? "B" : "A")}se' \
		"$m/cbc.xml" >"$m/cbc-$k.xml"
done
# shellcheck disable=SC2086
"$d" send $A --key-id issuer-serial "$m/q.xml" -o "$m/serial-ok.xml"
perl -0777 -pe 's{(<ds:X509SerialNumber>)\d+}{$1 . ("9" x '"${ATTACK_SERIAL_DIGITS:-1000000}"')}e' \
	"$m/serial-ok.xml" >"$m/serial.xml"

# The slow connections are harness/attack/slowloris.c's.
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$out/slowloris" \
	"$here/../attack/slowloris.c"

# attack_cmd ATTACK PORT SECONDS: the attack's command line.
attack_cmd() {
	p="python3 $here/attack.py"
	case $1 in
	slowloris) echo "$out/slowloris --target 127.0.0.1:$2 --source 127.0.0.2 --seconds $3 --conns ${ATTACK_SLOW_CONNS:-1000}" ;;
	bodies) echo "$p bodies --port $2 --seconds $3 --conns ${ATTACK_BODY_CONNS:-64} --size ${ATTACK_BODY_SIZE:-15000000}" ;;
	smuggle) echo "$p smuggle --port $2 --seconds $3" ;;
	wrap) echo "$p replay --port $2 --seconds $3 --conns 2 $m/wrap.xml" ;;
	cbc) echo "$p replay --port $2 --seconds $3 --conns 2 $(for k in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do printf '%s ' "$m/cbc-$k.xml"; done)" ;;
	serial) echo "$p replay --port $2 --seconds $3 --conns 2 $m/serial.xml" ;;
	*) echo "attack: no attack '$1'" >&2; return 1 ;;
	esac
}

# one PRESET ATTACK: a fresh server, the attack (none: no attack), the load.
one() {
	v=$1 a=$2 name=$1-$2
	bin=$BUILD_DIR/$v/domlab
	log=$out/$name.serve.log
	: >"$log"
	(ulimit -v "$vmem" && exec "$bin" serve --key "$keys/bob.key.pem" \
		--cert "$keys/bob.cert.pem" --trust "$keys/alice.cert.pem" \
		--stats --port 0) >"$log" 2>&1 &
	spid=$!
	port=
	i=0
	while [ -z "$port" ] && [ $i -lt 300 ] && kill -0 $spid 2>/dev/null; do
		port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$log")
		[ -n "$port" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$port" ] || { echo "attack: $name's server did not start: $(cat "$log")" >&2; kill $spid 2>/dev/null; return 1; }
	apid=
	if [ "$a" != none ]; then
		cmd=$(attack_cmd "$a" "$port" $((warm + secs + 1)))
		printf '%s\tattack\t%s\n' "$name" "$cmd" >>"$out/commands.tsv"
		# shellcheck disable=SC2086
		$cmd >"$out/$name.attack.out" 2>"$out/$name.attack.err" &
		apid=$!
		sleep "$warm"
	fi
	largs="load --url http://127.0.0.1:$port/soap $C --rate $rate --clients $clients"
	largs="$largs --seconds $secs --timeout 10000 --json $out/$name.load.json -o $out/$name.load.md $m/q.xml"
	printf '%s\tserve\t%s serve --stats --port 0 (ulimit -v %s)\n%s\tload\t%s %s\n' \
		"$name" "$bin" "$vmem" "$name" "$bin" "$largs" >>"$out/commands.tsv"
	rc=0
	# shellcheck disable=SC2086
	"$bin" $largs 2>"$out/$name.load.err" || rc=$?
	echo $rc >"$out/$name.load.rc"
	arc=0
	[ -z "$apid" ] || wait $apid || arc=$?
	sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB$/\1/p' /proc/$spid/status >"$out/$name.rss" 2>/dev/null || true
	kill -TERM $spid 2>/dev/null || true
	wait $spid || echo "attack: $name's server exited $?" >>"$log"
	# A server under attack may log a line per connection refused: a
	# long log is kept as its lines counted.
	if [ "$(wc -c <"$log")" -gt 65536 ]; then
		sort "$log" | uniq -c | sort -rn >"$log.counts"
		rm -f "$log"
	fi
	# attack.py prints its JSON; slowloris a line, kept as its tally.
	if [ "$a" = slowloris ]; then
		python3 -c 'import json, sys
print(json.dumps({"attack": "slowloris", "tally": open(sys.argv[1]).read().strip()}))' \
			"$out/$name.attack.out" >"$out/$name.attack.json"
	elif [ -n "$apid" ]; then
		mv "$out/$name.attack.out" "$out/$name.attack.json"
	fi
	if [ $arc != 0 ]; then
		echo "attack: $name: the attack failed (exit $arc): $(tail -n 3 "$out/$name.attack.err")" >&2
		return 1
	fi
	echo "[attack] $name: load exit $rc, peak RSS $(cat "$out/$name.rss") kB"
}

for v in "$@"; do
	one "$v" none
	for a in $attacks; do
		one "$v" "$a"
	done
done
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
python3 "$here/attackreport.py" --dir "$out" >"$out/summary.md"
cat "$out/summary.md"
