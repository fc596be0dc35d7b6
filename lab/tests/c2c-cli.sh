#!/bin/bash
# memcg-lab c2c from the command line: help, one-line errors (exit 2), and
# what a machine without memory sampling gets (one line; the command runs).
set -u
. "$(dirname "$0")/lib/tap.sh"
S=lab/tests/data/samples/c2c
lines() { wc -l < "$1" | tr -d ' '; }

for sub in caps parse report record; do
	ok '$LAB c2c '$sub' --help | grep -q "^usage: memcg-lab c2c '$sub'"' "c2c $sub --help prints its usage"
done

$LAB c2c parse "$T/none.txt" --out "$T/none" >/dev/null 2>"$T/err"; st=$?
ok '[ $st = 2 ] && [ $(lines "$T/err") = 1 ] && grep -q none.txt "$T/err" && [ ! -e "$T/none" ]' \
	"parse of a missing file: exit 2, one line naming it, no outputs left"

printf 'hello\nnot a report\n' > "$T/junk.txt"
$LAB c2c parse -q "$T/junk.txt" --out "$T/o" >/dev/null 2>"$T/err"; st=$?
ok '[ $st = 2 ] && [ $(lines "$T/err") = 1 ] && grep -q "junk.txt: no perf c2c report found" "$T/err" && [ ! -e "$T/o" ]' \
	"parse of a file without c2c content: exit 2, one line, no output directory left"
mkdir -p "$T/keep" && : > "$T/keep/mine"
$LAB c2c parse -q "$T/junk.txt" --out "$T/keep" >/dev/null 2>"$T/err"; st=$?
ok '[ $st = 2 ] && [ ! -e "$T/keep/offsets.tsv" ] && [ -e "$T/keep/mine" ]' \
	"... into a directory of the user's: no offsets.tsv left, the user's file kept"
mkdir -p "$T/adir"
$LAB c2c parse "$T/adir" --out "$T/o2" >/dev/null 2>"$T/err"; st=$?
ok '[ $st = 2 ] && [ $(lines "$T/err") = 1 ] && grep -q "adir: a directory, not a perf c2c report" "$T/err" && [ ! -e "$T/o2" ]' \
	"parse of a directory: exit 2, one line naming it, nothing written"

# A report that ends after its statistics (cut off before the Shared Data
# Cache Line Table, which perf prints even when empty): a warning naming
# the line, exit 0; the whole report has no such warning.
full=$S/06-joemario-example-report-2016-intel.txt
tl=$(grep -n "Shared Data Cache Line Table" "$full" | cut -d: -f1)
head -n $((tl - 2)) "$full" > "$T/stats-cut.txt"
$LAB c2c parse "$T/stats-cut.txt" --out "$T/sc" >/dev/null 2>"$T/err"; st=$?
ok '[ $st = 0 ] && grep -q "stats-cut.txt:[0-9]*: the report ends after its statistics: no Shared Data Cache Line Table" "$T/err" &&
	grep -q "ends after its statistics" "$T/sc/warnings.tsv"' "a report cut off after its statistics: a warning, exit 0"
$LAB c2c parse "$full" --out "$T/full" >/dev/null 2>"$T/err"
ok '! grep -q "ends after its statistics" "$T/err"' "the whole report: no such warning"
# The real perf's `c2c report --stats` (statistics only) of a perf.data the
# lab wrote from a recorded guest run (lab/tests/data/lines/charge-6.1).
if command -v perf >/dev/null && [ -f build/btf/vmlinux-6.1.192.btf ]; then
	cp -r lab/tests/data/lines/charge-6.1 "$T/run" && cp build/btf/vmlinux-6.1.192.btf "$T/run/lines/vmlinux.btf"
	$LAB c2c lines "$T/run" >/dev/null 2>&1
	perf --buildid-dir "$T/run/lines/buildid" c2c report -i "$T/run/lines/perf.data" --stdio --stats \
		>"$T/stats-only.txt" 2>/dev/null
	$LAB c2c parse "$T/stats-only.txt" --out "$T/so" >/dev/null 2>"$T/err"; st=$?
	ok '[ $st = 0 ] && grep -q "Total records" "$T/stats-only.txt" && grep -q "the report ends after its statistics" "$T/err"' \
		"$(perf version) c2c report --stats: parsed, with the warning"
else
	skip "perf c2c report --stats" "no perf, or build/btf not built"
fi

$LAB c2c report $S/07-falsesharing583-intel-tid-coalesce.txt --btf build/btf/vmlinux-6.18.44.btf \
	--base nonsense >/dev/null 2>"$T/err"; st=$?
ok '[ $st = 2 ] && [ $(lines "$T/err") = 1 ] && grep -q nonsense "$T/err"' \
	"report with a bad --base: exit 2, one line naming it"

$LAB c2c report $S/07-falsesharing583-intel-tid-coalesce.txt --btf build/btf/vmlinux-6.18.44.btf \
	--struct no_such --base 0x1000 >/dev/null 2>"$T/err"; st=$?
ok '[ $st = 2 ] && grep -q no_such "$T/err"' "report with an unknown --struct: exit 2, names it"

$LAB c2c record -- true >/dev/null 2>"$T/err"; st=$?
ok '[ $st = 2 ] && grep -q -- --duration "$T/err"' "record without --duration: exit 2, says what is missing"

$LAB c2c caps >"$T/caps"; st=$?
ok '[ $st = 0 ] && [ $(lines "$T/caps") = 1 ] && grep -q "^c2c: " "$T/caps"' \
	"caps prints one line and exits 0: $(cat "$T/caps")"

if grep -q "^c2c: unsupported here" "$T/caps"; then
	$LAB c2c caps --require >/dev/null; st=$?
	ok '[ $st = 1 ]' "caps --require exits 1 where c2c cannot record"
	$LAB c2c record --duration 1 --out "$T/rec" -- sh -c "echo ran > $T/ran" >"$T/out" 2>&1; st=$?
	ok '[ $st = 0 ] && [ -f "$T/ran" ] && grep -q "^c2c: unsupported here" "$T/out" && [ $(lines "$T/out") = 1 ]' \
		"record without memory sampling: one line says so, the command still runs"
else
	skip "caps --require exits 1 where c2c cannot record" "this machine can record"
	skip "record without memory sampling" "this machine can record"
fi
done_testing
