#!/bin/sh
# replay.sh DIR VARIANT TARGET CORPUS_TSV - runs DIR/bin/TARGET once over
# the committed corpus tests/fuzz/corpus/TARGET (-runs=0) and records its
# size and the edge coverage and features libFuzzer reports after reading
# it, as the line of TARGET and VARIANT in CORPUS_TSV (results/fuzz/corpus.tsv):
#   target variant inputs cov ft commit
# (tab-separated).  Counts from different builds of a target are not
# comparable, hence the commit.  An input that crashes fails the replay.
# Not for: growing a corpus (campaign.sh) or the smoke run (run.sh).
set -eu
usage="usage: replay.sh DIR VARIANT TARGET CORPUS_TSV"
DIR=${1:?$usage}
VARIANT=${2:?$usage}
T=${3:?$usage}
OUT=${4:?$usage}
HERE=$(cd "$(dirname "$0")" && pwd)
corpus=$HERE/corpus/$T
log=$DIR/logs/$T.replay.log
commit=$(git -C "$HERE" rev-parse --short=12 HEAD 2>/dev/null || echo -)
if ! "$DIR/bin/$T" -runs=0 "$corpus" >"$log" 2>&1; then
	echo "FAIL replay: $T ($VARIANT); log: $log"
	exit 1
fi
line=$(grep -E '^#[0-9]+[[:space:]]+INITED cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
cov=$(echo "$line" | sed -E 's/.* cov: ([0-9]+) .*/\1/')
ft=$(echo "$line" | sed -E 's/.* ft: ([0-9]+).*/\1/')
n=$(ls "$corpus" | wc -l)
[ -f "$OUT" ] || printf 'target\tvariant\tinputs\tcov\tft\tcommit\n' >"$OUT"
tab=$(printf '\t')
grep -v "^$T$tab$VARIANT$tab" "$OUT" >"$OUT.new" || true
printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$T" "$VARIANT" "$n" "${cov:-0}" "${ft:-0}" \
	"$commit" >>"$OUT.new"
mv "$OUT.new" "$OUT"
echo "replay $T ($VARIANT): $n inputs, cov ${cov:-?} ft ${ft:-?}"
