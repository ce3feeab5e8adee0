#!/bin/sh
# check_plain.sh DOMLAB - build=deferred's check pass with its memos,
# shapes, records and vector windows, against the same pass with none of
# them (DOMLAB_CHECK=plain, variants/parser/insitu/check/check.h): on the
# same inputs, the same output byte for byte, the same message and the
# same exit code.  The inputs: every shape `domlab gen` makes, at sizes
# where records and windows are taken, parsed whole and under tight
# limits, signed (the canonical notes) and canonicalized; sibling runs
# made to break a record in each place; and the parse fuzz target's
# committed corpus, mostly broken documents.  No timing.
# Variants without the check pass (parser=libxml2, or build other than
# deferred) skip it: the variable has nothing to change there.
# Environment: DOMLAB_KEYS (alice; tests/make-keys.sh).
set -u
SUITE=check_plain
DOMLAB=${1:?usage: check_plain.sh path/to/domlab}
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
K=${DOMLAB_KEYS:-build/keys}
need_files "$K/alice.key.pem" "$K/alice.cert.pem"
need_tools cmp python3

"$DOMLAB" variant >"$T/variant" || { bad "domlab variant failed"; finish; exit; }
if ! grep -qx parser=insitu "$T/variant" || ! grep -qx build=deferred "$T/variant"; then
	echo "SKIP $SUITE: no check pass here ($(grep -E '^(parser|build)=' "$T/variant" | tr '\n' ' '))"
	finish
	exit
fi

# same NAME ARGS...: domlab ARGS run with and without the accelerators
# gives the same stdout, stderr and exit code.
same() {
	name=$1
	shift
	"$DOMLAB" "$@" >"$T/a.out" 2>"$T/a.err"
	ra=$?
	DOMLAB_CHECK=plain "$DOMLAB" "$@" >"$T/p.out" 2>"$T/p.err"
	rp=$?
	if [ "$ra" -ne "$rp" ]; then
		bad "$name: exit $ra accelerated, $rp plain: $(head -c 200 "$T/a.err") / $(head -c 200 "$T/p.err")"
	elif ! cmp -s "$T/a.out" "$T/p.out"; then
		bad "$name: output differs ($(wc -c <"$T/a.out") and $(wc -c <"$T/p.out") bytes)"
	elif ! cmp -s "$T/a.err" "$T/p.err"; then
		bad "$name: message differs: $(head -c 200 "$T/a.err") / $(head -c 200 "$T/p.err")"
	else
		ok
	fi
}

NOW=1796000000
SIGN="sign --key $K/alice.key.pem --cert $K/alice.cert.pem --now $NOW"
TIGHT="--max-text 40 --max-attrs 4 --max-depth 6 --max-name 12"

# ---- generated payloads: records, shapes and windows taken ----
# (random takes a count of elements, the others a size in bytes.)
for kind in quakes ints strings wide deep random collide-names collide-attrs \
	collide-ids wide-ns many-attrs; do
	for size in 3000 70000; do
		f=$T/$kind-$size.xml
		how="--size $size"
		[ "$kind" = random ] && how="--count $((size / 100))"
		"$DOMLAB" gen "$kind" $how --seed 7 -o "$f" || {
			bad "gen $kind $how"
			continue
		}
		same "parse $kind $size" parse "$f"
		same "parse $kind $size, tight limits" parse $TIGHT "$f"
		same "sign $kind $size" $SIGN "$f"
		same "c14n $kind $size" c14n --exclusive "$f"
	done
done

# ---- a record broken in each place ----
# Siblings read as the record of the first two, each with one byte of
# its own changed: in a value, a text, a name, the nesting, a reference;
# with values and texts of every length across a 64-byte block.
python3 - "$T" <<'EOF'
import sys
T = sys.argv[1]
head = ('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/'
        'envelope/"><soap:Body><r xmlns:q="urn:q">')
tail = '</r></soap:Body></soap:Envelope>'
rec = '<q:e id="a{0}" k="{1}" v="x"><q:f>{2}</q:f><g/></q:e>\n'
breaks = ['<', '&', '&amp;', '&#x41;', '&bogus;', '"', "'", '>', ']]>',
          '\t', '\r', '\xc3\xa9', '\xff', '</q:e>', '<q:f>']
for n, b in enumerate(breaks):
    for where in ('value', 'text'):
        body = ''
        for i in range(40):
            k, t = 'v' * (i % 70), 't' * ((3 * i) % 70)
            if i == 30:
                if where == 'value':
                    k = k + b
                else:
                    t = t + b
            body += rec.format(i, k, t)
        with open('%s/break-%02d-%s.xml' % (T, n, where), 'wb') as f:
            f.write((head + body + tail).encode('latin-1'))
EOF
for f in "$T"/break-*.xml; do
	b=$(basename "$f" .xml)
	same "parse $b" parse "$f"
	same "sign $b" $SIGN "$f"
done

# ---- the parse target's corpus ----
for f in "$HERE"/fuzz/corpus/parse/*; do
	[ -f "$f" ] || continue
	same "corpus $(basename "$f")" parse "$f"
done

finish
