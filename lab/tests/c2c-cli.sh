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
ok '[ $st = 2 ] && grep -q "no perf c2c report found" "$T/err"' \
	"parse of a file without c2c content: exit 2, says so"

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
