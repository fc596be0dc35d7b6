#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lock benchmarks, as ratios measured in this run:
#  1. reading the same perf.data (>= 1M lock events): memcg-lab lock report
#     vs perf lock contention -i, same (caller) view; wall time, best of 3
#     each, interleaved.  Target: the lab at least 5x faster.  The rows are
#     compared too: a fast wrong answer does not count.
#  2. the tracer's cost on a memory.stat read loop: reads/s with lock record
#     running vs without, alternating runs.  Target: >= 0.95.
# The perf.data is a real recording (perf lock record around perf bench
# sched messaging) repeated with shifted timestamps up to 1M+ events, so the
# shared machine is not loaded for minutes (lab/bench/perfdata-repeat.c).
set -u
cd "$(dirname "$0")/../.."
LAB=$PWD/bin/memcg-lab
REPEAT=$PWD/build/bench/perfdata-repeat
STATLOOP=$PWD/build/bench/statloop

if [ "$(id -u)" != 0 ] || ! command -v perf >/dev/null ||
   [ ! -d /sys/kernel/tracing/events/lock/contention_begin ]; then
	echo "lock bench: SKIP (needs root, perf and the lock:contention_* tracepoints)"
	exit 0
fi
tmp=$(mktemp -d /tmp/lock-bench.XXXXXX)
tree=
cleanup() {
	[ -n "$tree" ] && rmdir "$tree" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

now() { date +%s.%N; }
best_of_3() {	# command... -> best wall seconds
	local best= t0 t1 d
	for i in 1 2 3; do
		t0=$(now)
		"$@" >/dev/null 2>&1
		t1=$(now)
		d=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
	done
	echo "$best"
}

# --- 1. perf.data reading ---------------------------------------------------
perf lock record -a -o "$tmp/one.data" -- perf bench sched messaging -g 10 -l 600 \
	</dev/null >"$tmp/record.log" 2>&1
samples=$(perf script -i "$tmp/one.data" -F event 2>/dev/null | grep -c contention)
copies=$(( (1000000 + samples - 1) / samples ))
[ "$copies" -lt 1 ] && copies=1
$REPEAT "$tmp/one.data" "$tmp/big.data" "$copies" >/dev/null || exit 1
events=$((samples * copies))
echo "perf.data: $samples lock events recorded, repeated x$copies = $events events ($(du -h "$tmp/big.data" | cut -f1))"

rows() {
	awk '/contended/ && /caller/ { t = 1; next } t && /^ *[0-9]+ / { print }' | sort
}
perf lock contention -i "$tmp/big.data" 2>&1 | rows >"$tmp/perf.rows"
$LAB lock report -i "$tmp/big.data" 2>/dev/null | rows >"$tmp/lab.rows"
if cmp -s "$tmp/perf.rows" "$tmp/lab.rows"; then
	echo "rows: identical to perf lock contention ($(wc -l <"$tmp/perf.rows") caller rows)"
else
	echo "rows: DIFFER from perf lock contention ($(diff "$tmp/perf.rows" "$tmp/lab.rows" | grep -c '^[<>]') lines)"
fi
perf_s=$(best_of_3 perf lock contention -i "$tmp/big.data")
lab_s=$(best_of_3 "$LAB" lock report -i "$tmp/big.data")
ratio=$(echo "$perf_s / $lab_s" | bc -l)
printf "report: perf lock contention -i %.2f s, memcg-lab lock report -i %.2f s: %.1fx faster (target >= 5x)\n" \
	"$perf_s" "$lab_s" "$ratio"
rm -f "$tmp/big.data"

# --- 2. tracer overhead on a memory.stat read loop ------------------------------
mem=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -z "$mem" ] && mem=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
stat=$(cat /proc/$$/stat)
stat=${stat##*) }
set -- $stat
tree=$mem/memcg-lab-$$-${20}
mkdir "$tree" || { echo "tracer overhead: SKIP (cannot create $tree)"; exit 0; }
threads=$(nproc)
secs=3
# statloop prints "reads_per_sec R cpu_sec C reads N".
read_rate() { "$STATLOOP" "$tree/memory.stat" "$threads" "$secs"; }
cpu_of() {	# utime+stime of a process, in seconds
	local st
	st=$(cat "/proc/$1/stat") || { echo 0; return; }
	st=${st##*) }
	set -- $st
	echo "($12 + $13) / $(getconf CLK_TCK)" | bc -l
}
traced_rate() {
	MEMCG_LAB_RESULTS=$tmp "$LAB" lock record -n bench -d 600 >"$tmp/rec.out" 2>&1 &
	local pid=$! r c0 c1
	# Tracing starts once the instance exists.
	for i in $(seq 100); do
		ls /sys/kernel/tracing/instances 2>/dev/null | grep -q "^memcg-lab-$pid-" && break
		sleep 0.05
	done
	sleep 0.2
	c0=$(cpu_of $pid)
	r=$(read_rate)
	c1=$(cpu_of $pid)
	kill -INT $pid
	wait $pid
	echo "$r tracer_cpu $(echo "$c1 - $c0" | bc -l)"
}
# Alternating untraced/traced pairs.  Two figures: reads/s (what a user
# sees, but others share this machine and move it by 2x), and reads per
# CPU-second with the tracer's own CPU charged to the traced run (the cost
# the tracer adds, which others' load does not move).  Medians of the pairs.
wall= cpu=
for round in 1 2 3 4 5; do
	set -- $(read_rate)
	bw=$2 bc=$4 bn=$6
	set -- $(traced_rate)
	tw=$2 tc=$4 tn=$6 tt=$8
	wall="$wall $(echo "$tw / $bw" | bc -l)"
	cpu="$cpu $(echo "($tn / ($tc + $tt)) / ($bn / $bc)" | bc -l)"
	printf "pair %d: untraced %s reads/s (%.0f reads/cpu-s), traced %s reads/s (%.0f reads/cpu-s, tracer %.3f cpu-s)\n" \
		$round "$bw" "$(echo "$bn / $bc" | bc -l)" "$tw" "$(echo "$tn / ($tc + $tt)" | bc -l)" "$tt"
done
med() { printf '%s\n' "$@" | sort -g | sed -n 3p; }
printf "tracer overhead, %d threads reading memory.stat: traced/untraced reads/s median %.3f, " \
	"$threads" "$(med $wall)"
printf "reads per CPU-second median %.3f (target >= 0.95); flushes counted by: %s\n" "$(med $cpu)" \
	"$(sed -n 's/^flushes (memcg:memcg_flush_stats, \([^)]*\)).*/\1/p' "$tmp/rec.out")"
