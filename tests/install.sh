#!/bin/sh
# install.sh DOMLAB - the installed library as an application uses it:
# `make install` of this variant into a temporary prefix writes exactly
# the library, its pkg-config module and the public headers; the examples
# (examples/), copied out of the tree, build against it with pkg-config
# alone; sender then receiver on tests/data/install/order.xml prints the
# Body's first element byte for byte, and a tampered message or an
# untrusted signer is refused (3) with nothing printed; `make uninstall`
# leaves no file behind.  For best, doom2010 is installed beside it under
# the same prefix, and both give the same output.
# Environment: DOMLAB_KEYS (alice, bob, mallory), DOMLAB_MAKE (make with
# the build's BUILD_DIR and sanitizer settings) and DOMLAB_CFLAGS (the
# build's optimisation and sanitizer flags, for the examples), both set by
# the Makefile's test rules.
set -u
SUITE=install
DOMLAB=${1:?usage: install.sh path/to/domlab}
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")/.." && pwd)
K=${DOMLAB_KEYS:-build/keys}
MAKE_CMD=${DOMLAB_MAKE:-make --no-print-directory -C $HERE}
EX_CFLAGS=${DOMLAB_CFLAGS:--O2 -g}
need_files "$K/alice.key.pem" "$K/bob.key.pem" "$K/mallory.cert.pem"
need_tools pkg-config sed cmp

P=$T/prefix
DATA=$HERE/tests/data/install
NAME=$("$DOMLAB" variant | sed -n 's/^variant=//p')
PC_OF() { echo "domlab-$1" | sed 's/=/-/g'; }

# install_variant VARIANT: installs it under $P, checking the files it wrote.
install_variant() {
	v=$1 mod=$(PC_OF "$1")
	check "make install VARIANT=$v" $MAKE_CMD VARIANT="$v" PREFIX="$P" install
	for f in lib/lib$mod.a lib/pkgconfig/$mod.pc include/$mod/dom/dom.h \
		include/$mod/wss/wss.h include/$mod/wss/c14n.h include/$mod/util/err.h; do
		[ -f "$P/$f" ] && ok || bad "$v: install did not write $f"
	done
	# libxml2 is the libxml2 parser's alone (variants/parser/libxml2/).
	libs=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --static --libs "$mod")
	parser=$($MAKE_CMD -s VARIANT="$v" variant-axes | tr ' ' '\n' |
		sed -n 's/^parser=//p')
	case "$parser:$libs" in
	libxml2:*"-l$mod "*-lcrypto*-lxml2*) ok ;;
	libxml2:*) bad "$v: pkg-config --static --libs $mod lacks libxml2: '$libs'" ;;
	*-lxml2*) bad "$v: pkg-config --static --libs $mod names libxml2: '$libs'" ;;
	*:*"-l$mod "*-lcrypto*) ok ;;
	*) bad "$v: pkg-config --static --libs $mod: '$libs'" ;;
	esac
	[ "$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --variable=variant "$mod")" = "$v" ] &&
		ok || bad "$v: the .pc file's variant is not $v"
}

# run_examples VARIANT DIR: builds the examples against the installed
# VARIANT into DIR, runs sender then receiver, and leaves the output in
# DIR/out.
run_examples() {
	v=$1 d=$2 mod=$(PC_OF "$1")
	mkdir -p "$d/src"
	cp "$HERE/examples/Makefile" "$HERE/examples/"*.c "$HERE/examples/"*.h "$d/src/"
	check "$v: examples build with pkg-config" make --no-print-directory -C "$d/src" \
		PKG_CONFIG_PATH="$P/lib/pkgconfig" MODULE="$mod" OUT="$d" CFLAGS="$EX_CFLAGS"
	[ "$("$d/receiver" --variant 2>&1)" = "$v" ] && ok ||
		bad "$v: receiver --variant says '$("$d/receiver" --variant 2>&1)'"
	expect 0 "$v: sender" "$d/sender" "$K/alice.key.pem" "$K/alice.cert.pem" \
		"$K/bob.cert.pem" "$DATA/order.xml" "$d/msg.xml"
	"$d/receiver" "$K/bob.key.pem" "$K/alice.cert.pem" "$d/msg.xml" >"$d/out" 2>"$d/err" &&
		ok || bad "$v: receiver: $(head -c 300 "$d/err")"
	cmp -s "$d/out" "$DATA/order.expected" && ok ||
		bad "$v: receiver printed '$(head -c 300 "$d/out")', not order.expected"
}

# refused WHAT DIR ARGS...: the receiver exits 3 and prints nothing.
refused() {
	what=$1 d=$2
	shift 2
	"$d/receiver" "$@" >"$T/rout" 2>"$T/rerr"
	rc=$?
	if [ "$rc" -eq 3 ] && [ ! -s "$T/rout" ] && grep -q 'security' "$T/rerr"; then ok; else
		bad "$what: exit $rc, $(wc -c <"$T/rout") bytes out: $(head -c 300 "$T/rerr")"
	fi
}

install_variant "$NAME"
run_examples "$NAME" "$T/a"
# The first CipherValue in the Body (the last in the message) changed in
# its first byte: the AES-GCM tag no longer holds.
sed 's/\(.*<xenc:CipherValue>\)A/\1B/;t;s/\(.*<xenc:CipherValue>\)./\1A/' \
	"$T/a/msg.xml" >"$T/tampered.xml"
cmp -s "$T/a/msg.xml" "$T/tampered.xml" && bad "the tampering changed nothing" || ok
refused "tampered message" "$T/a" "$K/bob.key.pem" "$K/alice.cert.pem" "$T/tampered.xml"
refused "untrusted signer" "$T/a" "$K/bob.key.pem" "$K/mallory.cert.pem" "$T/a/msg.xml"

# Side by side: once, from best's run.
if [ "$NAME" = best ]; then
	install_variant doom2010
	run_examples doom2010 "$T/b"
	cmp -s "$T/a/out" "$T/b/out" && ok || bad "best and doom2010 print different Bodies"
	# Either one's message is the other's to receive.
	"$T/b/receiver" "$K/bob.key.pem" "$K/alice.cert.pem" "$T/a/msg.xml" >"$T/ab" 2>"$T/err" &&
		cmp -s "$T/ab" "$DATA/order.expected" && ok || bad "doom2010 does not receive best's message: $(head -c 300 "$T/err")"
	check "make uninstall VARIANT=doom2010" $MAKE_CMD VARIANT=doom2010 PREFIX="$P" uninstall
	[ -f "$P/lib/lib$(PC_OF best).a" ] && [ -f "$P/include/domlab-best/dom/dom.h" ] &&
		ok || bad "uninstalling doom2010 removed best's files"
	[ ! -e "$P/include/domlab-doom2010" ] && ok || bad "doom2010's headers are left"
fi

check "make uninstall VARIANT=$NAME" $MAKE_CMD VARIANT="$NAME" PREFIX="$P" uninstall
left=$(find "$P" -type f | head -n 5)
[ -z "$left" ] && ok || bad "uninstall left: $left"
[ ! -e "$P/include/$(PC_OF "$NAME")" ] && ok || bad "uninstall left include/$(PC_OF "$NAME")"
finish
