#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A machine without tracefs mounted (every fresh one): a stat-read run as
# root mounts it itself, gets its lock data (flush counts, rstat lock
# holds), and leaves tracefs unmounted afterwards: at its end, after a
# SIGTERM, and after a SIGKILL once `memcg-lab cleanup` ran.  probe calls
# it mountable; a refused mount (a user namespace, as in a container) is
# one line naming the mount point and the errno, exit 2.  Runs in a mount
# namespace of its own, where it unmounts tracefs (the host's stays), with
# a host-state journal of its own.
. "$(dirname "$0")/lib/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (cgroups, mounting tracefs)"
in_private_mount_ns "$@"
unmount_tracefs || skip_all "cannot unmount tracefs in a private mount namespace"
export MEMCG_LAB_STATE_DIR=$T/state
out=$($LAB statread --dry-run --allocators 0 2>&1) || skip_all "$(echo "$out" | head -1)"

# Journal entries (not the lock file .mounts.lock).
journal() { find "$MEMCG_LAB_STATE_DIR" -type f ! -name '.*' 2>/dev/null | wc -l; }
# A lab instance left in tracefs by pid $1 (tracefs is mounted to look).
instance_left() {
	mount -t tracefs nodev /sys/kernel/tracing || return 2
	ls /sys/kernel/tracing/instances | grep -q "^memcg-lab-$1-"
	local st=$?
	umount /sys/kernel/tracing
	return $st
}
# A small stat-read run: statread NAME DURATION (exec: $! is the lab's pid).
statread() {
	exec $LAB statread --top 1 --children 2 --allocators 1 --interval 10ms --duration "$2" \
		--warmup 1 --results "$1"
}
# Lock data in results directory $1: flush counts and rstat holds.
lock_data() {
	awk -F'\t' 'NR == 2 && $1 == 1 && $2 > 0 { f = 1 } END { exit !f }' "$1/data/lock-flush.tsv" 2>/dev/null &&
		ls "$1"/data/hist-lock-hold.*rstat_ss_lock.tsv >/dev/null 2>&1 &&
		awk -F'\t' '/^[0-9]/ { s += $3 } END { exit !(s > 0) }' "$1"/data/hist-lock-hold.*rstat_ss_lock.tsv
}
# Waits until the run $1 traces: its instance is made before the warm-up
# with tracing off, and switched on when the measured phase starts.
wait_tracing() {
	local on
	for _ in $(seq 200); do
		on=$(cat /sys/kernel/tracing/instances/memcg-lab-$1-*/tracing_on 2>/dev/null)
		[ "$on" = 1 ] && return 0
		sleep 0.1
	done
	return 1
}

# probe on the running machine.
$LAB probe >"$T/probe" 2>&1
grep -Eq '^  tracefs +mountable$' "$T/probe"
check $? "probe: tracefs mountable ($(grep -A1 '^  tracefs' "$T/probe" | tail -1 | sed 's/^ *//'))"
$LAB probe --json | grep -Eq '"tracefs_state": ?"mountable"'
check $? "probe --json: tracefs_state mountable"
! tracefs_mounted
check $? "probe mounted nothing"

# A run to its end.
(statread end 3) >"$T/end.out" 2>&1
check $? "a stat-read run without tracefs mounted exits 0"
res=$(ls -d "$MEMCG_LAB_RESULTS"/*-end 2>/dev/null | head -1)
lock_data "$res"
check $? "it has lock data: flush counts ($(sed -n 2p "$res/data/lock-flush.tsv" 2>/dev/null)) and rstat holds"
lock_data "$res" || diag "$(grep -E 'memory.stat|flushes|missed|tracer' "$T/end.out")"
! grep -q 'lock collector' "$T/end.out" && ! grep -q 'Skipped: kernel flush counts' "$res/report.txt"
check $? "no lock collector warning, no skipped flush counts"
! tracefs_mounted && [ "$(journal)" = 0 ]
check $? "tracefs is unmounted afterwards, the journal empty"

# `memcg-lab run` of a tiny experiment: lock data in its report.txt.
cat >"$T/tiny.exp" <<'X'
[experiment]
name = tiny-lock
repeats = 1
[driver]
command = statread
top = 1
children = 2
allocators = 1
duration = 2s
warmup = 1s
interval = 10ms
X
$LAB run "$T/tiny.exp" >"$T/run.out" 2>&1
check $? "memcg-lab run of a tiny stat-read experiment exits 0"
res=$(ls -d "$MEMCG_LAB_RESULTS"/*-tiny-lock 2>/dev/null | head -1)
grep -Eq 'flushes \(memcg:memcg_flush_stats, .*\): [1-9][0-9]* calls' "$res/report.txt" &&
	grep -q 'hold time of the rstat flush lock: method rstat-tracepoints' "$res/report.txt" &&
	! sed -n '/^Skipped/,/^$/p' "$res/report.txt" | grep '^  ' | grep -qv '^  perf c2c: '
check $? "its report.txt has flush counts and rstat holds, nothing skipped (but perf c2c on a box without a memory PMU)"
grep -Eq '"tracefs_state": ?"mounted"' "$res/meta.json"
check $? "its probe in meta.json saw the tracefs the run mounted"
! tracefs_mounted && [ "$(journal)" = 0 ]
check $? "tracefs is unmounted after the run, the journal empty"

# SIGTERM mid-run.
(statread term 30) >"$T/term.out" 2>&1 &
pid=$!
wait_tracing $pid
check $? "the run mounted tracefs and started its tracer"
sleep 1
kill -TERM $pid
wait $pid
st=$?
[ $st = 143 ]
check $? "SIGTERM ends the run with 143 (got $st)"
res=$(ls -d "$MEMCG_LAB_RESULTS"/*-term 2>/dev/null | head -1)
lock_data "$res" && grep -Eq '"status": ?"interrupted"' "$res/meta.json"
check $? "the interrupted run still has its lock data, and says interrupted"
! tracefs_mounted && [ "$(journal)" = 0 ]
check $? "tracefs is unmounted after the SIGTERM, the journal empty"
! instance_left $pid
check $? "no tracefs instance left"

# SIGKILL mid-run, then cleanup.
(statread kill 30) >"$T/kill.out" 2>&1 &
pid=$!
wait_tracing $pid
check $? "a run to be killed has its tracer"
kill -KILL $pid
wait $pid 2>/dev/null
tracefs_mounted && [ "$(journal)" = 1 ]
check $? "after SIGKILL tracefs stays mounted, journaled"
$LAB cleanup >"$T/cleanup.out" 2>&1
check $? "memcg-lab cleanup exits 0"
grep -q "unmounted tracefs at /sys/kernel/tracing (owner pid $pid gone)" "$T/cleanup.out"
check $? "cleanup says it unmounted tracefs ($(grep tracefs "$T/cleanup.out" | tr '\n' ';'))"
! tracefs_mounted && [ "$(journal)" = 0 ]
check $? "tracefs is unmounted, the journal empty"
! instance_left $pid && ! ls -d /sys/fs/cgroup/memory/memcg-lab-$pid-* /sys/fs/cgroup/memcg-lab-$pid-* 2>/dev/null
check $? "the killed run's instance and cgroups are gone"

# A run where the mount fails (no /sys/kernel/tracing to mount it on, in a
# namespace of its own): a skip line naming the mount point, the run goes on.
unshare -m --propagation private sh -c 'mount -t tmpfs none /sys/kernel && exec "$@"' - \
	$LAB statread --top 1 --children 1 --allocators 1 --interval 10ms --duration 1 --warmup 0 \
	--results nomount >"$T/nomount.out" 2>&1
st=$?
res=$(ls -d "$MEMCG_LAB_RESULTS"/*-nomount 2>/dev/null | head -1)
[ $st = 0 ] && grep -A3 "^Skipped" "$res/report.txt" 2>/dev/null | grep -q "the lock collector did not start: cannot mount tracefs at /sys/kernel/tracing: No such file or directory"
check $? "a failed mount in a run: exit 0 with a skip line naming the mount point ($(grep 'skipping' "$T/nomount.out"))"
sed -n '/^Summary$/,/^$/p' "$res/report.txt" 2>/dev/null | head -20 | tr -s ' \n' ' ' |
	grep -q " skipped kernel flush counts (memcg:memcg_flush_stats): the lock collector did not start: cannot mount"
check $? "its report.txt's summary says so on the first screen"

# A mount refused (a user namespace: as root there, but no tracefs).
if unshare -U -r -m true 2>/dev/null; then
	unshare -U -r -m $LAB lock record -n refused -d 1 >"$T/ref.out" 2>"$T/ref.err"
	st=$?
	[ $st = 2 ] && [ "$(wc -l <"$T/ref.err")" = 1 ] &&
		grep -q "cannot mount tracefs at /sys/kernel/tracing: Operation not permitted" "$T/ref.err" &&
		[ -z "$(ls -d "$MEMCG_LAB_RESULTS"/*-refused 2>/dev/null)" ]
	check $? "a refused mount: exit 2, one line, no results ($(cat "$T/ref.err"))"
	unshare -U -r -m $LAB probe 2>&1 | grep -A1 '^  tracefs' | grep -q 'unavailable'
	check $? "probe there: tracefs unavailable (mounting it is refused)"
else
	skip "a refused mount: exit 2, one line" "no user namespaces here (unshare -U refused)"
	skip "probe there: tracefs unavailable" "no user namespaces here (unshare -U refused)"
fi

done_testing
