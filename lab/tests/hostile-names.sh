#!/bin/bash
# Names that would run commands if any reached a shell: every command that
# takes a path or a name is given files and directories named with ', ",
# $(...), backticks, spaces, a newline and a leading '-'.  Nothing runs
# (no marker file appears anywhere the commands were started from), and
# each command does what it does with an ordinary name or fails with one
# line naming the file.
set -u
. "$(dirname "$0")/lib/tap.sh"

W=$T/w
mkdir -p "$W"
ROOT=$PWD
# Each name carries its own marker command: PWNED-<n> appears where a shell
# ran it (the lab's cwd, which is $W).
NAMES=(
	"q'\$(touch PWNED-1)'q"
	"d\"\$(touch PWNED-2)\"d"
	"b\`touch PWNED-3\`b"
	"s p a c e \$(touch PWNED-4)"
	"nl
\$(touch PWNED-5)"
	"-x\$(touch PWNED-6)"
)
label() { printf '%s' "$1" | tr '\n' '~' | cut -c1-24; }
markers() { find "$W" "$T" "$ROOT" /tmp -maxdepth 2 -name 'PWNED-*' 2>/dev/null; }
# One line on stderr (and it names the path's last component), or none at all.
one_line_naming() { # errfile name
	local lines
	lines=$(wc -l <"$1")
	[ "$lines" -le 1 ] && { [ "$lines" = 0 ] || grep -qF -- "$(printf '%s' "$2" | head -1)" "$1"; }
}
# run DESC CMD...: in $W, stdout and stderr kept, status in $st.
run() {
	desc=$1; shift
	(cd "$W" && "$@") >"$T/out" 2>"$T/err"; st=$?
}

BTF=build/btf/vmlinux-6.18.44.btf
S=lab/tests/data/samples/c2c/07-falsesharing583-intel-tid-coalesce.txt
[ -f "$BTF" ] || skip_all "$BTF is not built (make build)"

i=0
for N in "${NAMES[@]}"; do
	i=$((i + 1))
	L="$i: $(label "$N")"
	cp "$BTF" "$W/$N.btf"

	# layout --btf, --out, --against: pahole runs on the file.
	run layout "$LAB" layout --btf "$W/$N.btf" --out "$W/$N.cap"
	ok '[ $st = 0 ] && [ -s "$W/$N.cap/page_counter.txt" ] && [ -s "$W/$N.cap/fields.tsv" ]' \
		"$L: layout --btf --out writes the capture, pahole's text included" || diag <"$T/err"
	run layout "$LAB" layout --btf "$W/$N.btf" --against "$W/$N.cap"
	ok '[ $st = 0 ] && grep -q "no layout differences" "$T/out"' \
		"$L: layout --against a capture of that name" || { diag <"$T/out"; diag <"$T/err"; }
	run layout "$LAB" layout --btf "$W/$N.missing.btf"
	ok '[ $st = 2 ] && one_line_naming "$T/err" "missing.btf"' "$L: layout --btf of a missing file: one line naming it"

	# c2c parse and report.
	cp "$S" "$W/$N.txt"
	run c2c "$LAB" c2c parse "$W/$N.txt" --out "$W/$N.c2c"
	ok '[ $st = 0 ] && ls "$W/$N.c2c"/*.tsv >/dev/null 2>&1' "$L: c2c parse into a directory of that name" ||
		diag <"$T/err"
	run c2c "$LAB" c2c report "$W/$N.txt" --btf "$W/$N.btf" --out "$W/$N.rep"
	ok '[ $st = 0 ]' "$L: c2c report with --btf and --out of that name" || diag <"$T/err"
	cp lab/tests/data/fuzz/perfdata-loss/losses.data "$W/$N.data"
	run c2c "$LAB" c2c losses "$W/$N.data"
	ok '[ $st = 0 ] && grep -qF "5 samples, 400 lost" "$T/out"' "$L: c2c losses of a perf.data of that name" ||
		diag <"$T/err"

	# A results directory of that name: report, compare, plot.
	R="$W/$N.res"
	mkdir -p "$R/data"
	printf '{"name":"x","status":"complete","probe":{"kernel":"6.18.44"}}\n' >"$R/meta.json"
	printf 'step\trepeat\tmetric\tvalue\tunit\tbetter\n' >"$R/data/metrics.tsv"
	for r in 0 1 2; do
		printf 'tasks=%s\t%s\tcharge.anon.total\t%s\tops/s\thigher\n' 1 $r $((100 + r)) 2 $r $((190 + r)) \
			>>"$R/data/metrics.tsv"
	done
	cp -r "$R" "$R.b"
	run report "$LAB" report "$R"
	ok '[ $st = 0 ] && [ -s "$T/out" ]' "$L: report of a results directory of that name" || diag <"$T/err"
	run compare "$LAB" compare "$R" "$R.b"
	ok '[ $st = 0 ] && grep -q "charge.anon.total" "$T/out"' "$L: compare of two such directories" || diag <"$T/err"
	if command -v gnuplot >/dev/null 2>&1; then
		run plot "$LAB" plot "$R" "$R.b"
		# A against B goes beside A, named by both (plot/plot.h).
		P="$W/compare-$N.res-vs-$N.res.b/plots"
		case $N in
		*"
"*)	# gnuplot strings end at their line: a newline in a path is refused, in one line.
			ok '{ [ $st = 0 ] && [ -s "$P/series-charge.anon.total.png" ]; } || { [ $st = 2 ] && [ "$(wc -l <"$T/err")" -le 2 ]; }' \
				"$L: plot draws, or refuses in one line" || diag <"$T/err";;
		*)	ok '[ $st = 0 ] && [ -s "$P/series-charge.anon.total.png" ]' "$L: plot A B into compare-A-vs-B/plots beside A" ||
				diag <"$T/err";;
		esac
	else
		skip "$L: plot" "gnuplot is not installed (apt-get install gnuplot-nox)"
	fi

	# An experiment file of that name, with -s values of that name.
	printf '[experiment]\nname = hostile\n[driver]\ncommand = statread\ntop = 1\nchildren = 1\nallocators = 0\n' >"$W/$N.exp"
	run run "$LAB" run --validate "$W/$N.exp" -s "experiment.description=$N"
	ok '[ $st = 0 ]' "$L: run --validate of that file, with -s of that name" || diag <"$T/err"
	run run "$LAB" run --validate "$W/$N.exp" -s "experiment.name=$N"
	ok '[ $st = 2 ] && [ "$(wc -l <"$T/err")" = 1 ]' "$L: a run name of that shape is refused in one line" ||
		diag <"$T/err"
done

# A DWARF vmlinux of a hostile name goes through pahole --btf_encode_detached.
CC=${CC:-cc}
if command -v "$CC" >/dev/null 2>&1 && command -v pahole >/dev/null 2>&1; then
	N=${NAMES[0]}
	# Without --out the capture goes to layouts/<release>/ of the lab root:
	# a root of the test's own, never the tree's layouts/.
	mkdir -p "$T/root/layouts" && cp layouts/rules.conf "$T/root/layouts/"
	"$CC" -g -O0 -fno-toplevel-reorder -c -DSHAPE_SPLIT -o "$W/$N.o" lab/tests/data/layout/kernel-shapes.c
	run layout env MEMCG_LAB_ROOT="$T/root" "$LAB" layout --vmlinux "$W/$N.o"
	ok '[ $st = 0 ] && grep -q "pahole --btf_encode_detached" "$T/out" &&
		[ -s "$T/root/layouts/6.18.0-fixture-split/page_counter.txt" ]' "layout --vmlinux of a hostile name" ||
		diag <"$T/err"
	N=${NAMES[5]}
	cp "$W/${NAMES[0]}.o" "$W/$N.o"
	run layout env MEMCG_LAB_ROOT="$T/root" "$LAB" layout --vmlinux "$N.o"
	ok '[ $st = 0 ]' "layout --vmlinux of a relative name that starts with '-'" || diag <"$T/err"
else
	skip "layout --vmlinux" "needs $CC and pahole"
	skip "layout --vmlinux, leading '-'" "needs $CC and pahole"
fi

# The results directory itself: a driver's results under a hostile
# MEMCG_LAB_RESULTS, and its reproduce.sh giving back the exact argv.
if [ "$(id -u)" = 0 ] && grep -q ' memory\| cgroup2 ' /proc/self/mounts; then
	N=${NAMES[0]}
	(cd "$W" && MEMCG_LAB_RESULTS="$W/$N.results" "$LAB" statread --top 1 --children 1 --allocators 0 \
		--duration 1s --warmup 0s --interval 100ms --results "x\$(touch PWNED-7)") >"$T/out" 2>"$T/err"
	st=$?
	repro=$(ls -d "$W/$N.results"/*/reproduce.sh 2>/dev/null | head -1)
	ok '[ $st = 0 ] && [ -n "$repro" ]' "a run's results under a hostile results path, with a hostile name" ||
		diag <"$T/err"
	if [ -n "$repro" ]; then
		# The command line as reproduce.sh would run it, each word on a line.
		last=$(tail -1 "$repro")
		got=$(cd "$W" && eval "set -- ${last#bin/memcg-lab }" && printf '%s\n' "$@")
		want=$(printf '%s\n' statread --top 1 --children 1 --allocators 0 --duration 1s --warmup 0s \
			--interval 100ms --results "x\$(touch PWNED-7)")
		ok '[ "$got" = "$want" ]' "reproduce.sh quotes every word: the shell gives back the same argv" ||
			diag "got: $got"
		ok 'sh -n "$repro"' "reproduce.sh is valid sh"
	fi
else
	skip "results under a hostile path" "needs root and a memory controller"
fi

m=$(markers)
ok '[ -z "$m" ]' "no marker file appeared: no name reached a shell" || diag "$m"
done_testing
