#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The lines plugin's cost (lab/c2c/README, issue 24 item 6): the same guest
# run with and without it, side by side, LINES_COST_PAIRS times (3): a
# 4-vCPU 7.3 guest under single-threaded TCG running `charge --mode anon
# --tasks 4 --cgroups 1 --duration 3`, with the plugin at its default
# scope (kernel) and a 2 s window in charge's steady state (lines-window
# from the guest's shell, 2 s into the run: 1 s warm-up, then 3 s
# measured), as the lab's c2c window would be.  Under TCG the guest's
# clock is the host's: a window slows what runs in it (each access
# ~50 ns more), not a timed run's length; what it costs shows in the
# charges done inside it, printed as a figure.
# Targets:
#  - the whole guest run (qemu's wall time, boot included) with the plugin
#    <= 2x without: the median of the pairs' ratios;
#  - the access trace's own cost (issue 33): `vm --lines -- charge ...`
#    (the harness's own window, the run's objects announced) with --trace
#    (every access to the objects' lines, into lines/trace.bin) <= 1.25x
#    the same without it, the median of the pairs' ratios
#    (LINES_COST_TRACE=0 leaves it out);
# and, printed as figures (no target): the whole vm command's wall time
# (the guest, then `c2c lines`: perf c2c report and the field naming) with
# the plugin against without; the charge rate without the plugin against
# inside its window; qemu's peak resident memory with the plugin's default
# table (its output's qemu_vmhwm_kb, and model_bytes); the trace's records
# and bytes.  A busy host stretches the runs of a pair alike; the pairs'
# ratios are what compare.  About 4 minutes here.
set -u
cd "$(dirname "$0")/../.." || exit 2
. lab/bench/lib/bench.sh
LAB=bin/memcg-lab
PAIRS=${LINES_COST_PAIRS:-3}
RATIO="lines-cost: guest run with the plugin / without (median of $PAIRS pairs)"
TRACE=${LINES_COST_TRACE:-1}
TRATIO="lines-cost: guest run with the plugin and --trace / with the plugin (median of $PAIRS pairs)"

command -v qemu-system-x86_64 >/dev/null || {
	bench_skip "$RATIO" "<= 2" "qemu-system-x86_64 not installed"
	bench_exit
}
[ -f build/lines-plugin.so ] || {
	bench_skip "$RATIO" "<= 2" "the lines plugin is not built: $(cat build/lines-plugin.missing 2>/dev/null)"
	bench_exit
}
T=$(mktemp -d /tmp/memcg-lab-bench-lines.XXXXXX) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
$LAB vm --fetch --kernel 7.3 >/dev/null 2>"$T/fetch.err" || {
	bench_skip "$RATIO" "<= 2" "cannot get kernel 7.3: $(tail -n1 "$T/fetch.err")"
	bench_exit
}
win=build/tests/tools/lines-window
ch="memcg-lab charge --mode anon --tasks 4 --cgroups 1 --duration 3"
run() {	# name with|without|lines|trace
	case $2 in
	with)
		set -- "$1" --lines --add "$win" \
			--shell "(sleep 2; /lab/$win open; sleep 2; /lab/$win close) & $ch; rc=\$?; wait; exit \$rc" ;;
	# The trace's pair: the harness's own window over charge's steady
	# state, with the run's objects announced (what the trace records).
	lines) set -- "$1" --lines -- charge --mode anon --tasks 4 --cgroups 1 --duration 3 ;;
	trace) set -- "$1" --lines --trace -- charge --mode anon --tasks 4 --cgroups 1 --duration 3 ;;
	*) set -- "$1" --shell "$ch" ;;
	esac
	d=$T/$1
	shift
	t0=$(date +%s.%N)
	MEMCG_LAB_RESULTS=$d $LAB vm --kernel 7.3 --cpus 4 --accel tcg --timeout 600 "$@" >"$d.out" 2>&1 || {
		echo "lines-cost: the guest run failed: $(tail -n2 "$d.out")" >&2
		exit 2
	}
	echo "$(date +%s.%N) - $t0" | bc >"$d.wall"
}
# vm.env's key of the run NAME; charge's total ops/s of it.
env_of() { sed -n "s/^$2=//p" "$T/$1"/*/vm.env; }
ops_of() { awk '$1 == "total" { v = $2; m = 1; if (v ~ /K$/) m = 1000; sub(/K$/, "", v); print v * m }' "$T/$1.out"; }
: >"$T/ratios"
: >"$T/tratios"
for i in $(seq 1 "$PAIRS"); do
	run "a$i" without
	run "b$i" with
	a=$(env_of "a$i" qemu_seconds) b=$(env_of "b$i" qemu_seconds)
	[ "$(env_of "b$i" lines_status)" = ok ] || {
		echo "lines-cost: the plugin's status is $(env_of "b$i" lines_status), not ok ($T/b$i)" >&2
		exit 2
	}
	echo "pair $i: without $a s ($(ops_of "a$i") charges/s), with $b s ($(ops_of "b$i") charges/s," \
		"$(sed -n 's/^# accesses\t//p' "$T/b$i"/*/lines/lines.tsv) accesses in the window); the whole vm" \
		"command $(cat "$T/a$i.wall") s and $(cat "$T/b$i.wall") s"
	echo "$a $b $(ops_of "a$i") $(ops_of "b$i") $(cat "$T/a$i.wall") $(cat "$T/b$i.wall")" >>"$T/ratios"
	if [ "$TRACE" != 0 ]; then
		run "c$i" lines
		run "d$i" trace
		c=$(env_of "c$i" qemu_seconds) e=$(env_of "d$i" qemu_seconds)
		tf=$(ls "$T/d$i"/*/lines/lines.tsv)
		echo "pair $i, the harness's window: --lines $c s, --lines --trace $e s," \
			"$(sed -n 's/^# trace_records\t//p' "$tf") records ($(sed -n 's/^# trace_status\t//p' "$tf"))"
		echo "$c $e $(sed -n 's/^# trace_records\t//p' "$tf")" >>"$T/tratios"
	fi
done
med=$(awk '{ print $2 / $1 }' "$T/ratios" | bench_median)
bench_target "$RATIO" "<=" 2 "$(printf '%.2f' "$med")" "x"
if [ "$TRACE" != 0 ]; then
	tmed=$(awk '{ print $2 / $1 }' "$T/tratios" | bench_median)
	bench_target "$TRATIO" "<=" 1.25 "$(printf '%.2f' "$tmed")" "x"
	recs=$(awk '{ print $3 }' "$T/tratios" | bench_median)
	echo "lines-cost: the trace of the harness's window (1.2 s): $recs records, $((${recs%.*} * 24 / 1048576)) MiB (median)"
fi
wall=$(awk '{ print $6 / $5 }' "$T/ratios" | bench_median)
echo "lines-cost: the whole vm command (the guest, then c2c lines) with the plugin / without: $(printf '%.2f' "$wall")x (median)"
rate=$(awk '{ print $3 / $4 }' "$T/ratios" | bench_median)
echo "lines-cost: charges/s without the plugin / with it, 2 of the 3 measured seconds in its window: $(printf '%.1f' "$rate")x (median)"
f=$(ls "$T"/b1/*/lines/lines.tsv)
hwm=$(sed -n 's/^# qemu_vmhwm_kb\t//p' "$f") mb=$(sed -n 's/^# model_bytes\t//p' "$f")
echo "lines-cost: qemu's peak resident memory with the plugin: $((hwm / 1024)) MiB (the model allocated $((mb / 1048576)) MiB)"
bench_exit
