# lib.sh - what the shell test suites share, sourced after setting SUITE:
# a scratch folder $T removed at exit, the pass/fail counters, ok / bad /
# check / expect, sha (a file's SHA-256), and refusing to run without the files and tools a suite needs.
# Each suite ends with `finish`, which prints "N passed, N failed".
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $SUITE: $*"; }
check() { # check WHAT CMD...: CMD must exit 0
	what=$1
	shift
	if "$@" >"$T/out" 2>"$T/err"; then ok; else bad "$what: $(head -c 300 "$T/err")"; fi
}

# expect CODE NAME CMD...: CMD must exit CODE; its stdout and stderr are
# left in $T/out and $T/err.
expect() {
	code=$1 name=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq "$code" ]; then ok; else bad "$name: exit $rc, wanted $code: $(head -c 300 "$T/err")"; fi
}
sha() { sha256sum "$1" | cut -d' ' -f1; }

# A missing prerequisite is one failure, not a silent pass.
need_files() {
	for f in "$@"; do
		[ -e "$f" ] || { echo "$SUITE: missing $f"; echo "0 passed, 1 failed"; exit 1; }
	done
}
need_tools() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "$SUITE: $tool is not installed"; echo "0 passed, 1 failed"; exit 1; }
	done
}

finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
