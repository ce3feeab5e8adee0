#!/bin/sh
# wss4j.sh DOMLAB - domlab against Apache WSS4J 1.6 (Debian's
# libwss4j-java), a second WS-Security stack independent of xmlsec1: WSS4J
# sends to domlab and domlab sends to WSS4J in every layout, with every
# recipient key identifier, in SOAP 1.1 and 1.2; the Bodies are compared
# byte for byte (exclusive c14n, WSS4J's canonicalizer on its side), and
# one changed byte in a signed or in an encrypted part is refused both
# ways.  The driver, tests/interop/wss4j/Wss4jPeer.java, is compiled with
# javac against /usr/share/java at test time.  Without java, javac,
# keytool or the jars, every test is counted as not run, never as passed.
# Not for: xmlsec1 (tests/interop.sh) or domlab's own refusals
# (tests/test_wss.c).
#
# Environment: DOMLAB_KEYS (alice, bob, mallory; tests/make-keys.sh);
# DOMLAB_WSS4J, the folder the driver and the keystores are made in (kept
# across runs; a scratch folder without it).
set -u
DOMLAB=${1:?usage: wss4j.sh path/to/domlab}
K=${DOMLAB_KEYS:-build/keys}
HERE=$(dirname "$0")
SUITE=wss4j
. "$HERE/lib.sh"
W=${DOMLAB_WSS4J:-$T/wss4j}
SRC=$HERE/interop/wss4j/Wss4jPeer.java
S11=http://schemas.xmlsoap.org/soap/envelope/
S12=http://www.w3.org/2003/05/soap-envelope
need_files "$SRC" "$K/alice.cert.pem"
need_tools openssl perl

LAYOUTS="sign-encrypt encrypt-sign encrypt-signature encrypt-header"
KIDS="issuer-serial ski thumbprint bst"
SOAPS="1.1 1.2"
# The tests: three keystores; per layout, identifier and SOAP version,
# WSS4J to domlab (sent, received, Body, header block, two tamperings) and
# domlab to WSS4J (sent, received, Body, two tamperings; the driver refuses
# a message with anything left encrypted); then mallory, per identifier,
# both ways.
PER_CASE=11
PER_KID=3
planned=$((3 + $(echo $LAYOUTS | wc -w) * $(echo $KIDS | wc -w) * $(echo $SOAPS | wc -w) * PER_CASE + $(echo $KIDS | wc -w) * PER_KID))
notrun=0
not_run() { # not_run REASON N: N more tests not run, the reason said once
	notrun=$((notrun + $2))
	echo "SKIP $SUITE: $1" >>"$T/skips"
}
# done: the reasons, the "N not run" line tests/total.sh sums, the counts
done_() {
	if [ $notrun -gt 0 ]; then
		sort -u "$T/skips"
		echo "$notrun not run"
	fi
	finish
}

JARS="wss4j xmlsec commons-logging commons-codec slf4j-api slf4j-nop"
CP=$W
missing=
for j in $JARS; do
	[ -e "/usr/share/java/$j.jar" ] || missing="$missing $j.jar"
	CP=$CP:/usr/share/java/$j.jar
done
for tool in java javac keytool; do
	command -v $tool >/dev/null || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	not_run "missing$missing (apt-get install default-jdk-headless libwss4j-java)" $planned
	done_
	exit
fi

# ---- the driver and the keystores (each party's key, the peer's
# certificate), kept in $W across runs: javac and keytool each start a JVM ----
mkdir -p "$W"
if [ ! -e "$W/Wss4jPeer.class" ] || [ "$SRC" -nt "$W/Wss4jPeer.class" ]; then
	javac -nowarn -d "$W" -cp "$CP" "$SRC" >"$T/err" 2>&1 ||
		{ cat "$T/err"; echo "FAIL $SUITE: javac"; echo "0 passed, 1 failed"; exit 1; }
fi
keystore() { # keystore WHO PEER: made again when a PEM is newer
	ks=$W/$1.p12
	[ "$ks" -nt "$K/$1.key.pem" ] && [ "$ks" -nt "$K/$1.cert.pem" ] && [ "$ks" -nt "$K/$2.cert.pem" ] && return
	rm -f "$ks"
	openssl pkcs12 -export -inkey "$K/$1.key.pem" -in "$K/$1.cert.pem" -name "$1" \
		-passout pass:domlab-test -out "$ks.tmp" &&
		keytool -importcert -noprompt -keystore "$ks.tmp" -storetype PKCS12 \
			-storepass domlab-test -alias "$2" -file "$K/$2.cert.pem" &&
		mv "$ks.tmp" "$ks"
}
for pair in "alice bob" "bob alice" "mallory alice"; do
	check "keystore for $pair" keystore $pair
done
wss4j() { # wss4j WHO PEER < JOBS: the driver's report on stdout
	java -cp "$CP" Wss4jPeer "$W/$1.p12" "$1" "$2"
}
# job_ok LOG OUT: the driver wrote OUT and reported it done
job_ok() { grep -Fqx "ok $2" "$1" && [ -s "$2" ]; }

# ---- the inputs: a header block (the one encrypt-header encrypts) in each SOAP version ----
"$DOMLAB" gen quakes --size 3000 --seed 11 |
	perl -pe 's{<soap:Header/>}{<soap:Header><h:Route xmlns:h="urn:example:route">to bob</h:Route></soap:Header>}' >"$T/in-1.1.xml"
perl -pe "s{\Q$S11\E}{$S12}g" "$T/in-1.1.xml" >"$T/in-1.2.xml"
ns() { [ "$1" = 1.1 ] && echo $S11 || echo $S12; }
# body FILE SOAP: the exc-c14n of FILE's Body, without the wsu:Id a sender adds to it
body() {
	"$DOMLAB" c14n --exclusive --apex "{$(ns "$2")}Body" "$1" | strip_id
}
strip_id() { perl -0pe 's{^(<[^>]*>)}{ ($t = $1) =~ s/ (?:wsu:Id|xmlns:wsu)="[^"]*"//g; $t }e'; }
for s in $SOAPS; do
	body "$T/in-$s.xml" $s >"$T/in-$s.body"
done
route() { "$DOMLAB" c14n --exclusive --apex "{urn:example:route}Route" "$1"; }
route "$T/in-1.1.xml" >"$T/route"
# Tamperings: one base64 character of the Body's EncryptedData (an encrypted
# part), one digit of the Timestamp's Expires (a signed part).
tamper_body() { perl -0pe 's{(<[\w.-]+:Body\b.*?<xenc:CipherValue>)(.)}{$1 . ($2 eq "A" ? "B" : "A")}se' "$1"; }
tamper_ts() { perl -pe 's{(<wsu:Expires>[^<]*)(\d)}{$1 . ($2 ^ 1)}e' "$1"; }
why() { # why TAMPERING: what domlab's refusal says (the Body's ciphertext is
	# signed in encrypt-sign, decrypted first in sign-encrypt, and a
	# signature that fails after a decryption is the one message)
	case $1 in
	tb) echo "decryption failed\|digest of '#" ;;
	tt) echo "digest of '#TS-\|decryption failed or the signature does not verify" ;;
	esac
}

send_flags() { # send_flags LAYOUT
	case $1 in
	encrypt-signature) echo --layout sign-encrypt --encrypt-signature ;;
	encrypt-header) echo --layout sign-encrypt --encrypt-header "{urn:example:route}Route" ;;
	*) echo --layout "$1" ;;
	esac
}
BOB="--key $K/bob.key.pem --cert $K/bob.cert.pem --trust $K/alice.cert.pem"

# ---- WSS4J to domlab ----
for s in $SOAPS; do
	for l in $LAYOUTS; do
		for k in $KIDS; do
			echo "send $l $k aes256-gcm $T/in-$s.xml $T/w-$l-$k-$s.xml"
		done
	done
done >"$T/jobs"
wss4j alice bob <"$T/jobs" >"$T/send.log" 2>&1
# domlab checks WSS4J's Timestamps at the time they were made, however
# long its side takes (minutes under valgrind).
sent=$(date +%s)
BOB="$BOB --now $sent"
for s in $SOAPS; do
	for l in $LAYOUTS; do
		for k in $KIDS; do
			c="$l, $k, SOAP $s"
			m=$T/w-$l-$k-$s.xml
			job_ok "$T/send.log" "$m" && ok || { bad "WSS4J sends ($c): $(grep -Fm1 "refused $m: " "$T/send.log")"; continue; }
			tamper_body "$m" >"$T/tb.xml"
			tamper_ts "$m" >"$T/tt.xml"
			check "domlab receives WSS4J's message ($c)" "$DOMLAB" receive $BOB "$m" -o "$T/r.xml"
			body "$T/r.xml" $s >"$T/r.body"
			cmp -s "$T/r.body" "$T/in-$s.body" && ok || bad "domlab's Body of WSS4J's message differs from the input's ($c)"
			route "$T/r.xml" | cmp -s - "$T/route" && ok || bad "domlab's header block of WSS4J's message differs from the input's ($c)"
			for t in tb tt; do
				"$DOMLAB" receive $BOB "$T/$t.xml" >"$T/out" 2>"$T/err"
				rc=$?
				[ $rc -eq 3 ] && [ ! -s "$T/out" ] && grep -q "$(why $t)" "$T/err" && ok ||
					bad "domlab on WSS4J's message with a changed byte ($c, $t): exit $rc, $(cat "$T/err")"
			done
		done
	done
done

# ---- domlab to WSS4J ----
# The Timestamp is the clock's, valid for an hour: WSS4J checks it against
# its own clock when the whole batch is sent.
now=$(date +%s)
: >"$T/jobs"
for s in $SOAPS; do
	for l in $LAYOUTS; do
		for k in $KIDS; do
			c="$l, $k, SOAP $s"
			m=$T/d-$l-$k-$s.xml
			check "domlab sends ($c)" "$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" --peer-cert "$K/bob.cert.pem" $(send_flags $l) --key-id $k --now $now --ttl 3600 "$T/in-$s.xml" -o "$m"
			tamper_body "$m" >"$m.tb"
			tamper_ts "$m" >"$m.tt"
			printf 'receive %s %s\n' "$m" "$m.body" "$m.tb" "$m.tb.body" "$m.tt" "$m.tt.body" >>"$T/jobs"
		done
	done
done
wss4j bob alice <"$T/jobs" >"$T/recv.log" 2>&1
for s in $SOAPS; do
	for l in $LAYOUTS; do
		for k in $KIDS; do
			c="$l, $k, SOAP $s"
			m=$T/d-$l-$k-$s.xml
			job_ok "$T/recv.log" "$m.body" && ok || bad "WSS4J receives domlab's message ($c): $(grep -Fm1 "refused $m: " "$T/recv.log")"
			strip_id <"$m.body" 2>/dev/null | cmp -s - "$T/in-$s.body" && ok || bad "WSS4J's Body of domlab's message differs from the input's ($c)"
			for t in tb tt; do
				grep -Fq "refused $m.$t: " "$T/recv.log" && [ ! -e "$m.$t.body" ] && ok || bad "WSS4J accepted domlab's message with a changed byte ($c, $t)"
			done
		done
	done
done

# ---- a message for bob, received by mallory, both ways ----
: >"$T/jobs"
for k in $KIDS; do
	expect 3 "mallory receives WSS4J's message for bob ($k)" "$DOMLAB" receive --key "$K/mallory.key.pem" --cert "$K/mallory.cert.pem" --trust "$K/alice.cert.pem" --now $sent "$T/w-sign-encrypt-$k-1.1.xml"
	grep -q "no EncryptedKey is addressed to this receiver" "$T/err" && ok || bad "mallory's refusal of WSS4J's message for bob ($k) does not say it is not hers: $(cat "$T/err")"
	echo "receive $T/d-sign-encrypt-$k-1.1.xml $T/mallory-$k.body" >>"$T/jobs"
done
wss4j mallory alice <"$T/jobs" >"$T/mallory.log" 2>&1
for k in $KIDS; do
	grep -Fq "refused $T/d-sign-encrypt-$k-1.1.xml: " "$T/mallory.log" && ok || bad "WSS4J as mallory accepted domlab's message for bob ($k)"
done
done_
