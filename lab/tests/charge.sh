#!/bin/bash
# memcg-lab charge on the real kernel: each mode ~2 s in 2 cgroups (ops > 0,
# the kernel's counters of the workers' cgroups move with the driver's count,
# an idle cgroup's do not), threads, a hierarchy, topology steps, the stock
# cliff at the BTF slot count, OOM kills reported, bad input refused before
# anything starts, SIGINT mid-run; never a cgroup or a worker left behind.
set -u
. "$(dirname "$0")/lib/tap.sh"
export MEMCG_LAB_RESULTS=$T/res

memroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
if [ -z "$memroot" ]; then
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	[ -n "$v2" ] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null && memroot=$v2
fi
if [ "$(id -u)" != 0 ]; then
	skip_all "charge needs root to create cgroups"
fi
if [ -z "$memroot" ]; then
	skip_all "no memory controller mounted (v1 or v2)"
fi

# charge NAME ARGS...: runs in the background so its pid names its cgroup tree.
charge() {
	local name=$1
	shift
	"$LAB" charge "$@" --results "$name" > "$T/$name.out" 2>&1 &
	pid=$!
	wait $pid
	rc=$?
	dir=$(ls -d "$T"/res/*-"$name" 2>/dev/null | head -1)
}

# Nothing of run $pid left: its cgroup tree, its workers (pids from the TSV).
left_behind() {
	local alive=0 p
	ls "$memroot" | grep -q "^memcg-lab-$pid-" && return 0
	if [ -f "$dir/data/charge-workers.tsv" ]; then
		for p in $(awk -F'\t' 'NR > 1 { print $5 }' "$dir/data/charge-workers.tsv"); do
			[ "$p" -gt 0 ] && kill -0 "$p" 2>/dev/null && alive=1
		done
	fi
	[ $alive = 1 ]
}

# report.txt's summary with each entry on one line (as a reader sees it on
# the first screen, whatever the wrapping).
summary() { sed -n '/^Summary$/,/^$/p' "$dir/report.txt" | head -20 | sed 's/^  //' | tr -s ' \n' ' '; }

# Workers with ops > 0, and the number of workers.
workers_ok() { awk -F'\t' 'NR > 1 && $7 > 0 { k++ } END { print k + 0 }' "$dir/data/charge-workers.tsv"; }

# The first key's value for a cgroup (change or value), and the driver's ops there.
cg_value() { awk -F'\t' -v c="$1" 'NR > 1 && $2 == c { print $8; exit }' "$dir/data/charge-cgroups.tsv"; }
cg_driver() { awk -F'\t' -v c="$1" 'NR > 1 && $2 == c { print $10; exit }' "$dir/data/charge-cgroups.tsv"; }
cg_key() { awk -F'\t' 'NR == 2 { print $3 ($4 == "-" ? "" : " " $4); exit }' "$dir/data/charge-cgroups.tsv"; }
# v within 10% of want
near() { awk -v v="$1" -v w="$2" 'BEGIN { exit !(w > 0 && v >= 0.9 * w && v <= 1.1 * w) }'; }

# ---- each mode, 2 workers in 2 cgroups ----
for mode in anon file; do
	charge $mode --mode $mode --tasks 2 --cgroups 2 --duration 2 --warmup 1
	ok '[ $rc = 0 ] && [ -d "$dir" ]' "$mode: runs and writes its results (exit $rc)"
	ok '[ "$(workers_ok)" = 2 ]' "$mode: both workers counted ops"
	for c in cg-0 cg-1; do
		v=$(cg_value $c)
		d=$(cg_driver $c)
		ok 'near "$v" "$d"' "$mode: $c's $(cg_key) moved with the driver's count ($v vs $d)"
	done
	ok '! left_behind' "$mode: no cgroup or worker left"
done

# The close()/open() loop itself (--module none: also where the lab has
# the seed's module for this kernel; lab/tests/vm-kmod.sh runs that one).
charge kmem --mode kmem --module none --tasks 2 --cgroups 2 --duration 2 --warmup 0 --objects 512
ok '[ $rc = 0 ] && [ "$(workers_ok)" = 2 ]' "kmem: runs, both workers counted ops (exit $rc)"
# 512 struct files of 192+ bytes each stay charged while the run goes on.
for c in cg-0 cg-1; do
	v=$(cg_value $c)
	ok '[ "${v:-0}" -ge $((512 * 192)) ]' "kmem: $c's $(cg_key) holds the open files' kmem ($v bytes)"
done
ok 'grep -q "slab cache: '"'"'filp'"'"'" "$T/kmem.out"' "kmem: the summary names the slab cache"
ok 'grep -q "close()/open() of /dev/null: a stand-in for the seed.s module (--module none)" "$T/kmem.out"' \
	"kmem: the summary says the stand-in ran, and why"
ok '! left_behind' "kmem: no cgroup or worker left"

if [ "$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/' /proc/self/mounts)" ]; then
	charge sock --mode sock --tasks 2 --duration 2 --warmup 0
	ok '[ $rc = 0 ] && [ "$(workers_ok)" = 2 ]' "sock v1: runs, both clients sent bytes (exit $rc)"
	ok '[ "$(awk -F"\t" "NR > 1 { print \$2 }" "$dir/data/charge-cgroups.tsv" | sort -u | wc -l)" = 2 ]' \
		"sock: each client/server pair in its own cgroup"
	ok 'grep -q "^  socket memory: not charged" "$T/sock.out" && [ "$(cg_value cg-0)" = 0 ]' \
		"sock v1 without --tcp-limit: reported as not charged, memory.kmem.tcp stays 0"
	ok 'grep -Eq "total +[0-9]+ +\(per worker" "$T/sock.out"' "sock: totals in Mbps"
	charge socktcp --mode sock --tasks 2 --duration 2 --warmup 0 --tcp-limit 256M
	peak=$(awk -F'\t' 'NR > 1 && $4 == "-" && $3 ~ /max_usage/ && $8 > 0 { k++ } END { print k + 0 }' \
		"$dir/data/charge-cgroups.tsv")
	ok '[ $rc = 0 ] && [ "$peak" = 2 ] && grep -q "charged to memory.kmem.tcp" "$T/socktcp.out"' \
		"sock v1 with --tcp-limit: both cgroups' memory.kmem.tcp moved, reported as charged there"
	ok 'summary | grep -q "^Summary ------- NOT MEASURED the per-CPU stock: socket memory was charged to memory.kmem.tcp (v1, tcp limit set), not through the stock"' \
		"sock v1: report.txt's summary says first that the stock was not measured"
	ok '! left_behind' "sock: no cgroup or worker left"
else
	charge sock --mode sock --tasks 2 --duration 2 --warmup 0
	ok '[ $rc = 0 ] && [ "$(workers_ok)" = 2 ] && grep -q "charged to memory (cgroup v2" "$T/sock.out"' \
		"sock v2: runs, reported as charged to memory"
	ok '[ "$(cg_value cg-0)" -gt 0 ]' "sock v2: memory.stat sock moved"
	ok '! summary | grep -q "NOT MEASURED" && summary | grep -q " measured charge.sock.total [0-9.]* Mbps"' \
		"sock v2: report.txt's summary gives the Mbps with no caveat"
	ok '! left_behind' "sock: no cgroup or worker left"
fi

charge populate --mode anon --populate --tasks 2 --cgroups 2 --duration 2 --warmup 0
ok '[ $rc = 0 ] && near "$(cg_value cg-1)" "$(cg_driver cg-1)" && grep -q "MADV_POPULATE_WRITE" "$T/populate.out"' \
	"anon --populate: the kernel-side faults charge cg-1 page by page"

# ---- placement ----
charge right --mode anon --tasks 1 --cgroups 2 --duration 2 --warmup 0
ok '[ $rc = 0 ] && near "$(cg_value cg-0)" "$(cg_driver cg-0)" && [ "$(cg_value cg-1)" -lt 64 ]' \
	"the charges land in the worker's cgroup, not in the idle one ($(cg_value cg-0) vs $(cg_value cg-1))"

charge threads --mode anon --tasks 4 --cgroups 2 --threads --duration 2 --warmup 0
procs=$(awk -F'\t' 'NR > 1 { print $5 }' "$dir/data/charge-workers.tsv" | sort -u | wc -l)
ok '[ $rc = 0 ] && [ "$(workers_ok)" = 4 ] && [ "$procs" = 2 ]' "threads: 4 workers as threads of 2 processes, one per cgroup"
ok 'near "$(cg_value cg-1)" "$(cg_driver cg-1)"' "threads: charges land in each process's cgroup"
ok '! left_behind' "threads: no cgroup or worker left"

charge hier --mode anon --tasks 4 --hierarchy 2x2 --duration 2 --warmup 0
ok '[ $rc = 0 ] && [ "$(workers_ok)" = 4 ] && near "$(cg_value l1-1/l2-1)" "$(cg_driver l1-1/l2-1)"' \
	"--hierarchy 2x2: 4 leaves, the last one charged by its worker"
ok '! left_behind' "hierarchy: no cgroup or worker left"

# --cgroups 0: the seeds' root-memcg baseline; the workers leave the caller's memcg.
"$LAB" charge --mode anon --tasks 1 --cgroups 0 --duration 3 --warmup 0 > "$T/root.out" 2>&1 &
pid=$!
sleep 1.5
incg=none
for c in $(pgrep -P $pid); do incg=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ || $2 == "" { print $3; exit }' /proc/$c/cgroup); done
wait $pid
rc=$?
ok '[ $rc = 0 ] && [ "$incg" = / ] && grep -q "in the root memcg (not charged)" "$T/root.out"' \
	"--cgroups 0: the worker runs in the root memcg (it was in '$incg')"

charge steps --mode anon --tasks steps --cgroups 2 --duration 1 --warmup 0
nsteps=$(awk -F'\t' 'NR > 1 { print $1 }' "$dir/data/charge-workers.tsv" | sort -u | wc -l)
ok '[ $rc = 0 ] && [ "$nsteps" -ge 1 ] && grep -q "topology steps" "$T/steps.out"' \
	"--tasks steps: $nsteps topology steps, a table at the end"
ok 'grep -q "^tasks=1	" "$dir/data/metrics.tsv"' "steps: metrics tagged per step"

# ---- the stock cliff ----
charge stock --mode stock --duration 1 --warmup 0 --stock-rounds 5
slots=$(awk -F'\t' 'NR == 2 { print $6 }' "$dir/data/stock.tsv")
ok '[ $rc = 0 ] && [ "${slots:-0}" -ge 1 ]' "stock: runs over K = 1..2x the BTF slots ($slots)"
over=$(awk -F'\t' -v s="$slots" 'NR > 1 && ($4 > $1 || $4 > s) { k++ } END { print k + 0 }' "$dir/data/stock.tsv")
ok '[ "$over" = 0 ]' "stock: never more precharge holders than memcgs or slots"
most=$(awk -F'\t' 'NR > 1 && $4 > m { m = $4 } END { print m + 0 }' "$dir/data/stock.tsv")
ok '[ "$most" = "$slots" ] && grep -q "matches the $slots slots BTF gives" "$T/stock.out"' \
	"stock: the holders stop at the kernel's stock size ($most of $slots)"
grep -E '^ +[0-9]+ ' "$T/stock.out" | diag
cliff=$(grep -o "cliff: every memcg keeps its precharge up to K = [0-9]*\|no cliff up to K = [0-9]*" "$T/stock.out")
case $cliff in
cliff*) want="stock cliff every memcg keeps its slot up to K = ${cliff##* }, at most $most beyond" ;;
*) want="stock cliff none up to K = ${cliff##* }:" ;;
esac
ok 'summary | grep -qF "$want"' "stock: report.txt's summary gives the driver's cliff ($cliff)"
ok '! left_behind' "stock: no cgroup or worker left"

# ---- the obj stock's slots (v1: memory.kmem.usage_in_bytes; v2: memory.stat's kernel) ----
charge objstock --mode objstock --duration 1 --warmup 0 --stock-rounds 5
oslots=$(awk -F'\t' 'NR == 2 { print $6 }' "$dir/data/objstock.tsv")
kmax=$(awk -F'\t' 'NR > 1 { k = $1 } END { print k + 0 }' "$dir/data/objstock.tsv")
ok '[ $rc = 0 ] && [ "${oslots:-0}" -ge 1 ] && [ "$kmax" = $((2 * oslots + 2)) ]' \
	"objstock: runs over K = 1..2x+2 the BTF objcg slots ($oslots, K up to $kmax)"
over=$(awk -F'\t' -v s="$oslots" 'NR > 1 && ($4 > $1 || $4 > s) { k++ } END { print k + 0 }' "$dir/data/objstock.tsv")
most=$(awk -F'\t' 'NR > 1 && $4 > m { m = $4 } END { print m + 0 }' "$dir/data/objstock.tsv")
ok '[ "$over" = 0 ] && [ "$most" = "$oslots" ] && grep -q "matches the $oslots objcg slot" "$T/objstock.out"' \
	"objstock: the holders stop at the obj stock's size ($most of $oslots)"
grep -E '^ +[0-9]+ ' "$T/objstock.out" | diag
ok '! left_behind' "objstock: no cgroup or worker left"

# ---- OOM kills ----
charge oomstop --mode anon --tasks 2 --cgroups 2 --limit 1M --size 8M --duration 5 --warmup 0
ok '[ $rc = 1 ] && grep -q "killed by the OOM killer in cgroup cg-" "$T/oomstop.out"' \
	"OOM kill, --on-death stop: the worker and its cgroup named, exit 1"
ok '! left_behind' "OOM stop: no cgroup or worker left"
charge oomcont --mode anon --tasks 2 --cgroups 2 --limit 1M --size 8M --duration 3 --warmup 0 --on-death continue
ok '[ $rc = 0 ] && [ "$(grep -c "killed by the OOM killer" "$T/oomcont.out")" = 2 ]' \
	"OOM kills, --on-death continue: every dead worker reported, the run ends (exit $rc)"

# ---- bad input: one line, exit 2, nothing created ----
bad() {
	local want=$1
	shift
	"$LAB" charge "$@" > "$T/bad.out" 2>&1 &
	pid=$!
	wait $pid
	rc=$?
	ok '[ $rc = 2 ] && [ "$(wc -l < "$T/bad.out")" = 1 ] && grep -q -- "$want" "$T/bad.out" && ! ls "$memroot" | grep -q "^memcg-lab-$pid-"' \
		"refused before anything starts: $* ($(cat "$T/bad.out"))"
}
bad "unknown mode" --mode bogus
bad "below one charge batch" --mode anon --limit 100K
bad "CPU 1000 is offline" --mode anon --pin 0,1000
bad "over PATH_MAX" --mode anon --hierarchy 1000x1
bad "free IDs" --mode anon --hierarchy 4x20
pidmax=$(cat /proc/sys/kernel/pid_max)
if [ "$pidmax" -lt 65536 ]; then
	bad "over the pid limit" --mode anon --tasks "$pidmax"
else
	skip "more tasks than the pid limit" "kernel.pid_max $pidmax is above the harness's 65536 workers"
fi
bad "want whole seconds" --mode anon --duration 1.5
bad "not a tmpfs" --mode file --tmpfs /proc
bad "for --mode anon" --mode file --populate
if ! awk '$1 == "SwapFree:" && $2 > 0 { f = 1 } END { exit !f }' /proc/meminfo; then
	ramk=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
	bad "above the host's .* of RAM with no swap" --mode anon --cgroups 2 --limit "$((ramk))K"
	bad "more than 80% of the .* available, with no swap" --mode anon --tasks 2 --size "$((ramk))K"
else
	skip "limits above RAM" "this box has swap: a total limit above RAM is allowed"
fi

# ---- SIGINT mid-run ----
"$LAB" charge --mode anon --tasks 2 --cgroups 2 --duration 30 --warmup 0 --results sigint > "$T/sigint.out" 2>&1 &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
dir=$(ls -d "$T"/res/*-sigint 2>/dev/null | head -1)
ok '[ $rc = 130 ] && grep -q "interrupted by signal 2" "$T/sigint.out"' "SIGINT: the run stops, exit 130"
ok '! left_behind' "SIGINT: no cgroup or worker left"
ok 'grep -q "\"status\":\"interrupted\"" "$dir/meta.json"' "SIGINT: the results say interrupted"
done_testing
