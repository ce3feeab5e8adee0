#!/bin/sh
# make-keys.sh DIR - test keys and self-signed certificates, made with the
# openssl command line per build (never committed): alice and bob talk to
# each other, mallory is the stranger whose certificate nobody trusts.
# Not for: the fuzz targets, whose alice and bob are committed
# (tests/fuzz/keys/) so that their corpora stay valid messages everywhere.
set -eu
dir=${1:?usage: make-keys.sh DIR}
mkdir -p "$dir"
for who in alice bob mallory; do
	[ -s "$dir/$who.cert.pem" ] && continue
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out "$dir/$who.key.pem" 2>/dev/null
	openssl req -new -x509 -key "$dir/$who.key.pem" -out "$dir/$who.cert.pem" \
		-days 3650 -subj "/CN=$who (domlab test only)" 2>/dev/null
done
