#!/bin/sh
# attach.sh DOMLAB - SOAP with Attachments at the command line of one
# variant: `send --attach` then `receive` from a file and from a pipe
# (through the io axis), the verified outputs against fixed digests that
# do not depend on the variant, and every refusal with its exit code and
# no output left behind: a changed attachment byte, an unsigned
# attachment, a Reference to a missing part (3); malformed MIME (2).
# Environment: DOMLAB_KEYS (alice, bob; tests/make-keys.sh).
set -u
SUITE=attach
DOMLAB=${1:?usage: attach.sh path/to/domlab}
. "$(dirname "$0")/lib.sh"
K=${DOMLAB_KEYS:-build/keys}
need_files "$K/alice.key.pem" "$K/bob.key.pem"
need_tools sha256sum sed

NOW=1796000000
SEND="$DOMLAB send --key $K/alice.key.pem --cert $K/alice.cert.pem --peer-cert $K/bob.cert.pem --now $NOW"
RECV="$DOMLAB receive --key $K/bob.key.pem --trust $K/alice.cert.pem --now $NOW"
BODY="{http://schemas.xmlsoap.org/soap/envelope/}Body"
# Fixed expectations: gen bytes --size 150000 --seed 5, and the exclusive
# C14N of the received Body of gen quakes --seed 5.
ATT_SHA=dbd80562d380ebac14ce1bca4b32fca5c9573abbfeb6b7ff448d75b57d02ca07
BODY_SHA=f8daa8058713799c643709385d1906456c5c2edcf5586c3b4d1aa0570df14237

"$DOMLAB" gen bytes --size 150000 --seed 5 -o "$T/att.bin"
[ "$(sha "$T/att.bin")" = "$ATT_SHA" ] && ok || bad "gen bytes is not the fixed content"
"$DOMLAB" gen quakes --seed 5 -o "$T/q.xml"
expect 0 "send --attach" $SEND --attach "$T/att.bin" "$T/q.xml" -o "$T/m.mime"
head -n 1 "$T/m.mime" | grep -q '^MIME-Version: 1.0' && ok || bad "send --attach did not write MIME"
grep -aq 'URI="cid:attachment-1@domlab"' "$T/m.mime" && ok || bad "no cid: Reference in the signature"

# From a file and from a pipe: the same verified envelope and attachment.
expect 0 "receive multipart from a file" $RECV "$T/m.mime" -o "$T/r1.xml" --attachment-out "$T/a1.bin"
cat "$T/m.mime" | $RECV --attachment-out "$T/a2.bin" >"$T/r2.xml" 2>"$T/err" && ok ||
	bad "receive multipart from a pipe: $(head -c 300 "$T/err")"
for i in 1 2; do
	[ "$(sha "$T/a$i.bin")" = "$ATT_SHA" ] && ok || bad "attachment $i differs from what was sent"
	"$DOMLAB" c14n --exclusive --apex "$BODY" "$T/r$i.xml" >"$T/body$i" &&
		[ "$(sha "$T/body$i")" = "$BODY_SHA" ] && ok || bad "received Body $i is not the fixed one"
done
# Without --attachment-out the envelope alone; a plain envelope still works.
expect 0 "receive multipart without --attachment-out" $RECV "$T/m.mime"
expect 0 "send without --attach" $SEND "$T/q.xml" -o "$T/plain.xml"
expect 0 "receive plain XML" $RECV "$T/plain.xml"
expect 2 "--attachment-out of a plain message" $RECV "$T/plain.xml" --attachment-out "$T/none.bin"
[ -e "$T/none.bin" ] && bad "--attachment-out wrote a file for a plain message" || ok
expect 1 "--attach on receive" $RECV --attach "$T/att.bin" "$T/m.mime"
expect 1 "--attachment-out on send" $SEND --attachment-out "$T/x" "$T/q.xml"
expect 4 "--attach of a missing file" $SEND --attach "$T/missing" "$T/q.xml"

# The attachments are checked with the Signature, after the Body was
# decrypted: a failure there is receive's one message for a signature
# that fails after a decryption (SECURITY.md); test_multipart.c names
# each reason on verify.
LATE="decryption failed or the signature does not verify"
# refuse CODE NAME FILE [MESSAGE]: receive exits CODE and writes nothing.
refuse() {
	rm -f "$T/o.xml" "$T/o.bin"
	expect "$1" "$2" $RECV "$3" -o "$T/o.xml" --attachment-out "$T/o.bin"
	[ -e "$T/o.xml" ] || [ -e "$T/o.bin" ] && bad "$2: output written" || ok
	ls "$T" | grep -q '\.tmp\.' && bad "$2: temporary file left" || ok
	if [ $# -ge 4 ]; then grep -q "$4" "$T/err" && ok || bad "$2: message lacks '$4': $(cat "$T/err")"; fi
}

# A changed byte in the attachment (last bytes of the file are the
# attachment's, before the closing delimiter).
size=$(wc -c <"$T/m.mime")
head -c $((size - 1000)) "$T/m.mime" >"$T/bad.mime"
printf 'Z' >>"$T/bad.mime"
tail -c 999 "$T/m.mime" >>"$T/bad.mime"
cmp -s "$T/m.mime" "$T/bad.mime" && bad "tamper did not change the message" || ok
refuse 3 "a changed attachment byte" "$T/bad.mime" "$LATE"

# The rest on a text attachment, so sed can edit the message.
printf 'hello, attachment\n' >"$T/small.txt"
expect 0 "send a small attachment" $SEND --attach "$T/small.txt" "$T/q.xml" -o "$T/s.mime"
expect 0 "receive the small message" $RECV "$T/s.mime" --attachment-out "$T/small.out"
cmp -s "$T/small.txt" "$T/small.out" && ok || bad "small attachment differs"
# The attachment under another Content-ID: its Reference names no part
# (checked before whether every part is signed).
sed 's/^Content-ID: <attachment-1@domlab>/Content-ID: <other@domlab>/' "$T/s.mime" >"$T/e1.mime"
refuse 3 "a cid: Reference to no part" "$T/e1.mime" "$LATE"
# An envelope signed without attachments, sent with one.
len=$(wc -c <"$T/plain.xml")
{ printf 'Content-Type: multipart/related; boundary="b"\r\n\r\n--b\r\nContent-ID: <r>\r\nContent-Length: %s\r\n\r\n' "$len"
	cat "$T/plain.xml"
	printf '\r\n--b\r\nContent-ID: <x>\r\nContent-Length: 5\r\n\r\nhello\r\n--b--\r\n'; } >"$T/e2.mime"
refuse 3 "an attachment not covered by the signature" "$T/e2.mime" "$LATE"

# Malformed MIME: exit 2.
cl=$(grep -a '^Content-Length' "$T/s.mime" | tail -n 1 | tr -dc 0-9)
sed "s/^Content-Length: $cl\r\$/Content-Length: $((cl + 1))\r/" "$T/s.mime" >"$T/m1.mime"
refuse 2 "wrong Content-Length (one more)" "$T/m1.mime" "Content-Length"
sed "s/^Content-Length: $cl\r\$/Content-Length: $((cl - 1))\r/" "$T/s.mime" >"$T/m2.mime"
refuse 2 "wrong Content-Length (one less)" "$T/m2.mime" "Content-Length"
sed 's/boundary="[^"]*"; //' "$T/s.mime" >"$T/m3.mime"
refuse 2 "missing boundary" "$T/m3.mime" "no boundary"
size=$(wc -c <"$T/s.mime")
head -c $((size - 40)) "$T/s.mime" >"$T/m4.mime"
refuse 2 "truncated part" "$T/m4.mime"
sed 's/start="<soap-envelope@domlab>"/start="<elsewhere@domlab>"/' "$T/s.mime" >"$T/m5.mime"
refuse 2 "missing start part" "$T/m5.mime" "start part"
sed 's/^Content-Transfer-Encoding: binary/Content-Transfer-Encoding: base64/' "$T/s.mime" >"$T/m6.mime"
refuse 2 "base64 part" "$T/m6.mime" "transfer encoding"
printf 'Content-Type: text/plain\r\n\r\nhello' >"$T/m7.mime"
refuse 2 "not multipart/related" "$T/m7.mime"
# --max-input bounds the parts too.
expect 2 "--max-input over the parts" $RECV --max-input 1000 "$T/m.mime"

finish
