#!/bin/sh
# interop.sh DOMLAB - domlab's canonicalizer and WS-Security pipeline
# against independent parties: libxml2's C14N conformance vectors, the
# WS-Security messages the xmlsec1 library made (tests/vectors/wss), and
# Debian's xmlsec1 command line both ways (tests/verify-wss.sh,
# tests/decrypt-wss.sh).  Not for: forged messages (tests/test_wss.c) or
# the xmlsec1 library live, both ways (`domlab-bench ref`, tests/refpeer.sh);
# this is about agreeing with others.
#
# Environment: DOMLAB_KEYS (alice, bob, mallory; tests/make-keys.sh).
set -u
DOMLAB=${1:?usage: interop.sh path/to/domlab}
K=${DOMLAB_KEYS:-build/keys}
HERE=$(dirname "$0")
C14N=$HERE/vectors/c14n
WSS=$HERE/vectors/wss
SOAP=http://schemas.xmlsoap.org/soap/envelope/
WSU=http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd
NOW=1796000000
SUITE=interop
. "$(dirname "$0")/lib.sh"
need_files "$C14N/INDEX.tsv" "$WSS/keys/cert.pem" "$K/alice.cert.pem"
need_tools xmlsec1 xmllint openssl perl

# ---- C14N conformance: every whole-document and single-subtree case ----
tab=$(printf '\t')
insitu=
"$DOMLAB" variant | grep -qx parser=insitu && insitu=1
tail -n +2 "$C14N/INDEX.tsv" | while IFS=$tab read -r case mode comments hasx kind prefixes; do
	if [ "$kind" = general ]; then
		echo "SKIP c14n $case: a general XPath node-set, not a whole document or one subtree"
		continue
	fi
	if grep -q 'SYSTEM "world.txt"' "$C14N/$case.xml"; then
		echo "SKIP c14n $case: references an external parsed entity, which domlab never fetches"
		continue
	fi
	if [ -n "$insitu" ] && grep -q '<!DOCTYPE' "$C14N/$case.xml"; then
		echo "SKIP c14n $case: has a DTD, which parser=insitu refuses (SOAP profile)"
		continue
	fi
	set -- c14n
	[ "$mode" = exc ] && set -- "$@" --exclusive
	[ "$comments" = 1 ] && set -- "$@" --with-comments
	[ -n "$prefixes" ] && set -- "$@" --prefixes "$prefixes"
	if [ "$kind" = subtree ]; then
		row=$(grep "^$case$tab" "$C14N/SUBTREES.tsv")
		set -- "$@" --apex "{$(echo "$row" | cut -f3)}$(echo "$row" | cut -f2)"
	fi
	if "$DOMLAB" "$@" "$C14N/$case.xml" >"$T/c14n" 2>"$T/err" &&
		cmp -s "$T/c14n" "$C14N/$case.expected"; then
		echo "PASS"
	else
		echo "FAIL interop: c14n $case $(head -c 200 "$T/err")"
	fi
done >"$T/c14n.log"
grep SKIP "$T/c14n.log"
grep "^FAIL" "$T/c14n.log"
pass=$((pass + $(grep -c '^PASS' "$T/c14n.log")))
fail=$((fail + $(grep -c '^FAIL' "$T/c14n.log")))

# ---- xmlsec's exc-c14n signature vector (merlin-exc-c14n-one) ----
# Its DSA signature is outside the profile, but its four SHA-1 digests are
# exc-c14n of one element with and without comments and a PrefixList.
X=$HERE/vectors/xmlsec/merlin-exc-c14n-one/exc-signature.xml
excdigest() { # excdigest WANT [c14n options]
	want=$1
	shift
	got=$("$DOMLAB" c14n --exclusive --id to-be-signed "$@" "$X" | openssl dgst -sha1 -binary | base64)
	[ "$got" = "$want" ] && ok || bad "merlin-exc-c14n-one digest with '$*': $got, want $want"
}
excdigest 7yOTjUu+9oEhShgyIIXDLjQ08aY=
excdigest 09xMy0RTQM1Q91demYe/0F6AGXo= --prefixes "bar #default"
excdigest ZQH+SkCN8c5y0feAr+aRTZDwyvY= --with-comments
excdigest a1cTqBgbqpUt6bMJN4C6zFtnoyo= --with-comments --prefixes "bar #default"

# ---- xmlsec1-made messages (tests/vectors/wss) ----
body() { # body FILE: the exc-c14n of the message's soap:Body
	"$DOMLAB" c14n --exclusive --apex "{$SOAP}Body" "$1"
}
VNOW=1796000520
for name in quakes-2k ints-200; do
	body "$WSS/in-$name.xml" >"$T/in.body"
	check "verify xmlsec1's signed-$name" "$DOMLAB" verify --trust "$WSS/keys/cert.pem" --now $VNOW "$WSS/signed-$name.xml" -o "$T/v.xml"
	# xmlsec1's CBC is signed before it was encrypted: receive refuses
	# it (SECURITY.md, decryption oracles), decrypt --allow-cbc then
	# verify take it.
	"$DOMLAB" receive --key "$WSS/keys/key.pem" --trust "$WSS/keys/cert.pem" --now $VNOW --allow-cbc "$WSS/sent-cbc-$name.xml" >/dev/null 2>"$T/err"
	[ $? -eq 3 ] && grep -q "not covered by a Signature" "$T/err" && ok || bad "receive xmlsec1's sent-cbc-$name: $(cat "$T/err")"
	check "decrypt --allow-cbc xmlsec1's sent-cbc-$name" "$DOMLAB" decrypt --key "$WSS/keys/key.pem" --allow-cbc "$WSS/sent-cbc-$name.xml" -o "$T/d.xml"
	check "verify xmlsec1's sent-cbc-$name, decrypted" "$DOMLAB" verify --trust "$WSS/keys/cert.pem" --now $VNOW "$T/d.xml" -o "$T/r-cbc.xml"
	for c in gcm cbc; do
		if [ $c = gcm ]; then
			check "receive xmlsec1's sent-$c-$name" "$DOMLAB" receive --key "$WSS/keys/key.pem" --trust "$WSS/keys/cert.pem" --now $VNOW "$WSS/sent-$c-$name.xml" -o "$T/r.xml"
		else
			cp "$T/r-cbc.xml" "$T/r.xml"
		fi
		body "$T/r.xml" | perl -pe 's{ wsu:Id="[^"]*"}{}; s{ xmlns:wsu="[^"]*"}{}' >"$T/r.body"
		cmp -s "$T/in.body" "$T/r.body" && ok || bad "sent-$c-$name: decrypted Body differs from the input's"
	done
done

# ---- what domlab signs and encrypts, xmlsec1 verifies and decrypts ----
"$DOMLAB" gen quakes --size 20000 --seed 11 >"$T/msg.xml"
"$DOMLAB" gen strings --count 200 --seed 11 >"$T/str.xml"
for input in msg str; do
	check "domlab sign $input" "$DOMLAB" sign --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --now $NOW "$T/$input.xml" -o "$T/signed.xml"
	check "xmlsec1 verifies domlab's signature ($input)" sh "$HERE/verify-wss.sh" "$T/signed.xml" "$K/alice.cert.pem"
	for cipher in aes256-gcm aes128-cbc; do
		check "domlab send $input $cipher" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --cipher $cipher --now $NOW "$T/$input.xml" -o "$T/sent.xml"
		check "xmlsec1 decrypts domlab's $cipher ($input)" sh "$HERE/decrypt-wss.sh" "$T/sent.xml" "$K/bob.key.pem" "$T/xdec.xml"
		check "xmlsec1 verifies after decrypting ($input, $cipher)" sh "$HERE/verify-wss.sh" "$T/xdec.xml" "$K/alice.cert.pem"
		body "$T/xdec.xml" >"$T/x.body"
		body "$T/signed.xml" >"$T/s.body"
		cmp -s "$T/x.body" "$T/s.body" && ok || bad "xmlsec1's plaintext differs from what domlab encrypted ($input, $cipher)"
		if [ $cipher = aes128-cbc ]; then
			# CBC is received only signed after encryption.
			"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --cipher $cipher --layout encrypt-sign --now $NOW "$T/$input.xml" -o "$T/sent-es.xml"
			check "domlab receives its own $cipher ($input)" "$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" --now $NOW --allow-cbc "$T/sent-es.xml" -o "$T/recv.xml"
		else
			check "domlab receives its own $cipher ($input)" "$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/sent.xml" -o "$T/recv.xml"
		fi
		body "$T/recv.xml" >"$T/r.body"
		cmp -s "$T/r.body" "$T/s.body" && ok || bad "receive gives another Body than was sent ($input, $cipher)"
	done
done

# ---- what xmlsec1 signs, domlab verifies ----
# The template is domlab's own signed message with digests and signature
# blanked: xmlsec1 computes every value.
xsign() { # xsign TEMPLATE OUT
	xmlsec1 --sign --privkey-pem "$K/alice.key.pem,$K/alice.cert.pem" \
		--id-attr:Id "$SOAP:Body" --id-attr:Id "$WSU:Timestamp" --output "$2" "$1"
}
"$DOMLAB" sign --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --now $NOW "$T/msg.xml" -o "$T/signed.xml"
perl -pe 's{(<ds:DigestValue>)[^<]*}{$1}g; s{(<ds:SignatureValue>)[^<]*}{$1}g' "$T/signed.xml" >"$T/template.xml"
check "xmlsec1 signs a WS-Security template" xsign "$T/template.xml" "$T/xsigned.xml"
check "domlab verifies xmlsec1's signature" "$DOMLAB" verify --trust "$K/alice.cert.pem" --now $NOW "$T/xsigned.xml" -o "$T/v.xml"
perl -pe 's{(<q:region>)(.)}{$1X}' "$T/xsigned.xml" >"$T/xforged.xml"
"$DOMLAB" verify --trust "$K/alice.cert.pem" --now $NOW "$T/xforged.xml" >"$T/out" 2>"$T/err"
[ $? -eq 3 ] && grep -q "digest" "$T/err" && [ ! -s "$T/out" ] && ok || bad "a changed byte in xmlsec1's signed Body was accepted"
# Signed by xmlsec1, but the Timestamp is not among the References.
perl -pe 's{<ds:Reference URI="#TS-[^"]*">.*?</ds:Reference>}{}' "$T/template.xml" >"$T/template1.xml"
check "xmlsec1 signs the Body alone" xsign "$T/template1.xml" "$T/xbody.xml"
"$DOMLAB" verify --trust "$K/alice.cert.pem" --now $NOW "$T/xbody.xml" >"$T/out" 2>"$T/err"
[ $? -eq 3 ] && grep -q "Timestamp is not signed" "$T/err" && ok || bad "a signature without the Timestamp was accepted: $(cat "$T/err")"

# ---- every layout and recipient key identifier, domlab to xmlsec1 ----
# encrypt-sign: xmlsec1 verifies the signed ciphertext, then decrypts;
# sign-encrypt: it decrypts, then verifies.  decrypt-wss.sh unwraps the
# first EncryptedKey whatever names its recipient; domlab's receive, given
# bob's certificate, must pick it by that name.
body "$T/signed.xml" >"$T/s.body"
xmlsec1_takes() { # xmlsec1_takes LAYOUT WHAT: sent.xml, in LAYOUT's order
	if [ $1 = encrypt-sign ]; then
		check "xmlsec1 verifies the signed ciphertext ($2)" env WSS_SIGNED_CIPHERTEXT=1 sh "$HERE/verify-wss.sh" "$T/sent.xml" "$K/alice.cert.pem"
		check "xmlsec1 decrypts ($2)" sh "$HERE/decrypt-wss.sh" "$T/sent.xml" "$K/bob.key.pem" "$T/xdec.xml"
	else
		check "xmlsec1 decrypts ($2)" sh "$HERE/decrypt-wss.sh" "$T/sent.xml" "$K/bob.key.pem" "$T/xdec.xml"
		check "xmlsec1 verifies after decrypting ($2)" sh "$HERE/verify-wss.sh" "$T/xdec.xml" "$K/alice.cert.pem"
	fi
	body "$T/xdec.xml" >"$T/x.body"
	cmp -s "$T/x.body" "$T/s.body" && ok || bad "xmlsec1's plaintext differs from what domlab encrypted ($2)"
}
for layout in sign-encrypt encrypt-sign; do
	for kid in thumbprint issuer-serial ski bst; do
		c="$layout, $kid"
		check "domlab send ($c)" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --layout $layout --key-id $kid --now $NOW "$T/msg.xml" -o "$T/sent.xml"
		xmlsec1_takes $layout "$c"
		check "domlab receives ($c)" "$DOMLAB" receive --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/sent.xml" -o "$T/recv.xml"
		body "$T/recv.xml" >"$T/r.body"
		cmp -s "$T/r.body" "$T/s.body" && ok || bad "receive gives another Body than was sent ($c)"
	done
done

# ---- encrypt-sign, xmlsec1 signing: the Signature over the EncryptedData ----
"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --layout encrypt-sign --now $NOW "$T/msg.xml" -o "$T/es.xml"
perl -pe 's{(<ds:DigestValue>)[^<]*}{$1}g; s{(<ds:SignatureValue>)[^<]*}{$1}g' "$T/es.xml" >"$T/es-template.xml"
check "xmlsec1 signs an encrypted Body" xsign "$T/es-template.xml" "$T/xes.xml"
check "domlab receives xmlsec1's encrypt-sign message" "$DOMLAB" receive --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/xes.xml" -o "$T/recv.xml"
body "$T/recv.xml" >"$T/r.body"
cmp -s "$T/r.body" "$T/s.body" && ok || bad "receive of xmlsec1's encrypt-sign message gives another Body"
# The last CipherValue is the Body's (the header's EncryptedKey comes first).
perl -0pe 's{(.*<xenc:CipherValue>)(.)}{$1 . ($2 eq "A" ? "B" : "A")}se' "$T/xes.xml" >"$T/xes-forged.xml"
"$DOMLAB" receive --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/xes-forged.xml" >"$T/out" 2>"$T/err"
[ $? -eq 3 ] && grep -q "digest of '#Body-1' does not match" "$T/err" && [ ! -s "$T/out" ] && ok || bad "a changed ciphertext under xmlsec1's signature was accepted: $(cat "$T/err")"

# ---- key identifiers written by others: xmlsec1 encrypts, openssl wraps ----
# xmlsec1 encrypts the Body's content of its own signed message under a
# fresh key, openssl wraps the key with RSA-OAEP for bob, and the
# EncryptedKey names bob's certificate by values openssl computes.
XENC=http://www.w3.org/2001/04/xmlenc#
DSNS=http://www.w3.org/2000/09/xmldsig#
WSSE=http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd
TOK=http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0
SMS=http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary
printf '<xenc:EncryptedData xmlns:xenc="%s" Id="ED-x" Type="%sContent"><xenc:EncryptionMethod Algorithm="http://www.w3.org/2009/xmlenc11#aes256-gcm"/><xenc:CipherData><xenc:CipherValue/></xenc:CipherData></xenc:EncryptedData>\n' $XENC $XENC >"$T/ed-template.xml"
keyinfo() { # keyinfo KID CERT: the SecurityTokenReference naming CERT
	case $1 in
	thumbprint)
		v=$(openssl x509 -in "$2" -outform DER | openssl dgst -sha1 -binary | base64 -w0)
		echo "<wsse:SecurityTokenReference><wsse:KeyIdentifier EncodingType=\"$SMS\" ValueType=\"http://docs.oasis-open.org/wss/oasis-wss-soap-message-security-1.1#ThumbprintSHA1\">$v</wsse:KeyIdentifier></wsse:SecurityTokenReference>" ;;
	ski)
		v=$(openssl x509 -in "$2" -noout -ext subjectKeyIdentifier | tail -1 | tr -d ' :' | perl -ne 'chomp; print pack("H*", $_)' | base64 -w0)
		echo "<wsse:SecurityTokenReference><wsse:KeyIdentifier EncodingType=\"$SMS\" ValueType=\"$TOK#X509SubjectKeyIdentifier\">$v</wsse:KeyIdentifier></wsse:SecurityTokenReference>" ;;
	issuer-serial)
		name=$(openssl x509 -in "$2" -noout -issuer -nameopt RFC2253 | sed 's/^issuer=//')
		serial=$(openssl x509 -in "$2" -noout -serial | sed 's/^serial=//' | perl -MMath::BigInt -ne 'chomp; print Math::BigInt->from_hex($_)')
		echo "<wsse:SecurityTokenReference><ds:X509Data><ds:X509IssuerSerial><ds:X509IssuerName>$name</ds:X509IssuerName><ds:X509SerialNumber>$serial</ds:X509SerialNumber></ds:X509IssuerSerial></ds:X509Data></wsse:SecurityTokenReference>" ;;
	bst)
		echo "<wsse:SecurityTokenReference><wsse:Reference URI=\"#X509-peer\" ValueType=\"$TOK#X509v3\"/></wsse:SecurityTokenReference>" ;;
	esac
}
xencrypt() { # xencrypt KID IN OUT
	openssl rand 32 >"$T/sk.bin"
	xmlsec1 --encrypt --aeskey "$T/sk.bin" --xml-data "$2" --node-xpath "/*[local-name()='Envelope']/*[local-name()='Body']" --output "$T/enc.xml" "$T/ed-template.xml" 2>"$T/err" || return 1
	wrapped=$(openssl pkeyutl -encrypt -certin -inkey "$K/bob.cert.pem" -in "$T/sk.bin" -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha1 -pkeyopt rsa_mgf1_md:sha1 | base64 -w0)
	bst=
	[ "$1" = bst ] && bst="<wsse:BinarySecurityToken xmlns:wsu=\"$WSU\" wsu:Id=\"X509-peer\" EncodingType=\"$SMS\" ValueType=\"$TOK#X509v3\">$(openssl x509 -in "$K/bob.cert.pem" -outform DER | base64 -w0)</wsse:BinarySecurityToken>"
	EK="$bst<xenc:EncryptedKey xmlns:xenc=\"$XENC\" Id=\"EK-x\"><xenc:EncryptionMethod Algorithm=\"${XENC}rsa-oaep-mgf1p\"/><ds:KeyInfo xmlns:ds=\"$DSNS\">$(keyinfo "$1" "$K/bob.cert.pem")</ds:KeyInfo><xenc:CipherData><xenc:CipherValue>$wrapped</xenc:CipherValue></xenc:CipherData><xenc:ReferenceList><xenc:DataReference URI=\"#ED-x\"/></xenc:ReferenceList></xenc:EncryptedKey>" \
		perl -pe 's{(<wsse:Security\b[^>]*>)}{$1$ENV{EK}}' "$T/enc.xml" >"$3"
}
for kid in thumbprint issuer-serial ski bst; do
	check "xmlsec1 and openssl encrypt for bob ($kid)" xencrypt $kid "$T/xsigned.xml" "$T/xsent.xml"
	check "domlab receives it ($kid)" "$DOMLAB" receive --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/xsent.xml" -o "$T/recv.xml"
	body "$T/recv.xml" >"$T/r.body"
	cmp -s "$T/r.body" "$T/s.body" && ok || bad "receive of xmlsec1's encryption ($kid) gives another Body"
	"$DOMLAB" receive --key "$K/mallory.key.pem" --cert "$K/mallory.cert.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/xsent.xml" >"$T/out" 2>"$T/err"
	[ $? -eq 3 ] && grep -q "no EncryptedKey is addressed to this receiver" "$T/err" && ok || bad "mallory on a message for bob ($kid): $(cat "$T/err")"
done

# ---- the encrypted Signature and encrypted header blocks, both ways ----
# domlab sends, xmlsec1 decrypts every DataReference (the Signature's and
# the header block's EncryptedData are Type Element) and verifies; the
# Body and the header block come out as they went in.
TO="{urn:example:addressing}To"
perl -pe 's{<soap:Header/>}{<soap:Header><a:To xmlns:a="urn:example:addressing" a:n="1">https://example.org/quakes</a:To></soap:Header>}' "$T/msg.xml" >"$T/hmsg.xml"
"$DOMLAB" c14n --exclusive --apex "$TO" "$T/hmsg.xml" >"$T/h.to"
for parts in "sign-encrypt --encrypt-signature" "sign-encrypt --encrypt-header $TO" "sign-encrypt --encrypt-signature --encrypt-header $TO" "encrypt-sign --encrypt-header $TO"; do
	set -- $parts
	layout=$1
	shift
	c="$layout $*"
	check "domlab send ($c)" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --layout $layout "$@" --now $NOW "$T/hmsg.xml" -o "$T/sent.xml"
	xmlsec1_takes $layout "$c"
	"$DOMLAB" c14n --exclusive --apex "$TO" "$T/xdec.xml" >"$T/x.to"
	cmp -s "$T/x.to" "$T/h.to" && ok || bad "xmlsec1's header block differs from what domlab sent ($c)"
	check "domlab receives ($c)" "$DOMLAB" receive --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/sent.xml" -o "$T/recv.xml"
	body "$T/recv.xml" >"$T/r.body"
	cmp -s "$T/r.body" "$T/s.body" && ok || bad "receive gives another Body than was sent ($c)"
	"$DOMLAB" c14n --exclusive --apex "$TO" "$T/recv.xml" >"$T/r.to"
	cmp -s "$T/r.to" "$T/h.to" && ok || bad "receive gives another header block than was sent ($c)"
done

# xmlsec1 signs, then encrypts the Signature (Type Element), the header
# block (Type Element, wrapped in a wsse11:EncryptedHeader) and the
# Body's content under one session key that openssl wraps for bob.
WSSE11=http://docs.oasis-open.org/wss/oasis-wss-wssecurity-secext-1.1.xsd
"$DOMLAB" sign --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --now $NOW "$T/hmsg.xml" -o "$T/hsigned.xml"
perl -pe 's{(<ds:DigestValue>)[^<]*}{$1}g; s{(<ds:SignatureValue>)[^<]*}{$1}g' "$T/hsigned.xml" >"$T/htemplate.xml"
check "xmlsec1 signs a message with a header block" xsign "$T/htemplate.xml" "$T/hxsigned.xml"
xencrypt_el() { # xencrypt_el ID XPATH IN OUT: the element, Type Element
	printf '<xenc:EncryptedData xmlns:xenc="%s" Id="%s" Type="%sElement"><xenc:EncryptionMethod Algorithm="http://www.w3.org/2009/xmlenc11#aes256-gcm"/><xenc:CipherData><xenc:CipherValue/></xenc:CipherData></xenc:EncryptedData>\n' $XENC $1 $XENC >"$T/el-template.xml"
	xmlsec1 --encrypt --aeskey "$T/sk.bin" --xml-data "$3" --node-xpath "$2" --output "$4" "$T/el-template.xml" 2>"$T/err"
}
xencrypt_parts() { # xencrypt_parts sig|hdr|both OUT: hxsigned.xml so encrypted
	openssl rand 32 >"$T/sk.bin"
	cp "$T/hxsigned.xml" "$T/p0.xml"
	refs=
	if [ $1 != hdr ]; then
		xencrypt_el ED-s "//*[local-name()='Signature']" "$T/p0.xml" "$T/p1.xml" || return 1
		mv "$T/p1.xml" "$T/p0.xml"
		refs="$refs<xenc:DataReference URI=\"#ED-s\"/>"
	fi
	if [ $1 != sig ]; then
		xencrypt_el ED-h "//*[local-name()='To']" "$T/p0.xml" "$T/p1.xml" || return 1
		perl -0pe 's{(<xenc:EncryptedData[^>]*Id="ED-h".*?</xenc:EncryptedData>)}{<wsse11:EncryptedHeader xmlns:wsse11="$ENV{WSSE11}">$1</wsse11:EncryptedHeader>}s' "$T/p1.xml" >"$T/p0.xml"
		refs="$refs<xenc:DataReference URI=\"#ED-h\"/>"
	fi
	xmlsec1 --encrypt --aeskey "$T/sk.bin" --xml-data "$T/p0.xml" --node-xpath "/*[local-name()='Envelope']/*[local-name()='Body']" --output "$T/p1.xml" "$T/ed-template.xml" 2>"$T/err" || return 1
	wrapped=$(openssl pkeyutl -encrypt -certin -inkey "$K/bob.cert.pem" -in "$T/sk.bin" -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha1 -pkeyopt rsa_mgf1_md:sha1 | base64 -w0)
	EK="<xenc:EncryptedKey xmlns:xenc=\"$XENC\" Id=\"EK-x\"><xenc:EncryptionMethod Algorithm=\"${XENC}rsa-oaep-mgf1p\"/><ds:KeyInfo xmlns:ds=\"$DSNS\">$(keyinfo thumbprint "$K/bob.cert.pem")</ds:KeyInfo><xenc:CipherData><xenc:CipherValue>$wrapped</xenc:CipherValue></xenc:CipherData><xenc:ReferenceList><xenc:DataReference URI=\"#ED-x\"/>$refs</xenc:ReferenceList></xenc:EncryptedKey>" \
		perl -pe 's{(<wsse:Security\b[^>]*>)}{$1$ENV{EK}}' "$T/p1.xml" >"$2"
}
export WSSE11
for parts in sig hdr both; do
	check "xmlsec1 and openssl encrypt the $parts parts for bob" xencrypt_parts $parts "$T/xparts.xml"
	[ $parts = hdr ] || { grep -q 'Id="ED-s"' "$T/xparts.xml" && ! grep -q '<ds:SignedInfo' "$T/xparts.xml"; } && ok || bad "xmlsec1 left the Signature in the clear ($parts)"
	[ $parts = sig ] || { grep -q '<wsse11:EncryptedHeader' "$T/xparts.xml" && ! grep -q '<a:To' "$T/xparts.xml"; } && ok || bad "xmlsec1 left the header block in the clear ($parts)"
	check "domlab receives xmlsec1's encrypted $parts" "$DOMLAB" receive --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/xparts.xml" -o "$T/recv.xml"
	body "$T/recv.xml" >"$T/r.body"
	body "$T/hxsigned.xml" >"$T/hx.body"
	cmp -s "$T/r.body" "$T/hx.body" && ok || bad "receive of xmlsec1's encrypted $parts gives another Body"
	"$DOMLAB" c14n --exclusive --apex "$TO" "$T/recv.xml" >"$T/r.to"
	cmp -s "$T/r.to" "$T/h.to" && ok || bad "receive of xmlsec1's encrypted $parts gives another header block"
	# Each CipherValue changed in turn (the EncryptedKey's is the first).
	n=$(grep -o '<xenc:CipherValue>' "$T/xparts.xml" | wc -l)
	i=2
	while [ $i -le $n ]; do
		N=$i perl -0pe '$k = 0; s{(<xenc:CipherValue>)(.)}{++$k == $ENV{N} ? $1 . ($2 eq "A" ? "B" : "A") : $1 . $2}ge' "$T/xparts.xml" >"$T/xforged.xml"
		"$DOMLAB" receive --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/xforged.xml" >"$T/out" 2>"$T/err"
		[ $? -eq 3 ] && grep -q "decryption failed" "$T/err" && [ ! -s "$T/out" ] && ok || bad "xmlsec1's $parts message with CipherValue $i changed was accepted: $(cat "$T/err")"
		i=$((i + 1))
	done
done

# ---- SOAP 1.2 both ways ----
S12=http://www.w3.org/2003/05/soap-envelope
perl -pe "s{\Q$SOAP\E}{$S12}g" "$T/msg.xml" >"$T/msg12.xml"
body12() { "$DOMLAB" c14n --exclusive --apex "{$S12}Body" "$1"; }
"$DOMLAB" sign --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --now $NOW "$T/msg12.xml" -o "$T/signed12.xml"
body12 "$T/signed12.xml" >"$T/s12.body"
for layout in sign-encrypt encrypt-sign; do
	check "domlab send SOAP 1.2 ($layout)" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --layout $layout --now $NOW "$T/msg12.xml" -o "$T/sent.xml"
	check "xmlsec1 decrypts SOAP 1.2 ($layout)" sh "$HERE/decrypt-wss.sh" "$T/sent.xml" "$K/bob.key.pem" "$T/xdec.xml"
	if [ $layout = encrypt-sign ]; then
		check "xmlsec1 verifies SOAP 1.2's signed ciphertext" env WSS_SIGNED_CIPHERTEXT=1 sh "$HERE/verify-wss.sh" "$T/sent.xml" "$K/alice.cert.pem"
	else
		check "xmlsec1 verifies SOAP 1.2 after decrypting" sh "$HERE/verify-wss.sh" "$T/xdec.xml" "$K/alice.cert.pem"
	fi
	body12 "$T/xdec.xml" >"$T/x.body"
	cmp -s "$T/x.body" "$T/s12.body" && ok || bad "xmlsec1's SOAP 1.2 plaintext differs from what domlab encrypted ($layout)"
done
perl -pe 's{(<ds:DigestValue>)[^<]*}{$1}g; s{(<ds:SignatureValue>)[^<]*}{$1}g' "$T/signed12.xml" >"$T/template12.xml"
check "xmlsec1 signs a SOAP 1.2 template" xmlsec1 --sign --privkey-pem "$K/alice.key.pem,$K/alice.cert.pem" --id-attr:Id "$S12:Body" --id-attr:Id "$WSU:Timestamp" --output "$T/xsigned12.xml" "$T/template12.xml"
check "domlab verifies xmlsec1's SOAP 1.2 signature" "$DOMLAB" verify --trust "$K/alice.cert.pem" --now $NOW "$T/xsigned12.xml" -o "$T/v.xml"
check "xmlsec1 and openssl encrypt SOAP 1.2 for bob" xencrypt thumbprint "$T/xsigned12.xml" "$T/xsent12.xml"
check "domlab receives xmlsec1's SOAP 1.2" "$DOMLAB" receive --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/xsent12.xml" -o "$T/recv.xml"
body12 "$T/recv.xml" >"$T/r.body"
cmp -s "$T/r.body" "$T/s12.body" && ok || bad "receive of xmlsec1's SOAP 1.2 message gives another Body"
perl -0pe 's{(.*<xenc:CipherValue>)(.)}{$1 . ($2 eq "A" ? "B" : "A")}se' "$T/xsent12.xml" >"$T/xforged.xml"
expect 3 "a changed ciphertext in xmlsec1's SOAP 1.2 message" "$DOMLAB" receive --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" --trust "$K/alice.cert.pem" --now $NOW "$T/xforged.xml"

# ---- a receive that fails late writes nothing anywhere ----
"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" --now $NOW "$T/msg.xml" -o "$T/sent.xml"
for who in "mallory.key.pem alice.cert.pem decryption failed" "bob.key.pem mallory.cert.pem decryption failed or the signature does not verify"; do
	set -- $who
	key=$1 trust=$2
	shift 2
	"$DOMLAB" receive --key "$K/$key" --trust "$K/$trust" --now $NOW "$T/sent.xml" -o "$T/plain.xml" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 3 ] && grep -q "$*" "$T/err" && ok || bad "receive with $key, trusting $trust: exit $rc, $(cat "$T/err")"
	[ ! -e "$T/plain.xml" ] && [ ! -s "$T/out" ] && ok || bad "receive with $key, trusting $trust left output behind"
	ls "$T"/plain.xml.tmp.* >/dev/null 2>&1 && bad "a temporary file was left behind" || ok
	"$DOMLAB" receive --key "$K/$key" --trust "$K/$trust" --now $NOW "$T/sent.xml" >"$T/out" 2>/dev/null
	[ ! -s "$T/out" ] && ok || bad "receive with $key, trusting $trust wrote to stdout"
done

finish
