#!/bin/sh
# cli.sh DOMLAB - tests the command line of one variant's binary: exit
# codes, where output goes (and that none is written on failure), and that
# every command behaves as DESIGN.md says.  The DOM's behaviour itself is
# tested by test-dom; this is about the process boundary.
set -u
DOMLAB=${1:?usage: cli.sh path/to/domlab}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL cli: $*"; }

# expect CODE NAME CMD...: runs CMD with stdout to $T/out, stderr to $T/err.
expect() {
	code=$1 name=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq "$code" ]; then ok; else bad "$name: exit $rc, wanted $code: $(head -c 300 "$T/err")"; fi
}

# variant: preset line first when built from a preset, then the four axes.
expect 0 "variant" "$DOMLAB" variant
for axis in attrs userdata build attrlist keys; do
	grep -q "^$axis=" "$T/out" && ok || bad "variant lacks $axis"
done
expect 1 "variant with an argument" "$DOMLAB" variant extra

# gen: deterministic from the seed, different across seeds.
for kind in quakes ints strings wide deep random; do
	"$DOMLAB" gen "$kind" --seed 7 >"$T/a.xml" && "$DOMLAB" gen "$kind" --seed 7 >"$T/b.xml" &&
		cmp -s "$T/a.xml" "$T/b.xml" && ok || bad "gen $kind is not deterministic"
	"$DOMLAB" gen "$kind" --seed 8 >"$T/c.xml" && ! cmp -s "$T/a.xml" "$T/c.xml" && ok ||
		bad "gen $kind ignores the seed"
	# parse writes back exactly what gen wrote: both follow the serializer's form.
	"$DOMLAB" parse "$T/a.xml" >"$T/rt.xml" && cmp -s "$T/a.xml" "$T/rt.xml" && ok ||
		bad "parse of gen $kind does not round-trip"
done
"$DOMLAB" gen quakes --size 200000 >"$T/q.xml"
size=$(wc -c <"$T/q.xml")
[ "$size" -gt 199000 ] && [ "$size" -lt 201000 ] && ok || bad "gen quakes --size 200000 gave $size bytes"
expect 1 "gen unknown kind" "$DOMLAB" gen nonsense
expect 1 "gen bad count" "$DOMLAB" gen ints --count x
expect 1 "gen too deep" "$DOMLAB" gen deep --count 1000

# parse: stdin and file give the same; -o writes the file only on success.
"$DOMLAB" parse <"$T/q.xml" >"$T/stdin.xml" && cmp -s "$T/q.xml" "$T/stdin.xml" && ok ||
	bad "parse from stdin"
expect 0 "parse -o" "$DOMLAB" parse "$T/q.xml" -o "$T/o.xml"
cmp -s "$T/q.xml" "$T/o.xml" && ok || bad "parse -o content"
[ -s "$T/out" ] && bad "parse -o also wrote stdout" || ok
expect 0 "parse --stats" "$DOMLAB" parse --stats "$T/q.xml"
for key in elements attributes namespace_decls arena_bytes_used parse_allocations bytes_per_element; do
	grep -q "^$key [0-9]" "$T/err" && ok || bad "--stats lacks $key"
done

# Malformed input: exit 2, line and column, and no output anywhere.
printf '<a>\n  <b></c>\n</a>\n' >"$T/bad.xml"
expect 2 "mismatched tags" "$DOMLAB" parse "$T/bad.xml"
grep -q "line 2, column" "$T/err" && ok || bad "no position in: $(cat "$T/err")"
[ -s "$T/out" ] && bad "malformed input produced output" || ok
echo keep >"$T/keep.xml"
expect 2 "mismatched tags -o" "$DOMLAB" parse "$T/bad.xml" -o "$T/keep.xml"
[ "$(cat "$T/keep.xml")" = keep ] && ok || bad "failed parse replaced the -o file"
ls "$T"/keep.xml.tmp.* >/dev/null 2>&1 && bad "temporary file left behind" || ok
printf '<a>' >"$T/trunc.xml"
expect 2 "truncated" "$DOMLAB" parse "$T/trunc.xml"
printf '<a>\377</a>' >"$T/utf8.xml"
expect 2 "invalid UTF-8" "$DOMLAB" parse "$T/utf8.xml"
printf '<p:a/>' >"$T/prefix.xml"
expect 2 "undeclared prefix" "$DOMLAB" parse "$T/prefix.xml"
printf '<a x="1" x="2"/>' >"$T/dup.xml"
expect 2 "duplicate attribute" "$DOMLAB" parse "$T/dup.xml"
: >"$T/empty.xml"
expect 2 "empty input" "$DOMLAB" parse "$T/empty.xml"

# Nothing external is ever read; entity expansion is bounded.
echo "SECRET-MARKER" >"$T/secret.txt"
printf '<!DOCTYPE r [<!ENTITY x SYSTEM "file://%s/secret.txt">]>\n<r>&x;</r>\n' "$T" >"$T/xxe.xml"
expect 2 "external entity" "$DOMLAB" parse "$T/xxe.xml"
grep -q "SECRET-MARKER" "$T/out" "$T/err" && bad "external entity content leaked" || ok
printf '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">' >"$T/lol.xml"
prev=a
for e in b c d e f g h i j k; do
	printf '<!ENTITY %s "&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;">' $e $prev $prev $prev $prev $prev $prev $prev $prev $prev $prev >>"$T/lol.xml"
	prev=$e
done
printf ']>\n<r>&k;</r>\n' >>"$T/lol.xml"
expect 2 "billion laughs" timeout 10 "$DOMLAB" parse "$T/lol.xml"
# parser=insitu refuses any DTD, saying why, with a position.
if "$DOMLAB" variant | grep -qx parser=insitu; then
	printf '<?xml version="1.0"?>\n<!DOCTYPE r>\n<r/>\n' >"$T/dtd.xml"
	expect 2 "DTD under insitu" "$DOMLAB" parse "$T/dtd.xml"
	grep -q "line 2, column 1: DTDs are not allowed in SOAP messages" "$T/err" &&
		ok || bad "DTD refusal message: $(cat "$T/err")"
fi

# Limits on the command line.
"$DOMLAB" gen deep --count 40 >"$T/deep.xml"
expect 2 "--max-depth" "$DOMLAB" parse --max-depth 20 "$T/deep.xml"
expect 0 "--max-depth high enough" "$DOMLAB" parse --max-depth 100 "$T/deep.xml"
expect 2 "--max-input" "$DOMLAB" parse --max-input 1000 "$T/q.xml"
expect 2 "--max-input on stdin" sh -c "\"$DOMLAB\" parse --max-input 1000 <\"$T/q.xml\""
expect 1 "--max-depth without a number" "$DOMLAB" parse --max-depth x "$T/deep.xml"

# Usage and I/O errors.
expect 1 "no command" "$DOMLAB"
expect 1 "unknown command" "$DOMLAB" frobnicate
expect 1 "unknown option" "$DOMLAB" parse --frob "$T/q.xml"
expect 4 "missing input file" "$DOMLAB" parse "$T/does-not-exist.xml"
expect 4 "unwritable output" "$DOMLAB" parse "$T/q.xml" -o "$T/no-such-dir/out.xml"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
