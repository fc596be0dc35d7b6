#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# memcg-lab lock record on a real workload here: cgroup mkdir/rmdir churn
# and concurrent memory.stat readers in a lab-created tree, with memory
# charged in it so that flushes have work.  The results must hold rstat
# lock holds with the lock named, lock waits, the memcg_flush_stats split,
# histogram files, no lost events, and nothing left behind (the tracefs
# instance, the tree).  Then a tracefs that is not mounted, and Ctrl-C.
. "$(dirname "$0")/lib/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (tracefs instances, cgroups)"
# The test looks at tracefs instances itself: tracefs mounted in a mount
# namespace of its own where the machine has none (tracefs-mount.sh tests
# the lab's own mounting).
in_private_mount_ns "$@"
mount_tracefs || skip_all "cannot mount tracefs at /sys/kernel/tracing (see tracefs-mount.sh)"
mem=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
if [ -z "$mem" ]; then
	mem=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	grep -qw memory "$mem/cgroup.controllers" 2>/dev/null || skip_all "no memory controller mounted"
	v2=1
fi

tmp=$T
tree=$mem/$(lab_owner_name_of $$)
cleanup() {
	for d in "$tree"/*/; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
	rmdir "$tree" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$tree" || skip_all "cannot create $tree"
[ -n "${v2:-}" ] && echo +memory >"$tree/cgroup.subtree_control"
mkdir "$tree/readers"

cat >"$tmp/workload.sh" <<EOF
#!/bin/bash
# Charging in a child: shmem pages come and go, so stats change.
( echo \$BASHPID > "$tree/readers/cgroup.procs"
  for i in \$(seq 30); do head -c 8M /dev/zero > /dev/shm/lock-record-\$\$; rm -f /dev/shm/lock-record-\$\$; done ) &
( for i in \$(seq 150); do mkdir "$tree/c\$i" && rmdir "$tree/c\$i"; done ) &
for k in 1 2 3; do
	( for i in \$(seq 400); do cat "$tree/memory.stat" "$tree/readers/memory.stat" >/dev/null; done ) &
done
wait
EOF
chmod +x "$tmp/workload.sh"

export MEMCG_LAB_RESULTS=$tmp/results
mkdir -p "$MEMCG_LAB_RESULTS"
$LAB lock record -n rec -- "$tmp/workload.sh" >"$tmp/out" 2>"$tmp/err"
check $? "lock record around the workload exits 0"
res=$(ls -d "$MEMCG_LAB_RESULTS"/*-rec 2>/dev/null | head -1)
[ -n "$res" ] && [ -f "$res/meta.json" ]
check $? "a results directory with meta.json"
diag "$(sed -n '1,14p' "$tmp/out")"

# The rstat flush lock: held, named, per level.
awk -F'\t' 'NR > 1 && $12 > 0 && $1 !~ /^0x/ && $1 != "" { n++ } END { exit !n }' "$res/data/lock-rstat.tsv"
check $? "lock-rstat.tsv: rstat lock holds, the lock named ($(awk -F'\t' 'NR==2 {print $1}' "$res/data/lock-rstat.tsv"))"
awk -F'\t' 'NR == 2 && $3 == "hold" && $4 == "rstat-tracepoints" && $5 > 0 { f = 1 } END { exit !f }' \
	"$res/data/lock-hold.tsv"
check $? "lock-hold.tsv: the hold target measured by rstat-tracepoints"
awk -F'\t' 'NR > 1 && $6 > 0 && $8 > 0 { n++ } END { exit !n }' "$res/data/lock-locks.tsv"
check $? "lock-locks.tsv: locks with contention waits"
awk -F'\t' 'NR == 2 && $1 == 1 && $2 > 0 && $5 + $6 == $2 { f = 1 } END { exit !f }' "$res/data/lock-flush.tsv"
check $? "lock-flush.tsv: memcg_flush_stats calls = flushed + skipped ($(sed -n 2p "$res/data/lock-flush.tsv"))"
# The same numbers as metrics for compare: the flush calls, the rstat holds.
calls=$(awk -F'\t' 'NR == 2 { print $2 }' "$res/data/lock-flush.tsv")
awk -F'\t' -v c="$calls" '$3 == "flush.calls" && $4 == c { f++ } $3 ~ /^rstat\.r[0-9]+\.l[0-9]+\.hold\.count$/ && $4 > 0 { g++ }
	END { exit !(f == 1 && g) }' "$res/data/metrics.tsv"
check $? "metrics.tsv: flush.calls ($calls) and the rstat lock's hold counts, for compare"
for f in lock-locks lock-rstat lock-hold lock-flush; do
	head -1 "$res/data/$f.tsv" | grep -q '^[a-z_]*	'
	check $? "$f.tsv starts with a header row"
done
h=$(ls "$res/data/hist-lock-hold."*.tsv 2>/dev/null | head -1)
[ -n "$h" ] && grep -q '^# title: .*hold times (method: ' "$h" && grep -q '^low_ns	high_ns	count' "$h"
check $? "hold histogram files for the plots, titled with the method"
grep -Eq '"lost_events": ?0,' "$res/meta.json"
check $? "no events lost"
grep -Eq '"status": ?"complete"' "$res/meta.json"
check $? "meta.json says complete"
inst=$(sed -n 's/^tracer: tracefs instance \([^,]*\),.*/\1/p' "$tmp/out")
[ -n "$inst" ] && [ ! -e "/sys/kernel/tracing/instances/$inst" ]
check $? "the tracefs instance ($inst) is gone"

# A tracefs that is not there.
$LAB lock record -n bad --tracefs "$tmp" -d 1 >"$tmp/out2" 2>"$tmp/err2"
st=$?
[ $st -eq 2 ] && [ "$(wc -l <"$tmp/err2")" -eq 1 ] && grep -q "not a tracefs mount" "$tmp/err2"
check $? "--tracefs on a plain directory: exit 2, one line ($(cat "$tmp/err2"))"
[ -z "$(ls -d "$MEMCG_LAB_RESULTS"/*-bad 2>/dev/null)" ]
check $? "... and no results directory for a run that never started"

# Ctrl-C ends the window early and still cleans up.
$LAB lock record -n int -d 60 >"$tmp/out3" 2>&1 &
pid=$!
sleep 2
kill -INT $pid
wait $pid
check $? "SIGINT ends lock record with status 0"
res3=$(ls -d "$MEMCG_LAB_RESULTS"/*-int 2>/dev/null | head -1)
grep -Eq '"status": ?"interrupted"' "$res3/meta.json" 2>/dev/null
check $? "an interrupted window says so in meta.json"
inst=$(sed -n 's/^tracer: tracefs instance \([^,]*\),.*/\1/p' "$tmp/out3")
[ -n "$inst" ] && [ ! -e "/sys/kernel/tracing/instances/$inst" ]
check $? "and its instance is gone"

# A SIGKILL leaves the instance behind; memcg-lab cleanup finds it by name.
$LAB lock record -n kill -d 60 >"$tmp/out4" 2>&1 &
pid=$!
for i in $(seq 100); do
	inst=$(ls /sys/kernel/tracing/instances | grep "^memcg-lab-$pid-")
	[ -n "$inst" ] && break
	sleep 0.05
done
kill -KILL $pid
wait $pid 2>/dev/null
[ -n "$inst" ] && [ -d "/sys/kernel/tracing/instances/$inst" ]
check $? "after SIGKILL the instance $inst is still there"
$LAB cleanup >"$tmp/cleanup.out" 2>&1
[ ! -e "/sys/kernel/tracing/instances/$inst" ] && grep -q "$inst" "$tmp/cleanup.out"
check $? "memcg-lab cleanup removes it by its owner name ($(grep "$inst" "$tmp/cleanup.out"))"

done_testing
