#!/bin/sh
# memcheck.sh OUT RESULTS SUITE... - runs one variant's whole test suite
# (test-libdomlab and each tests/SUITE.sh, the Makefile's SHELL_SUITES) with
# every domlab and domlab-bench process under valgrind memcheck, appending each suite's
# "N passed, N failed" line to RESULTS, then one more line for the
# valgrind logs themselves.  Not for speed: only for
# invalid accesses, uses of uninitialised memory and leaks.
#
# A memcheck error or a definite or indirect leak makes the process exit
# 99, which every suite counts as a failure (each compares exit codes
# exactly); a log that is not empty fails here too, so a check that only
# wants "not 0", or a domlab inside a pipe, cannot hide an error.  No
# --track-origins (it doubles the time): rerun a reported command with it.
# `domlab serve` and `domlab load` exec domlab-http, which links
# libmicrohttpd and libcurl: domlab runs with --trace-children=yes, so
# the server and the load generator of the http suite run under memcheck
# too (exec keeps the process id, so the exec'd program's log takes the
# place of the few lines domlab ran before it).
# Environment: as for the suites (DOMLAB_KEYS).  The suites see
# DOMLAB_MEMCHECK=1: a suite whose deadlines measure the server (http.sh)
# lengthens them, as valgrind runs the server's threads one at a time.
set -u
export DOMLAB_MEMCHECK=1
OUT=${1:?usage: memcheck.sh build/VARIANT RESULTS SUITE...}
RESULTS=${2:?usage: memcheck.sh build/VARIANT RESULTS SUITE...}
shift 2
[ $# -gt 0 ] || { echo "usage: memcheck.sh build/VARIANT RESULTS SUITE..." >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(cd "$OUT" && pwd)
LOGS=$OUT/memcheck
rm -rf "$LOGS"
mkdir -p "$LOGS"
VG="valgrind -q --error-exitcode=99 --leak-check=full
--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
--log-file=$LOGS/vg.%p.log"
# The suites take the binaries' paths: these run them under valgrind,
# each one beside the others as in OUT (tests/cli.sh asks domlab's
# siblings for their --version).
for bin in domlab domlab-bench domlab-http test-libdomlab; do
	[ -x "$OUT/$bin" ] || continue
	trace=
	[ $bin = domlab ] && trace=--trace-children=yes
	cat >"$LOGS/$bin" <<EOS
#!/bin/sh
exec $(echo $VG) $trace "$OUT/$bin" "\$@"
EOS
	chmod +x "$LOGS/$bin"
done

status=0
run() { # run SUITE CMD...: the suite's last line is its count
	echo "-- $1"
	shift
	"$@" >"$LOGS/suite.log" 2>&1 || status=1
	grep -v '^[0-9]* passed, [0-9]* failed$' "$LOGS/suite.log" | grep -v '^PASS' | head -n 20
	tail -n 1 "$LOGS/suite.log" | tee -a "$RESULTS"
}
run test-libdomlab $VG "$OUT/test-libdomlab" "$HERE/data"
for suite in "$@"; do
	run "$suite" sh "$HERE/$suite.sh" "$LOGS/domlab" "$LOGS/domlab-bench"
done

nlogs=0
for f in "$LOGS"/vg.*.log; do
	[ -s "$f" ] || continue
	nlogs=$((nlogs + 1))
	echo "valgrind reported in $f:"
	head -n 40 "$f"
done
if [ "$nlogs" -eq 0 ]; then
	echo "1 passed, 0 failed" | tee -a "$RESULTS"
else
	echo "0 passed, $nlogs failed" | tee -a "$RESULTS"
	status=1
fi
exit $status
