#!/bin/bash
# The lab's command line as a user first meets it: help (and help --help),
# --version, help, the README and the manual pages agreeing with what the
# lab does (the charge modes, the BTF fixtures), a missing experiment or layout naming
# the nearest names, and run --validate without root (it validates; it
# places no worker).  Nothing here makes a cgroup.
set -u
. "$(dirname "$0")/lib/tap.sh"

for h in help --help -h "help --help" "help -h"; do
	# shellcheck disable=SC2086 # the words of $h are the arguments
	out=$($LAB $h 2>&1); st=$?
	ok '[ $st = 0 ] && echo "$out" | grep -q "^usage: memcg-lab <command>" && echo "$out" | grep -q "^  charge "' \
		"memcg-lab $h: the command list, exit 0"
done
out=$($LAB help nosuch 2>&1); st=$?
ok '[ $st = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "unknown command or topic .nosuch."' \
	"help of an unknown command: one line, exit 2"

# --version: git describe of the tree it was built from (build/version.h).
want=$(sed -n 's/^#define LAB_VERSION "\(.*\)"$/\1/p' build/version.h 2>/dev/null)
for v in --version version; do
	out=$($LAB $v 2>&1); st=$?
	ok '[ $st = 0 ] && [ -n "$want" ] && [ "$out" = "memcg-lab $want" ]' "memcg-lab $v: '$out'"
done
# (make writes it on every build; a tree that moved since is for make to catch up.)
if git rev-parse --git-dir >/dev/null 2>&1; then
	ok 'git rev-parse -q --verify "${want%-dirty}^{commit}" >/dev/null' \
		"--version names a revision of this repository ($want)"
else
	skip "--version names a revision of this repository" "not a git tree"
fi

# help and charge's page say what the lab does: every charge mode the driver
# takes, in help's summary and as an entry ("`MODE`::") of the page's MODES.
modes=$($LAB charge --mode nosuch 2>&1 | sed -n 's/.*unknown mode (want one of \(.*\))$/\1/p' | tr -d ',')
summary=$($LAB help | sed -n '/^  charge /,/^  [a-z]/p' | tr '\n' ' ')
page_modes=$(awk '$0 == "MODES" { on = 1; next } on && /^[A-Z][A-Z ]*$/ { exit } on && /^`[a-z]+`::$/ { print }' \
	doc/memcg-lab-charge.txt | tr '\n' ' ')
ok '[ -n "$modes" ]' "charge names its modes: $modes"
for m in $modes; do
	ok 'echo "$summary" | grep -qw -- "$m" && echo "$page_modes" | grep -q "\`$m\`::"' \
		"charge mode $m: in help's summary and in doc/memcg-lab-charge.txt's MODES"
done
ok '[ "$(echo "$page_modes" | wc -w)" = "$(echo "$modes" | wc -w)" ]' \
	"charge's page has as many modes as the driver ($page_modes)"

# The README and the tests' page count the BTF fixtures the tests read.
nbtf=$(ls lab/tests/data/btf/*.btf.xz | wc -l)
words=(zero one two three four five six seven eight nine ten eleven twelve)
for doc in README.md doc/memcg-lab-tests.txt; do
	ok '[ "$(grep -c "the BTF of ${words[$nbtf]} Debian/upstream" "$doc")" = 1 ] &&
		[ "$(grep -Eo "the BTF of [a-z]+ Debian" "$doc" | sort -u)" = "the BTF of ${words[$nbtf]} Debian" ]' \
		"$doc: the BTF of ${words[$nbtf]} kernels, as lab/tests/data/btf/ holds ($nbtf)"
	for f in lab/tests/data/btf/*.btf.xz; do
		k=$(basename "$f" .btf.xz); k=${k#vmlinux-}; line=${k%.*}; line=${line%-rt}
		[ "${k%-rt}" != "$k" ] && line=$line-rt
		ok 'tr "\n" " " < "$doc" | grep -Eq "the BTF of [a-z]+ Debian/upstream +kernels \([^)]*\<$line\>"' \
			"$doc names the $k fixture ($line)"
	done
done

# A missing experiment or layout names the nearest names.
err=$($LAB run --validate experiments/stock-slot.exp 2>&1); st=$?
ok '[ $st = 2 ] && [ "$err" = "memcg-lab: experiments/stock-slot.exp: cannot open: No such file or directory (nearest: experiments/stock-slots.exp)" ]' \
	"run of a misspelt experiment: the nearest name ($err)"
err=$($LAB layout --btf build/btf/vmlinux-6.18.44.btf --against layouts/6.12 2>&1); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "layout: --against layouts/6.12: No such file or directory (nearest: layouts/6.12.117)$"' \
	"layout --against a partial release: the capture it begins ($err)"
err=$($LAB probe --btf build/btf/vmlinux-6.1.19.btf 2>&1); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "(nearest: build/btf/vmlinux-6.1.192.btf"' "probe --btf of a misspelt file ($err)"
err=$($LAB run --validate experiments/zzzz-nothing-like.exp 2>&1); st=$?
ok '[ $st = 2 ] && ! echo "$err" | grep -q nearest' "a name far from every file: no suggestion"

# vm --lines-window: who opens the lines plugin's window (refused before
# anything boots; the guest side is vm-lines.sh).
err=$($LAB vm --lines-window sometimes --shell true 2>&1); st=$?
ok '[ $st = 2 ] && [ "$err" = "memcg-lab: vm: --lines-window: '"'sometimes'"' is not lab or command" ]' \
	"vm --lines-window of an unknown value: one line ($err)"
err=$($LAB vm --lines-window command -- probe 2>&1); st=$?
ok '[ $st = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "opens the window around a --shell command"' \
	"vm --lines-window command with a lab command: one line ($err)"
ok '$LAB vm --help | grep -q -- "--lines-window WHO"' "vm --help documents --lines-window"
# c2c window, the guest side of --lines-window command: it runs the
# command, exits with its status, and (in a lines session) labels the window.
mkdir -p "$T/ls"
MEMCG_LAB_LINES_DIR=$T/ls $LAB c2c window -- sh -c 'exit 3'; st=$?
ok '[ $st = 3 ] && grep -q "^0	command	command	" "$T/ls/windows.tsv" && [ ! -e "$T/ls/.window-open" ]' \
	"c2c window -- CMD: CMD's status (3), the window labelled command in windows.tsv, closed after"
# The opener's memory is out of khugepaged's reach (PR_SET_THP_DISABLE:
# a collapse held its mmap lock for seconds under TCG,
# lines_session_no_thp); the command it runs has THP as the kernel has it.
if grep -q '^THP_enabled:	1' /proc/self/status; then
	MEMCG_LAB_LINES_DIR=$T/ls $LAB c2c window -- sh -c 'grep ^THP_enabled: /proc/$PPID/status /proc/self/status' >"$T/thp"
	ok 'grep -q "^/proc/[0-9]*/status:THP_enabled:	0" "$T/thp" && grep -q "^/proc/self/status:THP_enabled:	1" "$T/thp"' \
		"c2c window in a lines session: THP off for the opener, on for its command ($(tr '\n' ' ' <"$T/thp"))"
else
	skip "c2c window: THP off for the opener" "this shell has no THP to turn off (/proc/self/status: $(grep '^THP_enabled:' /proc/self/status || echo 'no THP_enabled line, before 5.0'))"
fi
$LAB c2c window -- "$T/no-such-program" 2>"$T/err"; st=$?
ok '[ $st = 127 ] && grep -q "no-such-program: No such file or directory" "$T/err"' "c2c window of a missing program: 127"

# run --validate needs no root: it checks, it places nothing.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	for f in experiments/*.exp; do
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$LAB" run --validate "$f" 2>&1); st=$?
		ok '[ $st = 0 ] && echo "$out" | grep -q ": valid ("' "run --validate $(basename "$f") as uid 65534 ($out)"
	done
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$LAB" charge --mode anon --tasks 2 --validate 2>&1); st=$?
	ok '[ $st = 0 ] && echo "$out" | grep -q "^charge: valid: anon"' "charge --validate as uid 65534 ($out)"
else
	skip "run --validate without root" "needs root and setpriv to drop it"
fi
done_testing
