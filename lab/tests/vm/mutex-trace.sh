#!/bin/sh
# Runs inside a guest whose kernel has the user-flush mutex (the lab
# kernel): traces COMMAND (by default `memcg-lab statread` with READERS
# concurrent memory.stat readers for SECS seconds) through tracefs only,
# kprobe + kretprobe on mem_cgroup_user_flush_stats and lock:contention_*
# filtered on the mutex's address: an account of the flushes independent of
# the lab's own lock collector (lock record may wrap the same command).
# Prints the counts; the trace goes to /out/results/checks/mutex-trace.txt.
#
#   mutex-trace.sh [COMMAND [ARG...]]
T=/sys/kernel/tracing
out=/out/results/checks
addr=$(grep ' stats_user_flush_mutex$' /proc/kallsyms | cut -d' ' -f1)
[ -n "$addr" ] || { echo "no stats_user_flush_mutex in /proc/kallsyms"; exit 1; }
echo "mutex_addr 0x$addr"
echo "p:lab_uf_enter mem_cgroup_user_flush_stats" >> $T/kprobe_events || exit 1
# r128: room for 128 concurrent instances (the default, 2 per CPU, misses
# returns of readers asleep on the mutex).
echo "r128:lab_uf_exit mem_cgroup_user_flush_stats" >> $T/kprobe_events || exit 1
for e in contention_begin contention_end; do
	echo "lock_addr == 0x$addr" > $T/events/lock/$e/filter || exit 1
done
echo 16384 > $T/buffer_size_kb
echo 0 > $T/options/overwrite	# a full buffer drops new events, and says so
for e in lock/contention_begin lock/contention_end kprobes/lab_uf_enter kprobes/lab_uf_exit; do
	echo 1 > $T/events/$e/enable || exit 1
done
# The readers: the lab's stat-read driver, 16 readers back to back over a
# small tree (no allocators: the readers alone contend on the mutex).
[ $# -gt 0 ] || set -- memcg-lab statread --top 2 --children 4 --allocators 0 \
	--total-readers "${READERS:-16}" --interval flat --duration "${SECS:-2}s" --warmup 0.5s --results statread
"$@" > $out/traced.out 2> $out/traced.err
echo $? > $out/traced.rc
echo 0 > $T/tracing_on
cp $T/trace $out/mutex-trace.txt
echo "flush_calls $(grep -c 'lab_uf_enter:' $out/mutex-trace.txt)"
echo "flush_returns $(grep -c 'lab_uf_exit:' $out/mutex-trace.txt)"
echo "contention_begin $(grep -c 'contention_begin:' $out/mutex-trace.txt)"
echo "contention_end $(grep -c 'contention_end:' $out/mutex-trace.txt)"
echo "lost_events $(grep -c 'LOST' $out/mutex-trace.txt)"
echo "missed_returns $(awk '$1 ~ /lab_uf_exit/ { print $NF }' $T/kprobe_profile)"
grep -m1 'entries-in-buffer' $out/mutex-trace.txt
exit 0
