#!/bin/sh
# Every unit test runs its cases by name (tests/tap.h: TEST, tap_main):
# build/tests/unit-X -l lists at least one case, each a C name, none
# twice; -t NAME runs that case and no other, exit 0; -t of a name it
# lacks is one line and exit 2, nothing run.  The case run is the first
# listed.  (unit-c2c-objects' cases make memory cgroups: make test runs
# this file in the queue where no other file makes them, run-tests.sh.)
set -u
. "$(dirname "$0")/lib/tap.sh"
for src in lab/tests/unit-*.c; do
	name=$(basename "$src" .c)
	bin=build/tests/$name
	if [ ! -x "$bin" ]; then
		skip "$name: cases by name" "$bin is not built (make build)"
		continue
	fi
	"$bin" -l >"$T/list" 2>"$T/err"
	st=$?
	ok '[ $st = 0 ] && [ -s "$T/list" ] && ! grep -qv "^[a-z_][a-z0-9_]*\$" "$T/list" &&
	    [ "$(sort "$T/list" | uniq -d)" = "" ]' \
		"$name -l: $(wc -l <"$T/list") cases, each a C name, none twice" ||
		{ diag "exit $st"; diag <"$T/err"; head -5 "$T/list" | diag; }
	first=$(head -1 "$T/list")
	"$bin" -t no_such_case_here >"$T/out" 2>"$T/err"
	st=$?
	ok '[ $st = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "no case named so" "$T/err"' \
		"$name -t of an unknown name: exit 2, one line, nothing run" || { diag "exit $st"; diag <"$T/err"; }
	"$bin" -t "$first" >"$T/out" 2>"$T/err"
	st=$?
	ok '[ $st = 0 ] && [ "$(grep -c "^# case " "$T/out")" = 1 ] && grep -qx "# case $first" "$T/out" &&
	    grep -q "^1\\.\\.[1-9]" "$T/out"' "$name -t $first: that case alone, passed" ||
		{ diag "exit $st"; diag <"$T/out"; }
done
done_testing
