#!/bin/sh
# The charge driver's own cost, in anon mode with one worker:
#  - ops/s of `memcg-lab charge` next to plain-anon.c, a bare C loop doing
#    the same faults without the harness (target: ratio >= 0.95); also per
#    CPU second of the worker, which other tasks on a busy box disturb less;
#  - the user CPU share of the worker's CPU time (target <= 5%: the time
#    should go into the kernel path under test), with the bare loop's own
#    share beside it, since user-mode faults themselves cost user time
#    (the exception and the retried store); and the share with --populate,
#    where MADV_POPULATE_WRITE takes the same fault path from the kernel.
# Both run pinned to the same CPU, each in a memcg of its own so that both
# take the same charge path (the harness in its run's cgroup, the plain
# loop in one this script makes, named like every lab object so cleanup
# finds it), interleaved with the order alternating; medians of rounds.
set -u
cd "$(dirname "$0")/../.."
LAB=bin/memcg-lab
ROUNDS=${BENCH_ROUNDS:-5}
SECS=${BENCH_SECONDS:-5}
[ -x "$LAB" ] && [ -x build/bench/plain-anon ] || { echo "bench charge: $LAB or build/bench/plain-anon missing (make build)" >&2; exit 2; }

T=$(mktemp -d /tmp/memcg-lab-bench.XXXXXX)
memroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -z "$memroot" ] && memroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$memroot" ] && [ "$(id -u)" = 0 ] || { echo "bench charge: needs root and a memory controller" >&2; exit 2; }
plaincg=$memroot/memcg-lab-$$-$(awk '{ sub(/.*\) /, ""); print $20 }' /proc/$$/stat)
mkdir "$plaincg" || exit 2
trap 'rmdir "$plaincg" 2>/dev/null; rm -rf "$T"' EXIT
# The plain loop in its memcg (the charge path the harness's workers take).
plain() { sh -c 'echo $$ > "$1/cgroup.procs" && exec build/bench/plain-anon "$2" "$3" 1' sh "$plaincg" "$cpu" "$SECS"; }
cpu=$(awk -F'[,-]' '{ print $NF }' /sys/devices/system/cpu/online)
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# "ops_per_s user_share ops_per_cpu_s" of one harness run (extra options: $@).
lab_run() {
	rm -rf "$T/res"
	MEMCG_LAB_RESULTS=$T/res $LAB charge --mode anon --tasks 1 --cgroups 1 --pin "$cpu" \
		--duration "$SECS" --warmup 1 --results bench "$@" >/dev/null 2>"$T/err" || { cat "$T/err" >&2; exit 2; }
	awk -F'\t' 'NR > 1 { print $8, 100 * $9 / ($9 + $10), $7 / ($9 + $10) }' \
		"$T"/res/*-bench/data/charge-workers.tsv
}

echo "charge anon, 1 worker on CPU $cpu in a memcg of its own: $ROUNDS rounds of (1 s warm-up + $SECS s), interleaved"
printf '%5s %13s %13s %7s %13s %13s %7s %8s %8s\n' round harness_ops/s plain_ops/s ratio \
	harness_op/cpu plain_op/cpu ratio h_user p_user
: >"$T/ratio"; : >"$T/cratio"; : >"$T/huser"; : >"$T/puser"
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then
		h=$(lab_run); p=$(plain)
	else
		p=$(plain); h=$(lab_run)
	fi
	set -- $h $p
	echo "$1 $4" | awk '{ print $1 / $2 }' >>"$T/ratio"
	echo "$3 $6" | awk '{ print $1 / $2 }' >>"$T/cratio"
	echo "$2" >>"$T/huser"
	echo "$5" >>"$T/puser"
	awk -v r="$r" -v h="$1" -v hu="$2" -v hc="$3" -v p="$4" -v pu="$5" -v pc="$6" 'BEGIN {
		printf "%5d %13.0f %13.0f %7.3f %13.0f %13.0f %7.3f %7.1f%% %7.1f%%\n", r, h, p, h / p, hc, pc, hc / pc, hu, pu }'
done
awk -v x="$(median <"$T/ratio")" -v c="$(median <"$T/cratio")" 'BEGIN {
	printf "ops/s, harness / plain loop: median %.3f (target >= 0.95): %s; per CPU second: %.3f\n", x,
		(x >= 0.95 ? "met" : "NOT met"), c }'
awk -v x="$(median <"$T/huser")" -v p="$(median <"$T/puser")" 'BEGIN {
	printf "user share of the worker'"'"'s CPU time: median %.1f%% (target <= 5%%): %s; the plain loop'"'"'s own: %.1f%%\n",
		x, (x <= 5 ? "met" : "NOT met"), p }'
pop=$(lab_run --populate)
echo "$pop" | awk '{ printf "with --populate (MADV_POPULATE_WRITE): user share %.1f%% (target <= 5%%): %s; %.0f ops/s\n", $2,
	($2 <= 5 ? "met" : "NOT met"), $1 }'
