#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# statread on this machine: a short run on a small tree (histograms filled
# and consistent, reclaim happened, nothing left behind), an interrupted
# run, and the refusals of bad input.  Needs root and a memory controller.
set -u
. "$(dirname "$0")/lib/tap.sh"

if [ "$(id -u)" != 0 ]; then
	skip_all "needs root to create cgroups"
fi
if ! out=$($LAB statread --dry-run --allocators 0 2>&1); then
	skip_all "$(echo "$out" | head -1)"
fi

tmp=$T
export MEMCG_LAB_RESULTS="$tmp/results"

# --- A short run: 1 top, 2 leaves, 2 allocators each, readers every 10 ms.
MEMCG_LAB_RESULTS="$tmp/results" $LAB statread --top 1 --children 2 --allocators 2 \
	--interval 10ms --duration 4 --warmup 1 --results t >"$tmp/out" 2>"$tmp/err"
rc=$?
check $rc "short run exits 0"
[ $rc = 0 ] || diag <"$tmp/err"
dir=$(ls -d "$tmp"/results/*-t 2>/dev/null | head -1)
data="$dir/data"
check "$([ -s "$data/statread-summary.tsv" ] && echo 0 || echo 1)" "statread-summary.tsv written"
grep -q '^leaf  *memory.stat' "$tmp/out"
check $? "the summary prints a leaf row"

for level in root top leaf all; do
	row=$(awk -F'\t' -v l="$level" '$1 == l && $2 == "memory.stat"' "$data/statread-summary.tsv")
	reads=$(echo "$row" | cut -f5)
	count=$(echo "$row" | cut -f7)
	if [ $level = all ]; then
		hsum=$(cat "$data"/hist-stat-read.root.tsv "$data"/hist-stat-read.top.tsv "$data"/hist-stat-read.leaf.tsv |
			awk -F'\t' '/^[0-9]/ { s += $3 } END { print s + 0 }')
	else
		hsum=$(awk -F'\t' '/^[0-9]/ { s += $3 } END { print s + 0 }' "$data/hist-stat-read.$level.tsv")
	fi
	[ -n "$reads" ] && [ "$reads" -gt 0 ]
	check $? "$level: histogram not empty ($reads reads)"
	[ "$reads" = "$count" ] && [ "$reads" = "$hsum" ]
	check $? "$level: reads counted = histogram count = sum of TSV buckets ($reads, $count, $hsum)"
	echo "$row" | awk -F'\t' '{ exit !($8 <= $9 && $9 <= $10 && $10 <= $11 && $11 <= $12 && $12 <= $13) }'
	check $? "$level: min <= p50 <= p90 <= p99 <= p99.9 <= max"
	echo "$row" | awk -F'\t' '{ exit !($15 >= $16 && $16 >= $17 && $15 <= $7) }'
	check $? "$level: reads over 1 ms >= over 10 ms >= over 1 s"
done

# Reclaim happened in every leaf: the limit was hit (failcnt / events max)
# and pages left (pgpgout / pgscan).
awk -F'\t' 'NR > 1 { n++; if ($2 > 0 && $3 > 0) good++ } END { exit !(n == 2 && good == n) }' "$data/statread-reclaim.tsv"
check $? "every leaf hit its limit and reclaimed ($(awk -F'\t' 'NR > 1 { printf "%s %s=%s %s=%s; ", $1, "hit", $2, "out", $3 }' "$data/statread-reclaim.tsv"))"
awk -F'\t' 'NR > 1 && $NF != 0 { bad++ } END { exit bad + 0 }' "$data/statread-reclaim.tsv"
check $? "no OOM kill in any leaf (page cache is reclaimable without swap)"
awk -F'\t' 'NR == 2 { exit !($1 == 4 && $2 > 0 && $4 > 0 && $5 > 0 && $7 == 0 && $8 == 0) }' "$data/statread-allocation.tsv"
check $? "allocation phase: 4 allocators, real and sys time, bytes moved, none failed"
[ "$(awk -F'\t' 'NR > 1' "$data/statread-allocators.tsv" | wc -l)" -ge 3 ]
check $? "allocator throughput sampled once a second"

root=$(sed -n 's/.*"tree_root": *"\([^"]*\)".*/\1/p' "$dir/meta.json")
[ -n "$root" ] && [ ! -e "$root" ]
check $? "the run's tree is gone afterwards ($root)"
grep -Eq '"status": ?"complete"' "$dir/meta.json"
check $? "meta.json says complete"
grep -q 'statread.leaf.p99' "$data/metrics.tsv" && grep -q 'statread.alloc.sys' "$data/metrics.tsv"
check $? "metrics.tsv carries per-level percentiles and allocator times"
grep -q 'Stat reads' "$dir/report.txt" && grep -q '^ *leaf  *memory.stat' "$dir/report.txt"
check $? "report.txt includes the per-level table"
head -25 "$dir/report.txt" | grep -Eq '^  measured +statread\.all\.p99 [0-9.]+[mun]?s \(sd -, 1 run\)$' &&
	[ "$(grep -n '^Summary$' "$dir/report.txt" | cut -d: -f1)" -lt "$(grep -n '^Stat reads' "$dir/report.txt" | cut -d: -f1)" ]
check $? "report.txt opens with a summary giving the readers' p99, before the per-level table"
# The kernel's flush counts were taken, not skipped: memcg:memcg_flush_stats
# fires on every memory.stat read, so the readers alone make it count.  Only
# a kernel without the tracepoint (before 6.10) may go without, and says so.
if [ -d /sys/kernel/tracing/events/memcg/memcg_flush_stats ] ||
   grep -aq btf_trace_memcg_flush_stats /sys/kernel/btf/vmlinux 2>/dev/null; then
	awk -F'\t' 'NR == 1 { head = $1 $2 $5 $6 == "availablecallsflushedskipped" }
		NR == 2 { ok = head && $1 == 1 && $2 > 0 && $2 == $5 + $6 } END { exit !ok }' "$data/lock-flush.tsv" 2>/dev/null
	check $? "kernel flush counts taken: memcg_flush_stats calls > 0 = flushed + skipped (lock-flush.tsv: $(sed -n 2p "$data/lock-flush.tsv" 2>/dev/null | tr '\t' ' '))"
	grep -Eq '"calls": ?[1-9]' "$dir/meta.json" && ! grep -q '"what": *"kernel flush counts' "$dir/meta.json"
	check $? "meta.json carries the flush counts and no skip for them"
else
	grep -q '"what": *"kernel flush counts (memcg:memcg_flush_stats)"' "$dir/meta.json"
	check $? "no memcg:memcg_flush_stats on this kernel: the missing counts are recorded as a skip"
	skip "kernel flush counts taken" "this kernel has no memcg:memcg_flush_stats tracepoint (6.10+)"
fi

# --- The collectors cover the measured phase, from its first moment: the
# lock collector is prepared before the warm-up and only enabled when the
# phase starts (a collector started then took 1-3 s here and counted a
# fraction of the phase).  Each memory.stat read is one memcg_flush_stats
# call, so the calls counted must match the reads measured; and the
# recorded window must span the phase.
if [ -d /sys/kernel/tracing/events/memcg/memcg_flush_stats ] ||
   grep -aq btf_trace_memcg_flush_stats /sys/kernel/btf/vmlinux 2>/dev/null; then
	$LAB statread --top 1 --children 1 --allocators 1 --interval 1ms --duration 2 --warmup 1 \
		--results cov >"$tmp/outc" 2>"$tmp/errc"
	rc=$?
	check $rc "short traced run (--duration 2) exits 0"
	[ $rc = 0 ] || diag <"$tmp/errc"
	dc=$(ls -d "$tmp"/results/*-cov 2>/dev/null | head -1)
	reads=$(awk -F'\t' '$1 == "all" && $2 == "memory.stat" { print $5 }' "$dc/data/statread-summary.tsv" 2>/dev/null)
	calls=$(awk -F'\t' 'NR == 2 && $1 == 1 { print $2 }' "$dc/data/lock-flush.tsv" 2>/dev/null)
	share=$(sed -n '/"traced_window"/,/}/s/.*"share": *\([0-9.e+-]*\).*/\1/p' "$dc/meta.json" 2>/dev/null)
	awk -v r="${reads:-0}" -v c="${calls:-0}" 'BEGIN { exit !(r > 0 && c >= 0.9 * r) }'
	check $? "flushes counted over the whole measured phase: memcg_flush_stats calls ${calls:-none} >= 90% of the ${reads:-no} reads measured"
	awk -v s="${share:-0}" 'BEGIN { exit !(s >= 0.95 && s <= 1) }'
	check $? "meta.json records the traced window: ${share:-no} of the measured phase (>= 0.95)"
	grep -q '^collectors: ran in' "$tmp/outc"
	check $? "the summary says how much of the phase the collectors ran in ($(grep '^collectors:' "$tmp/outc"))"
else
	skip "flushes counted over the whole measured phase" "this kernel has no memcg:memcg_flush_stats tracepoint (6.10+)"
fi

# --- Interrupted: SIGINT in the middle still removes everything.
$LAB statread --top 1 --children 1 --allocators 1 --interval 100ms --duration 30 \
	--warmup 0 --results int >"$tmp/out2" 2>&1 &
pid=$!
sleep 2
root2=$(ls -d /sys/fs/cgroup/memory/memcg-lab-$pid-* /sys/fs/cgroup/memcg-lab-$pid-* 2>/dev/null | head -1)
kill -INT $pid
wait $pid
rc=$?
check "$([ $rc = 130 ] && echo 0 || echo 1)" "SIGINT stops the run with status 130 (got $rc)"
[ -n "$root2" ] && [ ! -e "$root2" ]
check $? "the interrupted run's tree is gone (${root2:-not found while running})"
grep -Eq '"status": ?"interrupted"' "$tmp"/results/*-int/meta.json
check $? "meta.json of the interrupted run says interrupted"
grep -q INTERRUPTED "$tmp/out2"
check $? "the interrupted run's summary says so"

# --- Fixed work that ends inside the warm-up: said, and status 1.
$LAB statread --top 1 --children 1 --allocators 1 --work 8M --duration 0 --warmup 3 \
	--interval 100ms >"$tmp/out3" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'NOTHING MEASURED' "$tmp/out3"
check $? "allocators done before the warm-up ended: NOTHING MEASURED, status 1 (got $rc)"

# --- Bad input: one line, status 2, nothing created.
before=$(ls /sys/fs/cgroup/memory /sys/fs/cgroup 2>/dev/null | grep -c '^memcg-lab-')
bad() {
	want=$1
	shift
	$LAB statread "$@" >"$tmp/bout" 2>"$tmp/berr"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/berr")" = 1 ] && grep -q -- "$want" "$tmp/berr"
	check $? "refused: statread $* ($(cat "$tmp/berr"))"
}
bad "must be longer than 0" --interval 0
bad "want a duration" --interval 10x
bad "memory cgroup limit" --top 20000 --children 5
bad "with no limit" --limit none --alloc-size 1T --allocators 1
bad "nothing would be reclaimed" --limit 1G --alloc-size 1M --top 1 --children 1
bad "unknown element" --levels root,middle
bad "not ext4/xfs/btrfs/f2fs" --file-dir /dev/shm --top 1 --children 1
if [ "$(awk '/SwapTotal/ { print $2 }' /proc/meminfo)" = 0 ]; then
	bad "needs swap" --alloc tmpfs
	bad "needs swap" --alloc anon
else
	skip "tmpfs/anon refused without swap" "this machine has swap"
	skip "tmpfs/anon refused without swap" "this machine has swap"
fi
# --- The seeds' experiment files pass the runner's and the driver's checks.
for exp in experiments/statread-*.exp; do
	$LAB run "$exp" --validate >"$tmp/vout" 2>&1
	check $? "$exp validates ($(tail -1 "$tmp/vout"))"
done

after=$(ls /sys/fs/cgroup/memory /sys/fs/cgroup 2>/dev/null | grep -c '^memcg-lab-')
[ "$before" = "$after" ]
check $? "refused runs created no cgroup"

done_testing
