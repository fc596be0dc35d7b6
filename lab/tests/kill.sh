#!/bin/bash
# SIGKILL of `memcg-lab run` at random points (probe, tree creation,
# mid-driver, between steps, while writing results), then checks what a
# user would: no process of the run left, `memcg-lab cleanup` removes every
# cgroup tree and tracefs instance the run made (and nothing else: a
# cgroup the test made itself survives), the perf sample-rate setting is
# what it was, no memcg-lab-* file is left in /tmp, and the results
# directory is marked incomplete unless the run had finished.  KILL_ITERATIONS (default 5; `make killtest` runs 100).
set -u
. "$(dirname "$0")/lib/tap.sh"

iters=${KILL_ITERATIONS:-5}
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (the run creates cgroups)"
	exit 0
fi
memroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -z "$memroot" ] && memroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$memroot" ]; then
	echo "1..0 # SKIP no memory controller mounted"
	exit 0
fi
tracefs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/self/mounts)

cat > "$T/k.exp" <<'X'
[experiment]
name = killed
repeats = 2
[collect]
runtime_probe = yes
[driver anon]
command = charge
mode = anon
tasks = 2
cgroups = 2
duration = 1
warmup = 0
[driver reads]
command = statread
allocators = 0
duration = 1s
warmup = 0s
interval = 20ms
[plot]
enabled = yes
X
export MEMCG_LAB_RESULTS=$T/results
# A cgroup that is not the lab's: it must survive every cleanup.
mine=$memroot/killtest-sentinel-$$
mkdir "$mine"
trap 'rmdir "$mine" 2>/dev/null; rm -rf "$T"' EXIT
rate0=$(cat /proc/sys/kernel/perf_event_max_sample_rate)

# Processes carrying this run's marker in their environment (other runs,
# e.g. tests running at the same time, carry none or another one).
marked_pids() {
	grep -l "MEMCG_LAB_KILLTEST=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}
# How many of the pids in file $1 still run (zombies count as gone).
running() {
	local p k=0
	for p in $(sort -u "$1"); do
		[ -r /proc/$p/stat ] && ! awk '{ exit $3 != "Z" }' /proc/$p/stat 2>/dev/null && k=$((k + 1))
	done
	echo $k
}
# Cgroup trees (or tracefs instances) in directory $1 named after a pid in file $2.
owned_in() {
	local p
	for p in $(sort -u "$2"); do ls "$1" 2>/dev/null | grep "^memcg-lab-$p-"; done
}

# One whole run first: how long it takes, so the kills land anywhere in it.
t0=$(date +%s.%N)
"$LAB" run "$T/k.exp" >/dev/null 2>&1
st=$?
span=$(awk -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.2f", t1 - t0 }')
ok '[ $st = 0 ] && grep -q "\"status\":\"complete\"" "$T"/results/*-killed*/meta.json' \
	"the experiment runs to completion when left alone (${span} s)"
rm -rf "$T/results"

bad_procs=0 bad_trees=0 bad_inst=0 bad_rate=0 bad_status=0 bad_sentinel=0 bad_tmp=0 finished=0
# The lab's files in /tmp before the kills (a run makes only files there;
# the directories are other tests' and vm's, which may run meanwhile).
lab_tmp() { find /tmp -maxdepth 1 -type f -name 'memcg-lab-*' 2>/dev/null | sort; }
tmp0=$(lab_tmp)
for i in $(seq "$iters"); do
	MEMCG_LAB_KILLTEST=$$.$i setsid "$LAB" run "$T/k.exp" >/dev/null 2>&1 &
	pid=$!
	echo $pid > "$T/pids"
	# A random point in the run; meanwhile note every process of it.
	end=$(awk -v s=$RANDOM -v span="$span" -v now="$(date +%s.%N)" \
		'BEGIN { srand(s); printf "%.2f", now + rand() * span }')
	while awk -v e="$end" -v now="$(date +%s.%N)" 'BEGIN { exit !(now < e) }'; do
		marked_pids $$.$i >> "$T/pids"
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid
	else
		finished=$((finished + 1))
	fi
	wait $pid 2>/dev/null
	# Workers die with their parents (PR_SET_PDEATHSIG); give them a moment.
	# A process still exiting has lost its environment but still owns its
	# cgroups, so wait on every pid seen, not only on the marker.
	marked_pids $$.$i >> "$T/pids"
	for _ in $(seq 50); do [ "$(running "$T/pids")" = 0 ] && break; sleep 0.1; done
	[ "$(running "$T/pids")" = 0 ] || bad_procs=$((bad_procs + 1))
	"$LAB" cleanup >/dev/null 2>&1
	left=$(owned_in "$memroot" "$T/pids")
	[ -z "$left" ] || { bad_trees=$((bad_trees + 1)); echo "# trees left: $left"; }
	left=$([ -n "$tracefs" ] && owned_in "$tracefs/instances" "$T/pids")
	[ -z "$left" ] || { bad_inst=$((bad_inst + 1)); echo "# instances left: $left"; }
	[ "$(cat /proc/sys/kernel/perf_event_max_sample_rate)" = "$rate0" ] || bad_rate=$((bad_rate + 1))
	[ -d "$mine" ] || bad_sentinel=$((bad_sentinel + 1))
	left=$(comm -13 <(echo "$tmp0") <(lab_tmp))
	[ -z "$left" ] || { bad_tmp=$((bad_tmp + 1)); echo "# left in /tmp: $left"; tmp0=$(lab_tmp); }
	dir=$(ls -d "$T/results"/*-killed* 2>/dev/null | tail -1)
	if [ -n "$dir" ] && [ -f "$dir/meta.json" ]; then
		# "complete" only with its report (report_finish writes it
		# first), and only for a run that was not killed before its end.
		if grep -q '"status":"complete"' "$dir/meta.json" && [ ! -s "$dir/report.txt" ]; then
			bad_status=$((bad_status + 1))
		fi
	fi
	rm -rf "$T/results"
done
echo "# $iters runs killed at random points ($finished had already finished)"
ok '[ $bad_procs = 0 ]' "no process of a killed run is left ($bad_procs of $iters runs left some)"
ok '[ $bad_trees = 0 ]' "cleanup removes every cgroup tree a killed run made ($bad_trees failures)"
ok '[ $bad_inst = 0 ]' "cleanup removes every tracefs instance a killed run made ($bad_inst failures)"
ok '[ $bad_rate = 0 ]' "perf_event_max_sample_rate is what it was ($bad_rate failures)"
ok '[ $bad_sentinel = 0 ]' "a cgroup the lab did not make survives every cleanup"
ok '[ $bad_tmp = 0 ]' "a killed run leaves no memcg-lab-* file in /tmp ($bad_tmp failures)"
ok '[ $bad_status = 0 ]' "a killed run's results are never marked complete ($bad_status failures)"
done_testing
