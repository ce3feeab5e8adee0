#!/bin/sh
# scenarios.sh OUT RUN... - the original reports' two scenarios through
# `domlab serve`, alone (harness/reports/load.sh with LOAD_FULL=1 and
# LOAD_BASE=0): RAMPART-298's token store (OUT/tokens/, TOKEN_REQUESTS
# requests from one client, each with a fresh token, on a fresh server
# per RUN) and SOAP with Attachments over multipart/related HTTP
# (OUT/attach/, 150 KB and 4 MB).  In SCENARIO_ROUNDS rounds (default
# 5; load.sh's LOAD_ROUNDS): round 1 into OUT, round K into OUT/round.K,
# the RUNs in reverse order in even rounds, so that each ratio (the
# list's growth against the hash's, unbuffered against buffered) carries
# the interval one more round lands in.  Then OUT/machine.txt (the commit, the CPUs, the load
# average before and after: client and server share the machine with
# whatever else runs) and OUT/scenarios.md, the tables FINDINGS.md quotes
# (harness/reports/http_findings.py).
# Not for: the benchmark's in-process cases (compare.sh) or the load
# levels (load.sh).
# Environment: BUILD_DIR, TOKEN_REQUESTS (as load.sh), SCENARIO_ROUNDS.
set -eu
out=${1:?usage: scenarios.sh OUT RUN...}
shift
mkdir -p "$out"
{
	echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
	echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cpus $(nproc)"
	echo "runs $*"
	echo "token_requests ${TOKEN_REQUESTS:-600}"
	echo "rounds ${SCENARIO_ROUNDS:-5}"
	echo "load before $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"
LOAD_ROUNDS=${SCENARIO_ROUNDS:-5} LOAD_FULL=1 LOAD_BASE=0 \
	sh "$(dirname "$0")/load.sh" "$out" 1 "$@"
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
python3 "$(dirname "$0")/http_findings.py" --dir "$out" >"$out/scenarios.md"
cat "$out/scenarios.md"
