#!/bin/sh
# hostile.sh DOMLAB - hostile input at the command line of one variant:
# each shape `domlab gen` makes, at a small size, refused with its exit
# code and message or accepted with output whose digest is fixed here, so
# every variant (hash=fixed and keyed, both parsers) must give the same
# bytes; the hash key (two keys give the same output, a malformed one is
# an error); and the limits that must hold before the work they bound: an
# endless pipe, attributes and declarations counted before libxml2 reads
# a tag, in the document, in an entity and in UTF-16.  No timing.
# Environment: DOMLAB_KEYS (alice, bob; tests/make-keys.sh).
set -u
SUITE=hostile
DOMLAB=${1:?usage: hostile.sh path/to/domlab}
. "$(dirname "$0")/lib.sh"
K=${DOMLAB_KEYS:-build/keys}
need_files "$K/alice.key.pem" "$K/bob.key.pem"
need_tools sha256sum head python3

NOW=1796000000
RECV="$DOMLAB receive --key $K/bob.key.pem --trust $K/alice.cert.pem --now $NOW"
KEY1=000102030405060708090a0b0c0d0e0f
KEY2=f0e1d2c3b4a5968778695a4b3c2d1e0f

# says NAME TEXT: the last command's message holds TEXT.
says() {
	grep -qF -- "$2" "$T/err" && ok || bad "$1: message lacks '$2': $(head -c 300 "$T/err")"
}
# digest NAME FILE SHA: FILE's digest is SHA (gen's output is fixed by its
# seed, so these are the same on every variant).
digest() {
	got=$(sha "$2")
	[ "$got" = "$3" ] && ok || bad "$1: output digest $got, wanted $3"
}

"$DOMLAB" variant >"$T/variant" && grep -q '^hash=\(fixed\|keyed\)$' "$T/variant" && ok ||
	bad "variant does not say its hash"

# ---- each shape, small: accepted with fixed output, or refused ----
SIZE=20000
for kind in collide-names collide-attrs collide-ids deep many-attrs; do
	"$DOMLAB" gen "$kind" --size $SIZE --seed 3 -o "$T/$kind.xml" && ok || bad "gen $kind"
	"$DOMLAB" gen "$kind" --size $SIZE --seed 3 -o "$T/again.xml" &&
		cmp -s "$T/$kind.xml" "$T/again.xml" && ok || bad "gen $kind is not deterministic"
done
"$DOMLAB" gen wide-ns --size $SIZE --count 40 -o "$T/wide-ns.xml" && ok || bad "gen wide-ns"
expect 1 "gen collide-names with a count" "$DOMLAB" gen collide-names --count 5
expect 1 "gen deep with a size and a count" "$DOMLAB" gen deep --size 100 --count 5

for kind in collide-names collide-attrs deep many-attrs wide-ns; do
	expect 0 "parse $kind" "$DOMLAB" parse "$T/$kind.xml" -o "$T/$kind.out"
	expect 0 "c14n $kind" "$DOMLAB" c14n --exclusive "$T/$kind.xml" -o "$T/$kind.c14n"
done
digest "parse collide-names" "$T/collide-names.out" 9b8cf82c54d79fe6ee2069cbf01d8e27decf5e27780d08ff6d973ee08278b945
digest "c14n collide-names" "$T/collide-names.c14n" 86fd4470bd5614e401a59b445915b31781d8d1abf785cf5dc3f62aa4c3a81260
digest "parse collide-attrs" "$T/collide-attrs.out" de537bfdbf6b3f4b8a5c14fea68aca57bb6b32d5e3a7c48297c01a4be6cd1182
digest "c14n collide-attrs" "$T/collide-attrs.c14n" 45da72456472f89417ef24ab936fdc96341a3729d592226e8d907016929858ea
digest "parse deep" "$T/deep.out" 31895dbff085343d5b5077fa3998fd9d9c2fd4067da682bae9d82105317084b4
digest "parse many-attrs" "$T/many-attrs.out" acb83d171a1263bc0d51d24feedfc55c6f68034e9f595201a6441bd85e419cab
digest "parse wide-ns" "$T/wide-ns.out" 6fb8b0050f37bbc878b373fc3c0c914c95551a50bb23e67def9290bbc9fd93f2
digest "c14n wide-ns" "$T/wide-ns.c14n" 94ab66336e2fbe1c37f13285b8beab9a6608e7f20cedc3ac285d19662a92c461
# The generator writes the serializer's form: these come back as written.
for kind in collide-names collide-attrs many-attrs wide-ns; do
	cmp -s "$T/$kind.xml" "$T/$kind.out" && ok || bad "parse of gen $kind does not round-trip"
done

# collide-ids gets as far as the ID index (the token reference), then the
# token is no certificate: exit 3 on every variant.
expect 3 "receive collide-ids" $RECV "$T/collide-ids.xml"
says "receive collide-ids" "BinarySecurityToken holds no certificate"
[ -s "$T/out" ] && bad "receive collide-ids wrote output" || ok

# Limits each shape meets at its issue's scale, refused the same everywhere.
"$DOMLAB" gen many-attrs --size 1500000 -o "$T/attrs150k.xml"
expect 2 "150k attributes" "$DOMLAB" parse "$T/attrs150k.xml"
says "150k attributes" "attributes on <r>, over the limit of 10000"
"$DOMLAB" gen wide-ns --size $SIZE --count 9000 -o "$T/ns9000.xml"
expect 2 "9000 prefixes" "$DOMLAB" parse "$T/ns9000.xml"
says "9000 prefixes" "namespace declarations in scope, over the limit of 256"
expect 2 "--max-ns" "$DOMLAB" parse --max-ns 39 "$T/wide-ns.xml"
says "--max-ns" "namespace declarations in scope, over the limit of 39"
expect 0 "--max-ns at the bound" "$DOMLAB" parse --max-ns 40 "$T/wide-ns.xml"
expect 2 "c14n --max-ns" "$DOMLAB" c14n --exclusive --max-ns 39 "$T/wide-ns.xml"
expect 2 "deep chains under --max-depth" "$DOMLAB" parse --max-depth 200 "$T/deep.xml"
says "deep chains under --max-depth" "elements nested deeper than the limit of 200"

# ---- the hash key ----
for kind in collide-names collide-attrs wide-ns; do
	DOMLAB_HASH_KEY=$KEY1 "$DOMLAB" parse "$T/$kind.xml" -o "$T/k1.out" &&
		DOMLAB_HASH_KEY=$KEY2 "$DOMLAB" parse "$T/$kind.xml" -o "$T/k2.out" &&
		cmp -s "$T/k1.out" "$T/k2.out" && cmp -s "$T/k1.out" "$T/$kind.out" && ok ||
		bad "parse $kind differs under another hash key"
	DOMLAB_HASH_KEY=$KEY2 "$DOMLAB" c14n --exclusive "$T/$kind.xml" -o "$T/k2.c14n" &&
		cmp -s "$T/k2.c14n" "$T/$kind.c14n" && ok || bad "c14n $kind differs under another hash key"
done
"$DOMLAB" gen quakes --seed 5 -o "$T/q.xml"
SIGN="$DOMLAB sign --key $K/alice.key.pem --cert $K/alice.cert.pem --now $NOW"
DOMLAB_HASH_KEY=$KEY1 $SIGN "$T/q.xml" -o "$T/s1.xml" && DOMLAB_HASH_KEY=$KEY2 $SIGN "$T/q.xml" -o "$T/s2.xml" &&
	cmp -s "$T/s1.xml" "$T/s2.xml" && ok || bad "sign differs under another hash key"
DOMLAB_HASH_KEY=$KEY1 $SIGN "$T/collide-names.xml" -o "$T/s1.xml" &&
	DOMLAB_HASH_KEY=$KEY2 $SIGN "$T/collide-names.xml" -o "$T/s2.xml" &&
	cmp -s "$T/s1.xml" "$T/s2.xml" && ok || bad "sign of collide-names differs under another hash key"
for k in 0001 "$KEY1"0 000102030405060708090a0b0c0d0e0g ""; do
	DOMLAB_HASH_KEY=$k "$DOMLAB" parse "$T/q.xml" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 1 ] && ok || bad "DOMLAB_HASH_KEY='$k': exit $rc, wanted 1"
	says "DOMLAB_HASH_KEY='$k'" "DOMLAB_HASH_KEY must be 32 hex digits"
	[ -s "$T/out" ] && bad "DOMLAB_HASH_KEY='$k' wrote output" || ok
done

# ---- limits held while reading ----
head -c 3000000 /dev/zero | "$DOMLAB" parse --max-input 1048576 >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && ok || bad "endless pipe: exit $rc, wanted 2"
says "endless pipe" "input is over the limit of 1048576 bytes"
head -c 3000000 /dev/zero | $RECV --max-input 1048576 >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && ok || bad "endless pipe to receive: exit $rc, wanted 2"
says "endless pipe to receive" "input is over the limit of 1048576 bytes"

# Attributes in an entity's replacement text (libxml2 reads its tags
# too; the insitu parser refuses the DTD), and in UTF-16: exit 2 either way.
python3 -c "
import sys
a = ' '.join('a%d=&#39;&#39;' % i for i in range(10001))
sys.stdout.write('<!DOCTYPE r [<!ENTITY e \"<a %s/>\">]><r>&e;</r>' % a)" >"$T/entity.xml"
expect 2 "attributes in an entity" "$DOMLAB" parse "$T/entity.xml"
python3 -c "
import sys
sys.stdout.buffer.write(open(sys.argv[1], 'rb').read().decode().encode('utf-16'))" "$T/attrs150k.xml" >"$T/utf16.xml"
expect 2 "150k attributes in UTF-16" "$DOMLAB" parse "$T/utf16.xml"
says "150k attributes in UTF-16" "attributes on <r>, over the limit of 10000"

finish
