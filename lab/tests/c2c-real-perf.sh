#!/bin/bash
# The c2c collector against real perf, not a stand-in.
#
# 1. The whole lifecycle, through lab/tests/lib/perf-c2c-cpu-clock.sh (real
#    `perf record -e cpu-clock` in place of `perf c2c record`, by exec, so
#    the process the lab signals is real perf; a machine without a memory
#    PMU can run it): a window that ends by itself, one the lab stops with
#    SIGINT (perf writes its data and dies by that signal: a success), perf
#    killed by another signal and perf exiting non-zero (failures, with
#    perf's last words, and no data file under the final name), then the
#    real `perf c2c report` and the lab's parse of it.
# 2. Known samples: build/tests/tools/memsamples writes a perf.data of
#    memory samples with local and remote HITM at chosen offsets of a
#    struct mem_cgroup and two per-CPU memcg_stock_pcp of the 6.1.192 BTF
#    fixture; the real `perf c2c report` with the lab's flags must accept
#    it, and `memcg-lab c2c report` must name exactly the fields hit, with
#    their HITM counts.
# Both run against the host's perf and, where lab/scripts/perf-runtime.sh
# provides it, perf 7.3 (with its --double-cl report).
set -u
. "$(dirname "$0")/lib/tap.sh"

host_perf=$(command -v perf) || skip_all "no perf in PATH (Debian package linux-perf)"
[ -x build/tests/tools/memsamples ] || skip_all "build/tests/tools/memsamples is not built (make build)"
BTF=build/btf/vmlinux-6.1.192.btf
[ -f "$BTF" ] && [ -f build/btf/vmlinux-6.18.44.btf ] || skip_all "build/btf/ is not built (make build)"

perfs=("$host_perf")
if [ -x lab/scripts/perf-runtime.sh ]; then
	if p73=$(lab/scripts/perf-runtime.sh 7.3 2>"$T/p73.err") && [ -x "$p73" ]; then
		perfs+=("$p73")
	else
		skip "the checks against perf 7.3" "lab/scripts/perf-runtime.sh 7.3: $(head -1 "$T/p73.err")"
	fi
else
	skip "the checks against perf 7.3" "lab/scripts/perf-runtime.sh is not in this tree"
fi

# The wrapper, as `perf` first in PATH (the lab runs perf from PATH).
mkdir -p "$T/bin"
ln -s "$PWD/lab/tests/lib/perf-c2c-cpu-clock.sh" "$T/bin/perf"
rate_path=/proc/sys/kernel/perf_event_max_sample_rate
rate0=$(cat $rate_path)
root=$([ "$(id -u)" = 0 ] && echo yes)

# c2c record through the wrapper around real perf $PERF; output in $T/out.
lab_c2c() {
	PATH=$T/bin:$PATH REAL_PERF=$PERF MEMCG_LAB_C2C_VENDOR=GenuineIntel "$LAB" c2c record --keep "$@" \
		>"$T/out" 2>"$T/err"
}

lifecycle() {
	local v=$1 d st pid rate_mid t0 t1 dur

	# A window that ends by itself: perf exits 0 after its sleep.
	d=$T/self.$v
	lab_c2c --duration 3 --start 0.5 --window 1 -o "$d" -- sleep 3
	st=$?
	ok '[ $st = 0 ] && grep -q "^c2c-report: 0 cachelines" "$T/out"' \
		"$v: a window ending by itself is recorded and reported: $(head -1 "$T/out")"
	[ $st = 0 ] || diag "exit $st: $(cat "$T/err")"
	ok '[ -s "$d/perf.c2c.data" ] && [ ! -e "$d/perf.c2c.data.part" ] &&
	    grep -q "Captured and wrote" "$d/perf-record.log"' \
		"$v: perf wrote the data, and it has the final name only once perf finished"
	# (Not the cmdline: run by its loader, perf 7.3 records the loader's.)
	ok '"$PERF" report -i "$d/perf.c2c.data" --header-only 2>/dev/null | grep -q "^# event : name = cpu-clock,.*sample_freq } = 60000"' \
		"$v: the data is real perf record's (cpu-clock at the lab's -F 60000)"
	ok 'grep -q "Trace Event Information" "$d/c2c-report.txt" &&
	    [ "$(awk "/Total records/ { print \$4 }" "$d/c2c-report.txt")" -gt 0 ] && [ -s "$d/c2c/stats.tsv" ]' \
		"$v: the real perf c2c report of it ($(awk '/Total records/ { print $4 }' "$d/c2c-report.txt") records) is parsed into c2c/"

	# A window the driver's end cuts short: the lab sends SIGINT; perf
	# writes its data and dies by the SIGTERM it sent its sleep (perf 6.1
	# and 7.3 re-raise their workload's signal).  With -F above the limit,
	# perf_event_max_sample_rate is raised for the window and restored.
	d=$T/sigint.$v
	t0=$(date +%s.%N)
	lab_c2c --duration 2 --start 0.3 --window 20 --freq $((rate0 + 500)) -o "$d" -- sleep 2 &
	pid=$!
	sleep 1.2
	rate_mid=$(cat $rate_path)
	wait $pid
	st=$?
	t1=$(date +%s.%N)
	ok '[ $st = 0 ] && grep -q "^c2c-report: " "$T/out" && ! grep -q failed "$T/out" "$T/err" &&
	    [ -s "$d/perf.c2c.data" ] && grep -q "Captured and wrote" "$d/perf-record.log"' \
		"$v: perf stopped by the lab's SIGINT is a success: $(head -1 "$T/out")$(grep failed "$T/err")"
	# perf's own clock: the samples span less than the 2 s driver.
	dur=$("$PERF" report -i "$d/perf.c2c.data" --header-only 2>/dev/null | awk '/sample duration/ { print $5 }')
	ok 'awk -v d="$dur" "BEGIN { exit !(d > 0 && d < 2500) }"' \
		"$v: the 20 s window ended with the 2 s driver (samples span ${dur} ms; the command took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
	if [ -n "$root" ]; then
		ok '[ "$rate_mid" = $((rate0 + 500)) ] && [ "$(cat $rate_path)" = "$rate0" ]' \
			"$v: perf_event_max_sample_rate $rate0 -> $rate_mid during the window, then $(cat $rate_path)"
	else
		skip "$v: perf_event_max_sample_rate raised and restored" "needs root"
	fi

	# perf ended by a signal the lab did not send: a failure, with perf's
	# last words, and the data left only as *.part.
	d=$T/term.$v
	lab_c2c --duration 6 --start 0.3 --window 5 -o "$d" -- sleep 6 &
	pid=$!
	for _ in $(seq 40); do
		p=$(pgrep -o -f "record -e cpu-clock .*-o $d/perf.c2c.data.part") && [ -s "$d/perf.c2c.data.part" ] && break
		sleep 0.1
	done
	sleep 0.3
	[ -n "$p" ] && kill -TERM "$p"
	wait $pid
	ok '[ -n "$p" ] && grep -q "perf c2c record failed (signal 15, not sent by the lab): .*Captured and wrote" "$T/err" &&
	    [ ! -e "$d/perf.c2c.data" ] && [ ! -e "$d/c2c-report.txt" ]' \
		"$v: perf killed by SIGTERM fails with perf's last words, no data file under the final name: $(grep -o "perf c2c record failed.*" "$T/err" | cut -c1-160)"

	# perf refusing to start: its exit status and its message.
	d=$T/exit.$v
	PERF_C2C_WRAPPER_EVENT=no-such-event lab_c2c --duration 2 --start 0.3 --window 1 -o "$d" -- sleep 2
	ok 'grep -q "perf c2c record failed (exit [1-9][0-9]*): .*no-such-event" "$T/err" && ! grep -q "Usage:" "$T/err" &&
	    [ ! -e "$d/perf.c2c.data" ]' \
		"$v: perf exiting non-zero fails with its exit status and its message: $(grep -o "perf c2c record failed.*" "$T/err" | cut -c1-160)"
}

# The known samples (offsets: pahole -F btf -C mem_cgroup / memcg_stock_pcp BTF).
M=0xffff888104a38000	# a struct mem_cgroup
S0=0xffff88813bc30040	# the memcg_stock_pcp of cpu0
S1=0xffff88813bc70040	# the memcg_stock_pcp of cpu1
# 6.1.192: memory.usage at 256, css.refcnt.percpu_count_ptr at 16;
# memcg_stock_pcp.cached at 0, nr_pages at 8.
build/tests/tools/memsamples -o "$T/syn.data" \
	lcl-hitm,$((M + 256)),12,cpu=0,ip=0xffffffff81345670 \
	rmt-hitm,$((M + 256)),4,cpu=1,ip=0xffffffff81345690,pid=1001 \
	lcl-hitm,$((M + 16)),3,cpu=1,ip=0xffffffff812a0010 \
	rmt-hitm,$((S0 + 0)),5,cpu=1,ip=0xffffffff81350000,pid=1001 \
	lcl-hitm,$((S0 + 8)),7,cpu=0,ip=0xffffffff81350040 \
	lcl-hitm,$((S1 + 8)),2,cpu=1,ip=0xffffffff81350040,pid=1001 \
	l1-hit,$((M + 1024)),9,cpu=0,ip=0xffffffff81350100 \
	store,$((M + 1024)),6,cpu=1,ip=0xffffffff81350140
check $? "memsamples wrote a perf.data of 48 memory samples"
cat > "$T/syn.want" <<X
mem_cgroup@$M	mem_cgroup.css.refcnt.percpu_count_ptr	3
mem_cgroup@$M	mem_cgroup.memory.usage	16
memcg_stock_pcp@$S0	memcg_stock_pcp.cached	5
memcg_stock_pcp@$S0	memcg_stock_pcp.nr_pages	7
memcg_stock_pcp@$S1	memcg_stock_pcp.nr_pages	2
X
# 6.18.44: memory.failcnt at 264; memcg_stock_pcp.nr_pages[7] (u8) at 1,
# cached[7] at 8: indexed names.
build/tests/tools/memsamples -o "$T/syn618.data" \
	lcl-hitm,$((M + 256)),5,cpu=0,ip=0xffffffff81345670 \
	rmt-hitm,$((M + 264)),2,cpu=1,ip=0xffffffff81345690,pid=1001 \
	lcl-hitm,$((S0 + 3)),4,cpu=0,ip=0xffffffff81350040 \
	rmt-hitm,$((S0 + 32)),6,cpu=1,ip=0xffffffff81350000,pid=1001
check $? "memsamples wrote a perf.data for the 6.18 layout"
cat > "$T/syn618.want" <<X
mem_cgroup@$M	mem_cgroup.memory.failcnt	2
mem_cgroup@$M	mem_cgroup.memory.usage	5
memcg_stock_pcp@$S0	memcg_stock_pcp.cached[3]	6
memcg_stock_pcp@$S0	memcg_stock_pcp.nr_pages[2]	4
X

# object, field and HITM sum of every named row of a fields.tsv.
named_hitm() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["field"] != "" { s[$c["object"] "\t" $c["field"]] += $c["hitm"] }
		END { for (k in s) printf "%s\t%g\n", k, s[k] }' "$1" | sort
}

# perf c2c report of $T/SET.data (extra perf flags after BTF), then
# memcg-lab c2c report of it with BTF: its named fields against
# $T/SET.want in R.diff; R is the report's path without .txt.
report_and_name() {
	local r=$1 set=$2 btf=$3
	shift 3
	"$PERF" c2c report -i "$T/$set.data" --stdio -NN -c pid,tid,iaddr --full-symbols "$@" >"$r.txt" 2>"$r.err"
	perf_st=$?
	"$LAB" c2c report "$r.txt" --btf "$btf" --struct mem_cgroup --base $M \
		--struct memcg_stock_pcp --base $S0 --base $S1 -o "$r.lab" >"$r.lab.out" 2>&1
	lab_st=$?
	named_hitm "$r.lab/fields.tsv" | diff -u "$T/$set.want" - >"$r.diff"
}

known_samples() {
	local v=$1 r=$T/syn.$v
	report_and_name "$r" syn "$BTF"
	ok '[ $perf_st = 0 ] && ! grep -q . "$r.err"' "$v: perf c2c report accepts the synthetic perf.data, nothing on stderr$(head -c 200 "$r.err")"
	ok 'grep -Eq "Load Local HITM +: +24$" "$r.txt" && grep -Eq "Load Remote HITM +: +9$" "$r.txt" &&
	    grep -Eq "Store Operations +: +6$" "$r.txt" && grep -Eq "Load L1D hit +: +9$" "$r.txt"' \
		"$v: perf decodes the data sources: 24 local HITM, 9 remote HITM, 9 L1 hits, 6 stores"
	diag "$v: $(grep -E "Load (Local|Remote) HITM" "$r.txt" | tr -s ' ' | tr '\n' ';')"
	sed -n '/Shared Data Cache Line Table/,/^$/p' "$r.txt" | sed -n "s/^ *\([0-9]\)/# $v: \1/p"
	ok '[ $lab_st = 0 ] && [ ! -s "$r.diff" ]' \
		"$v: memcg-lab c2c report names exactly the fields hit, with their HITM counts$(sed 's/^/ /' "$r.diff" | tr '\n' ' ')"
	ok 'grep -q "All 6 offset rows named from BTF" "$r.lab.out"' "$v: no row left unnamed"
	r=$T/syn618.$v
	report_and_name "$r" syn618 build/btf/vmlinux-6.18.44.btf
	ok '[ $perf_st = 0 ] && [ $lab_st = 0 ] && [ ! -s "$r.diff" ]' \
		"$v: on the 6.18 layout, indexed fields (nr_pages[2], cached[3]) with their HITM counts$(sed 's/^/ /' "$r.diff" | tr '\n' ' ')"
	if "$PERF" c2c report -h 2>&1 | grep -q -- --double-cl; then
		r=$T/syn.$v.dcl
		report_and_name "$r" syn "$BTF" --double-cl
		# 128-byte lines: memcg_stock_pcp of cpu0 at 0x40 into its pair of lines.
		ok '[ $perf_st = 0 ] && grep -q "0xffff88813bc30000" "$r.txt" && [ ! -s "$r.diff" ]' \
			"$v: the --double-cl report (128-byte lines) names the same fields$(sed 's/^/ /' "$r.diff" | tr '\n' ' ')"
	else
		diag "$v: no --double-cl in this perf (6.3+)"
	fi
}

for PERF in "${perfs[@]}"; do
	v=$("$PERF" version 2>/dev/null | awk '{ print "perf-" $3 }')
	[ -n "$v" ] || v=$PERF
	lifecycle "$v"
	known_samples "$v"
done
ok '[ "$(cat $rate_path)" = "$rate0" ]' "perf_event_max_sample_rate is $rate0 again at the end"
ok '! pgrep -f "$T/" >/dev/null' "no process of this test is left"
done_testing
