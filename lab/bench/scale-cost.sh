#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The lab's own cost as the machine grows (issue 17, item 4): the same
# experiment in qemu guests of 2, 16 and 64 vCPUs (`memcg-lab vm --cpus N`),
# each time `charge --mode anon` with one worker and one memcg per vCPU
# (N workers in N memcgs, 1 s warm-up + SCALE_COST_SECONDS measured, one
# repeat; about 4 minutes in all here).  From the run's meta.json "cost"
# (written by the code that does the work: drivers/placement.c,
# drivers/harness.c, util/labcost.c):
#  - setup: the cgroup tree (mkdir, controllers, limits) + worker spawn
#    (fork until every worker is ready at the barrier);
#  - teardown: worker reap (stop flag until all are reaped) + the tree's
#    kill and rmdir;
#  - the lab process's peak RSS (getrusage ru_maxrss);
#  - the parent's CPU while sampling: its utime+stime over the measured
#    window (the 1 Hz counter reads and death checks, from the window's
#    opening to its last sample) divided by the window's wall time
#    (share_%), and the median of its per-second shares (median_%); the
#    once-per-window per-worker /proc reads at its edges apart (edges_cpu_s);
# and the results directory's size (du -sb of what the guest wrote).
# Targets:
#  - none grows faster than linearly in CPUs x cgroups: for each step of
#    the guest sizes, growth of the figure / growth of CPUs x cgroups
#    <= 1 (the worst step is the measured value; the kernel's per-memcg
#    work is per-CPU, so CPUs x cgroups is the right size, not workers);
#  - the parent's sampling CPU extrapolated to 256 workers <= 1% of one
#    CPU: a least-squares line median share = a + b x workers through the
#    measured points (each guest at workers = vCPUs, and the largest
#    guest again at SCALE_COST_SWEEP workers, 256 among them, so the line
#    is not extrapolated far), evaluated at 256.
# Under TCG the guest's clock runs on while the host deschedules qemu, and
# a busy host (other guests) charges that time to whatever the guest was
# running: the parent's figures here are an upper bound, tens of times the
# host's own (the host rows, same command, show it).
# The workers are packed on one vCPU (--pin pack): under TCG one host
# thread runs every busy vCPU in turn, so with all N vCPUs busy every
# guest CPU second would stretch N-fold and the parent's CPU would
# measure the emulator, not the lab.  Packed, two vCPUs are busy at every
# size and the counts the lab handles (workers, memcgs, samples) still
# grow with N.  Guest runs: throughput means nothing here, costs compare
# with each other only (rows are marked "guest").
# Knobs: SCALE_COST_CPUS ("2 16 64"), SCALE_COST_SECONDS (5),
# SCALE_COST_SWEEP ("2 16 256"),
# SCALE_COST_KERNEL (the vm default, 6.12).  One guest at a time.
set -u
cd "$(dirname "$0")/../.."
. lab/bench/lib/bench.sh
LAB=bin/memcg-lab
SIZES=${SCALE_COST_CPUS:-2 16 64}
SECS=${SCALE_COST_SECONDS:-5}
SWEEP=${SCALE_COST_SWEEP:-2 16 256}
KERNEL=${SCALE_COST_KERNEL:-}
GROW="scale-cost: growth vs CPUs x cgroups, worst step"
SHARE="scale-cost: parent sampling CPU at 256 workers (least-squares line)"
METRICS="setup teardown peak_rss parent_cpu results_size"

skip_all() {
	for m in $METRICS; do
		bench_skip "$GROW, $m" "<= 1" "$1"
	done
	bench_skip "$SHARE" "<= 1%" "$1"
	exit 0
}
[ -x "$LAB" ] || { echo "bench scale-cost: $LAB missing (make build)" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"
karg=
[ -n "$KERNEL" ] && karg="--kernel $KERNEL"
# shellcheck disable=SC2086
$LAB vm --fetch $karg >/dev/null 2>&1 || skip_all "cannot get the guest kernel (vm --fetch $karg)"

T=$(mktemp -d /tmp/memcg-lab-bench.XXXXXX) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# cost_row WHERE CPUS RUN_DIR SECONDS: one line of figures of a run, from
# its meta.json "cost" and its size (columns: see the table's header).
cost_row() {
	perl -MJSON::PP -e '
		local $/; open(my $f, "<", "$ARGV[2]/meta.json") or exit 1;
		my $c = eval { decode_json(<$f>)->{cost} } or exit 1;
		printf "%s %d %d %d %s %s %s %s %s %s %s %s %s %.4f %.4f %s %s %s\n", $ARGV[0], $ARGV[1],
			$c->{workers_max}, $c->{workers_max}, (map { $c->{$_} } qw(cgroup_setup_s spawn_s setup_s reap_s
			cgroup_teardown_s teardown_s peak_rss_kb parent_cpu_s sampling_s)),
			100 * $c->{parent_cpu_share}, 100 * $c->{parent_cpu_share_median},
			$c->{window_edges_cpu_s}, $ARGV[3], $ARGV[4];
		' "$1" "$2" "$3" "$(du -sb "$3" | cut -f1)" "$4" ||
		{ echo "bench scale-cost: $3/meta.json has no \"cost\"" >&2; exit 2; }
}
charge_cmd() {	# WORKERS: the experiment, N workers in N memcgs
	echo "bin/memcg-lab charge --mode anon --tasks $1 --cgroups $1 --pin pack --duration $SECS --warmup 1 --results scale-cost-w$1"
}

: >"$T/rows"
: >"$T/sweep"
largest=$(echo $SIZES | awk '{ print $NF }')
for n in $SIZES; do
	# In the guest: the run (in the largest guest also the worker sweep),
	# then proof that nothing was left behind.
	ws=$n
	[ "$n" = "$largest" ] && ws="$n $SWEEP"
	cmd="rc=0; for w in $ws; do
bin/memcg-lab charge --mode anon --tasks \$w --cgroups \$w --pin pack --duration $SECS --warmup 1 \
	--results scale-cost-w\$w >/out/charge\$w.txt 2>&1 || rc=\$?; done
echo leftover=\$(find /sys/fs/cgroup -maxdepth 1 -name 'memcg-lab-*' | wc -l); exit \$rc"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	MEMCG_LAB_RESULTS=$T/vm$n $LAB vm $karg --cpus "$n" --timeout 900 --shell "$cmd" >"$T/vm$n.out" 2>&1
	rc=$?
	t1=$(date +%s)
	vmdir=$(ls -d "$T/vm$n"/*/ 2>/dev/null | head -n1)
	for w in $ws; do
		run=$(ls -d "${vmdir}results/"*-scale-cost-w$w 2>/dev/null | head -n1)
		if [ "$rc" != 0 ] || [ -z "$run" ] || [ ! -f "$run/meta.json" ]; then
			echo "bench scale-cost: the $n-vCPU guest failed with $w workers (exit $rc):" >&2
			tail -5 "$T/vm$n.out" >&2
			[ -n "$vmdir" ] && tail -5 "${vmdir}charge$w.txt" >&2 2>/dev/null
			exit 2
		fi
		if [ "$w" = "$n" ]; then
			cost_row guest "$n" "$run" $((t1 - t0)) >>"$T/rows" || exit 2
		else
			cost_row guest "$n" "$run" - >>"$T/sweep" || exit 2
		fi
	done
	left=$(sed -n 's/^leftover=//p' "${vmdir}output.txt")
	[ "$left" = 0 ] || { echo "bench scale-cost: the $n-vCPU guest kept $left lab cgroup(s) after the run" >&2; exit 2; }
done
# The same command on this machine at the guests' worker counts, for
# reference (no target: the host's CPU count at every size): what the
# guests' figures are without the emulator.
: >"$T/host"
if [ "$(id -u)" = 0 ] && [ -n "$(awk '$3 == "cgroup2" || ($3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/)' /proc/self/mounts)" ]; then
	for w in $SIZES; do
		t0=$(date +%s)
		# shellcheck disable=SC2046
		MEMCG_LAB_RESULTS=$T/host$w $(charge_cmd "$w") >"$T/host$w.out" 2>&1 ||
			{ echo "bench scale-cost: on this machine, $w workers failed:" >&2; tail -3 "$T/host$w.out" >&2; exit 2; }
		cost_row host "$(nproc)" "$(ls -d "$T/host$w"/*-scale-cost-w$w)" $(($(date +%s) - t0)) >>"$T/host" || exit 2
	done
fi

accel=$(perl -MJSON::PP -e 'local $/; print decode_json(<>)->{vm}{accel} // "?"' "$T"/vm*/*/meta.json 2>/dev/null | head -c 8)
echo "the lab's own cost (qemu $accel guests, kernel $(sed -n 's/^kernel: //p' "$T"/vm*/*/guest.txt | head -n1);" \
	"charge --mode anon, one worker and memcg per vCPU, packed; 1 s + $SECS s; host rows: reference only)"
{
	echo "where cpus workers cgroups cg_setup_s spawn_s setup_s reap_s cg_down_s teardown_s peak_rss_kb" \
		"parent_cpu_s window_s share_% median_% edges_cpu_s results_b wall_s"
	cat "$T/rows" "$T/sweep" "$T/host"
} | awk '{ printf "%-5s %4s %7s %7s %10s %8s %8s %8s %9s %10s %11s %12s %8s %7s %8s %11s %9s %6s\n",
	$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18 }'
if [ "$(wc -l <"$T/rows")" -lt 2 ]; then
	for m in $METRICS; do
		bench_skip "$GROW, $m" "<= 1" "one guest size: no growth to measure"
	done
	bench_skip "$SHARE" "<= 1%" "one guest size: no line to fit"
	bench_exit
fi
# Growth of each figure against CPUs x cgroups, step by step; the worst.
col() { case $1 in setup) echo 7 ;; teardown) echo 10 ;; peak_rss) echo 11 ;; parent_cpu) echo 12 ;; results_size) echo 17 ;; esac; }
for m in $METRICS; do
	g=$(awk -v c="$(col "$m")" '
		NR > 1 && p > 0 { r = ($c / p) / (($2 * $4) / px); if (r > w) w = r; s = s sprintf(" %s->%s: x%.3g vs x%d;", pc, $2, $c / p, ($2 * $4) / px) }
		{ p = $c; px = $2 * $4; pc = $2 }
		END { printf "%.3f%s\n", w, s }' "$T/rows")
	echo "$m growth (figure vs CPUs x cgroups):${g#* }"
	bench_target "$GROW, $m" '<=' 1 "${g%% *}"
done
# share = a + b x workers, least squares over the guests (percent of one
# CPU; each run's median second: util/labcost.h says why).  A slope at or below 0 resolves no per-worker cost: then the value
# at 256 is the largest share measured, never the line's (smaller) value.
fit=$(cat "$T/rows" "$T/sweep" | awk '{ x = $3; y = $15; n++; sx += x; sy += y; sxx += x * x; sxy += x * y; if (y > mx) mx = y }
	END { d = n * sxx - sx * sx; b = d ? (n * sxy - sx * sy) / d : 0; a = (sy - b * sx) / n
	      how = b > 0 ? "the line" : "no growth resolved: the largest share measured"
	      printf "%.4f %.6g %.6g %s\n", (b > 0 ? a + 256 * b : mx), a, b, how }')
set -- $fit
v=$1 a=$2 b=$3
shift 3
echo "parent sampling CPU (median second), least squares in workers: $a% + $b% per worker; at 256 workers: $v% of one CPU ($*)"
bench_target "$SHARE" '<=' 1 "$v" %
bench_exit
