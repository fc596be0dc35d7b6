#!/bin/sh
# Runs inside a guest (memcg-lab vm --shell): the lab commands whose answers
# lab/tests/vm-kernels.sh asserts on, each into /out/results/checks/<name>.
# {out,err,rc}.  $VM_TESTS names test programs (copied in with --add) to run
# there too, e.g. the cgroup library's tests on cgroup v2.
out=/out/results/checks
mkdir -p $out
run() {
	name=$1
	shift
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" > $out/$name.out 2> $out/$name.err
	echo $? > $out/$name.rc
	echo "$name $t0 $(cut -d' ' -f1 /proc/uptime)" >> $out/times
}
cat /sys/fs/cgroup/cgroup.controllers > $out/controllers
# One probe (BTF, symbols, tracefs, runtime probes) answers it all: the
# JSON on stdout, the results directory for the host to find.
run probe memcg-lab probe --runtime --json --results probe
# Under TCG on a loaded host a vCPU can be held off long enough that the
# runtime probe's rounds disagree with BTF (the probe retries the rounds
# it sees disturbed; lab/kernel/runtime_probe.c).  Then it measures once
# more, into probe2.*: the host checks the second reading and shows the first.
if grep -q disagree $out/probe.err; then
	run probe2 memcg-lab probe --runtime --json
fi
# The stat-read driver, 16 readers back to back.  Where the kernel has the
# user-flush mutex, under the lab's lock collector (its hold and wait
# times) and, around both, mutex-trace.sh's independent tracefs account.
set -- memcg-lab statread --top 2 --children 4 --allocators 0 --total-readers 16 \
	--interval flat --duration 2s --warmup 0.5s --results statread
if grep -q ' stats_user_flush_mutex$' /proc/kallsyms; then
	if memcg-lab lock --help > /dev/null 2>&1; then
		set -- memcg-lab lock record -n lock-mutex -- "$@"
	fi
	run mutex sh /lab/lab/tests/vm/mutex-trace.sh "$@"
	cp $out/traced.rc $out/statread.rc
	# The text symbols, for the host to check the callers' offsets against.
	awk '$2 ~ /^[tTwW]$/' /proc/kallsyms | gzip > $out/kallsyms-text.gz
else
	run statread "$@"
fi
# Every charge mode, briefly (under TCG only the counts mean something).
for m in anon file kmem sock; do
	run "charge-$m" memcg-lab charge --mode $m --tasks 2 --duration 1 --warmup 0 --results "charge-$m"
done
run charge-stock memcg-lab charge --mode stock --stock-max 3 --duration 1 --warmup 0 --results charge-stock
for t in $VM_TESTS; do
	run "test-$(basename "$t")" "$t"
done
exit 0
