#!/bin/sh
# cli.sh DOMLAB DOMLAB_BENCH - tests the command line of one variant's
# binaries: exit
# codes, where output goes (and that none is written on failure), and that
# every command behaves as docs/design.md says.  The DOM's behaviour itself is
# tested by test-libdomlab; this is about the process boundary.
# Environment: DOMLAB_KEYS (tests/make-keys.sh's keys) for the pipeline's
# atomic-output checks.
set -u
SUITE=cli
DOMLAB=${1:?usage: cli.sh path/to/domlab path/to/domlab-bench}
BENCH=${2:?usage: cli.sh path/to/domlab path/to/domlab-bench}
. "$(dirname "$0")/lib.sh"

# variant: the name, the preset it starts with, then every axis; each
# axis=choice the name spells out is the binary's own.
expect 0 "variant" "$DOMLAB" variant
for axis in attrs userdata build attrlist keys tokens io parser emit; do
	grep -q "^$axis=" "$T/out" && ok || bad "variant lacks $axis"
done
name=$(sed -n '1s/^variant=//p' "$T/out")
[ "$(sed -n '2s/^preset=//p' "$T/out")" = "${name%%+*}" ] && [ -n "$name" ] && ok ||
	bad "variant: name '$name' and preset line disagree: $(head -n 2 "$T/out")"
for pair in $(echo "$name" | tr '+' ' ' | cut -d' ' -f2-); do
	case $pair in *=*) grep -qx "$pair" "$T/out" && ok || bad "variant $name, but not $pair" ;; esac
done
expect 1 "variant with an argument" "$DOMLAB" variant extra

# --version: each binary names itself, the version, the commit it was
# built from and the variant `domlab variant` names, on one line.
variant=$("$DOMLAB" variant | sed -n "1s/^variant=//p")
for bin in "$DOMLAB" "$BENCH" "$(dirname "$DOMLAB")/domlab-http" \
	"$(dirname "$DOMLAB")/test-libdomlab"; do
	expect 0 "${bin##*/} --version" "$bin" --version
	grep -qx "${bin##*/} [0-9][0-9.]* (commit [^,]*, variant $variant)" "$T/out" &&
		[ "$(wc -l <"$T/out")" -eq 1 ] && [ ! -s "$T/err" ] && ok ||
		bad "${bin##*/} --version printed '$(cat "$T/out" "$T/err")'"
done
expect 1 "--version with an argument" "$DOMLAB" --version extra

# gen: deterministic from the seed, different across seeds.
for kind in quakes ints strings wide deep random; do
	"$DOMLAB" gen "$kind" --seed 7 >"$T/a.xml" && "$DOMLAB" gen "$kind" --seed 7 >"$T/b.xml" &&
		cmp -s "$T/a.xml" "$T/b.xml" && ok || bad "gen $kind is not deterministic"
	"$DOMLAB" gen "$kind" --seed 8 >"$T/c.xml" && ! cmp -s "$T/a.xml" "$T/c.xml" && ok ||
		bad "gen $kind ignores the seed"
	# parse writes back exactly what gen wrote: both follow the serializer's form.
	"$DOMLAB" parse "$T/a.xml" >"$T/rt.xml" && cmp -s "$T/a.xml" "$T/rt.xml" && ok ||
		bad "parse of gen $kind does not round-trip"
done
"$DOMLAB" gen quakes --size 200000 >"$T/q.xml"
size=$(wc -c <"$T/q.xml")
[ "$size" -gt 199000 ] && [ "$size" -lt 201000 ] && ok || bad "gen quakes --size 200000 gave $size bytes"
# --canonical: the same length and records (exclusive C14N of the Body
# equal), each Body's content its own canonical form, the bytes changed.
"$DOMLAB" gen quakes --size 200000 --canonical >"$T/qc.xml" && ok || bad "gen quakes --canonical"
body='{http://schemas.xmlsoap.org/soap/envelope/}Body'
if "$DOMLAB" c14n --exclusive --apex "$body" "$T/q.xml" >"$T/q.c14n" &&
	"$DOMLAB" c14n --exclusive --apex "$body" "$T/qc.xml" >"$T/qc.c14n"; then
	cmp -s "$T/q.c14n" "$T/qc.c14n" && ok || bad "gen --canonical changed the records"
	# between(FILE, OPEN, CLOSE): the bytes between OPEN's first end
	# and CLOSE's last start.
	between() {
		from=$(($(grep -bo "$2" "$1" | head -n 1 | cut -d: -f1) + ${#2}))
		to=$(grep -bo "$3" "$1" | tail -n 1 | cut -d: -f1)
		tail -c +$((from + 1)) "$1" | head -c $((to - from))
	}
	between "$T/qc.xml" '<soap:Body>' '</soap:Body>' >"$T/qc.content"
	between "$T/qc.c14n" '<soap:Body xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">' \
		'</soap:Body>' >"$T/qc.canon"
	[ -s "$T/qc.content" ] && cmp -s "$T/qc.content" "$T/qc.canon" && ok ||
		bad "gen --canonical's Body content is not its canonical form"
else
	bad "c14n of gen quakes failed"
fi
[ "$(wc -c <"$T/qc.xml")" -eq "$(wc -c <"$T/q.xml")" ] && ! cmp -s "$T/q.xml" "$T/qc.xml" && ok ||
	bad "gen --canonical: not the same length in another order"
expect 1 "gen ints --canonical" "$DOMLAB" gen ints --canonical
# The generator's own refusal, prefixed once with the command.
grep -qx "domlab: gen: canonical is for quakes, not ints" "$T/err" && ok ||
	bad "gen ints --canonical said: $(head -c 300 "$T/err")"
expect 1 "gen unknown kind" "$DOMLAB" gen nonsense
expect 1 "gen bad count" "$DOMLAB" gen ints --count x
expect 1 "gen too deep" "$DOMLAB" gen deep --count 1000

# parse: stdin and file give the same; -o writes the file only on success.
"$DOMLAB" parse <"$T/q.xml" >"$T/stdin.xml" && cmp -s "$T/q.xml" "$T/stdin.xml" && ok ||
	bad "parse from stdin"
expect 0 "parse -o" "$DOMLAB" parse "$T/q.xml" -o "$T/o.xml"
cmp -s "$T/q.xml" "$T/o.xml" && ok || bad "parse -o content"
[ -s "$T/out" ] && bad "parse -o also wrote stdout" || ok
# -o onto a FIFO (as onto /dev/null): written in place, the FIFO stays one.
mkfifo "$T/fifo"
timeout 60 cat "$T/fifo" >"$T/from-fifo" & # the bound only ends a hang
reader=$!
expect 0 "parse -o FIFO" "$DOMLAB" parse "$T/q.xml" -o "$T/fifo"
wait $reader
[ -p "$T/fifo" ] && cmp -s "$T/q.xml" "$T/from-fifo" && ok || bad "parse -o replaced the FIFO or lost its content"
rm -f "$T/fifo"
expect 0 "parse --stats" "$DOMLAB" parse --stats "$T/q.xml"
for key in elements attributes namespace_decls arena_bytes_used parse_allocations bytes_per_element; do
	grep -q "^$key [0-9]" "$T/err" && ok || bad "--stats lacks $key"
done

# Malformed input: exit 2, line and column, and no output anywhere.
printf '<a>\n  <b></c>\n</a>\n' >"$T/bad.xml"
expect 2 "mismatched tags" "$DOMLAB" parse "$T/bad.xml"
grep -q "line 2, column" "$T/err" && ok || bad "no position in: $(cat "$T/err")"
[ -s "$T/out" ] && bad "malformed input produced output" || ok
echo keep >"$T/keep.xml"
expect 2 "mismatched tags -o" "$DOMLAB" parse "$T/bad.xml" -o "$T/keep.xml"
[ "$(cat "$T/keep.xml")" = keep ] && ok || bad "failed parse replaced the -o file"
ls "$T"/keep.xml.tmp.* >/dev/null 2>&1 && bad "temporary file left behind" || ok
printf '<a>' >"$T/trunc.xml"
expect 2 "truncated" "$DOMLAB" parse "$T/trunc.xml"
printf '<a>\377</a>' >"$T/utf8.xml"
expect 2 "invalid UTF-8" "$DOMLAB" parse "$T/utf8.xml"
printf '<p:a/>' >"$T/prefix.xml"
expect 2 "undeclared prefix" "$DOMLAB" parse "$T/prefix.xml"
printf '<a x="1" x="2"/>' >"$T/dup.xml"
expect 2 "duplicate attribute" "$DOMLAB" parse "$T/dup.xml"
: >"$T/empty.xml"
expect 2 "empty input" "$DOMLAB" parse "$T/empty.xml"

# Nothing external is ever read; entity expansion is bounded.
echo "SECRET-MARKER" >"$T/secret.txt"
printf '<!DOCTYPE r [<!ENTITY x SYSTEM "file://%s/secret.txt">]>\n<r>&x;</r>\n' "$T" >"$T/xxe.xml"
expect 2 "external entity" "$DOMLAB" parse "$T/xxe.xml"
grep -q "SECRET-MARKER" "$T/out" "$T/err" && bad "external entity content leaked" || ok
printf '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">' >"$T/lol.xml"
prev=a
for e in b c d e f g h i j k; do
	printf '<!ENTITY %s "&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;">' $e $prev $prev $prev $prev $prev $prev $prev $prev $prev $prev >>"$T/lol.xml"
	prev=$e
done
printf ']>\n<r>&k;</r>\n' >>"$T/lol.xml"
expect 2 "billion laughs" timeout 10 "$DOMLAB" parse "$T/lol.xml"
# parser=insitu refuses any DTD, saying why, with a position.
if "$DOMLAB" variant | grep -qx parser=insitu; then
	printf '<?xml version="1.0"?>\n<!DOCTYPE r>\n<r/>\n' >"$T/dtd.xml"
	expect 2 "DTD under insitu" "$DOMLAB" parse "$T/dtd.xml"
	grep -q "line 2, column 1: DTDs are not allowed in SOAP messages" "$T/err" &&
		ok || bad "DTD refusal message: $(cat "$T/err")"
fi

# Limits on the command line.
"$DOMLAB" gen deep --count 40 >"$T/deep.xml"
expect 2 "--max-depth" "$DOMLAB" parse --max-depth 20 "$T/deep.xml"
expect 0 "--max-depth high enough" "$DOMLAB" parse --max-depth 100 "$T/deep.xml"
expect 2 "--max-input" "$DOMLAB" parse --max-input 1000 "$T/q.xml"
expect 2 "--max-input on stdin" sh -c "\"$DOMLAB\" parse --max-input 1000 <\"$T/q.xml\""
expect 1 "--max-depth without a number" "$DOMLAB" parse --max-depth x "$T/deep.xml"

# Each limit from the command line: exit 2, on every command that parses.
# What the parsers say may differ; the exit code is the contract.
printf '<a x="1" y="2" z="3"/>' >"$T/attrs.xml"
printf '<abcdefghijk/>' >"$T/name.xml"
printf '<a>0123456789abcdef</a>' >"$T/text.xml"
printf '<a v="0123456789abcdef"/>' >"$T/value.xml"
expect 2 "--max-attrs" "$DOMLAB" parse --max-attrs 2 "$T/attrs.xml"
expect 0 "--max-attrs at the bound" "$DOMLAB" parse --max-attrs 3 "$T/attrs.xml"
expect 2 "--max-name" "$DOMLAB" parse --max-name 10 "$T/name.xml"
expect 0 "--max-name at the bound" "$DOMLAB" parse --max-name 11 "$T/name.xml"
expect 2 "--max-text" "$DOMLAB" parse --max-text 15 "$T/text.xml"
expect 0 "--max-text at the bound" "$DOMLAB" parse --max-text 16 "$T/text.xml"
expect 2 "--max-text on a value" "$DOMLAB" parse --max-text 15 "$T/value.xml"
expect 2 "c14n --max-depth" "$DOMLAB" c14n --max-depth 20 "$T/deep.xml"
expect 2 "c14n --max-input" "$DOMLAB" c14n --exclusive --max-input 1000 "$T/q.xml"
expect 2 "sign --max-depth" "$DOMLAB" sign --max-depth 20 --key /dev/null --cert /dev/null "$T/deep.xml"
expect 2 "receive --max-attrs" "$DOMLAB" receive --max-attrs 2 --key /dev/null --trust /dev/null "$T/attrs.xml"

# Entities: a quadratic blowup is refused; an external DTD is never read,
# so an entity only it declares is an error, not silently dropped text.
{
	printf '<!DOCTYPE r [<!ENTITY a "'
	i=0
	while [ $i -lt 200 ]; do printf 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'; i=$((i + 1)); done
	printf '">]><r>'
	i=0
	while [ $i -lt 300 ]; do printf '&a;'; i=$((i + 1)); done
	printf '</r>\n'
} >"$T/quadratic.xml"
expect 2 "quadratic blowup" timeout 20 "$DOMLAB" parse "$T/quadratic.xml"
[ -s "$T/out" ] && bad "quadratic blowup wrote output" || ok
printf '<!ENTITY leak "SECRET-MARKER">\n<!ATTLIST r injected CDATA "SECRET-MARKER">\n' >"$T/secret.dtd"
printf '<!DOCTYPE r SYSTEM "file://%s/secret.dtd">\n<r>&leak;</r>\n' "$T" >"$T/extdtd.xml"
expect 2 "entity from an external DTD" "$DOMLAB" parse "$T/extdtd.xml"
grep -q "SECRET-MARKER" "$T/out" "$T/err" && bad "external DTD content leaked" || ok
# A parser that refuses every DTD (as SOAP asks) refuses this one too; one
# that reads the internal subset must not need the external one.
printf '<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>' >"$T/dtd.xml"
if "$DOMLAB" parse "$T/dtd.xml" >/dev/null 2>&1; then dtd_rc=0; else dtd_rc=2; fi
printf '<!DOCTYPE r SYSTEM "file://%s/secret.dtd">\n<r/>\n' "$T" >"$T/extdtd2.xml"
expect $dtd_rc "external DTD, not needed" "$DOMLAB" parse "$T/extdtd2.xml"
grep -q "SECRET-MARKER" "$T/out" "$T/err" && bad "external DTD's attribute default applied" || ok
printf '<!DOCTYPE r [<!ENTITY %% p SYSTEM "file://%s/secret.dtd"> %%p;]>\n<r/>\n' "$T" >"$T/pe.xml"
expect 2 "external parameter entity" "$DOMLAB" parse "$T/pe.xml"
grep -q "SECRET-MARKER" "$T/out" "$T/err" && bad "parameter entity content leaked" || ok
printf '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<r>&x;</r>\n' >"$T/passwd.xml"
expect 2 "file:///etc/passwd entity" "$DOMLAB" parse "$T/passwd.xml"
grep -q "root:" "$T/out" "$T/err" && bad "/etc/passwd leaked" || ok

# Atomic output: a command that fails late leaves no -o file, no temporary
# file and nothing on stdout.  Run in an empty folder, once with -o and
# once to stdout.
K=${DOMLAB_KEYS:-build/keys}
# nothing_written CODE NAME CMD...
nothing_written() {
	code=$1 name=$2
	shift 2
	rm -rf "$T/at"
	mkdir "$T/at"
	"$@" -o "$T/at/out.xml" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq "$code" ] && ok || bad "$name: exit $rc, wanted $code: $(head -c 300 "$T/err")"
	[ -z "$(ls -A "$T/at")" ] && [ ! -s "$T/out" ] && ok || bad "$name left output: $(ls -A "$T/at")"
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq "$code" ] && [ ! -s "$T/out" ] && ok || bad "$name wrote to stdout (exit $rc)"
	if [ -n "${MARK:-}" ] && grep -rq "$MARK" "$T/at" "$T/out" "$T/err"; then bad "$name: plaintext $MARK leaked"; else ok; fi
}
if [ -s "$K/mallory.cert.pem" ]; then
	NOW=1796000000
	# The marker is in the Body: after encryption only a decryption shows it.
	sed 's|<soap:Body>|<soap:Body><m>PLAINTEXT-MARKER</m>|' "$T/q.xml" >"$T/msg.xml"
	"$DOMLAB" sign --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --now $NOW "$T/msg.xml" -o "$T/signed.xml"
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW "$T/msg.xml" -o "$T/sent.xml"
	"$DOMLAB" send --key "$K/mallory.key.pem" --cert "$K/mallory.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW "$T/msg.xml" -o "$T/mallory.xml"
	grep -q PLAINTEXT-MARKER "$T/sent.xml" "$T/mallory.xml" && bad "send left the plaintext in clear" || ok
	sed 's|</soap:Body>|<x/></soap:Body>|' "$T/q.xml" >"$T/latebad.xml"
	printf '</soap:Envelope>' >>"$T/latebad.xml"
	nothing_written 2 "parse, malformed at the very end" "$DOMLAB" parse "$T/latebad.xml"
	nothing_written 2 "parse over --max-depth" "$DOMLAB" parse --max-depth 20 "$T/deep.xml"
	nothing_written 2 "c14n of a missing --id" "$DOMLAB" c14n --id nowhere "$T/q.xml"
	nothing_written 2 "c14n of a missing --apex" "$DOMLAB" c14n --apex "{urn:x}nowhere" "$T/q.xml"
	nothing_written 4 "sign with a missing key" "$DOMLAB" sign --key "$T/none.pem" --cert "$K/alice.cert.pem" "$T/q.xml"
	# Key files refused before any work, exit 2 and the file named: damaged
	# base64, a certificate for a key, an encrypted key (never a prompt),
	# an EC key, a damaged certificate.
	sed '2s/^./*/' "$K/alice.key.pem" >"$T/damaged.key.pem"
	sed '2s/^./*/' "$K/alice.cert.pem" >"$T/damaged.cert.pem"
	openssl pkey -in "$K/alice.key.pem" -aes128 -passout pass:x -out "$T/enc.key.pem" 2>/dev/null
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$T/ec.key.pem" 2>/dev/null
	for f in damaged.key.pem alice.cert.pem enc.key.pem ec.key.pem; do
		key=$T/$f
		[ $f = alice.cert.pem ] && key=$K/$f
		nothing_written 2 "sign with $f as the key" "$DOMLAB" sign --key "$key" --cert "$K/alice.cert.pem" "$T/q.xml" </dev/null
		grep -q "^domlab: sign: $key: no unencrypted PEM private key" "$T/err" ||
			grep -q "^domlab: sign: $key: not an RSA key" "$T/err" && ok ||
			bad "sign with $f as the key: $(cat "$T/err")"
	done
	grep -q ": not an RSA key" "$T/err" && ok || bad "an EC key is not refused as one: $(cat "$T/err")"
	nothing_written 2 "sign with a damaged certificate" "$DOMLAB" sign --key "$K/alice.key.pem" --cert "$T/damaged.cert.pem" "$T/q.xml"
	grep -q "^domlab: sign: $T/damaged.cert.pem: no PEM certificate" "$T/err" && ok || bad "damaged certificate: $(cat "$T/err")"
	# domlab loads no OpenSSL error strings: the reason is OpenSSL's code.
	grep -q "no PEM certificate (OpenSSL error [0-9A-F]\{8\})$" "$T/err" && ok || bad "damaged certificate, no reason code: $(cat "$T/err")"
	# The recipient's certificate: its key is read without OpenSSL's
	# decoders when it is RSA, by them when not; each is refused for what
	# it is, before any work.
	openssl req -x509 -new -key "$T/ec.key.pem" -subj /CN=ec -days 1 -out "$T/ec.cert.pem" 2>/dev/null
	openssl req -x509 -newkey rsa:1024 -nodes -keyout "$T/small.key.pem" -subj /CN=small -days 1 -out "$T/small.cert.pem" 2>/dev/null
	nothing_written 2 "send to an EC certificate" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$T/ec.cert.pem" "$T/q.xml"
	grep -q "^domlab: send: $T/ec.cert.pem: not an RSA key" "$T/err" && ok || bad "EC certificate: $(cat "$T/err")"
	nothing_written 3 "send to a 1024-bit RSA certificate" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$T/small.cert.pem" "$T/q.xml"
	grep -q "^domlab: send: $T/small.cert.pem: RSA key of 1024 bits, at least 2048 required" "$T/err" && ok || bad "1024-bit certificate: $(cat "$T/err")"
	nothing_written 3 "verify, untrusted signer" "$DOMLAB" verify --trust "$K/mallory.cert.pem" --now $NOW "$T/signed.xml"
	nothing_written 4 "encrypt with a missing certificate" "$DOMLAB" encrypt --peer-cert "$T/none.pem" "$T/q.xml"
	MARK=PLAINTEXT-MARKER
	nothing_written 3 "decrypt with the wrong key" "$DOMLAB" decrypt --key "$K/mallory.key.pem" "$T/sent.xml"
	nothing_written 4 "send with a missing peer certificate" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$T/none.pem" "$T/msg.xml"
	# Decryption succeeds, then the signer is not the trusted one.
	nothing_written 3 "receive: decrypted, then untrusted" "$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/mallory.xml"
	nothing_written 3 "receive: decrypted, then expired" "$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" --now $((NOW + 100000)) "$T/sent.xml"
	# Key confusion: signed with the receiver's own key, the one it
	# decrypts with, is still not the trusted sender.
	"$DOMLAB" send --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW "$T/msg.xml" -o "$T/self.xml"
	nothing_written 3 "receive: signed with the receiver's own key" "$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/self.xml"
	# A signature that fails after a decryption says only that (no
	# oracle); decrypted first, verify names the reason.
	grep -q "decryption failed or the signature does not verify" "$T/err" && ok || bad "own-key message refused for another reason: $(cat "$T/err")"
	"$DOMLAB" decrypt --key "$K/bob.key.pem" "$T/self.xml" -o "$T/self-dec.xml" && ok || bad "decrypt of the own-key message"
	expect 3 "verify of the own-key message, decrypted" "$DOMLAB" verify --trust "$K/alice.cert.pem" --now $NOW "$T/self-dec.xml"
	grep -q "not the trusted one" "$T/err" && ok || bad "own-key message refused for another reason: $(cat "$T/err")"
	nothing_written 3 "ref receive: decrypted, then untrusted" "$BENCH" ref receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/mallory.xml"
	MARK=
	# The same message and keys succeed, so the failures above were late.
	expect 0 "receive, trusted" "$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/sent.xml"
	grep -q PLAINTEXT-MARKER "$T/out" && ok || bad "receive did not give the plaintext back"
	expect 0 "receive mallory's, trusting mallory" "$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/mallory.cert.pem" --now $NOW "$T/mallory.xml"
	nothing_written 1 "gen with a bad count" "$DOMLAB" gen deep --count 1000
	# Caps on pre-authentication work: exit 3 and a message that names
	# the limit and its flag; at the limit the message is taken.
	# has TEXT: the last command's stderr says TEXT.
	has() { grep -qF -- "$1" "$T/err" && ok || bad "stderr lacks '$1': $(head -c 300 "$T/err")"; }
	R="$DOMLAB receive --key $K/bob.key.pem --trust $K/alice.cert.pem --now $NOW"
	V="$DOMLAB verify --trust $K/alice.cert.pem --now $NOW"
	expect 0 "receive --max-encrypted-keys 1 --max-data-refs 1" $R --max-encrypted-keys 1 --max-data-refs 1 --max-data-refs-total 1 "$T/sent.xml"
	expect 0 "verify --max-references 2 --max-transforms 1" $V --max-references 2 --max-transforms 1 "$T/signed.xml"
	expect 3 "verify --max-references 1" $V --max-references 1 "$T/signed.xml"
	has "more than 1 References in SignedInfo: over the limit of 1 (--max-references)"
	expect 3 "verify --max-signedinfo 100" $V --max-signedinfo 100 "$T/signed.xml"
	has "more than 100 bytes in SignedInfo: over the limit of 100 (--max-signedinfo)"
	# receive checks SignedInfo after decrypting the Body (sign-encrypt):
	# then its refusal is the one message.
	expect 3 "receive --max-signedinfo 100" $R --max-signedinfo 100 "$T/sent.xml"
	has "decryption failed or the signature does not verify"
	expect 1 "sign takes no caps" "$DOMLAB" sign --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --max-references 3 "$T/q.xml"
	expect 1 "verify takes no decryption caps" $V --max-data-refs 3 "$T/signed.xml"
	expect 1 "a cap that is not a number" $R --max-references x "$T/sent.xml"
	# Wrapping through decryption, made with bob's certificate alone: an
	# EncryptedKey for bob and an EncryptedHeader whose plaintext is a
	# soap:Body carrying the signed Body's ID, or an element carrying the
	# Timestamp's; refused wherever the key stands, nothing written.
	printf '<x:T xmlns:x="urn:x" xmlns:wsu="%s" wsu:Id="TS-1"/>' \
		"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd" >"$T/ts-id.xml"
	for place in first after-signature; do
		W="$DOMLAB gen decrypt-wrap --peer-cert $K/bob.cert.pem --message $T/sent.xml --place $place"
		$W -o "$T/wrap.xml" && ok || bad "gen decrypt-wrap --place $place"
		nothing_written 3 "receive of decrypt-wrap, $place" $R --cert "$K/bob.cert.pem" "$T/wrap.xml"
		has "decrypted content adds a <Body> in the SOAP envelope namespace"
		$W --plaintext "$T/ts-id.xml" -o "$T/wrap-ts.xml" && ok || bad "gen decrypt-wrap --plaintext"
		nothing_written 3 "receive of decrypt-wrap with the Timestamp's ID, $place" $R --cert "$K/bob.cert.pem" "$T/wrap-ts.xml"
		has "decrypted element <T> carries the ID 'TS-1', which 2 elements carry"
	done
	expect 1 "gen decrypt-wrap without --peer-cert" "$DOMLAB" gen decrypt-wrap --message "$T/sent.xml"
	expect 1 "gen decrypt-wrap --place elsewhere" "$DOMLAB" gen decrypt-wrap --peer-cert "$K/bob.cert.pem" --message "$T/sent.xml" --place elsewhere
	# A serial number of 2,000,000 digits, converted before any check it
	# would cost seconds (quadratic): refused by its bound first.
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW --key-id issuer-serial "$T/msg.xml" -o "$T/is.xml"
	perl -pe 's{(<ds:X509SerialNumber>)[^<]*}{$1 . ("7" x 2000000)}e' "$T/is.xml" >"$T/bigserial.xml"
	nothing_written 3 "receive of a 2,000,000-digit serial number" $R --cert "$K/bob.cert.pem" "$T/bigserial.xml"
	has "<X509SerialNumber> holds more than 256 characters: over the limit of 256"
	# AES-CBC: refused unless allowed, and then only signed after it was
	# encrypted; the signature is checked before the cipher runs.
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW --cipher aes128-cbc "$T/msg.xml" -o "$T/cbc-se.xml"
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW --cipher aes128-cbc --layout encrypt-sign "$T/msg.xml" -o "$T/cbc-es.xml"
	nothing_written 3 "receive of CBC" $R "$T/cbc-es.xml"
	has "data encryption aes128-cbc is refused on receive"
	nothing_written 3 "receive --allow-cbc of CBC sign-encrypt" $R --allow-cbc "$T/cbc-se.xml"
	has "is not covered by a Signature verified before it is decrypted"
	expect 0 "receive --allow-cbc of CBC encrypt-sign" $R --allow-cbc "$T/cbc-es.xml"
	grep -q PLAINTEXT-MARKER "$T/out" && ok || bad "receive --allow-cbc did not give the plaintext back"
	expect 0 "decrypt --allow-cbc of CBC sign-encrypt" "$DOMLAB" decrypt --key "$K/bob.key.pem" --allow-cbc "$T/cbc-se.xml"
	expect 3 "decrypt of CBC" "$DOMLAB" decrypt --key "$K/bob.key.pem" "$T/cbc-se.xml"
	# What an oracle attacker sends (the oracle/* bench cases): one
	# octet changed so that the plaintext would parse or not.  Both are
	# refused alike: GCM at its tag, CBC at the signature before the
	# cipher runs, or as CBC; decrypt, which checks no signature, shows
	# the CBC pair's plaintexts do differ so.
	for o in gcm-parses gcm-garbled cbc-parses cbc-garbled cbc-refused; do
		"$DOMLAB" gen oracle-$o --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW -o "$T/$o.xml" && ok || bad "gen oracle-$o"
	done
	for o in gcm-parses gcm-garbled; do
		nothing_written 3 "receive of oracle-$o" $R "$T/$o.xml"
		has "decryption failed or the signature does not verify"
	done
	for o in cbc-parses cbc-garbled; do
		nothing_written 3 "receive --allow-cbc of oracle-$o" $R --allow-cbc "$T/$o.xml"
		has "digest of '#Body-1' does not match"
	done
	nothing_written 3 "receive of oracle-cbc-refused" $R "$T/cbc-refused.xml"
	has "data encryption aes128-cbc is refused on receive"
	expect 0 "decrypt --allow-cbc of oracle-cbc-parses" "$DOMLAB" decrypt --key "$K/bob.key.pem" --allow-cbc "$T/cbc-parses.xml"
	grep -q '^!   <q:getEventsResponse' "$T/out" && ok || bad "oracle-cbc-parses: the plaintext is not the one changed"
	nothing_written 3 "decrypt --allow-cbc of oracle-cbc-garbled" "$DOMLAB" decrypt --key "$K/bob.key.pem" --allow-cbc "$T/cbc-garbled.xml"
	has "decryption failed"
	# many-enc: EncryptedData in an unsigned header block, for bob.
	"$DOMLAB" gen many-enc --count 3 --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW -o "$T/many.xml" && ok || bad "gen many-enc"
	expect 1 "gen many-enc without --peer-cert" "$DOMLAB" gen many-enc --count 3
	nothing_written 3 "receive of many-enc" $R "$T/many.xml"
	has "DataReference '#hx-0' names an EncryptedData outside the soap:Body"
	expect 3 "receive of many-enc, --max-data-refs 2" $R --max-data-refs 2 "$T/many.xml"
	has "more than 2 DataReferences in one ReferenceList: over the limit of 2 (--max-data-refs)"
	expect 3 "decrypt of many-enc, --max-data-refs-total 2" "$DOMLAB" decrypt --key "$K/bob.key.pem" --max-data-refs-total 2 "$T/many.xml"
	has "(--max-data-refs-total)"
	expect 3 "decrypt of many-enc, --max-encrypted-keys 1" "$DOMLAB" decrypt --key "$K/bob.key.pem" --max-encrypted-keys 1 "$T/many.xml"
	has "more than 1 EncryptedKeys in the Security header: over the limit of 1 (--max-encrypted-keys)"
	"$DOMLAB" gen signedinfo-junk --size 70000 --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --now $NOW -o "$T/junk.xml" && ok || bad "gen signedinfo-junk"
	# Its 547 prefixes: over the parser's --max-ns first; past that, the
	# SignedInfo cap refuses it before it is canonicalized.
	nothing_written 2 "receive of signedinfo-junk" $R "$T/junk.xml"
	has "namespace declarations in scope, over the limit of 256"
	nothing_written 3 "receive of signedinfo-junk, --max-ns 1000" $R --max-ns 1000 "$T/junk.xml"
	has "over the limit of 65536 (--max-signedinfo)"
	# Layouts and recipients: a message for mallory is refused by bob, who
	# knows his certificate, as not addressed to him; either layout and
	# every key identifier is received.
	RB="$R --cert $K/bob.cert.pem"
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/mallory.cert.pem" --now $NOW "$T/msg.xml" -o "$T/to-mallory.xml"
	nothing_written 3 "receive of a message for mallory, with bob's certificate" $RB "$T/to-mallory.xml"
	has "no EncryptedKey is addressed to this receiver"
	for layout in sign-encrypt encrypt-sign; do
		for kid in thumbprint issuer-serial ski bst; do
			"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --layout $layout --key-id $kid --now $NOW "$T/msg.xml" -o "$T/l.xml"
			expect 0 "receive $layout, $kid" $RB "$T/l.xml"
			grep -q PLAINTEXT-MARKER "$T/out" && ok || bad "receive $layout, $kid did not give the plaintext back"
		done
	done
	# Without --cert, the certificate in a key file that holds one (a PEM
	# bundle) names the receiver: mallory's issuer and serial are not
	# bob's, told as such, where bob's key file alone can only try the key.
	cat "$K/bob.key.pem" "$K/bob.cert.pem" >"$T/bob-bundle.pem"
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/mallory.cert.pem" --key-id issuer-serial --now $NOW "$T/msg.xml" -o "$T/to-mallory-is.xml"
	RBUNDLE="$DOMLAB receive --key $T/bob-bundle.pem --trust $K/alice.cert.pem --now $NOW"
	nothing_written 3 "receive of mallory's issuer-serial message with bob's key bundle" $RBUNDLE "$T/to-mallory-is.xml"
	has "no EncryptedKey is addressed to this receiver"
	expect 3 "receive of mallory's issuer-serial message with bob's key alone" $R "$T/to-mallory-is.xml"
	has "decryption failed"
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --key-id issuer-serial --now $NOW "$T/msg.xml" -o "$T/l.xml"
	expect 0 "receive of bob's issuer-serial message with his key bundle" $RBUNDLE "$T/l.xml"
	# The layouts with encrypted parts, and their usage errors.
	sed 's|<soap:Header/>|<soap:Header><a:To xmlns:a="urn:example:addressing">x</a:To></soap:Header>|' "$T/msg.xml" >"$T/hmsg.xml"
	for parts in "--encrypt-signature" "--encrypt-header {urn:example:addressing}To" "--layout encrypt-sign --encrypt-header {urn:example:addressing}To"; do
		"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" $parts --now $NOW "$T/hmsg.xml" -o "$T/l.xml"
		expect 0 "receive $parts" $RB "$T/l.xml"
		grep -q PLAINTEXT-MARKER "$T/out" && grep -q '<a:To xmlns:a="urn:example:addressing">x</a:To>' "$T/out" && ok || bad "receive $parts did not give the plaintext back"
	done
	expect 1 "send --encrypt-signature in encrypt-sign" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --layout encrypt-sign --encrypt-signature "$T/msg.xml"
	has "the Signature is encrypted in the sign-encrypt layout only"
	expect 1 "send --encrypt-header of a missing block" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --encrypt-header "{urn:x}Nope" "$T/msg.xml"
	has "the Header has no block {urn:x}Nope to encrypt"
	expect 1 "send --encrypt-header not a {uri}local name" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --encrypt-header "To" "$T/msg.xml"
	has "a header block is named {uri}local, not 'To'"
	expect 1 "send --layout other" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --layout sign "$T/msg.xml"
	has "--layout is sign-encrypt or encrypt-sign"
	expect 1 "send --key-id other" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --key-id name "$T/msg.xml"
	has "--key-id is thumbprint, issuer-serial, ski or bst"
	# --threads 2: the one-thread message but for the random key and IV
	# (the CipherValues' texts), and it is received: for quakes as
	# generated, whose digest the second thread makes behind the parse on
	# build=deferred, and for a Body already canonical as it stands,
	# whose digest it makes during the parse (docs/pipeline.md,
	# send_ahead.c).
	"$DOMLAB" gen quakes --size 300000 --seed 5 -o "$T/big.xml"
	soap=http://schemas.xmlsoap.org/soap/envelope/
	"$DOMLAB" c14n --exclusive --apex "{$soap}Body" "$T/big.xml" -o "$T/cbody.xml"
	{ printf '<soap:Envelope xmlns:soap="%s"><soap:Header/>' "$soap"
	  sed "1s#<soap:Body xmlns:soap=\"$soap\">#<soap:Body>#" "$T/cbody.xml"
	  printf '</soap:Envelope>'; } >"$T/canon.xml"
	for m in big canon; do
		for n in 1 2; do
			"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --threads $n --now $NOW "$T/$m.xml" -o "$T/$m$n.xml"
			sed -E 's#(<xenc:CipherValue>)[^<]*#\1#g' "$T/$m$n.xml" >"$T/blank-$m$n.xml"
		done
		[ -s "$T/blank-${m}2.xml" ] && cmp -s "$T/blank-${m}1.xml" "$T/blank-${m}2.xml" && ok || bad "send --threads 2 of $m.xml differs from --threads 1 beyond the CipherValues"
		expect 0 "receive of a send --threads 2 of $m.xml" $RB "$T/${m}2.xml"
	done
	# receive --threads 2: the one-thread receive's output, and a changed
	# Body digest refused with its exit code.
	expect 0 "receive --threads 1" $RB --threads 1 "$T/big1.xml" -o "$T/got1.xml"
	expect 0 "receive --threads 2" $RB --threads 2 "$T/big1.xml" -o "$T/got2.xml"
	[ -s "$T/got2.xml" ] && cmp -s "$T/got1.xml" "$T/got2.xml" && ok || bad "receive --threads 2 differs from --threads 1"
	# The first DigestValue is the Body's Reference's; its first digit
	# changed.
	c=$(grep -o '<ds:DigestValue>.' "$T/big1.xml" | head -n 1 | cut -c17)
	[ "$c" = A ] && to=B || to=A
	sed "s#<ds:DigestValue>$c#<ds:DigestValue>$to#" "$T/big1.xml" >"$T/bigbad.xml"
	cmp -s "$T/big1.xml" "$T/bigbad.xml" && bad "no DigestValue changed" || ok
	expect 3 "receive --threads 2 of a changed Body digest" $RB --threads 2 "$T/bigbad.xml" -o "$T/gotbad.xml"
	[ ! -e "$T/gotbad.xml" ] && ok || bad "a refused receive --threads 2 wrote output"
	expect 1 "send --threads 3" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --threads 3 "$T/msg.xml"
	has "--threads is 1 or 2"
	expect 1 "receive --threads 0" $RB --threads 0 "$T/big1.xml"
	has "--threads is 1 or 2"
	expect 3 "receive of a signed Body not encrypted" $RB "$T/signed.xml"
	has "receiver policy: the Body's content must be encrypted"
	# A relative namespace URI in scope of the signed Body: C14N has no
	# form for it, so the signature cannot be checked (nor made).
	rel='xmlns:xsd="rel/XMLSchema"'
	sed "s|xmlns:xsd=\"[^\"]*\"|$rel|" "$T/sent.xml" >"$T/rel-sent.xml"
	sed "s|xmlns:xsd=\"[^\"]*\"|$rel|" "$T/signed.xml" >"$T/rel-signed.xml"
	sed "s|xmlns:xsd=\"[^\"]*\"|$rel|" "$T/msg.xml" >"$T/rel-msg.xml"
	for f in rel-sent rel-signed rel-msg; do
		grep -qF "$rel" "$T/$f.xml" && ok || bad "no relative namespace URI put in $f.xml"
	done
	nothing_written 3 "receive, relative namespace URI" $R "$T/rel-sent.xml"
	has 'decryption failed or the signature does not verify'
	nothing_written 3 "verify, relative namespace URI" $V "$T/rel-signed.xml"
	has 'relative namespace URI "rel/XMLSchema" (xmlns:xsd)'
	nothing_written 3 "ref receive, relative namespace URI" "$BENCH" ref receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/rel-sent.xml"
	nothing_written 3 "send, relative namespace URI" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW "$T/rel-msg.xml"
	has 'relative namespace URI "rel/XMLSchema" (xmlns:xsd)'
	# The same outside everything signed (on the token): Canonical XML
	# fails on the document, and the reference peer's C14N (libxml2's)
	# checks every element's declarations, so both refuse it.
	bst='<wsse:BinarySecurityToken '
	sed "s|$bst|${bst}xmlns:z=\"rel\" |" "$T/sent.xml" >"$T/relbst-sent.xml"
	sed "s|$bst|${bst}xmlns:z=\"rel\" |" "$T/signed.xml" >"$T/relbst-signed.xml"
	for f in relbst-sent relbst-signed; do
		grep -qF 'xmlns:z="rel"' "$T/$f.xml" && ok || bad "no relative namespace URI put in $f.xml"
	done
	nothing_written 3 "receive, relative namespace URI on the token" $R "$T/relbst-sent.xml"
	has 'decryption failed or the signature does not verify'
	nothing_written 3 "verify, relative namespace URI on the token" $V "$T/relbst-signed.xml"
	has 'relative namespace URI "rel" (xmlns:z) declared in the document'
	nothing_written 3 "ref receive, relative namespace URI on the token" "$BENCH" ref receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/relbst-sent.xml"
	nothing_written 3 "ref verify, relative namespace URI on the token" "$BENCH" ref verify --trust "$K/alice.cert.pem" --now $NOW "$T/relbst-signed.xml"
	# The intermediary: forward checks the Timestamp and the Signature
	# over the Timestamp and the wsa:To, and writes the message byte for
	# byte as it came; the Body is the final recipient's to check.
	F="$DOMLAB forward --trust $K/alice.cert.pem --now $NOW"
	S="$DOMLAB sign --key $K/alice.key.pem --cert $K/alice.cert.pem --now $NOW"
	$S --sign headers --to urn:final "$T/msg.xml" -o "$T/hop.xml" && ok || bad "sign --sign headers"
	grep -q '<wsa:To [^>]*wsu:Id="To-1"[^>]*>urn:final</wsa:To>' "$T/hop.xml" &&
		grep -q '<wsa:To [^>]*xmlns:wsa="http://www.w3.org/2005/08/addressing"' "$T/hop.xml" &&
		grep -q 'URI="#To-1"' "$T/hop.xml" && ! grep -q 'URI="#Body' "$T/hop.xml" && ok ||
		bad "sign --sign headers: no signed wsa:To, or the Body signed"
	expect 0 "forward of a header-signed message" $F "$T/hop.xml"
	cmp -s "$T/out" "$T/hop.xml" && ok || bad "forward changed the message"
	has "domlab: forward: wsa:To urn:final"
	expect 0 "forward --to, the same address" $F --to urn:final "$T/hop.xml" -o "$T/hop-out.xml"
	cmp -s "$T/hop-out.xml" "$T/hop.xml" && [ ! -s "$T/out" ] && ok || bad "forward -o did not write the message as it came"
	nothing_written 3 "forward --to, another address" $F --to urn:other "$T/hop.xml"
	has "the message is addressed to 'urn:final', not 'urn:other'"
	nothing_written 3 "verify of a header-signed message" $V "$T/hop.xml"
	has "the Envelope's soap:Body is not signed"
	sed 's|>urn:final<|>urn:finaL<|' "$T/hop.xml" >"$T/hop-to.xml"
	nothing_written 3 "forward, a byte of the signed wsa:To changed" $F "$T/hop-to.xml"
	has "digest of '#To-1' does not match"
	nothing_written 3 "forward, expired" $F --now $((NOW + 100000)) "$T/hop.xml"
	nothing_written 3 "forward, untrusted signer" "$DOMLAB" forward --trust "$K/mallory.cert.pem" --now $NOW "$T/hop.xml"
	nothing_written 3 "forward of a message without wsa:To" $F "$T/signed.xml"
	has "the Header has 0 wsa:To"
	nothing_written 3 "forward --max-references 1" $F --max-references 1 "$T/hop.xml"
	has "(--max-references)"
	nothing_written 2 "forward of malformed XML" $F "$T/latebad.xml"
	# What the hop reads must be what is signed: the wsa:To it finds in
	# the Header, the one element there with the signed ID.
	WSA='xmlns:wsa="http://www.w3.org/2005/08/addressing"'
	sed "s|</soap:Header>|<wsa:To $WSA>urn:evil</wsa:To></soap:Header>|" "$T/hop.xml" >"$T/hop-2to.xml"
	nothing_written 3 "forward of a message with a second wsa:To" $F "$T/hop-2to.xml"
	has "the Header has more than one wsa:To"
	# A second addressing header nested in another block, unsigned.
	sed "s|</soap:Header>|<w:y xmlns:w=\"urn:w\"><wsa:To $WSA>urn:evil</wsa:To></w:y></soap:Header>|" "$T/hop.xml" >"$T/hop-nested.xml"
	nothing_written 3 "forward of a message with a second wsa:To nested" $F "$T/hop-nested.xml"
	has "the Header has more than one wsa:To (one in <y>)"
	sed "s|</soap:Header>|<wsa:Action $WSA>urn:a</wsa:Action><w:y xmlns:w=\"urn:w\"><wsa:Action $WSA>urn:b</wsa:Action></w:y></soap:Header>|" "$T/hop.xml" >"$T/hop-action.xml"
	nothing_written 3 "forward of a message with two wsa:Action" $F "$T/hop-action.xml"
	has "the Header has more than one wsa:Action (one in <y>)"
	sed "s|</soap:Header>|<wsa:RelatesTo $WSA>urn:a</wsa:RelatesTo><wsa:RelatesTo $WSA>urn:b</wsa:RelatesTo></soap:Header>|" "$T/hop.xml" >"$T/hop-rel.xml"
	expect 0 "forward of a message with two wsa:RelatesTo" $F "$T/hop-rel.xml"
	# SOAP forbids a DTD: refused on every path, by every parser.
	perl -0pe 's{<soap:Envelope}{<!DOCTYPE soap:Envelope [<!ENTITY e "x">]>\n<soap:Envelope}' "$T/hop.xml" >"$T/hop-dtd.xml"
	grep -q DOCTYPE "$T/hop-dtd.xml" && ok || bad "no DOCTYPE put in hop-dtd.xml"
	nothing_written 2 "forward of a message with a DTD" $F "$T/hop-dtd.xml"
	has "DTD"
	perl -0pe 's{<soap:Envelope}{<!DOCTYPE soap:Envelope>\n<soap:Envelope}' "$T/sent.xml" >"$T/sent-dtd.xml"
	nothing_written 2 "receive of a message with a DTD" $R "$T/sent-dtd.xml"
	has "DTD"
	nothing_written 2 "verify of a message with a DTD" "$DOMLAB" verify --trust "$K/alice.cert.pem" --now $NOW "$T/hop-dtd.xml"
	has "DTD"
	sed "s|\(<wsa:To [^>]*>urn:final</wsa:To>\)|<w:x xmlns:w=\"urn:w\">\1</w:x><wsa:To $WSA>urn:evil</wsa:To>|" "$T/hop.xml" >"$T/hop-wrap.xml"
	grep -q '<w:x xmlns:w="urn:w"><wsa:To' "$T/hop-wrap.xml" && ok || bad "the signed wsa:To was not wrapped"
	nothing_written 3 "forward, the signed wsa:To wrapped and a new one in its place" $F "$T/hop-wrap.xml"
	has "the Header has more than one wsa:To"
	sed 's|</soap:Header>|<w:x xmlns:w="urn:w" Id="To-1"/></soap:Header>|' "$T/hop.xml" >"$T/hop-dupid.xml"
	nothing_written 3 "forward, the wsa:To's ID on a second header element" $F "$T/hop-dupid.xml"
	has "ID 'To-1' is carried by more than one element of the Header"
	expect 1 "sign --sign headers without --to" $S --sign headers "$T/msg.xml"
	has "signing header blocks only needs a wsa:To to sign (--to)"
	expect 1 "sign --sign other" $S --sign body "$T/msg.xml"
	expect 2 "sign --to of a message that has one" $S --to urn:x "$T/hop.xml"
	# End to end through the hop: the Body signed and encrypted for bob,
	# the wsa:To signed with it.  A changed Body is forwarded, as it came,
	# and refused by bob.
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW --to urn:bob "$T/msg.xml" -o "$T/e2e.xml"
	expect 0 "forward of a sent message" $F "$T/e2e.xml" -o "$T/e2e-fwd.xml"
	cmp -s "$T/e2e.xml" "$T/e2e-fwd.xml" && ok || bad "forward changed the sent message"
	expect 0 "receive of the forwarded message" $RB "$T/e2e-fwd.xml"
	grep -q PLAINTEXT-MARKER "$T/out" && ok || bad "receive after forward did not give the plaintext back"
	# The Body's CipherValue is the last one: its 11th character changed.
	awk -v RS='\001' '{ i = 0; s = $0; p = 0
		while ((j = index(substr(s, p + 1), "<xenc:CipherValue>")) > 0) { p += j; i = p }
		i += length("<xenc:CipherValue>") + 10
		c = substr(s, i, 1); r = (c == "A") ? "B" : "A"
		printf "%s%s%s", substr(s, 1, i - 1), r, substr(s, i + 1) }' "$T/e2e.xml" >"$T/e2e-body.xml"
	cmp -s "$T/e2e.xml" "$T/e2e-body.xml" && bad "the Body was not changed" || ok
	expect 0 "forward of a sent message whose Body changed" $F "$T/e2e-body.xml" -o "$T/e2e-body-fwd.xml"
	cmp -s "$T/e2e-body.xml" "$T/e2e-body-fwd.xml" && ok || bad "forward changed the message whose Body changed"
	nothing_written 3 "receive of the forwarded message whose Body changed" $RB "$T/e2e-body-fwd.xml"
	# Either layout carries the signed wsa:To; a Body signed by no one is
	# forwarded by the hop and refused by the final recipient.
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW --to urn:bob --layout encrypt-sign "$T/msg.xml" -o "$T/e2e-es.xml"
	expect 0 "forward of an encrypt-sign message" $F "$T/e2e-es.xml"
	cmp -s "$T/out" "$T/e2e-es.xml" && ok || bad "forward changed the encrypt-sign message"
	expect 0 "receive of an encrypt-sign message with a wsa:To" $RB "$T/e2e-es.xml"
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW --to urn:bob --sign headers "$T/msg.xml" -o "$T/e2e-h.xml"
	grep -q PLAINTEXT-MARKER "$T/e2e-h.xml" && bad "send --sign headers left the plaintext in clear" || ok
	expect 0 "forward of a message sent with --sign headers" $F "$T/e2e-h.xml"
	nothing_written 3 "receive of a message sent with --sign headers" $RB "$T/e2e-h.xml"
	has "decryption failed or the signature does not verify"
	# Signed, not encrypted: the final verify names the Body's digest.
	$S --to urn:final "$T/msg.xml" -o "$T/hop-all.xml"
	sed 's|PLAINTEXT-MARKER|PLAINTEXT-MARKEX|' "$T/hop-all.xml" >"$T/hop-all-body.xml"
	expect 0 "forward of a signed message whose Body changed" $F "$T/hop-all-body.xml" -o "$T/hop-all-fwd.xml"
	cmp -s "$T/hop-all-fwd.xml" "$T/hop-all-body.xml" && ok || bad "forward changed the signed message whose Body changed"
	nothing_written 3 "verify of the forwarded message whose Body changed" $V "$T/hop-all-fwd.xml"
	has "digest of '#Body-1' does not match"
else
	bad "no test keys in $K (make keys; DOMLAB_KEYS)"
fi

# Malformed or non-SOAP input is exit 2 on every command that takes an
# envelope, the sending side's and the receiving side's alike, and in the
# reference peer.  (An envelope with two Bodies or its Body wrapped is a
# security refusal on the receiving side: test-libdomlab's
# forged_signatures.)
if [ -s "$K/mallory.cert.pem" ]; then
	printf '<a>not SOAP</a>\n' >"$T/ns-root.xml"
	for c in "send --key $K/alice.key.pem --cert $K/alice.cert.pem --peer-cert $K/bob.cert.pem" \
		"sign --key $K/alice.key.pem --cert $K/alice.cert.pem" \
		"encrypt --peer-cert $K/bob.cert.pem" \
		"receive --key $K/bob.key.pem --trust $K/alice.cert.pem" \
		"verify --trust $K/alice.cert.pem" "decrypt --key $K/bob.key.pem" \
		"forward --trust $K/alice.cert.pem"; do
		# shellcheck disable=SC2086
		nothing_written 2 "${c%% *} of a document that is no envelope" \
			"$DOMLAB" $c "$T/ns-root.xml"
		has "not a SOAP 1.1 or 1.2 envelope"
	done
	for c in "send --key $K/alice.key.pem --cert $K/alice.cert.pem --peer-cert $K/bob.cert.pem" \
		"receive --key $K/bob.key.pem --trust $K/alice.cert.pem"; do
		# shellcheck disable=SC2086
		expect 2 "ref ${c%% *} of a document that is no envelope" \
			"$BENCH" ref $c "$T/ns-root.xml"
	done
fi

# Usage and I/O errors.
expect 1 "no command" "$DOMLAB"
expect 1 "unknown command" "$DOMLAB" frobnicate
expect 1 "unknown option" "$DOMLAB" parse --frob "$T/q.xml"
grep -q '^usage: domlab parse ' "$T/err" && ok || bad "an unknown option gives no usage on stderr"
[ ! -s "$T/out" ] && ok || bad "an unknown option wrote to stdout"

# --help: every command's, on stdout with exit 0, mentions every option
# the command's parser accepts.  The candidates are every option named in
# the command line's sources; the parser is asked about each one the help
# leaves out (CAND 1 --zz-guard: an accepted CAND fails on the guard or
# later, a refused one is named in the error), so an option added to a
# parser but not to its table of options fails here.
SRC=$(dirname "$0")/../harness
cands=$(cat "$SRC"/*/*.c | grep -oE '"--?[a-z][a-z-]*[a-z]"' | tr -d '"' | sort -u)
[ "$(echo $cands | wc -w)" -ge 30 ] && ok || bad "found only these options in $SRC: $cands"
helps() { # helps BIN NAME COMMAND...: BIN's help lists exactly these commands
	h_bin=$1 h_name=$2
	shift 2
	expect 0 "$h_name --help" "$h_bin" --help
	cp "$T/out" "$T/help"
	expect 0 "$h_name help" "$h_bin" help
	cmp -s "$T/out" "$T/help" && ok || bad "$h_name help and $h_name --help differ"
	expect 1 "$h_name help of an unknown command" "$h_bin" help frobnicate
	grep -q "^usage: $h_name COMMAND" "$T/err" && ok || bad "$h_name help frobnicate gives no usage on stderr"
	cmds=$(sed -n "s/^  $h_name \([a-z0-9]*\).*/\1/p" "$T/help")
	[ "$(echo $cmds)" = "$*" ] && ok || bad "$h_name --help lists $cmds, not $*"
	for cmd in $cmds; do
		lead=
		[ "$cmd" = ref ] && lead=sign
		[ "$cmd" = gsoap ] && lead=send
		expect 0 "$h_name $cmd --help" "$h_bin" $cmd --help
		grep -q "^usage: $h_name $cmd" "$T/out" && [ ! -s "$T/err" ] && ok ||
			bad "$h_name $cmd --help: no usage on stdout, or something on stderr"
		cp "$T/out" "$T/cmdhelp"
		"$h_bin" help $cmd >"$T/out" 2>&1 && cmp -s "$T/out" "$T/cmdhelp" && ok ||
			bad "$h_name help $cmd differs from $h_name $cmd --help"
		for cand in $cands; do
			grep -qE -- "(^| )$cand( |,|\$)" "$T/cmdhelp" && continue
			"$h_bin" $cmd $lead "$cand" 1 --zz-guard </dev/null >/dev/null 2>"$T/err"
			grep -qE "(unknown option|unexpected argument) '$cand'" "$T/err" && ok ||
				bad "$h_name $cmd accepts $cand but its --help does not mention it"
		done
	done
}
helps "$DOMLAB" domlab gen parse c14n sign verify encrypt decrypt send receive forward serve load variant
for opt in --attach --attachment-out bytes; do
	grep -q -- "$opt" "$T/help" && ok || bad "domlab --help does not mention $opt"
done
# The benchmark and the peers are domlab-bench's alone; the gSOAP peer's
# command is there when the build found gSOAP (tests/gsoap.sh).
if "$BENCH" gsoap --help >/dev/null 2>&1; then
	helps "$BENCH" domlab-bench bench ref gsoap
else
	helps "$BENCH" domlab-bench bench ref
fi
expect 1 "domlab bench" "$DOMLAB" bench
expect 1 "domlab ref" "$DOMLAB" ref sign
expect 4 "missing input file" "$DOMLAB" parse "$T/does-not-exist.xml"
expect 4 "unwritable output" "$DOMLAB" parse "$T/q.xml" -o "$T/no-such-dir/out.xml"

finish
