#!/bin/sh
# TAP: one big guest within make vmtest's budget: 32 vCPUs in 2 sockets of
# 8 cores with 2 threads, 4 NUMA nodes (vm --nodes/--sockets/--threads-per-
# core).  The guest kernel must see that shape (sysfs and the lab's own
# probe through hwloc); `run --plan` there plans the topology steps for it;
# charge-anon-scaling runs at its full size (32 CPUs: no [small]) with a
# short duration and one repeat, its report showing those steps; 5000
# stat readers run under the bare hard RLIMIT_NOFILE of 4096, which root
# raises; and nothing is left behind in the guest (lab/tests/vm/leftovers.sh).
# Also the topology errors vm finds before it boots anything, and qemu's
# own refusal of 256 vCPUs in one line.
# VM_BIG_KERNEL picks the kernel (default 7.3).
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	{ echo "1..0 # SKIP qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"; exit 0; }
k=${VM_BIG_KERNEL:-7.3}

# A shape that does not fit: one line, exit 2, nothing booted.
for bad in "--cpus 6 --nodes 4:does not split into 4 NUMA nodes" \
	"--cpus 12 --threads-per-core 8:does not split into 1 socket(s) of cores with 8 threads" \
	"--cpus 12 --nodes 3 --sockets 2:3 NUMA nodes do not fit 2 sockets" \
	"--cpus 8 --nodes 8 --mem 256:less than 64 MiB"; do
	# shellcheck disable=SC2086
	MEMCG_LAB_RESULTS=$tmp/bad $lab vm --kernel $k ${bad%%:*} --shell true >"$tmp/o" 2>&1
	[ $? = 2 ] && [ "$(wc -l < "$tmp/o")" = 1 ] && grep -qF -- "${bad#*:}" "$tmp/o" && [ ! -e "$tmp/bad" ]
	check $? "vm ${bad%%:*}: exit 2 before booting, one line ($(cut -c1-70 "$tmp/o"))"
done

if ! $lab vm --fetch --kernel $k >/dev/null 2>"$tmp/fetch.err"; then
	skip "qemu's refusal of 256 vCPUs" "cannot get kernel $k: $(tail -n1 "$tmp/fetch.err")"
	skip "a 32-vCPU, 4-node guest" "cannot get kernel $k: $(tail -n1 "$tmp/fetch.err")"
	done_testing
	exit
fi

# More vCPUs than qemu takes (bookworm's: 255 for its pc machine, and
# under TCG no x2APIC): qemu's own line, not "internal error".
MEMCG_LAB_RESULTS=$tmp/q256 $lab vm --kernel $k --cpus 256 --shell true >"$tmp/o" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(grep -c 'memcg-lab-vm:' "$tmp/o")" = 1 ] && ! grep -q 'internal error' "$tmp/o" &&
	grep -q 'memcg-lab-vm: qemu did not run the guest (256 vCPUs, .*): .*[^ ]' "$tmp/o" &&
	[ "$(jget "$(one_dir "$tmp/q256")/meta.json" vm.guest_status)" = qemu-error ]
check $? "vm --cpus 256: qemu's refusal in one line, exit 2 ($(grep -m1 'memcg-lab-vm:' "$tmp/o" | cut -c1-150))"

t0=$(date +%s)
MEMCG_LAB_RESULTS=$tmp/big $lab vm --kernel $k --cpus 32 --sockets 2 --nodes 4 --threads-per-core 2 \
	--mem 2048 --timeout 600 --add lab/tests/vm --shell '
	o=/out/results/checks
	mkdir -p $o
	for n in /sys/devices/system/node/node[0-9]*; do
		echo "${n##*/} $(cat $n/cpulist) $(sed -n "s/.*MemTotal: *\([0-9]*\) kB/\1/p" $n/meminfo)"
	done > $o/nodes
	c=/sys/devices/system/cpu/cpu31/topology
	echo "cpu31 package $(cat $c/physical_package_id) siblings $(cat $c/thread_siblings_list)" > $o/cpu31
	sh /lab/lab/tests/vm/leftovers.sh snapshot /tmp/before
	memcg-lab probe --json > $o/probe.json 2> $o/probe.err; echo $? > $o/probe.rc
	memcg-lab run --plan experiments/charge-anon-scaling.exp > $o/plan.out 2>&1; echo $? > $o/plan.rc
	s=$(cat /sys/class/rtc/rtc0/since_epoch)
	memcg-lab run experiments/charge-anon-scaling.exp -s experiment.repeats=1 \
		-s driver.duration=1 -s driver.warmup=0 > $o/run.out 2>&1; echo $? > $o/run.rc
	echo "$s $(cat /sys/class/rtc/rtc0/since_epoch)" > $o/run.time
	# 5000 readers keep 5000 files open, over the bare hard limit of 4096:
	# root (every capability here) raises it to what they need.
	( ulimit -n 4096 && memcg-lab statread --top 4 --children 5 --allocators 0 --levels leaf \
		--total-readers 5000 --interval 1s --duration 1s --warmup 0s ) > $o/nofile.out 2>&1
	echo $? > $o/nofile.rc
	sh /lab/lab/tests/vm/leftovers.sh check /tmp/before > $o/leftovers 2>&1; echo $? > $o/leftovers.rc
	exit 0' >"$tmp/o" 2>&1
rc=$?
d=$(one_dir "$tmp/big")
g=$d/results/checks
check $rc "a 32-vCPU guest (2 sockets x 8 cores x 2 threads, 4 nodes) boots and runs ($(($(date +%s) - t0)) s, qemu $(jget "$d/meta.json" vm.qemu_seconds) s)"
[ $rc = 0 ] || { diag "$(tail -n 5 "$tmp/o")"; done_testing; exit; }
[ "$(jget "$d/meta.json" vm.nodes)" = 4 ] && [ "$(jget "$d/meta.json" vm.sockets)" = 2 ] &&
	[ "$(jget "$d/meta.json" vm.threads_per_core)" = 2 ]
check $? "meta.json says the shape booted (nodes 4, sockets 2, threads per core 2)"
# 2048 MiB in 4 nodes: each sees its 512 MiB less what the kernel took.
awk '{ split($2, r, "-"); if (r[2] - r[1] != 7 || $3 < 300000 || $3 > 524288) bad = 1 }
	END { exit NR != 4 || bad }' "$g/nodes" &&
	[ "$(cut -d' ' -f1,2 "$g/nodes" | tr '\n' ' ')" = "node0 0-7 node1 8-15 node2 16-23 node3 24-31 " ]
check $? "the guest kernel sees 4 nodes of 8 vCPUs and ~512 MiB each ($(tr '\n' ';' < "$g/nodes"))"
[ "$(cat "$g/cpu31")" = "cpu31 package 1 siblings 30-31" ]
check $? "cpu31 is in package 1 with its SMT sibling 30 ($(cat "$g/cpu31"))"
t=$g/probe.json
[ "$(cat "$g/probe.rc")" = 0 ] && [ "$(jget "$t" machine.topology.cpus)" = 32 ] &&
	[ "$(jget "$t" machine.topology.cores)" = 16 ] && [ "$(jget "$t" machine.topology.smt)" = 2 ] &&
	[ "$(jget "$t" machine.topology.numa_nodes)" = 4 ]
check $? "probe sees it through hwloc: 32 CPUs, 16 cores, SMT 2, 4 NUMA nodes (LLC groups $(jget "$t" machine.topology.llc_groups))"
# The topology steps: 1, an SMT pair, an LLC, a node (8), 2 nodes, the machine.
steps=$(sed -n 's/^  tasks=\([0-9]*\) .*/\1/p' "$g/plan.out" | tr '\n' ' ' | sed 's/ $//')
[ "$(cat "$g/plan.rc")" = 0 ] && grep -q '^values: full size (32 CPUs >= 16)' "$g/plan.out" &&
	[ "$steps" = "1 2 8 16 32" ]
check $? "run --plan in the guest: full size, topology steps 1, SMT 2, a node 8, a package 16, the machine 32: $steps"
[ "$(cat "$g/plan.rc")" = 0 ] || diag "$(head -n 20 "$g/plan.out")"
r=$(ls -d "$d"/results/*-charge-anon-scaling 2>/dev/null | head -n1)
[ "$(cat "$g/run.rc")" = 0 ] && [ -n "$r" ] && [ "$(jget "$r/meta.json" status)" = complete ] &&
	[ -z "$(jget "$r/meta.json" scaled)" ] && ! grep -q '^  scaled down' "$r/report.txt"
check $? "charge-anon-scaling at full size completes in $(awk '{ print $2 - $1 }' "$g/run.time") s (the host's clock through qemu's RTC; 1 s steps, 1 repeat)"
[ "$(cat "$g/run.rc")" = 0 ] || diag "$(tail -n 10 "$g/run.out")"
# The report's steps are the plan's.
rsteps=$(sed -n 's/^  tasks=\([0-9]*\) .*charge.anon.total .*/\1/p' "$r/report.txt" | tr '\n' ' ' | sed 's/ $//')
[ -n "$steps" ] && [ "$rsteps" = "$steps" ]
check $? "its report has the planned steps and no other ($rsteps)"
[ "$(cat "$g/nofile.rc")" = 0 ] && grep -q '^readers: 5000 (root 0, top 0, leaf 5000)' "$g/nofile.out" &&
	grep -Eq '^leaf +memory.stat +20 +5000 ' "$g/nofile.out"
check $? "5000 readers under a 4096 hard RLIMIT_NOFILE: root raises it and every reader reads"
[ "$(cat "$g/nofile.rc")" = 0 ] || diag "$(tail -n 3 "$g/nofile.out")"
[ "$(cat "$g/leftovers.rc")" = 0 ]
check $? "nothing left behind in the guest (cgroups, tracefs instances, mounts, processes, /tmp, sysctls)"
[ ! -s "$g/leftovers" ] || diag "$(cat "$g/leftovers")"
done_testing
