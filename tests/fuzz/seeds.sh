#!/bin/sh
# seeds.sh DOMLAB KEYS NOW DIR - the seeds the fuzz targets start from,
# made at build time from the generators and KEYS (the committed fuzz
# keys, tests/fuzz/keys/) rather than committed: DIR/xml holds small generated
# SOAP documents of every kind plus tests/data's round-trip documents;
# DIR/c14n the same behind option bytes (see c14n.c); DIR/receive
# messages alice signed, or signed and encrypted for bob with each
# cipher, at clock NOW, and DIR/receive_struct the same; DIR/receive_diff
# the encrypted ones (the reference peer's receive decrypts).  Fails
# unless bob accepts the GCM one at NOW + 1, the receive targets' clock
# (keys and clock that disagree would leave every target's messages
# refused before the key unwrap), and refuses the CBC one as CBC.
# tests/fuzz/corpus/<target>/ adds hand-written seeds on top.
set -eu
DOMLAB=${1:?usage: seeds.sh DOMLAB KEYS NOW DIR}
K=${2:?usage: seeds.sh DOMLAB KEYS NOW DIR}
NOW=${3:?usage: seeds.sh DOMLAB KEYS NOW DIR}
DIR=${4:?usage: seeds.sh DOMLAB KEYS NOW DIR}
HERE=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$DIR"
mkdir -p "$DIR/xml" "$DIR/c14n" "$DIR/receive"

cp "$HERE"/data/roundtrip/*.xml "$DIR/xml/"
for kind in quakes ints strings wide; do
	"$DOMLAB" gen $kind --size 1500 --seed 1 >"$DIR/xml/gen-$kind.xml"
done
"$DOMLAB" gen deep --count 6 --seed 1 >"$DIR/xml/gen-deep.xml"
"$DOMLAB" gen random --count 20 --seed 1 >"$DIR/xml/gen-random.xml"

# c14n.c's first byte: 1 exclusive, 2 comments, 4 PrefixList, 8 the
# subtree of element (byte >> 4).
for f in "$DIR"/xml/*.xml; do
	b=$(basename "$f" .xml)
	for flags in 000 001 003 005 030 031 062; do
		{ printf "\\$flags"; cat "$f"; } >"$DIR/c14n/$b-$flags"
	done
done

"$DOMLAB" gen ints --count 3 --seed 2 >"$DIR/msg.xml"
"$DOMLAB" sign --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" \
	--now "$NOW" "$DIR/msg.xml" -o "$DIR/receive/signed.xml"
for cipher in aes256-gcm aes128-cbc; do
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" \
		--peer-cert "$K/bob.cert.pem" --cipher $cipher --now "$NOW" \
		"$DIR/msg.xml" -o "$DIR/receive/sent-$cipher.xml"
done
rm "$DIR/msg.xml"
"$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" \
	--now $((NOW + 1)) "$DIR/receive/sent-aes256-gcm.xml" \
	-o "$DIR/received.xml" || {
	echo "seeds.sh: bob refuses sent-aes256-gcm.xml at $((NOW + 1)) with $K" >&2
	exit 1
}
# The CBC seed is signed, then encrypted: receive refuses it before any
# decryption (SECURITY.md, decryption oracles), and the targets, which
# do not allow CBC, start from that refusal; any other answer is wrong.
rc=0
"$DOMLAB" receive --key "$K/bob.key.pem" --trust "$K/alice.cert.pem" \
	--now $((NOW + 1)) "$DIR/receive/sent-aes128-cbc.xml" \
	-o "$DIR/received.xml" 2>"$DIR/err" || rc=$?
grep -q 'aes128-cbc is refused on receive' "$DIR/err" && [ $rc -eq 3 ] || {
	echo "seeds.sh: sent-aes128-cbc.xml: exit $rc, not CBC's refusal: $(cat "$DIR/err")" >&2
	exit 1
}
rm -f "$DIR/received.xml" "$DIR/err"
cp -r "$DIR/receive" "$DIR/receive_struct"
mkdir -p "$DIR/receive_diff"
cp "$DIR"/receive/sent-*.xml "$DIR/receive_diff/"
