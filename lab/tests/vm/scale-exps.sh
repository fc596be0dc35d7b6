#!/bin/sh
# Runs inside the largest guest (lab/tests/vm-scale.sh): every shipped
# experiment (experiments/*.exp) at its full-size values -- no [small]:
# the guest has more CPUs than any small_cpus -- one repeat, each driver's
# duration cut to SCALE_DURATION seconds (default 2) and no warmup.  The
# statread allocators' page cache lives in the guest's /var/tmp, ext2 on a
# RAM disk (vm-init.sh; vm brings Debian's brd and ext4 modules): clean
# page cache is reclaimed without swap, and brd's own pages are charged to
# no memcg.  Into /out/results/checks/: <name>.{plan,out,rc,time},
# the overrides used (<name>.overrides), and leftovers.<name> (what the run
# left behind: lab/tests/vm/leftovers.sh).  <name>.time: the guest's
# uptime and the host's clock, before and after.  <name>.dmesg: the kernel's
# log during the run, with the blocked tasks' stacks (sysrq w) written 30 s
# before the timeout stops a run that is still going: what it waited on.
out=/out/results/checks
mkdir -p $out
d=${SCALE_DURATION:-2}
# The guest's uptime, then the host's seconds through qemu's RTC: under a
# loaded TCG host the guest's clock falls behind the host's (ticks lost).
now() { echo "$(cut -d' ' -f1 /proc/uptime) $(cat /sys/class/rtc/rtc0/since_epoch 2>/dev/null || echo 0)"; }
grep '^var_tmp: ext2 ' /out/guest.txt > $out/ramdisk.out ||
	{ echo "no disk filesystem on /var/tmp: $(grep '^var_tmp:' /out/guest.txt)"; exit 1; }
sh /lab/lab/tests/vm/leftovers.sh snapshot /tmp/state
for x in experiments/*.exp; do
	name=$(basename "$x" .exp)
	[ -z "${SCALE_ONLY:-}" ] || echo " $SCALE_ONLY " | grep -q " $name " || continue
	# "-s SECTION.KEY=V" for each [driver ...] section: a short duration,
	# no warmup; statread's work-bound run (duration 0) ends after it too.
	set -- -s experiment.repeats=1
	for sec in $(awk '/^\[driver( [a-z0-9-]+)?\]$/ { s = substr($0, 2, length($0) - 2); gsub(/ /, "@", s); print s }' "$x"); do
		sec=$(echo "$sec" | tr @ ' ')
		set -- "$@" -s "$sec.duration=${d}s" -s "$sec.warmup=0s"
	done
	printf '%s\n' "$@" > $out/$name.overrides
	memcg-lab run --plan "$x" "$@" > $out/$name.plan 2>&1
	t0=$(now)
	# Its progress lines on the console too (what a stuck run was doing);
	# SCALE_EXP_TIMEOUT seconds at most, then SIGINT (the lab undoes its
	# cgroups on it), so that one stuck run does not cost the others.
	set -o pipefail
	dmesg -c > /dev/null
	lim=${SCALE_EXP_TIMEOUT:-900}
	( sleep $((lim > 60 ? lim - 30 : lim / 2)) && echo w > /proc/sysrq-trigger ) &
	watch=$!
	timeout -s INT "$lim" memcg-lab run "$x" "$@" 2>&1 | tee $out/$name.out
	echo $? > $out/$name.rc
	kill $watch 2>/dev/null
	dmesg > $out/$name.dmesg
	echo "$t0 $(now)" > $out/$name.time
	echo "$name: exit $(cat $out/$name.rc), $(awk '{ printf "%.0f s (%.0f s guest time)", $4 - $2, $3 - $1 }' $out/$name.time)"
	sh /lab/lab/tests/vm/leftovers.sh check /tmp/state > $out/leftovers.$name 2>&1
	echo $? >> $out/leftovers.$name
done
exit 0
