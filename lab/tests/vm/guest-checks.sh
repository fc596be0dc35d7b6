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
	"$@" > $out/$name.out 2> $out/$name.err
	echo $? > $out/$name.rc
}
cat /sys/fs/cgroup/cgroup.controllers > $out/controllers
run probe memcg-lab probe --json
run probe-results memcg-lab probe --results probe
memcg-lab probe --help 2>&1 | grep -q -- --runtime &&
	run probe-runtime memcg-lab probe --runtime --json
grep -q ' stats_user_flush_mutex$' /proc/kallsyms &&
	run mutex sh /lab/lab/tests/vm/mutex-trace.sh
for t in $VM_TESTS; do
	run "test-$(basename "$t")" "$t"
done
exit 0
