#!/bin/bash
# The stop bound (util/cleanup.h): after the first SIGINT/SIGTERM/SIGHUP a
# lab process ignores further ones while it stops its children and removes
# what it made, for at most MEMCG_LAB_STOP_TIMEOUT seconds (default 60).
# Past that it prints one line naming what is left and the `memcg-lab
# cleanup` that removes it, and exits; cleanup then removes it.
#   - a bad MEMCG_LAB_STOP_TIMEOUT: one line naming it, exit 2;
#   - a runner whose driver is stuck (SIGSTOP): SIGTERM twice; the second
#     is noted and ignored, and the runner gives up at its bound naming the
#     driver and the cleanup command; the driver's tree is then removed by
#     `memcg-lab cleanup`;
#   - a driver whose workers cannot die (frozen by the cgroup v1 freezer,
#     where SIGKILL waits for the thaw): it gives up at its bound naming
#     its own cgroup tree.
# (kill.sh's storms check that a run that can stop leaves nothing.)
set -u
. "$(dirname "$0")/lib/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (runs create cgroups)"
memroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -z "$memroot" ] && memroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$memroot" ] || skip_all "no memory controller mounted"
export MEMCG_LAB_STATE_DIR=$T/state

for v in abc 0 -3 3601 "5s" ""; do
	out=$(MEMCG_LAB_STOP_TIMEOUT=$v "$LAB" cleanup --dry-run 2>&1 >/dev/null); rc=$?
	[ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		printf '%s\n' "$out" | grep -q "MEMCG_LAB_STOP_TIMEOUT='$v': not a whole number of seconds from 1 to 3600"
	check $? "MEMCG_LAB_STOP_TIMEOUT='$v': one line naming it, exit 2 (exit $rc: $out)"
done

# Seconds since $1 (date +%s.%N).
since() { awk -v t0="$1" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", t1 - t0 }'; }
# The first child of $1 that runs `memcg-lab charge` and has made its tree.
driver_with_tree() {
	local c
	for _ in $(seq 300); do
		for c in $(cat /proc/$1/task/*/children 2>/dev/null); do
			tr '\0' ' ' < /proc/$c/cmdline 2>/dev/null | grep -q "charge" &&
				ls "$memroot" | grep -q "^memcg-lab-$c-" && ls "$memroot"/memcg-lab-$c-*/ | grep -q . &&
				{ echo $c; return; }
		done
		sleep 0.1
	done
}

# ---- a stuck driver: the runner's bound ----
cat > "$T/long.exp" <<'X'
[experiment]
name = long
repeats = 1
[driver anon]
command = charge
mode = anon
tasks = 2
cgroups = 2
duration = 60
warmup = 0
X
MEMCG_LAB_STOP_TIMEOUT=4 setsid "$LAB" run "$T/long.exp" >"$T/run.out" 2>&1 &
runner=$!
driver=$(driver_with_tree $runner)
ok '[ -n "$driver" ]' "the runner's driver is running in its cgroup tree (pid ${driver:-none})"
if [ -n "$driver" ]; then
	tree=$(ls "$memroot" | grep "^memcg-lab-$driver-")
	kill -STOP "$driver"
	t0=$(date +%s.%N)
	kill -TERM $runner; sleep 0.2; kill -TERM $runner
	wait $runner; rc=$?
	took=$(since "$t0")
	line=$(grep "gave up stopping" "$T/run.out")
	ok '[ $rc = 143 ] && awk -v s="$took" "BEGIN { exit !(s >= 3.5 && s < 8) }"' \
		"the runner gives up 4 s after the first SIGTERM (after $took s; exit $rc) and dies by it"
	ok '[ "$(grep -c "SIGTERM again: ignored while this process stops its children" "$T/run.out")" = 1 ]' \
		"the second SIGTERM is noted in one line and ignored"
	ok '[ "$(printf "%s\n" "$line" | grep -c .)" = 1 ] &&
	    printf "%s\n" "$line" | grep -q "gave up stopping 4 s after SIGTERM: left .*process $driver (memcg-lab charge) still stopping.*; \`memcg-lab cleanup\` removes what is left"' \
		"one line names the stuck driver and the cleanup command: $line"
	# The driver dies with the runner (PDEATHSIG, SIGKILL wakes it), its tree stays.
	for _ in $(seq 50); do [ -d /proc/$driver ] || break; sleep 0.1; done
	ok '[ ! -d /proc/$driver ] && [ -d "$memroot/$tree" ]' \
		"the driver died with the runner and left its tree $tree"
	out=$("$LAB" cleanup 2>&1)
	ok '[ ! -d "$memroot/$tree" ] && printf "%s\n" "$out" | grep -q "removed cgroup $memroot/$tree"' \
		"memcg-lab cleanup removes it"
fi
kill -KILL $runner ${driver:-} 2>/dev/null

# ---- workers that cannot die: the driver's own bound ----
freezer=$(awk '$3 == "cgroup" && $4 ~ /(^|,)freezer(,|$)/ { print $2; exit }' /proc/self/mounts)
if [ -z "$freezer" ]; then
	skip "a driver with frozen workers gives up at its bound, naming its tree" \
		"no cgroup v1 freezer mounted (cgroup v2's freezer lets SIGKILL through)"
else
	ice=$freezer/stop-bound-test-$$
	mkdir "$ice"
	trap 'echo THAWED > "$ice/freezer.state" 2>/dev/null; sleep 0.5; rmdir "$ice" 2>/dev/null; rm -rf "$T"' EXIT
	MEMCG_LAB_STOP_TIMEOUT=3 setsid "$LAB" charge --mode anon --tasks 2 --cgroups 2 --duration 60 --warmup 0 \
		>"$T/charge.out" 2>&1 &
	drv=$!
	for _ in $(seq 300); do
		tree=$(ls "$memroot" | grep "^memcg-lab-$drv-")
		[ -n "$tree" ] && [ "$(cat "$memroot/$tree"/*/cgroup.procs 2>/dev/null | wc -l)" -ge 2 ] && break
		sleep 0.1
	done
	workers=$(cat "$memroot/$tree"/*/cgroup.procs 2>/dev/null)
	for w in $workers; do echo $w > "$ice/cgroup.procs"; done
	echo FROZEN > "$ice/freezer.state"
	t0=$(date +%s.%N)
	kill -TERM $drv; sleep 0.005; kill -TERM $drv
	wait $drv; rc=$?
	took=$(since "$t0")
	line=$(grep "gave up stopping" "$T/charge.out")
	ok '[ -n "$workers" ] && [ $rc = 143 ] && awk -v s="$took" "BEGIN { exit !(s >= 2.5 && s < 6) }"' \
		"a driver whose workers are frozen gives up 3 s after the first SIGTERM (after $took s; exit $rc)"
	ok '[ "$(printf "%s\n" "$line" | grep -c .)" = 1 ] &&
	    printf "%s\n" "$line" | grep -q "gave up stopping 3 s after SIGTERM: left cgroup tree $memroot/$tree.*\`memcg-lab cleanup\`"' \
		"one line names its cgroup tree and the cleanup command: $line"
	echo THAWED > "$ice/freezer.state"
	for _ in $(seq 50); do [ -z "$(cat "$ice/cgroup.procs")" ] && break; sleep 0.1; done
	out=$("$LAB" cleanup 2>&1)
	ok '[ ! -d "$memroot/$tree" ]' "once thawed, memcg-lab cleanup removes the tree ($(printf '%s' "$out" | head -1))"
	kill -KILL $drv 2>/dev/null
fi
done_testing
