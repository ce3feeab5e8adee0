#!/bin/sh
# refpeer.sh DOMLAB DOMLAB_BENCH - the reference peer (`domlab-bench ref`,
# libxml2 + xmlsec1)
# and domlab's own pipeline accept each other's messages: what one signs
# the other verifies, what one sends the other receives (both ciphers,
# every layout, SOAP 1.2), and the Body (and an encrypted header block)
# that comes out is the one that went in.  A changed byte in
# a signed Body is refused either way.  This keeps the benchmark's `ref`
# rows honest: both sides do the same work on the same messages.
#
# Environment: DOMLAB_KEYS (alice, bob, mallory; tests/make-keys.sh).
set -u
DOMLAB=${1:?usage: refpeer.sh path/to/domlab path/to/domlab-bench}
BENCH=${2:?usage: refpeer.sh path/to/domlab path/to/domlab-bench}
K=${DOMLAB_KEYS:-build/keys}
SOAP=http://schemas.xmlsoap.org/soap/envelope/
NOW=1796000000
SUITE=refpeer
. "$(dirname "$0")/lib.sh"
need_files "$K/alice.key.pem" "$K/bob.cert.pem"
need_tools perl cmp

SIGNER="--key $K/alice.key.pem --cert $K/alice.cert.pem"
RECIPIENT="--key $K/bob.key.pem --trust $K/alice.cert.pem"

# The exc-c14n of a message's soap:Body without what a signer adds to it.
body() { # body FILE OUT
	"$DOMLAB" c14n --exclusive --apex "{$SOAP}Body" "$1" |
		perl -pe 's{ wsu:Id="[^"]*"}{}; s{ xmlns:wsu="[^"]*"}{}' >"$2"
}
peer() { # peer WHO COMMAND ARG...: domlab's COMMAND, or the reference's (WHO=ref)
	if [ -n "$1" ]; then
		shift
		"$BENCH" ref "$@"
	else
		shift
		"$DOMLAB" "$@"
	fi
}
same_body() { # same_body WHAT FILE: FILE's Body is the input's
	body "$2" "$T/got.body"
	cmp -s "$T/in.body" "$T/got.body" && ok || bad "$1: the Body differs from the input's"
}

# sign_verify SIGNER VERIFIER NAME: SIGNER is "" (domlab) or "ref".
sign_verify() {
	check "$3: ${1:-domlab} sign" peer "$1" sign $SIGNER --now $NOW "$T/in.xml" -o "$T/signed.xml"
	check "$3: ${2:-domlab} verifies ${1:-domlab}'s signature" \
		peer "$2" verify --trust "$K/alice.cert.pem" --now $NOW "$T/signed.xml" -o "$T/verified.xml"
	same_body "$3: ${1:-domlab} sign, ${2:-domlab} verify" "$T/verified.xml"
}

# send_receive SENDER RECEIVER CIPHER NAME
send_receive() {
	# CBC goes encrypt-then-sign, the one way domlab receives it.
	lay= allow=
	[ $3 = aes128-cbc ] && lay="--layout encrypt-sign"
	[ $3 = aes128-cbc ] && [ -z "$2" ] && allow=--allow-cbc
	check "$4: ${1:-domlab} send ($3)" peer "$1" send $SIGNER --peer-cert "$K/bob.cert.pem" \
		--cipher $3 $lay --now $NOW "$T/in.xml" -o "$T/sent.xml"
	# The Body holds one EncryptedData and nothing else.
	"$DOMLAB" c14n --exclusive --apex "{$SOAP}Body" "$T/sent.xml" |
		perl -0777 -ne 'exit !m{^<soap:Body[^>]*>\s*<(\w+:)?EncryptedData\b(?:(?!EncryptedData>).)*</(\w+:)?EncryptedData>\s*</soap:Body>$}s' &&
		ok || bad "$4: ${1:-domlab}'s message ($3) does not hide the Body's content"
	check "$4: ${2:-domlab} receives ${1:-domlab}'s message ($3)" \
		peer "$2" receive $RECIPIENT $allow --now $NOW "$T/sent.xml" -o "$T/received.xml"
	same_body "$4: ${1:-domlab} send, ${2:-domlab} receive ($3)" "$T/received.xml"
}

# encrypt_decrypt ENCRYPTER DECRYPTER CIPHER NAME: encryption alone.
encrypt_decrypt() {
	allow=
	[ $3 = aes128-cbc ] && [ -z "$2" ] && allow=--allow-cbc
	check "$4: ${1:-domlab} encrypt ($3)" peer "$1" encrypt --peer-cert "$K/bob.cert.pem" \
		--cipher $3 "$T/in.xml" -o "$T/encrypted.xml"
	check "$4: ${2:-domlab} decrypts ${1:-domlab}'s message ($3)" \
		peer "$2" decrypt --key "$K/bob.key.pem" $allow "$T/encrypted.xml" -o "$T/decrypted.xml"
	same_body "$4: ${1:-domlab} encrypt, ${2:-domlab} decrypt ($3)" "$T/decrypted.xml"
}

for spec in "quakes --size 2048" "quakes --size 204800" "ints --count 800" "strings --count 200" "wide" "deep"; do
	name=$(echo "$spec" | tr -d ' -')
	"$DOMLAB" gen $spec --seed 5 >"$T/in.xml" || { bad "gen $spec"; continue; }
	body "$T/in.xml" "$T/in.body"
	sign_verify ref "" "$name"
	sign_verify "" ref "$name"
	for cipher in aes256-gcm aes128-cbc; do
		send_receive ref "" $cipher "$name"
		send_receive "" ref $cipher "$name"
		encrypt_decrypt ref "" $cipher "$name"
		encrypt_decrypt "" ref $cipher "$name"
	done
done

# ---- the reference receives domlab's other layout and key identifiers ----
"$DOMLAB" gen quakes --size 20480 --seed 5 >"$T/in.xml"
body "$T/in.xml" "$T/in.body"
for layout in sign-encrypt encrypt-sign; do
	for kid in issuer-serial bst; do
		check "domlab send --layout $layout --key-id $kid" "$DOMLAB" send $SIGNER --peer-cert "$K/bob.cert.pem" --layout $layout --key-id $kid --now $NOW "$T/in.xml" -o "$T/sent.xml"
		check "ref receives domlab's $layout, $kid" "$BENCH" ref receive $RECIPIENT --now $NOW "$T/sent.xml" -o "$T/received.xml"
		same_body "ref receives domlab's $layout, $kid" "$T/received.xml"
	done
done
# A Signature over the plaintext moved before the EncryptedKey: both
# take the header in order and verify it over the ciphertext.
"$DOMLAB" send $SIGNER --peer-cert "$K/bob.cert.pem" --now $NOW "$T/in.xml" -o "$T/sent.xml"
perl -0pe 's{(<wsse:Security\b[^>]*>)(<xenc:EncryptedKey\b.*?</xenc:EncryptedKey>)(.*?)(<ds:Signature\b.*?</ds:Signature>)}{$1$4$2$3}s' "$T/sent.xml" >"$T/reordered.xml"
cmp -s "$T/sent.xml" "$T/reordered.xml" && bad "the Signature was not moved"
for who in "" ref; do
	peer "$who" receive $RECIPIENT --now $NOW "$T/reordered.xml" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 3 ] && [ ! -s "$T/out" ] && ok || bad "${who:-domlab} received a Signature moved before the EncryptedKey: exit $rc, $(cat "$T/err")"
done

# ---- every layout both ways: encrypt-sign, the encrypted Signature, an
# encrypted header block; and SOAP 1.2 ----
TO="{urn:example:addressing}To"
perl -pe 's{<soap:Header/>}{<soap:Header><a:To xmlns:a="urn:example:addressing">https://example.org/quakes</a:To></soap:Header>}' "$T/in.xml" >"$T/hin.xml"
"$DOMLAB" c14n --exclusive --apex "$TO" "$T/hin.xml" >"$T/in.to"
for parts in "encrypt-sign" "sign-encrypt --encrypt-signature" "sign-encrypt --encrypt-header $TO" "encrypt-sign --encrypt-header $TO" "sign-encrypt --encrypt-signature --encrypt-header $TO"; do
	for from in ref ""; do
		to=ref
		[ -n "$from" ] && to=
		set -- $parts
		layout=$1
		shift
		c="${from:-domlab} to ${to:-domlab}, $layout $*"
		check "$c: send" peer "$from" send $SIGNER --peer-cert "$K/bob.cert.pem" --layout $layout "$@" --now $NOW "$T/hin.xml" -o "$T/sent.xml"
		case "$*" in *--encrypt-signature*) grep -q '<ds:SignedInfo' "$T/sent.xml" && bad "$c: the Signature is in the clear" || ok ;; esac
		case "$*" in *--encrypt-header*) grep -q '<a:To' "$T/sent.xml" && bad "$c: the header block is in the clear" || ok ;; esac
		check "$c: receive" peer "$to" receive $RECIPIENT --now $NOW "$T/sent.xml" -o "$T/received.xml"
		same_body "$c" "$T/received.xml"
		"$DOMLAB" c14n --exclusive --apex "$TO" "$T/received.xml" >"$T/got.to"
		cmp -s "$T/in.to" "$T/got.to" && ok || bad "$c: the header block differs from the input's"
	done
done
S12=http://www.w3.org/2003/05/soap-envelope
perl -pe "s{\Q$SOAP\E}{$S12}g" "$T/in.xml" >"$T/in12.xml"
"$DOMLAB" c14n --exclusive --apex "{$S12}Body" "$T/in12.xml" >"$T/in12.body"
for from in ref ""; do
	to=ref
	[ -n "$from" ] && to=
	c="SOAP 1.2, ${from:-domlab} to ${to:-domlab}"
	check "$c: send" peer "$from" send $SIGNER --peer-cert "$K/bob.cert.pem" --now $NOW "$T/in12.xml" -o "$T/sent.xml"
	grep -q "<soap:Header><wsse:Security" "$T/sent.xml" && grep -q "xmlns:soap=\"$S12\"" "$T/sent.xml" && ok || bad "$c: the Security header is not in the SOAP 1.2 Header"
	check "$c: receive" peer "$to" receive $RECIPIENT --now $NOW "$T/sent.xml" -o "$T/received.xml"
	"$DOMLAB" c14n --exclusive --apex "{$S12}Body" "$T/received.xml" | perl -pe 's{ wsu:Id="[^"]*"}{}; s{ xmlns:wsu="[^"]*"}{}' >"$T/got.body"
	cmp -s "$T/in12.body" "$T/got.body" && ok || bad "$c: the Body differs from the input's"
done

# ---- a changed byte in a signed Body is refused, either way ----
"$DOMLAB" gen quakes --size 2048 --seed 5 >"$T/in.xml"
forge() { # forge IN OUT: one byte of the first region's text changed
	perl -pe 's{(<q:region>)(.)}{$1 . ($2 eq "X" ? "Y" : "X")}e' "$1" >"$2"
	cmp -s "$1" "$2" && bad "forge: nothing changed in $1"
}
"$BENCH" ref sign $SIGNER --now $NOW "$T/in.xml" -o "$T/signed.xml"
forge "$T/signed.xml" "$T/forged.xml"
"$DOMLAB" verify --trust "$K/alice.cert.pem" --now $NOW "$T/forged.xml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 3 ] && grep -q "digest" "$T/err" && [ ! -s "$T/out" ] && ok ||
	bad "domlab verify accepted a changed byte in ref's signed Body: exit $rc, $(cat "$T/err")"
"$DOMLAB" sign $SIGNER --now $NOW "$T/in.xml" -o "$T/signed.xml"
forge "$T/signed.xml" "$T/forged.xml"
"$BENCH" ref verify --trust "$K/alice.cert.pem" --now $NOW "$T/forged.xml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 3 ] && grep -q "digest" "$T/err" && [ ! -s "$T/out" ] && ok ||
	bad "ref verify accepted a changed byte in domlab's signed Body: exit $rc, $(cat "$T/err")"
# The unchanged message still verifies: the refusal was the byte's doing.
check "ref verifies domlab's unchanged message" "$BENCH" ref verify --trust "$K/alice.cert.pem" --now $NOW "$T/signed.xml"

# The intermediary, each way: what one signs for a hop (the Timestamp and
# the wsa:To) the other's forward passes on byte for byte, and refuses
# once a byte of the signed wsa:To changed.
for signer in "" ref; do
	for hop in "" ref; do
		name="${signer:-domlab} sign --sign headers, ${hop:-domlab} forward"
		check "$name: sign" peer "$signer" sign $SIGNER --now $NOW --sign headers --to urn:final "$T/in.xml" -o "$T/hop.xml"
		check "$name" peer "$hop" forward --trust "$K/alice.cert.pem" --now $NOW --to urn:final "$T/hop.xml" -o "$T/fwd.xml"
		cmp -s "$T/hop.xml" "$T/fwd.xml" && ok || bad "$name: the message changed"
		sed 's|>urn:final<|>urn:finaL<|' "$T/hop.xml" >"$T/hop-to.xml"
		peer "$hop" forward --trust "$K/alice.cert.pem" --now $NOW "$T/hop-to.xml" >"$T/out" 2>"$T/err"
		rc=$?
		[ $rc -eq 3 ] && grep -q "digest" "$T/err" && [ ! -s "$T/out" ] && ok ||
			bad "$name: a changed byte in the signed wsa:To: exit $rc, $(cat "$T/err")"
	done
done

finish
