#!/bin/sh
# in_rounds.sh VAR K SCRIPT OUT [ARG...] -- ITEM... - SCRIPT run K times
# with VAR=1 in its environment (so that it runs one round): round 1 into
# OUT, round k into OUT/round.k, each as `SCRIPT DIR ARG... ITEM...`,
# the ITEMs in reverse order in even rounds, so that a ratio between two
# of them meets the machine's drift both ways.  The rounds of load.sh
# (LOAD_ROUNDS) and attack.sh (ATTACK_ROUNDS).
# Not for: the reports over the rounds (loadreport.py, attackreport.py).
# Arguments hold no spaces (they are split into words again).
set -eu
var=${1:?usage: in_rounds.sh VAR K SCRIPT OUT [ARG...] -- ITEM...}
rounds=${2:?usage: in_rounds.sh VAR K SCRIPT OUT [ARG...] -- ITEM...}
script=${3:?usage: in_rounds.sh VAR K SCRIPT OUT [ARG...] -- ITEM...}
out=${4:?usage: in_rounds.sh VAR K SCRIPT OUT [ARG...] -- ITEM...}
shift 4
fixed=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	fixed="$fixed $1"
	shift
done
[ $# -gt 0 ] && shift
reversed=""
for r in "$@"; do
	reversed="$r${reversed:+ }$reversed"
done
k=0
while [ "$k" -lt "$rounds" ]; do
	k=$((k + 1))
	dir=$out
	[ "$k" = 1 ] || dir=$out/round.$k
	items="$*"
	[ $((k % 2)) = 1 ] || items=$reversed
	echo "[round $k/$rounds]"
	# shellcheck disable=SC2086
	env "$var=1" sh "$script" "$dir" $fixed $items
done
