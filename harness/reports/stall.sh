#!/bin/sh
# stall.sh OUT SECONDS ROUNDS - the socket-read stall alone:
# best+read=eof against best (read=framed) with kept-alive clients over
# HTTP (harness/reports/load.sh, SECONDS per client level), in ROUNDS
# rounds: round 1 into OUT, round K into OUT/round.K, the two variants'
# order turning each round, so that the stall's ratio carries the
# interval one more round lands in.  Then OUT/stall.md, FINDINGS.md's
# row (harness/reports/loadreport.py --stall).  What `make stall` runs.
# Not for: the load levels of every variant (compare.sh runs load.sh).
# Environment: BUILD_DIR.
set -eu
out=${1:?usage: stall.sh OUT SECONDS ROUNDS}
secs=${2:?usage: stall.sh OUT SECONDS ROUNDS}
rounds=${3:?usage: stall.sh OUT SECONDS ROUNDS}
here=$(dirname "$0")
k=0
while [ "$k" -lt "$rounds" ]; do
	k=$((k + 1))
	dir=$out
	[ "$k" = 1 ] || dir=$out/round.$k
	echo "[round $k/$rounds]"
	if [ $((k % 2)) = 1 ]; then
		sh "$here/load.sh" "$dir" "$secs" best best+read=eof
	else
		sh "$here/load.sh" "$dir" "$secs" best+read=eof best
	fi
done
python3 "$here/loadreport.py" --dir "$out" --stall >"$out/stall.md"
cat "$out/stall.md"
