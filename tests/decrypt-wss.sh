#!/bin/sh
# decrypt-wss.sh <message.xml> <recipient-privkey.pem> <out.xml>
# Decrypts a WS-Security message in the WSS layout: xenc:EncryptedKey (rsa-oaep-mgf1p, or xmlenc11
# rsa-oaep with SHA-1/SHA-256 digest) sits in wsse:Security with an xenc:ReferenceList; the
# xenc:EncryptedData elements have no usable KeyInfo (none, or only a wsse:SecurityTokenReference).
# xmlsec1 1.2.37 cannot follow that layout, so:
#   1. xmllint extracts EncryptedKey/CipherData/CipherValue, base64 -d
#   2. openssl pkeyutl -decrypt -pkeyopt rsa_padding_mode:oaep unwraps the session key
#   3. xmlsec1 --decrypt --aeskey <session key> --node-id <Id> decrypts each referenced EncryptedData
# Exit 0 = all referenced EncryptedData decrypted; writes the decrypted document to out.xml.
# Not for: verifying (verify-wss.sh does that on the output) or other
# layouts than WS-Security's; it is the independent party in tests/interop.sh.
set -u
MSG=${1:?usage: decrypt-wss.sh msg.xml key.pem out.xml}; KEY=${2:?key}; OUT=${3:?out}
LN="local-name()"
EK="/*[$LN='Envelope']/*[$LN='Header']/*[$LN='Security']/*[$LN='EncryptedKey'][1]"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
ALG=$(xmllint --xpath "string($EK/*[$LN='EncryptionMethod']/@Algorithm)" "$MSG" 2>/dev/null)
DIG=$(xmllint --xpath "string($EK/*[$LN='EncryptionMethod']/*[$LN='DigestMethod']/@Algorithm)" "$MSG" 2>/dev/null)
case "$ALG" in
  http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p|http://www.w3.org/2009/xmlenc11#rsa-oaep) ;;
  "") echo "decrypt-wss: no EncryptedKey in wsse:Security" >&2; exit 3 ;;
  *) echo "decrypt-wss: unsupported key transport $ALG" >&2; exit 3 ;;
esac
case "$DIG" in
  ""|http://www.w3.org/2000/09/xmldsig#sha1) MD=sha1 ;;
  http://www.w3.org/2001/04/xmlenc#sha256) MD=sha256 ;;
  *) echo "decrypt-wss: unsupported OAEP digest $DIG" >&2; exit 3 ;;
esac
xmllint --xpath "string($EK/*[$LN='CipherData']/*[$LN='CipherValue'])" "$MSG" | base64 -d > "$TMP/ek.bin" || exit 4
openssl pkeyutl -decrypt -inkey "$KEY" -in "$TMP/ek.bin" -out "$TMP/session.key" \
  -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:$MD -pkeyopt rsa_mgf1_md:sha1 || exit 4
URIS=$(xmllint --xpath "$EK/*[$LN='ReferenceList']/*[$LN='DataReference']/@URI" "$MSG" 2>/dev/null \
       | sed -n 's/.*URI="#\([^"]*\)".*/\1/p')
[ -n "$URIS" ] || { echo "decrypt-wss: EncryptedKey has no ReferenceList/DataReference" >&2; exit 5; }
cp "$MSG" "$TMP/cur.xml"
for id in $URIS; do
  xmlsec1 --decrypt --aeskey "$TMP/session.key" --id-attr:Id "http://www.w3.org/2001/04/xmlenc#:EncryptedData" --node-id "$id" --output "$TMP/next.xml" "$TMP/cur.xml" \
     2>&1 | grep -v '^func=' >&2
  [ -s "$TMP/next.xml" ] || { echo "decrypt-wss: xmlsec1 failed on #$id" >&2; exit 1; }
  mv "$TMP/next.xml" "$TMP/cur.xml"
done
cp "$TMP/cur.xml" "$OUT"
