#!/bin/sh
# Runs inside a guest (memcg-lab vm --shell): what lab commands left behind.
#
#   leftovers.sh snapshot DIR   records the guest's state before them
#   leftovers.sh check DIR      prints each difference since, one line each
#                               ("cgroup /sys/fs/cgroup/x", "process 123
#                               memcg-lab charge ...", "sysctl kernel.x 1 -> 2"),
#                               and exits 1 if there is one
#
# The state: cgroups, tracefs instances, mounts, processes (not kernel
# threads, not this script's own), files in /tmp and /dev/shm, and the
# sysctls under kernel, vm and net.core.  A perf_event_max_sample_rate the
# kernel itself lowered (its "lowering kernel.perf_event_max_sample_rate"
# line in dmesg: perf interrupts are slow under TCG) is the kernel's doing,
# not a leftover; so are the hung-task detector's counters, and the
# tracefs the kernel mounts by itself at /sys/kernel/debug/tracing when
# that path is looked up (an automount: no command mounts it).
set -u
dir=$2
me=$$

cgroups() { find /sys/fs/cgroup -mindepth 1 -type d | sort; }
instances() { ls /sys/kernel/tracing/instances 2>/dev/null | sort; }
mounts() { cut -d' ' -f2,3 /proc/mounts | grep -vx '/sys/kernel/debug/tracing tracefs' | sort; }
tmpfiles() { ls -A /tmp /dev/shm 2>/dev/null | grep -v -e '^/' -e '^$' | sort; }
# pid, then the command line: those not started by this script.
processes() {
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		[ "$pid" = "$me" ] && continue
		cmd=$(tr '\0' ' ' 2>/dev/null < "$p/cmdline") || continue
		[ -n "$cmd" ] || continue	# a kernel thread
		ppid=$(sed 's/.*) //' "$p/stat" 2>/dev/null | cut -d' ' -f2)
		[ "$ppid" = "$me" ] && continue
		echo "$pid $cmd"
	done | sort
}
# "key value" of the writable ones (a few processes: forks are slow under TCG).
sysctls() {
	find /proc/sys/kernel /proc/sys/vm /proc/sys/net/core -type f -perm -u+rw -print0 2>/dev/null |
		xargs -0 grep -sH '' | sed 's|^/proc/sys/||' |
		awk '{ i = index($0, ":"); k = substr($0, 1, i - 1); val = substr($0, i + 1)
			gsub("/", ".", k); gsub("\t", " ", val)
			if (k in v) v[k] = v[k] " " val; else v[k] = val }
			END { for (k in v) print k, v[k] }' | sort
}

case $1 in
snapshot)
	mkdir -p "$dir"
	for w in cgroups instances mounts tmpfiles processes sysctls; do
		$w > "$dir/$w"
	done ;;
check)
	bad=0
	for w in cgroup:cgroups instance:instances mount:mounts file:tmpfiles process:processes; do
		what=${w%%:*} w=${w#*:}
		$w > "$dir/$w.after"
		# What is there now and was not before.
		new=$(sort "$dir/$w" "$dir/$w" "$dir/$w.after" | uniq -u)
		[ -n "$new" ] || continue
		echo "$new" | sed "s/^/left behind: $what /"
		bad=1
	done
	sysctls > "$dir/sysctls.after"
	lowered=$(dmesg | sed -n 's/.*lowering kernel.perf_event_max_sample_rate to \([0-9]*\).*/\1/p' | tail -n1)
	# Keys whose values differ: "key before -> after".
	changed=$(awk 'NR == FNR { v[$1] = substr($0, length($1) + 2); next }
		($1 in v) && v[$1] != substr($0, length($1) + 2) { print $1, v[$1], "->", substr($0, length($1) + 2) }' \
		"$dir/sysctls" "$dir/sysctls.after" |
		grep -v -e '^kernel.random\.' -e '^kernel.ns_last_pid ' -e '^kernel.tainted ' \
			-e '^kernel.hung_task_detect_count ' -e '^kernel.hung_task_warnings ' |
		grep -v -x "kernel.perf_event_max_sample_rate [0-9]* -> ${lowered:-none}" || true)
	if [ -n "$changed" ]; then
		echo "$changed" | sed 's/^/left changed: sysctl /'
		bad=1
	fi
	[ -z "$lowered" ] || echo "note: the kernel itself lowered kernel.perf_event_max_sample_rate to $lowered (slow perf interrupts)"
	exit $bad ;;
*) echo "usage: leftovers.sh snapshot|check DIR" >&2; exit 2 ;;
esac
