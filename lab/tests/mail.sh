#!/bin/bash
# Issue 31: the text meant for an upstream thread, tried as a new user
# would, with two short runs of one kernel (`run experiments/stock-slots.exp
# -s experiment.repeats=1`, twice).  No word of direction without a test
# (compare, compare --tsv, report, report --mail, the verdicts, the plots'
# titles); report --mail A B stands alone (its own A-vs-B plots, the
# context of each run, the measured numbers, the layout verdicts, 72
# columns of plain text); plot A B writes beside A, never into it; --label.
#
# The results directories are made as a real run on this machine leaves
# them (runner.c, results.c, probe_report.c): meta.json with the probe of
# the real 6.18.44 BTF, 2 CPUs and cgroup v1 under probe.machine, "scaled"
# (the [small] shape: 2 CPUs < 16), lab_revision, command_line and
# layout_check; the experiment file; data/layout-check.txt from a real
# `layout --check`; data/metrics.tsv rows as the charge driver's stock mode
# emits them (stock.charges_per_s higher, cpu_ns_per_charge lower, holders).
set -u
. "$(dirname "$0")/lib/tap.sh"

BTF=build/btf/vmlinux-6.18.44.btf
[ -f "$BTF" ] || skip_all "$BTF is not built (make build unpacks lab/tests/data/btf)"
PROBE=$($LAB probe --btf "$BTF" --json) || skip_all "probe --btf $BTF failed"
have_gnuplot=; command -v gnuplot >/dev/null && have_gnuplot=1

# mkrun DIR REPEATS SIDE [KERNEL]: SIDE a or b picks the rates (below).
mkrun() {
	local d=$1 reps=$2 side=$3 kernel=${4:-6.18.44}
	mkdir -p "$d/data" "$d/plots"
	cp experiments/stock-slots.exp "$d/experiment.exp"
	cat > "$d/meta.json" <<JSON
{"name":"stock-slots","status":"complete","start":"2026-01-02T10:00:00Z","end":"2026-01-02T10:01:30Z",
 "host":"lab","machine":"x86_64","uname":"6.18.44",
 "command_line":["bin/memcg-lab","run","experiments/stock-slots.exp","-s","experiment.repeats=$reps"],
 "lab_revision":"4596e33","scaled":"2 CPUs < 16","layout_check":"pass",
 "probe":$(echo "$PROBE" | sed '$d' | sed "s/\"kernel\":\"6.18.44\"/\"kernel\":\"$kernel\"/"),
   "machine":{"topology":{"cpus":2,"cores":2,"smt":1,"llc_groups":1,"cpus_per_llc":2,"numa_nodes":1},
   "cgroup":{"mode":"v1","memory_v2":false,"memory_root":"/sys/fs/cgroup/memory","unified_root":null,
	     "evidence":"memory controller on cgroup v1"}}}}
JSON
	$LAB layout --btf "$BTF" --check > "$d/data/layout-check.txt"
	# Rates per K: the same kernel, so one curve, noise on top.  One
	# repeat: A and B as the issue's two runs differ (K=14: 175410 and
	# 116869, 33.4% apart).  Three repeats: A x (0.9, 1, 1.1), B x (1.08,
	# 0.93, 1.0), means 0.3% apart: no real change.
	awk -v reps="$reps" -v side="$side" 'BEGIN {
		print "step\trepeat\tmetric\tvalue\tunit\tbetter"
		split("0.9 1 1.1", fa, " "); split("1.08 0.93 1.0", fb, " ")
		for (k = 1; k <= 14; k++) for (r = 0; r < reps; r++) {
			rate = k <= 7 ? 290000 - 5000 * k : 150000
			if (reps == 1) rate *= side == "a" ? (k == 14 ? 175410 / 150000 : 1.02) : (k == 14 ? 116869 / 150000 : 0.97)
			else rate *= side == "a" ? fa[r + 1] : fb[r + 1]
			printf "K=%d\t%d\tstock.charges_per_s\t%.0f\tops/s\thigher\n", k, r, rate
			printf "K=%d\t%d\tstock.cpu_ns_per_charge\t%.1f\tns\tlower\n", k, r, 1e9 / rate * 0.9
			printf "K=%d\t%d\tstock.holders\t%d\tmemcgs\t-\n", k, r, k < 7 ? k : 7
		} }' > "$d/data/metrics.tsv"
	[ -z "$have_gnuplot" ] || $LAB plot --status complete "$d" >/dev/null
}

# Every file under a directory with its sha256: byte-identical or not.
sums() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs -r sha256sum); }
# Lines wider than 72 columns (UTF-8 aware), the first three.
wide() { while IFS= read -r l; do [ "$(printf '%s' "$l" | LC_ALL=C.UTF-8 wc -L)" -le 72 ] || echo "$l"; done | head -3; }
DIRECTION='regression|improvement|better|worse|faster|slower'

R=$T/results
A1=$R/20260102-100000-stock-slots B1=$R/20260102-100600-stock-slots
A3=$R/20260102-110000-stock-slots B3=$R/20260102-110900-stock-slots
mkrun "$A1" 1 a; mkrun "$B1" 1 b; mkrun "$A3" 3 a; mkrun "$B3" 3 b

# 1. Never a direction without a test.
for reps in 1 3; do
	if [ $reps = 1 ]; then a=$A1 b=$B1; else a=$A3 b=$B3; fi
	[ -z "$have_gnuplot" ] || before=$(sums "$a/plots")
	cmp=$($LAB compare "$a" "$b" 2>&1); st=$?
	tsv=$($LAB compare --tsv "$a" "$b" 2>&1)
	rep=$($LAB report "$a" 2>&1)
	mail=$($LAB report --mail "$a" "$b" 2>/dev/null); mst=$?
	all="$cmp$tsv$rep$mail"
	if [ -n "$have_gnuplot" ]; then
		$LAB plot "$a" "$b" >/dev/null 2>&1
		all="$all$(cat "$R/compare-${a##*/}-vs-${b##*/}/plots/"*.txt)"
	fi
	ok '[ $st = 0 ] && [ $mst = 0 ] && ! echo "$all" | grep -Eiq "$DIRECTION"' \
		"n=$reps a side, one kernel: no word of direction in compare, --tsv, report, report --mail or the plots" ||
		diag "$(echo "$all" | grep -Ei "$DIRECTION" | head -3)"
	if [ $reps = 1 ]; then
		ok 'echo "$cmp" | grep -Eq "^ +14 \| +175410 \| +116869 \(1 run a side: not tested\)$" &&
			echo "$mail" | grep -Eq "^ +14 \| +175410 \| +116869 \(1 run a side: not tested\)$"' \
			"the issue's K=14 row, in compare and the mail: (1 run a side: not tested)" ||
			diag "$(echo "$cmp" | grep -E "^ +14 \|")"
		ok 'echo "$cmp" | grep -q "^1 run a side: no change below is tested"' "compare's table says no change is tested"
		ok 'echo "$tsv" | awk -F"\t" "\$1 == \"K=14\" && \$2 == \"stock.charges_per_s\" { f = 1
			if (\$5 != \"-\" || \$8 != \"-\" || \$10 != \"-\" || \$11 != \"-\" || \$12 != \"-\" || \$13 != \"-\") bad = 1 }
			END { exit !f || bad }"' "--tsv: sd, t, df, p and significant are -, not 0 0 0 1 no" ||
			diag "$(echo "$tsv" | grep -P "^K=14\tstock.charges_per_s")"
		ok 'echo "$rep" | grep -Eq "^  K=14 +stock.charges_per_s +175410 +- +1  ops/s$"' \
			"report.txt's driver table: one run's sd% is -, not 0.0%" || diag "$(echo "$rep" | grep "K=14 ")"
		[ -z "$have_gnuplot" ] || ok 'grep -q "(1 run a side: not tested)" "$R/compare-${a##*/}-vs-${b##*/}/plots/series-stock.charges_per_s.txt"' \
			"the A/B plot's title says the curves are 1 run a side, not tested"
	else
		ok 'echo "$cmp" | grep -Eq "^ +14 \| +150000 \| +150500 \(no significant change, p = 0\.9[0-9]*\)$"' \
			"3 runs a side, 0.3% apart: (no significant change, p = ...)" || diag "$(echo "$cmp" | grep -E "^ +14 \|")"
		ok 'echo "$tsv" | awk -F"\t" "\$1 == \"K=14\" && \$2 == \"stock.charges_per_s\" { f = 1; if (\$13 != \"no\" || \$12 < 0.05) bad = 1 }
			END { exit !f || bad }"' "--tsv: tested, not significant"
	fi
	if [ -n "$have_gnuplot" ]; then
		ok '[ "$before" = "$(sums "$a/plots")" ]' "n=$reps: A's plots/ byte-identical after plot A B and report --mail A B"
	fi
done

# 2. report --mail A B alone, on two fresh runs (never plotted as an A/B).
mail=$($LAB report --mail "$A1" "$B1" 2>"$T/mail.err"); st=$?
ok '[ $st = 0 ] && [ -z "$(echo "$mail" | wide)" ]' "report --mail A B: exit 0, 72 columns" || diag "$(echo "$mail" | wide)"
ok '[ -z "$(printf "%s" "$mail" | od -An -tu1 -v | tr -s " " "\n" | awk "\$1 != \"\" && \$1 < 32 && \$1 != 10")" ]' \
	"and no byte below 0x20 but the newline (no gnuplot form feed, no tab)"
ctx='kernel 6.18.44, 2 CPUs, 1 repeat, the \[small\] shape \(2 CPUs < 16\), cgroup v1, lab 4596e33'
ok '[ "$(echo "$mail" | tr -s " \n" " " | grep -Eo "$ctx" | wc -l)" = 2 ] &&
	echo "$mail" | grep -q "^A: ${A1##*/}$" && echo "$mail" | grep -q "^B: ${B1##*/}$"' \
	"a context line per side (kernel, CPUs, repeats, shape, cgroup, lab) under its label: the directories' names (one release)" ||
	diag "$(echo "$mail" | sed -n 1,8p)"
ok 'echo "$mail" | grep -Eq "^ +175410 +- +-33\.4% +116869 +- +stock\.charges_per_s$"' \
	"compare's %change block with the measured numbers" || diag "$(echo "$mail" | grep -n "stock.charges_per_s" | head -3)"
ok 'echo "$mail" | grep -Eq "^ +\| +1 \| +7 +\| +7 \| +7$"' \
	"the seed's table with both runs' measured cliffs (A 7, B 7), not - | -" || diag "$(echo "$mail" | grep -A3 "^slots:")"
ok 'echo "$mail" | grep -q "^  A: pass (16 pass, 0 FAIL, 0 warn, 6 n/a)$" && echo "$mail" | grep -q "^  B: pass (16 pass"' \
	"the layout verdicts both runs checked"
if [ -n "$have_gnuplot" ]; then
	P=$R/compare-${A1##*/}-vs-${B1##*/}/plots
	ok 'echo "$mail" | grep -q "^series-stock.holders: stock.holders vs K" && grep -q "A: ${A1##*/}" "$P/series-stock.holders.txt" &&
		grep -q "B: ${B1##*/}" "$P/series-stock.holders.txt" && echo "$mail" | grep -q "B: ${B1##*/} ###B###"' \
		"its own A-vs-B plots, in compare-A-vs-B/plots beside A, legends by directory name" ||
		diag "$(ls "$P" 2>&1 | head -3)"
	grep -q "$P" "$T/mail.err"
	check $? "the sender is told where the plots are (stderr), the mail is not"
else
	skip "report --mail A B draws its own plots" "gnuplot not installed (make deps)"
	skip "the sender is told where the plots are" "gnuplot not installed (make deps)"
fi

# 3. plot A B beside A: A's own plots/ stay A's.
if [ -n "$have_gnuplot" ]; then
	C=$T/c; rm -rf "$C"; mkdir -p "$C"; cp -r "$A1" "$C/a"; cp -r "$B1" "$C/b"
	before=$(sums "$C/a")
	out=$($LAB plot "$C/a" "$C/b" 2>&1); st=$?
	ok '[ $st = 0 ] && [ "$before" = "$(sums "$C/a")" ] && [ -s "$C/compare-a-vs-b/plots/series-stock.holders.txt" ] &&
		[ -s "$C/compare-a-vs-b/plots/index.txt" ]' \
		"plot A B writes compare-a-vs-b/plots beside A; every file of A byte-identical (plots/, meta.json)" || diag "$out"
	mail=$($LAB report --mail "$C/a" 2>&1)
	ok 'echo "$mail" | grep -q "A: 6.18.44 \*\**A\**" && ! echo "$mail" | grep -q "B: "' \
		"report --mail A after plot A B shows A's own curves only"
else
	skip "plot A B writes beside A" "gnuplot not installed (make deps)"
fi

# 4. Labels: --label on compare, plot and report; the release where they differ.
mkrun "$T/k612" 1 a 6.12.117
out=$($LAB compare --label A=base --label B=patched "$A1" "$B1")
ok 'echo "$out" | grep -q "^A (base): $A1$" && echo "$out" | grep -q "^B (patched): $B1$"' "compare --label names the sides"
mail=$($LAB report --mail --label A=base --label B="6.18.44 + stock fix" "$A1" "$B1" 2>/dev/null)
ok 'echo "$mail" | grep -q "^A: base$" && echo "$mail" | grep -q "^B: 6.18.44 + stock fix$"' "report --mail --label names the sides"
if [ -n "$have_gnuplot" ]; then
	ok 'echo "$mail" | grep -q "A: base \*\**A" && echo "$mail" | grep -q "B: 6.18.44 + stock fix ##*B"' \
		"and its plots' legends"
	$LAB plot --out "$T/kp" "$T/k612" "$B1" >/dev/null 2>&1
	ok 'grep -q "A: 6.12.117" "$T/kp/series-stock.holders.txt" && grep -q "B: 6.18.44" "$T/kp/series-stock.holders.txt"' \
		"different releases: the legends name the kernels"
	$LAB plot --out "$T/lp" --label B=patched "$A1" "$B1" >/dev/null 2>&1
	ok 'grep -q "A: ${A1##*/}" "$T/lp/series-stock.holders.txt" && grep -q "B: patched" "$T/lp/series-stock.holders.txt"' \
		"plot --label B=... (A keeps its default)"
fi
for bad in "C=x:there is no side C" "A:want SIDE=TEXT" "A=:the text must be" "a=x:want SIDE=TEXT"; do
	err=$($LAB compare --label "${bad%%:*}" "$A1" "$B1" 2>&1 >/dev/null); st=$?
	ok '[ $st = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "${bad#*:}"' \
		"--label ${bad%%:*}: one line, exit 2 ($err)"
done
err=$($LAB plot --label A=x --label A=y "$A1" "$B1" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "given twice"' "a side labelled twice: exit 2"

# 9. One kernel where the claim is an A/B: the command for the other side.
rep=$($LAB report "$A1" | tr -s " \n" " ")
ok 'echo "$rep" | grep -Fq "next: the base side of this A/B is still to measure, on a kernel with probe.features.stock_slots 1 (6.12.117): \`memcg-lab vm --kernel 6.12 --cpus 2 -- run experiments/stock-slots.exp -s experiment.repeats=1\`, then \`memcg-lab compare THAT_RUN $A1\`"' \
	"a 7-slot run names the base side to measure: vm --kernel 6.12 with its own command line, then compare" ||
	diag "$(echo "$rep" | grep -o "next: .\{0,300\}")"
sed -i 's/"stock_slots":7/"stock_slots":1/' "$T/k612/meta.json"
rep=$($LAB report "$T/k612" | tr -s " \n" " ")
ok 'echo "$rep" | grep -Fq "next: the patched side of this A/B is still to measure, on a kernel with probe.features.stock_slots 7 (6.16.12): \`memcg-lab vm --kernel 6.16 --cpus 2"' \
	"a 1-slot run names the patched side: the first release with 7 slots (6.16)" ||
	diag "$(echo "$rep" | grep -o "next: .\{0,200\}")"
done_testing
