#!/bin/sh
# Runs inside a guest whose kernel has the user-flush mutex (the lab
# kernel): READERS concurrent memory.stat readers of one cgroup, a writer
# charging pages into it, for SECS seconds, traced through tracefs only
# (kprobe + kretprobe on mem_cgroup_user_flush_stats, lock:contention_begin/
# end filtered on the mutex's address).  Prints the counts; the trace goes
# to /out/results/checks/mutex-trace.txt for the host to take apart.
T=/sys/kernel/tracing
out=/out/results/checks
addr=$(grep ' stats_user_flush_mutex$' /proc/kallsyms | cut -d' ' -f1)
[ -n "$addr" ] || { echo "no stats_user_flush_mutex in /proc/kallsyms"; exit 1; }
echo "mutex_addr 0x$addr"
echo "p:lab_uf_enter mem_cgroup_user_flush_stats" >> $T/kprobe_events || exit 1
echo "r:lab_uf_exit mem_cgroup_user_flush_stats" >> $T/kprobe_events || exit 1
for e in contention_begin contention_end; do
	echo "lock_addr == 0x$addr" > $T/events/lock/$e/filter || exit 1
done
echo 8192 > $T/buffer_size_kb
for e in lock/contention_begin lock/contention_end kprobes/lab_uf_enter kprobes/lab_uf_exit; do
	echo 1 > $T/events/$e/enable || exit 1
done
cg=/sys/fs/cgroup/lab-mutex
mkdir $cg
( echo 0 > $cg/cgroup.procs	# 0: this subshell (not $$, the script)
  while :; do dd if=/dev/zero of=/tmp/lab-mutex bs=64k count=64 2>/dev/null; rm -f /tmp/lab-mutex; done ) &
pids=$!
for i in $(seq 1 "${READERS:-16}"); do
	( while :; do cat $cg/memory.stat > /dev/null; done ) &
	pids="$pids $!"
done
sleep "${SECS:-2}"
kill $pids
wait 2>/dev/null
echo 0 > $T/tracing_on
cp $T/trace $out/mutex-trace.txt
echo "flush_calls $(grep -c 'lab_uf_enter:' $out/mutex-trace.txt)"
echo "flush_returns $(grep -c 'lab_uf_exit:' $out/mutex-trace.txt)"
echo "contention_begin $(grep -c 'contention_begin:' $out/mutex-trace.txt)"
echo "contention_end $(grep -c 'contention_end:' $out/mutex-trace.txt)"
echo "lost_events $(grep -c 'LOST' $out/mutex-trace.txt)"
# The readers' last cat or dd may outlive its killed loop for a moment.
for i in $(seq 1 50); do
	rmdir $cg 2>/dev/null && exit 0
	sleep 0.1
done
echo "could not remove $cg: $(cat $cg/cgroup.procs | wc -l) processes left"
exit 1
