#!/bin/sh
# http.sh DOMLAB - `domlab serve` and `domlab load` end to end on one
# variant: a server on a free loopback port answers valid requests with
# the request's Body, secured for the client (checked by decrypting and
# verifying); refuses a tampered message, a body that is not an
# envelope, one over the size limit and other methods, each with its
# status and a SOAP Fault that says what `domlab receive` says and no
# more; and keeps answering valid clients through the attacks: headers
# sent a byte at a time, a client gone mid-body, many connections at
# once, hostile messages mixed into valid traffic.  No refused request
# leaves a connection or a count behind (GET /stats).  The read axis:
# under read=eof a kept-alive request stalls until the read timeout and
# a half-closed one does not (the stall counter); under framed nothing
# stalls.  The scenarios: with `serve --tokens` a run of requests each
# with a fresh token is answered in full and every token kept, a replayed
# one refused without a trace; SOAP with Attachments as multipart/related
# is answered with the Body, a changed attachment or broken MIME refused
# as `receive` refuses them.  Both stacks, and both signals stop the
# server with exit 0.
# Outcomes only: a wait is bounded, never measured.
# Environment: DOMLAB_KEYS (alice, bob, mallory; tests/make-keys.sh).
set -u
SUITE=http
DOMLAB=${1:?usage: http.sh path/to/domlab}
. "$(dirname "$0")/lib.sh"
K=${DOMLAB_KEYS:-build/keys}
need_files "$K/alice.key.pem" "$K/bob.key.pem" "$K/mallory.key.pem"
need_tools curl perl cmp python3
SOAP=http://schemas.xmlsoap.org/soap/envelope/
MAX_BODY=200000
SERVER="--key $K/bob.key.pem --cert $K/bob.cert.pem --trust $K/alice.cert.pem"
CLIENT="--key $K/alice.key.pem --cert $K/alice.cert.pem --peer-cert $K/bob.cert.pem"
# Requests made once live an hour (send's default is 300 s): under
# memcheck the whole suite takes longer than that.
TTL="--ttl 3600"
READ=$("$DOMLAB" variant | sed -n 's/^read=//p')

# A suite that ends early (a signal, a shell error) stops the server it
# left running, then removes the scratch folder as lib.sh does.
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$T"' EXIT
# start NAME ARGS...: a server in the background; PID and PORT set.
start() {
	name=$1
	shift
	"$DOMLAB" serve "$@" --port 0 >"$T/$name.out" 2>"$T/$name.err" &
	PID=$!
	PORT=
	i=0
	while [ $i -lt 300 ] && [ -z "$PORT" ] && kill -0 $PID 2>/dev/null; do
		PORT=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$T/$name.out")
		[ -n "$PORT" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$PORT" ] && ok || bad "$name: no 'listening on 127.0.0.1:PORT': $(cat "$T/$name.out" "$T/$name.err")"
	URL=http://127.0.0.1:$PORT/soap
}
# stop NAME SIGNAL: the server exits 0 on it.
stop() {
	kill -"$2" $PID
	wait $PID
	rc=$?
	PID=
	[ $rc -eq 0 ] && ok || bad "$1: exit $rc after SIG$2: $(cat "$T/$1.err")"
}
# post NAME FILE [CURL ARGS...]: the response in $T/NAME.resp, its status in $T/NAME.code.
post() {
	n=$1 f=$2
	shift 2
	curl -s -o "$T/$n.resp" -w '%{http_code}' --data-binary @"$f" \
		-H 'Content-Type: text/xml; charset=utf-8' "$@" "$URL" >"$T/$n.code" 2>/dev/null
	rc=$?
	date +%s >"$T/$n.time"
	return $rc
}
# The exc-c14n of a Body without what a signer adds to it.
body() { # body FILE OUT
	"$DOMLAB" c14n --exclusive --apex "{$SOAP}Body" "$1" |
		perl -pe 's{ wsu:Id="[^"]*"}{}; s{ xmlns:wsu="[^"]*"}{}' >"$2"
}
# answered NAME PLAIN: NAME's response was 200 and is PLAIN's Body, secured for alice.
# It is received as of when it arrived ($T/NAME.time, else now): its
# Timestamp lives the server's 300 s, less than a suite under memcheck takes.
answered() {
	code=$(cat "$T/$1.code")
	if [ "$code" != 200 ]; then bad "$1: status $code, wanted 200: $(head -c 300 "$T/$1.resp")"; return; fi
	now=$(cat "$T/$1.time" 2>/dev/null || date +%s)
	if "$DOMLAB" receive --key "$K/alice.key.pem" --trust "$K/bob.cert.pem" --now "$now" \
		"$T/$1.resp" -o "$T/$1.got" 2>"$T/$1.rerr"; then
		body "$T/$1.got" "$T/$1.gotbody"
		body "$2" "$T/$1.want"
		cmp -s "$T/$1.want" "$T/$1.gotbody" && ok || bad "$1: the response's Body is not the request's"
	else
		bad "$1: the response does not decrypt and verify: $(cat "$T/$1.rerr")"
	fi
}
# refused NAME STATUS MESSAGE: a SOAP Fault, faultcode Client, faultstring
# MESSAGE (escaped as XML text).
refused() {
	code=$(cat "$T/$1.code")
	[ "$code" = "$2" ] && ok || bad "$1: status $code, wanted $2"
	text=$(printf '%s' "$3" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')
	want="<soap:Envelope xmlns:soap=\"$SOAP\"><soap:Body><soap:Fault><faultcode>soap:Client</faultcode><faultstring>$text</faultstring></soap:Fault></soap:Body></soap:Envelope>"
	[ "$(cat "$T/$1.resp")" = "$want" ] && ok || bad "$1: not the Fault '$3': $(head -c 400 "$T/$1.resp")"
}
stat() { curl -s "http://127.0.0.1:$PORT/stats" | sed -n "s/^$1 //p"; }
# settled: every connection but the one asking is closed (bounded wait).
settled() {
	i=0
	while [ $i -lt 100 ] && [ "$(stat connections)" != 1 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(stat connections)" = 1 ] && ok || bad "$1: $(stat connections) connections still open"
}

"$DOMLAB" gen quakes --seed 5 -o "$T/q.xml"
"$DOMLAB" gen quakes --size 60000 --seed 7 -o "$T/q2.xml"
"$DOMLAB" send $CLIENT $TTL "$T/q.xml" -o "$T/req.xml"
"$DOMLAB" send $CLIENT $TTL "$T/q2.xml" -o "$T/req2.xml"
"$DOMLAB" send $TTL --key "$K/mallory.key.pem" --cert "$K/mallory.cert.pem" --peer-cert "$K/bob.cert.pem" \
	"$T/q.xml" -o "$T/mallory.xml"
# One byte of the first CipherValue changed.
perl -pe 's{(CipherValue>.{20})(.)}{$1 . ($2 eq "A" ? "B" : "A")}e' "$T/req.xml" >"$T/tampered.xml"
cmp -s "$T/req.xml" "$T/tampered.xml" && bad "tamper changed nothing" || ok
head -c $((MAX_BODY + 1)) /dev/zero | tr '\0' x >"$T/big.txt"
printf '<a:Envelope xmlns:a="urn:not-soap"/>' >"$T/notsoap.xml"

# ---- usage ----
expect 1 "serve without --key" "$DOMLAB" serve --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem"
expect 1 "serve --stack other" "$DOMLAB" serve $SERVER --stack other
expect 1 "serve --listen a name" "$DOMLAB" serve $SERVER --listen localhost
expect 4 "serve with a missing key file" "$DOMLAB" serve --key "$T/none.pem" --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem"
expect 1 "load without --url" "$DOMLAB" load $CLIENT "$T/q.xml"
expect 0 "serve --help" "$DOMLAB" serve --help
grep -q -- '--max-body BYTES' "$T/out" && ok || bad "serve --help lacks --max-body"

# Under make memcheck the server runs in valgrind, one thread at a time,
# and its event loop reads a waiting client's headers seconds late while
# workers verify: the deadlines would then measure the server, not the
# client.  There they are longer, still short of the slow client's 19 s.
HEADER_TIMEOUT=2 BODY_TIMEOUT=5
if [ "${DOMLAB_MEMCHECK:-}" = 1 ]; then
	HEADER_TIMEOUT=15 BODY_TIMEOUT=30
fi
start main $SERVER --stats --max-body $MAX_BODY --header-timeout $HEADER_TIMEOUT \
	--body-timeout $BODY_TIMEOUT --max-connections 16 --read-timeout 200
[ -n "$PORT" ] || { finish; exit 1; }
expect 4 "a second server on the same port" "$DOMLAB" serve $SERVER --port "$PORT"

# ---- valid requests ----
post ok1 "$T/req.xml" && answered ok1 "$T/q.xml"
post ok2 "$T/req2.xml" && answered ok2 "$T/q2.xml"
post chunked "$T/req.xml" -H 'Transfer-Encoding: chunked' && answered chunked "$T/q.xml"
# Kept alive: three requests on one connection.
curl -s -o "$T/ka1.resp" -w '%{http_code}' --data-binary @"$T/req.xml" "$URL" --next \
	-o "$T/ka2.resp" -w '%{http_code}' --data-binary @"$T/req2.xml" "$URL" --next \
	-o "$T/ka3.resp" -w '%{http_code}' --data-binary @"$T/req.xml" "$URL" >"$T/ka.codes" 2>/dev/null
for i in 1 2 3; do printf 200 >"$T/ka$i.code"; done
[ "$(cat "$T/ka.codes")" = 200200200 ] && ok || bad "keep-alive: statuses $(cat "$T/ka.codes")"
answered ka1 "$T/q.xml"
answered ka2 "$T/q2.xml"
answered ka3 "$T/q.xml"

# ---- refusals: the Fault says what receive says ----
# said NAME COMMAND FILE: MSG is what `domlab COMMAND` prints about FILE
# after "domlab: COMMAND: ".
said() {
	if [ "$2" = receive ]; then
		"$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" "$3" >/dev/null 2>"$T/said.err"
	else
		"$DOMLAB" "$2" "$3" >/dev/null 2>"$T/said.err"
	fi
	[ -s "$T/said.err" ] && ok || bad "$1: domlab $2 accepted it"
	MSG=$(sed "s/^domlab: $2: //" "$T/said.err")
}
post tampered "$T/tampered.xml"
said tampered receive "$T/tampered.xml"
refused tampered 500 "$MSG"
post mallory "$T/mallory.xml"
said mallory receive "$T/mallory.xml"
refused mallory 500 "$MSG"
post plain "$T/q.xml"
said plain receive "$T/q.xml"
refused plain 500 "$MSG"
post notsoap "$T/notsoap.xml"
refused notsoap 400 "not a SOAP 1.1 Envelope"
printf 'hello' >"$T/hello.txt"
post notxml "$T/hello.txt"
said notxml parse "$T/hello.txt"
refused notxml 400 "$MSG"
post big "$T/big.txt"
refused big 413 "the request body is over the limit of $MAX_BODY bytes"
post bigchunked "$T/big.txt" -H 'Transfer-Encoding: chunked'
refused bigchunked 413 "the request body is over the limit of $MAX_BODY bytes"
curl -s -o "$T/get.resp" -w '%{http_code}' "$URL" >"$T/get.code"
refused get 405 "only POST carries a SOAP request"
settled "after the refusals"

# ---- attacks: valid clients keep being answered ----
# raw PORT SCRIPT: a socket client in perl, $s connected, $req the valid
# request as HTTP; prints what SCRIPT prints.
raw() {
	perl -MIO::Socket::INET -MTime::HiRes=sleep -e '
		$SIG{PIPE} = "IGNORE";
		my ($port, $file, $code) = @ARGV;
		open my $f, "<", $file or die; binmode $f; local $/; my $b = <$f>;
		$req = "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: " .
			length($b) . "\r\n\r\n" . $b;
		sub conn { my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port") or die "connect: $!"; binmode $s; $s }
		sub closed { my $s = shift; my $r = ""; vec($r, fileno($s), 1) = 1;
			select($r, undef, undef, 0) > 0 && !sysread($s, my $x, 1) }
		eval $code; die $@ if $@' "$PORT" "$T/req.xml" "$1"
}
# Headers a byte every 0.1 s, far longer than the header timeout allows:
# the server closes the connection; meanwhile a valid client is answered.
raw 'my $s = conn(); for my $c (split //, "POST /soap HTTP/1.1\r\nHost: x\r\nX-Slow: " . ("y" x 150)) {
	if (closed($s) || !syswrite($s, $c)) { print "closed"; exit } sleep 0.1 } print "open"' >"$T/slow.out" &
slow=$!
sleep 0.3
post during_slow "$T/req.xml" && answered during_slow "$T/q.xml"
wait $slow
[ "$(cat "$T/slow.out")" = closed ] && ok || bad "a byte-at-a-time client was not cut off: $(cat "$T/slow.out")"
# A client gone mid-body: no answer owed, nothing left behind.
raw 'my $s = conn(); syswrite($s, substr($req, 0, length($req) / 2)); close $s; print "gone"' >/dev/null
requests=$(stat requests)
post after_gone "$T/req.xml" && answered after_gone "$T/q.xml"
[ "$(stat requests)" = $((requests + 1)) ] && ok || bad "a client gone mid-body was counted as a request"
# Twelve clients at once, under the connection limit: all answered.
raw 'my @s = map { conn() } 1 .. 12; syswrite($_, $req) for @s;
	for (@s) { local $/; my $r = <$_>; print((($r // "") =~ m{^HTTP/1\.1 200 } ? "200" : "no"), "\n") }' >"$T/many.out"
[ "$(grep -c '^200$' "$T/many.out")" = 12 ] && ok || bad "12 clients at once: $(tr '\n' ' ' <"$T/many.out")"
# Forty at once, over the limit of 16: each is answered correctly or
# turned away without an answer, and the server serves on.
raw 'my @s = map { conn() } 1 .. 40; syswrite($_, $req) for @s;
	for (@s) { local $/; my $r = <$_>; print(($r // "") eq "" ? "none" : $r =~ m{^HTTP/1\.1 200 } ? "200" : "bad", "\n") }' >"$T/flood.out"
grep -q '^bad$' "$T/flood.out" && bad "40 clients at once: a wrong answer" || ok
grep -q '^200$' "$T/flood.out" && ok || bad "40 clients at once: none answered"
post after_flood "$T/req.xml" && answered after_flood "$T/q.xml"
# Hostile messages mixed into valid traffic, four clients at once.
mixers=
for c in 1 2 3 4; do
	(for i in 1 2 3; do
		post "mix$c$i" "$T/req.xml"
		post "mixt$c$i" "$T/tampered.xml"
		post "mixn$c$i" "$T/notsoap.xml"
		post "mixb$c$i" "$T/big.txt"
	done) &
	mixers="$mixers $!"
done
wait $mixers
for c in 1 2 3 4; do
	for i in 1 2 3; do
		answered "mix$c$i" "$T/q.xml"
		[ "$(cat "$T/mixt$c$i.code")$(cat "$T/mixn$c$i.code")$(cat "$T/mixb$c$i.code")" = 500400413 ] && ok ||
			bad "mixed traffic $c/$i: hostile statuses $(cat "$T/mixt$c$i.code" "$T/mixn$c$i.code" "$T/mixb$c$i.code")"
	done
done
settled "after the attacks"

# ---- framing: what two parsers could split differently is refused, closed ----
# smuggle NAME HEADERS BODY: a POST with HEADERS (\r\n-separated) and
# BODY, then a GET right behind it on the same connection; what came
# back, to the end of the stream, in $T/NAME.raw.  The alarm only bounds
# a server that never closes.
smuggle() {
	perl -MIO::Socket::INET -e '
		$SIG{ALRM} = sub { print "\nTIMEOUT"; exit }; alarm 20;
		my ($port, $h, $b) = map { s/\\r\\n/\r\n/gr } @ARGV;
		my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port") or die "connect: $!";
		binmode $s;
		syswrite($s, "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n$h\r\n\r\n$b" .
			"GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n");
		local $/; my $r = <$s>; print $r // ""' "$PORT" "$2" "$3" >"$T/$1.raw"
}
# framed NAME MESSAGE: one answer, 400, the connection closed after it
# and the smuggled GET never answered; MESSAGE (when given) is the
# Fault's, with Connection: close.
framed() {
	n=$(grep -o 'HTTP/1\.[01] [0-9][0-9][0-9] ' "$T/$1.raw" | wc -l | tr -d ' ')
	[ "$n" = 1 ] && ok || bad "$1: $n answers, wanted 1 (the smuggled request answered?): $(head -c 600 "$T/$1.raw")"
	head -n 1 "$T/$1.raw" | grep -q '^HTTP/1\.1 400 ' && ok || bad "$1: not 400: $(head -n 1 "$T/$1.raw")"
	grep -q 'TIMEOUT$' "$T/$1.raw" && bad "$1: the connection was not closed" || ok
	[ -z "$2" ] && return
	grep -qi '^Connection: close' "$T/$1.raw" && ok || bad "$1: no Connection: close"
	grep -qF "<faultstring>$2</faultstring>" "$T/$1.raw" && ok || bad "$1: not the Fault '$2': $(head -c 600 "$T/$1.raw")"
}
CLTE="a request with both Content-Length and Transfer-Encoding is refused"
smuggle cl_te 'Content-Length: 5\r\nTransfer-Encoding: chunked' '0\r\n\r\n'
framed cl_te "$CLTE"
smuggle te_cl 'Transfer-Encoding: chunked\r\nContent-Length: 5' '0\r\n\r\n'
framed te_cl "$CLTE"
smuggle cl_cl 'Content-Length: 5\r\nContent-Length: 6' 'abcde'
framed cl_cl "a request with more than one Content-Length is refused"
smuggle cl_same 'Content-Length: 5\r\nContent-Length: 5' 'abcde'
framed cl_same "a request with more than one Content-Length is refused"
TEBAD="a Transfer-Encoding other than one chunked is refused"
smuggle te_list 'Transfer-Encoding: chunked, identity' '0\r\n\r\n'
framed te_list "$TEBAD"
smuggle te_x 'Transfer-Encoding: xchunked' '0\r\n\r\n'
framed te_x "$TEBAD"
smuggle te_two 'Transfer-Encoding: identity\r\nTransfer-Encoding: chunked' '0\r\n\r\n'
framed te_two "$TEBAD"
# An obsolete line folding: libmicrohttpd reads it as chunked (RFC 9112
# section 5 allows it) and closes the connection after its answer;
# nothing behind the body is answered.
smuggle te_fold 'Transfer-Encoding:\r\n chunked' '0\r\n\r\n'
framed te_fold ""
# White space before the colon (section 5.1): refused whatever the name,
# alone or beside a Content-Length that frames the body another way.
SPACED="a header whose name holds white space is refused"
smuggle te_space 'Transfer-Encoding : chunked' '0\r\n\r\n'
framed te_space "$SPACED"
smuggle te_space_cl 'Transfer-Encoding : chunked\r\nContent-Length: 5' '0\r\n\r\n'
framed te_space_cl "$SPACED"
smuggle cl_space 'Content-Length : 5' 'abcde'
framed cl_space "$SPACED"
# The control: one framing, the GET behind it is a pipelined request.
smuggle pipelined 'Content-Length: 5' 'abcde'
[ "$(grep -o 'HTTP/1\.1 405 ' "$T/pipelined.raw" | wc -l | tr -d ' ')" = 1 ] && ok ||
	bad "a pipelined request behind a framed body was not answered: $(head -c 600 "$T/pipelined.raw")"
settled "after the framing refusals"

# ---- the read axis: eof stalls a kept-alive client until the read timeout ----
stalls=$(stat stalls)
post keptalive "$T/req.xml" && answered keptalive "$T/q.xml"
after=$(stat stalls)
if [ "$READ" = eof ]; then want=$((stalls + 1)); else want=$stalls; fi
[ "$after" = "$want" ] && ok || bad "read=$READ: stalls $stalls -> $after after a kept-alive request, wanted $want"
raw 'my $s = conn(); syswrite($s, $req); shutdown($s, 1); local $/; my $r = <$s>;
	$r =~ s/^.*?\r\n\r\n//s; print $r' >"$T/halfclosed.resp"
printf 200 >"$T/halfclosed.code"
answered halfclosed "$T/q.xml"
[ "$(stat stalls)" = "$after" ] && ok || bad "read=$READ: a half-closed request stalled"

# ---- load ----
expect 0 "load" "$DOMLAB" load --url "$URL" $CLIENT --clients 2 --requests 6 --json "$T/load.json" "$T/q.xml"
grep -q '^| 2 | 6 | 0 |' "$T/out" && ok || bad "load's table lacks the 2-client row: $(cat "$T/out")"
perl -0777 -ne 'my @l = /\{"clients": (\d+), "rate": 0, "requests": (\d+), "errors": (\d+), "done": (\d+)/g;
	exit !("@l" eq "1 6 0 6 2 6 0 6" && /"read": "'"$READ"'"/ && /"server_cpu_ms_per_request": \d/ &&
		/"p999_ms": \d/ && !/"failures": \[\{/)' "$T/load.json" &&
	ok || bad "load's JSON: $(cat "$T/load.json")"
# The open loop: one level on the schedule, every request done.
expect 0 "load --rate" "$DOMLAB" load --url "$URL" $CLIENT --clients 2 --rate 40 --requests 12 \
	--json "$T/rate.json" "$T/q.xml"
grep -q '^open loop: 40 requests/s scheduled' "$T/out" && grep -q '^| 2 | 12 | 0 |' "$T/out" && ok ||
	bad "load --rate's table: $(cat "$T/out")"
perl -0777 -ne 'exit !(/\{"clients": 2, "rate": 40, "requests": 12, "errors": 0, "done": 12,/ &&
	/"p99_ms": (\d+\.\d+), "p999_ms": (\d+\.\d+), "max_ms": (\d+\.\d+)/ && $1 > 0 && $1 <= $2 && $2 <= $3)' \
	"$T/rate.json" && ok || bad "load --rate's JSON: $(cat "$T/rate.json")"
# For a time, the schedule is R x S requests.
expect 0 "load --rate --seconds" "$DOMLAB" load --url "$URL" $CLIENT --clients 1 --rate 10 --seconds 1 "$T/q.xml"
grep -q '^| 1 | 10 | 0 |' "$T/out" && ok || bad "load --rate 10 --seconds 1: $(cat "$T/out")"
# The report scripts read it: summary.md's load table and the stall row
# (here the same JSON as both choices, so the stall is 0).
REPORTS=$(cd "$(dirname "$0")/../harness/reports" && pwd)
mkdir -p "$T/run/load"
cp "$T/load.json" "$T/run/load/best.json"
cp "$T/load.json" "$T/run/load/best+read=eof.json"
python3 "$REPORTS/loadreport.py" --dir "$T/run" >"$T/table.md" 2>"$T/err" &&
	grep -q '^| `best` | 2 | 6 | 0 | ' "$T/table.md" && grep -q '^| `best+read=eof` | 1 | 6 | 0 | ' "$T/table.md" &&
	ok || bad "loadreport.py's table: $(cat "$T/table.md" "$T/err")"
python3 "$REPORTS/loadreport.py" --dir "$T/run" --stall >"$T/stall.md" 2>"$T/err" &&
	grep -q ' 0 ms stall per request (median)' "$T/stall.md" && grep -q '^| 2 | ' "$T/stall.md" &&
	ok || bad "loadreport.py --stall: $(cat "$T/stall.md" "$T/err")"
settled "after load"
stop main TERM

# ---- load's verdict: a request is done only when 2xx and verified ----
# load_fails CASE N REASON FIRST ARGS...: load exits 4, its message says
# N requests failed for REASON, and the report names the first one's
# FIRST (a fixed string).  A minute per request unless ARGS say less:
# under make memcheck the server runs in valgrind.
load_fails() {
	case=$1 n=$2 why=$3 first=$4
	shift 4
	expect 4 "load against $case" "$DOMLAB" load $CLIENT --timeout 60000 "$@" "$T/q.xml"
	grep -q "^domlab: load: $n of $n requests failed: $n $why (the report lists them)\$" "$T/err" && ok ||
		bad "load against $case: not '$n $why': $(cat "$T/err")"
	grep -qF -- "$first" "$T/out" && ok || bad "load against $case: the report lacks '$first': $(cat "$T/out")"
}
# The server just stopped: its port is dead, in both loops.
load_fails "a dead port" 6 "connection refused" "- 3 connection refused (the first: " \
	--url "$URL" --clients 2 --requests 3
load_fails "a dead port (--rate)" 5 "connection refused" "- 5 connection refused" \
	--url "$URL" --clients 2 --rate 50 --requests 5
# A server that trusts mallory answers alice's requests with 500.
start untrusting --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --trust "$K/mallory.cert.pem"
"$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/mallory.cert.pem" "$T/req.xml" >/dev/null 2>"$T/said.err"
MSG=$(sed "s/^domlab: receive: //" "$T/said.err")
load_fails "a server answering 500" 2 "status 500" "- 2 status 500 (the first: $MSG)" \
	--url "$URL" --clients 1 --requests 2
stop untrusting TERM
# A server that answers 200 but encrypts for mallory: not done.
start wrongpeer $SERVER --peer-cert "$K/mallory.cert.pem"
load_fails "answers alice cannot decrypt" 3 "answer does not verify" "- 3 answer does not verify (the first: " \
	--url "$URL" --clients 1 --rate 30 --requests 3
stop wrongpeer TERM
# A listener that never answers: each request times out (--timeout).
python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True); time.sleep(20)' >"$T/mute.port" &
MUTE=$!
i=0
while [ $i -lt 50 ] && [ ! -s "$T/mute.port" ]; do sleep 0.1; i=$((i + 1)); done
load_fails "a server that never answers" 2 "timeout" "- 2 timeout (the first: " \
	--url "http://127.0.0.1:$(cat "$T/mute.port")/soap" --clients 1 --requests 2 --timeout 300
kill $MUTE 2>/dev/null
wait $MUTE 2>/dev/null

# ---- the scenarios: a token per request (serve --tokens), SwA ----
start tok $SERVER --stats --tokens
[ "$(stat tokens_store)" = "$("$DOMLAB" variant | sed -n 's/^tokens=//p')" ] && ok ||
	bad "--tokens: the store is not the variant's: $(stat tokens_store)"
# A run of N requests, each with a fresh token: every one answered, and
# the server holds N tokens.
N=24
expect 0 "load --tokens" "$DOMLAB" load --url "$URL" $CLIENT --clients 1 --requests $N --tokens \
	--json "$T/tok.json" "$T/q.xml"
grep -q "^| 1 | $N | 0 | .* | $N |\$" "$T/out" && ok || bad "load --tokens: not $N answered and held: $(cat "$T/out")"
perl -0777 -ne 'exit !(/"fresh_tokens": true/ && /"requests": '$N', "errors": 0,/ &&
	/"first_ms": \d+\.\d+, "last_ms": \d+\.\d+, "server_tokens": '$N'\.0+, "failures": \[\]\}/)' "$T/tok.json" &&
	ok || bad "load --tokens' JSON: $(cat "$T/tok.json")"
[ "$(stat requests) $(stat faults) $(stat tokens)" = "$N 0 $N" ] && ok ||
	bad "after load --tokens: requests, faults, tokens $(stat requests) $(stat faults) $(stat tokens)"
# Fresh requests are answered correctly; each replay is refused and
# leaves no token behind.
"$DOMLAB" send $CLIENT $TTL "$T/q2.xml" -o "$T/fresh.xml"
post fresh "$T/fresh.xml" && answered fresh "$T/q2.xml"
post replay1 "$T/fresh.xml"
refused replay1 500 "the request's token was used before"
post replay2 "$T/fresh.xml"
refused replay2 500 "the request's token was used before"
[ "$(stat tokens)" = $((N + 1)) ] && ok || bad "replays changed the store: $(stat tokens) tokens, wanted $((N + 1))"
# The same bytes from load without --tokens: the first answered, the rest replays.
expect 4 "load replaying one request" "$DOMLAB" load --url "$URL" $CLIENT --clients 1 --requests 4 "$T/q.xml"
grep -q '^| 1 | 4 | 3 |' "$T/out" && grep -qF -e "- 3 status 500 (the first: the request's token was used before)" "$T/out" &&
	grep -q '^domlab: load: 3 of 4 requests failed: 3 status 500 ' "$T/err" && ok ||
	bad "a replayed request was answered: $(cat "$T/out" "$T/err")"
# A tampered request is refused as receive refuses it, its token not kept.
tokens=$(stat tokens)
post tok_tampered "$T/tampered.xml"
said tok_tampered receive "$T/tampered.xml"
refused tok_tampered 500 "$MSG"
[ "$(stat tokens)" = "$tokens" ] && ok || bad "a refused request left a token"

# mime_post NAME FILE: the MIME message FILE as HTTP carries it: its
# header's Content-Type as the request's, the rest as the body.
mime_post() {
	ct=$(sed -n 's/^Content-Type: \(multipart[^\r]*\)\r$/\1/p' "$2" | head -n 1)
	perl -0777 -pe 's/\A.*?\r\n\r\n//s' "$2" >"$T/$1.body"
	curl -s -o "$T/$1.resp" -w '%{http_code}' --data-binary @"$T/$1.body" \
		-H "Content-Type: $ct" "$URL" >"$T/$1.code" 2>/dev/null
	date +%s >"$T/$1.time"
}
"$DOMLAB" gen bytes --size 150000 --seed 5 -o "$T/att.bin"
"$DOMLAB" send $CLIENT $TTL --attach "$T/att.bin" "$T/q.xml" -o "$T/swa.mime"
mime_post swa "$T/swa.mime" && answered swa "$T/q.xml"
# One byte of the attachment changed (its last bytes are the file's end).
size=$(wc -c <"$T/swa.mime")
{ head -c $((size - 1000)) "$T/swa.mime"; printf 'Z'; tail -c 999 "$T/swa.mime"; } >"$T/swabad.mime"
cmp -s "$T/swa.mime" "$T/swabad.mime" && bad "the attachment was not changed" || ok
mime_post swabad "$T/swabad.mime"
said swabad receive "$T/swabad.mime"
refused swabad 500 "$MSG"
# MIME whose start part is missing: 400, the reader's message.
sed 's/start="<soap-envelope@domlab>"/start="<elsewhere@domlab>"/' "$T/swa.mime" >"$T/swanostart.mime"
mime_post swanostart "$T/swanostart.mime"
said swanostart receive "$T/swanostart.mime"
refused swanostart 400 "$MSG"
expect 0 "load --tokens --attach" "$DOMLAB" load --url "$URL" $CLIENT --clients 2 --requests 6 --tokens \
	--attach "$T/att.bin" "$T/q.xml"
grep -q '^SwA: an attachment of 150000 bytes$' "$T/out" && grep -q '^| 2 | 6 | 0 |' "$T/out" && ok ||
	bad "load --attach: $(cat "$T/out")"
settled "after the scenarios"
stop tok TERM

# ---- the memory budget and the per-client limits ----
# A budget of 600000 bytes at 10 bytes per body byte: req.xml (8 KB) fits,
# req2.xml (80 KB) does not; one request in flight per address, three
# connections per address.
start budget $SERVER --stats --max-memory 600000 --memory-factor 10 \
	--max-client-requests 1 --max-connections-per-ip 3
# busy NAME: 503, Retry-After, the Fault says the server is busy.
busy() {
	code=$(cat "$T/$1.code")
	[ "$code" = 503 ] && ok || bad "$1: status $code, wanted 503"
	grep -qi '^Retry-After: 1' "$T/$1.hdr" && ok || bad "$1: no Retry-After"
	want="<soap:Envelope xmlns:soap=\"$SOAP\"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>the server is busy: retry later</faultstring></soap:Fault></soap:Body></soap:Envelope>"
	[ "$(cat "$T/$1.resp")" = "$want" ] && ok || bad "$1: not the busy Fault: $(head -c 400 "$T/$1.resp")"
}
# held: the bytes the budget holds now, once they equal $1 (bounded wait).
held() {
	i=0
	while [ $i -lt 100 ] && [ "$(stat held_bytes)" != "$1" ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(stat held_bytes)" = "$1" ] && ok || bad "$2: the budget holds $(stat held_bytes) bytes, wanted $1"
}
post b_over "$T/req2.xml" -D "$T/b_over.hdr"
busy b_over
post b_chunked "$T/req2.xml" -D "$T/b_chunked.hdr" -H 'Transfer-Encoding: chunked'
busy b_chunked
post b_fits "$T/req.xml" && answered b_fits "$T/q.xml"
held 0 "after the budget's refusals"
# A request held open from 127.0.0.1 (its headers in, its body not):
# the next from the same address is refused, another address answered.
perl -MIO::Socket::INET -e '
	my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$ARGV[0]", LocalAddr => "127.0.0.1") or die;
	syswrite($s, "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc");
	sleep 30' "$PORT" &
holder=$!
i=0
while [ $i -lt 100 ] && [ "$(stat held_bytes)" = 0 ]; do sleep 0.1; i=$((i + 1)); done
post b_second "$T/req.xml" -D "$T/b_second.hdr"
busy b_second
post b_other "$T/req.xml" --interface 127.0.0.2 && answered b_other "$T/q.xml"
kill $holder
wait $holder 2>/dev/null
held 0 "after the held request's client left"
post b_again "$T/req.xml" && answered b_again "$T/q.xml"
# Three connections from 127.0.0.3 held: its fourth is closed unanswered,
# while 127.0.0.1 is answered.
perl -MIO::Socket::INET -e '
	$SIG{ALRM} = sub { print "TIMEOUT"; exit }; alarm 20;
	my @s = map { IO::Socket::INET->new(PeerAddr => "127.0.0.1:$ARGV[0]", LocalAddr => "127.0.0.3") or die } 1 .. 4;
	syswrite($s[3], "GET /stats HTTP/1.1\r\nHost: x\r\n\r\n");
	local $/; my $r = readline($s[3]); print(($r // "") eq "" ? "closed" : "answered")' "$PORT" >"$T/perip.out"
[ "$(cat "$T/perip.out")" = closed ] && ok || bad "a fourth connection from one address: $(cat "$T/perip.out")"
post b_perip "$T/req.xml" && answered b_perip "$T/q.xml"
[ "$(stat busy)" = 3 ] && ok || bad "the budget refused $(stat busy) requests, wanted 3"
held 0 "after the budget's tests"
stop budget TERM

# ---- the reference stack behind the same server, its tokens; SIGINT ----
start ref $SERVER --stack ref --stats --tokens
if [ -n "$PORT" ]; then
	post ref1 "$T/req2.xml" && answered ref1 "$T/q2.xml"
	post refreplay "$T/req2.xml"
	refused refreplay 500 "the request's token was used before"
	[ "$(stat tokens)" = 1 ] && ok || bad "the ref server holds $(stat tokens) tokens, wanted 1"
	post reft "$T/notsoap.xml"
	refused reft 400 "not a SOAP 1.1 Envelope"
	mime_post refswa "$T/swa.mime"
	refused refswa 415 "the reference stack takes no attachments"
	[ "$(stat stack)" = ref ] && ok || bad "the ref server's stats say stack $(stat stack)"
	stop ref INT
fi
finish
