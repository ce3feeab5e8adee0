#!/bin/bash -eu
# build.sh - builds every domlab fuzz target the way OSS-Fuzz and
# ClusterFuzzLite do: from their environment ($CC, $CXX, $CFLAGS,
# $CXXFLAGS, $LIB_FUZZING_ENGINE, $SRC, $WORK, $OUT), with the checkout in
# $SRC/domlab.  Into $OUT go, per target and variant (`make fuzz-list`:
# best takes every target plain-named, the libxml2 variants theirs as
# <target>_libxml2_<build>, insitu with build=direct its as
# <target>_direct): the fuzzer, <name>_seed_corpus.zip (the
# committed corpus plus tests/fuzz/seeds.sh's seeds), <name>.dict
# (tests/fuzz/dicts.sh), <name>.options for the receive targets; and the
# fuzz keys (tests/fuzz/keys/, committed: the messages in the corpora were
# made with them), copied into $OUT/domlab-keys, where the fuzzers look
# for them (tests/fuzz/fuzz_keys.h): the engines run the fuzzers from a
# folder of their own, with no network.
# Libraries are linked from their static archives when the toolchain has
# every one a target needs (the runner image has none of them installed);
# otherwise the target is linked against the shared ones and says so.
# Not for: running anything (`make oss-fuzz-check` runs this in a
# simulated environment), or the Makefile's own fuzz builds (`make fuzz`).
set -o pipefail
cd "$SRC/domlab"
W=${WORK:-/tmp}/domlab
mkdir -p "$W"
# The image installs the packages this build needs (Dockerfile), not the
# Debian set the Makefile checks for its own targets.
export DEPS=none

# One plain domlab (no sanitizer, no engine) to make the seed messages.
env -u CFLAGS -u CXXFLAGS make -s BUILD_DIR="$W/plain" VARIANT=best \
	CC="$CC" CXX="$CXX" domlab
list=$(make -s fuzz-list)
now=$(sed -n 's/^now //p' <<<"$list")
keys=$(sed -n 's/^keys //p' <<<"$list")
mkdir -p "$OUT/domlab-keys"
cp "$keys"/*.pem "$OUT/domlab-keys/"
sh tests/fuzz/seeds.sh "$W/plain/best/domlab" "$keys" "$now" \
	"$W/seeds"

# Each -lNAME as its archive, when every one (the C library's own left
# out) has one; else the flags as they are, and status 1.
link_libs() {
	local out=() f a
	for f in "$@"; do
		case $f in
		-lm | -lpthread | -ldl | -lrt) out+=("$f") ;;
		-l*)
			a=$($CC -print-file-name="lib${f#-l}.a")
			if [ "$a" = "lib${f#-l}.a" ]; then
				echo "$*"
				return 1
			fi
			out+=("$a")
			;;
		*) out+=("$f") ;;
		esac
	done
	echo "${out[*]}"
}

xml_libs="$(pkg-config --static --libs libxml-2.0) -lcrypto -lpthread"
ref_libs="$(pkg-config --static --libs xmlsec1-openssl) $xml_libs"
cflags="-std=c11 -D_GNU_SOURCE -DOPENSSL_API_COMPAT=30000 -I. $(pkg-config --cflags libxml-2.0) -DFUZZ_NOW=$now"

while read -r v targets; do
	lib=$W/fuzz/$v
	# The libraries instrumented with the engine's flags, in link order;
	# the reference peer's objects for receive_diff (the Makefile's own
	# flags for them).
	libdomlab=("$lib/libdomlab-data.a" "$lib/libdomlab-wss.a" "$lib/libdomlab-dom.a")
	# (A variant's name holds '=', so make is given targets by name, never
	# by path.)
	make -s BUILD_DIR="$W/fuzz" VARIANT="$v" CC="$CC" CXX="$CXX" \
		OPT="$CFLAGS" CFLAGS= CXXFLAGS= fuzz-objs
	axes=$(make -s VARIANT="$v" variant-axes | tr ' ' '\n')
	build=$(sed -n 's/^build=//p' <<<"$axes")
	parser=$(sed -n 's/^parser=//p' <<<"$axes")
	for t in $targets; do
		name=$t
		[ "$parser" = libxml2 ] && name=${t}_libxml2_$build
		[ "$parser" = insitu ] && [ "$build" = direct ] && name=${t}_direct
		extra=() libs=$xml_libs
		if [ "$t" = receive_diff ]; then
			# The reference peer's objects but its command's
			# (the Makefile's REFPEER_SRC).
			extra=("$lib/obj/harness/cli/cli_io.o")
			for o in "$lib"/obj/harness/refpeer/*.o; do
				[ "$o" = "$lib/obj/harness/refpeer/cmd_ref.o" ] || extra+=("$o")
			done
			libs=$ref_libs
		fi
		# shellcheck disable=SC2086 # flag lists
		$CC $CFLAGS $cflags -c "tests/fuzz/$t.c" -o "$W/$name.o"
		if ! linked=$(link_libs $libs); then
			echo "build.sh: $name: not every library has a static archive; linked shared: $libs"
		fi
		# shellcheck disable=SC2086
		$CXX $CXXFLAGS "$W/$name.o" "${extra[@]}" "${libdomlab[@]}" \
			$LIB_FUZZING_ENGINE $linked -o "$OUT/$name"

		# The committed corpus's names may repeat the made seeds'.
		seeds=$W/seeds/xml
		[ -d "$W/seeds/$t" ] && seeds=$W/seeds/$t
		rm -rf "$W/zip" "$OUT/${name}_seed_corpus.zip"
		mkdir -p "$W/zip"
		cp "$seeds"/* "$W/zip/"
		for f in tests/fuzz/corpus/"$t"/*; do
			[ -f "$f" ] && cp "$f" "$W/zip/corpus-${f##*/}"
		done
		(cd "$W/zip" && zip -q "$OUT/${name}_seed_corpus.zip" ./*)
		sh tests/fuzz/dicts.sh "$t" >"$OUT/$name.dict"
		case $t in
		receive*) printf '[libfuzzer]\nmax_len = 16384\ntimeout = 30\n' \
			>"$OUT/$name.options" ;;
		esac
	done
done <<<"$(sed '/^now \|^keys /d' <<<"$list")"
