#!/bin/sh
# Runs inside a lab kernel guest (memcg-lab vm --shell): one run of memory.stat
# readers measured by two tools at once on stats_user_flush_mutex,
#   - klockstat ($KLOCKSTAT, Debian's libbpf-tools, --add'ed into the guest),
#     started first and stopped (SIGINT: it prints its table) last;
#   - the lab's lock collector, `memcg-lab lock record`, around the readers;
# so klockstat's window holds the lab's.  By default the readers are the
# stat-read driver, READERS of them back to back for SECS seconds; arguments
# replace that command (e.g. `memcg-lab run experiments/statread-flush.exp`).
# Into /out/results/checks: $TAG.{out,err,rc,method} (klockstat's) and
# $TAG-lab.{out,err,rc} (lock record's); TAG defaults to klockstat.
#
#   klockstat-check.sh [COMMAND [ARG...]]
out=/out/results/checks
mkdir -p $out
t=${TAG:-klockstat}
[ -x "${KLOCKSTAT:-}" ] || { echo "KLOCKSTAT='${KLOCKSTAT:-}' is no executable" > $out/$t.err; echo 2 > $out/$t.rc; exit 0; }
grep -q ' stats_user_flush_mutex$' /proc/kallsyms ||
	{ echo "no stats_user_flush_mutex in /proc/kallsyms: a kernel without the user-flush mutex patch" > $out/$t.err; echo 2 > $out/$t.rc; exit 0; }

# Only this script's readers read memory.stat while klockstat runs.
trampolines() { grep -c ' bpf_trampoline_' /proc/kallsyms; }
before=$(trampolines)
"$KLOCKSTAT" -L stats_user_flush_mutex -n 1000 > $out/$t.out 2> $out/$t.err &
kpid=$!
# klockstat's stdout is a file (fully buffered): its "Tracing..." line shows
# only at exit.  Attached means: its fentry/fexit trampolines are in
# kallsyms and their number stopped growing (it attaches ~20 programs one
# after the other; under TCG loading them takes seconds).  With no new
# trampoline it fell back to kprobes (a kernel without fentry).
last=-1 same=0 waited=0
while kill -0 $kpid 2>/dev/null && [ $waited -lt 1200 ]; do
	now=$(trampolines)
	if [ "$now" -gt "$before" ] && [ "$now" = "$last" ]; then
		same=$((same + 1))
		[ $same -ge 20 ] && break
	else
		same=0
	fi
	last=$now
	sleep 0.1
	waited=$((waited + 1))
done
if ! kill -0 $kpid 2>/dev/null; then
	wait $kpid
	echo $? > $out/$t.rc
	echo none > $out/$t.method
	exit 0
fi
if [ "$(trampolines)" -gt "$before" ]; then
	echo "fentry ($(( $(trampolines) - before )) trampolines)" > $out/$t.method
else
	echo "kprobe (no BPF trampoline appeared in $((waited / 10)) s)" > $out/$t.method
fi

[ $# -gt 0 ] || set -- memcg-lab statread --top 2 --children 4 --allocators 0 \
	--total-readers "${READERS:-16}" --interval flat --duration "${SECS:-2}s" --warmup 0.5s --results statread
memcg-lab lock record -n "${LOCK_NAME:-lock-klockstat}" -- "$@" > $out/$t-lab.out 2> $out/$t-lab.err
echo $? > $out/$t-lab.rc

kill -INT $kpid
wait $kpid
echo $? > $out/$t.rc
exit 0
