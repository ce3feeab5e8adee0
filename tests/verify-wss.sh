#!/bin/sh
# verify-wss.sh <message.xml> <cert.pem | pubkey.pem>
# Independent check of a WS-Security signed SOAP message with the xmlsec1 CLI (1.2.x, OpenSSL).
#  - registers wsu:Id (any attribute with local name "Id") as XML ID on: soap11/soap12 Body,
#    wsu:Timestamp, wsse:BinarySecurityToken, plus any extra local names in $WSS_ID_NODES
#    (space-separated, matched in any namespace, e.g. WSS_ID_NODES="To Action MessageID").
#  - verifies the first ds:Signature inside wsse:Security, same-document references only;
#  - additionally requires that one Reference points at the soap:Body's wsu:Id (so a signature that
#    does not cover the Body is rejected) and that all SignedInfo references verified.
# Exit 0 = signature valid and covers Body; non-zero otherwise. The message must already be
# decrypted (see decrypt-wss.sh) if the Body was encrypted after signing; with
# WSS_SIGNED_CIPHERTEXT=1 an encrypted Body is verified as it stands (encrypt, then sign).
# Not for: encrypted messages (decrypt-wss.sh first) or checking domlab's
# own verdicts; it is the independent party in tests/interop.sh.
set -u
MSG=${1:?usage: verify-wss.sh msg.xml cert.pem|pub.pem}; KEY=${2:?key/cert missing}
S11=http://schemas.xmlsoap.org/soap/envelope/
S12=http://www.w3.org/2003/05/soap-envelope
WSU=http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd
WSSE=http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd
DS=http://www.w3.org/2000/09/xmldsig#
if grep -q "BEGIN CERTIFICATE" "$KEY"; then KOPT=--pubkey-cert-pem; else KOPT=--pubkey-pem; fi
LN="local-name()"
BODY_XP="/*[$LN='Envelope']/*[$LN='Body']"
if [ -z "${WSS_SIGNED_CIPHERTEXT:-}" ] &&
   [ -n "$(xmllint --xpath "$BODY_XP/*[$LN='EncryptedData']" "$MSG" 2>/dev/null)" ]; then
  echo "verify-wss: Body is still encrypted; run decrypt-wss.sh first" >&2; exit 3
fi
BODY_ID=$(xmllint --xpath "string($BODY_XP/@*[$LN='Id'])" "$MSG" 2>/dev/null)
[ -n "$BODY_ID" ] || { echo "verify-wss: soap:Body has no wsu:Id" >&2; exit 4; }
SIG_XP="/*[$LN='Envelope']/*[$LN='Header']/*[$LN='Security']/*[$LN='Signature' and namespace-uri()='$DS']"
NREF=$(xmllint --xpath "count($SIG_XP/*[$LN='SignedInfo']/*[$LN='Reference'][@URI='#$BODY_ID'])" "$MSG" 2>/dev/null)
[ "$NREF" = "1" ] || { echo "verify-wss: no Reference to #$BODY_ID in Security/Signature" >&2; exit 5; }
EXTRA=""
for n in ${WSS_ID_NODES:-}; do EXTRA="$EXTRA --id-attr:Id $n"; done
OUT=$(xmlsec1 --verify $KOPT "$KEY" \
   --id-attr:Id "$S11:Body" --id-attr:Id "$S12:Body" \
   --id-attr:Id "$WSU:Timestamp" --id-attr:Id "$WSSE:BinarySecurityToken" $EXTRA \
   --enabled-reference-uris empty,same-doc \
   --node-xpath "$SIG_XP" \
   "$MSG" 2>&1)
RC=$?
echo "$OUT" | grep -v '^func=' >&2
[ $RC -eq 0 ] || exit 1
# every SignedInfo reference must have verified ("ok/all": n/n)
echo "$OUT" | grep -Eq '^SignedInfo References \(ok/all\): ([0-9]+)/\1$' || exit 6
exit 0
