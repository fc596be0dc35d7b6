#!/bin/sh
# TAP (make scaletest; not part of make vmtest): every shipped experiment
# at full size in the largest guest that boots here in 5 minutes under TCG
# (SCALE_CPUS, default 128 vCPUs: 2 sockets x 32 cores x 2 threads, 4 NUMA
# nodes, SCALE_MEM MiB), one repeat, SCALE_DURATION s per driver run
# (lab/tests/vm/scale-exps.sh).  Each must complete, run at full size (no
# "scaled down"), and its report must hold every step its plan in that
# guest names, with the full-size shapes: statread-flush's 50 x 5 tree with
# 10 allocators per leaf, the read-contention tree of 200 x 5 and up to
# 10000 readers, stock-netperf's 6..36 pairs, charge-batch's 36 clients.
# Nothing may be left behind in the guest after each one.
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	{ echo "1..0 # SKIP qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"; exit 0; }
k=${SCALE_KERNEL:-7.3}
cpus=${SCALE_CPUS:-128}
# statread-flush's limits let its tree use 6.1 GiB, which must stay under half
# of the guest's memory (8 GiB was refused).
mem=${SCALE_MEM:-14336}
if ! $lab vm --fetch --kernel "$k" >/dev/null 2>"$tmp/fetch.err"; then
	echo "1..0 # SKIP cannot get kernel $k: $(tail -n1 "$tmp/fetch.err")"
	exit 0
fi

t0=$(date +%s)
MEMCG_LAB_RESULTS=$tmp/scale $lab vm --kernel "$k" --cpus "$cpus" --sockets 2 --nodes 4 --threads-per-core 2 \
	--mem "$mem" --timeout "${SCALE_TIMEOUT:-7200}" --add lab/tests/vm --env "SCALE_DURATION=${SCALE_DURATION:-2}" \
	--env "SCALE_ONLY=${SCALE_ONLY:-}" --env "SCALE_EXP_TIMEOUT=${SCALE_EXP_TIMEOUT:-900}" --shell 'sh lab/tests/vm/scale-exps.sh' >"$tmp/o" 2>&1
rc=$?
d=$(one_dir "$tmp/scale")
g=$d/results/checks
boot=$(jget "$d/meta.json" vm.guest_uptime_at_start)
check $rc "a $cpus-vCPU guest ran the experiment set ($(($(date +%s) - t0)) s in all; /init after $boot s guest time)"
[ $rc = 0 ] || { diag "$(tail -n 8 "$tmp/o")"; done_testing; exit; }

for x in experiments/*.exp; do
	name=$(basename "$x" .exp)
	[ -f "$g/$name.rc" ] || continue
	r=$(ls -d "$d"/results/*-"$name" 2>/dev/null | head -n1)
	secs=$(awk '{ printf "%.0f s (%.0f s guest time)", $4 - $2, $3 - $1 }' "$g/$name.time")
	[ "$(cat "$g/$name.rc")" = 0 ] && [ -n "$r" ] && [ "$(jget "$r/meta.json" status)" = complete ] &&
		[ -z "$(jget "$r/meta.json" scaled)" ] && ! grep -q '^  scaled down' "$r/report.txt"
	check $? "$name completes at full size in $secs"
	[ "$(cat "$g/$name.rc")" = 0 ] || diag "$(tail -n 6 "$g/$name.out")"
	[ -n "$r" ] || continue
	# Every step of the plan (the first column of its step tables) is in the report.
	steps=$(awk '/^  step +level/ { on = 1; next } /^  c2c window|^phase|^$/ { on = 0 } on { print $1 }' "$g/$name.plan" |
		tr '\n' ' ' | sed 's/ $//')
	missing=""
	for s in $steps; do
		# A phase's one unnamed step ("-") has no row name of its own to look for.
		[ "$s" != - ] || continue
		grep -q "^  $(echo "$s" | sed 's/[.[*^$]/\\&/g') " "$r/report.txt" || missing="$missing $s"
	done
	[ -n "$steps" ] && [ -z "$missing" ]
	check $? "$name: its report has every planned step ($steps${missing:+; missing:$missing})"
	tail -n1 "$g/leftovers.$name" | grep -qx 0
	check $? "$name left nothing behind in the guest"
	grep -q '^left' "$g/leftovers.$name" && diag "$(grep '^left' "$g/leftovers.$name" | head -n 5)"
	case $name in
	statread-flush) p='50 top x 5 leaves = 301 memory cgroups' w='2500 allocators (10 per leaf' ;;
	statread-read-contention) p='200 top x 5 leaves' w='10000 readers' ;;
	stock-netperf) p='tasks=36 ' w='36 memory cgroups' ;;
	charge-batch) p='a 3x1 hierarchy' w='36 client/receiver pairs' ;;
	*) continue ;;
	esac
	grep -qF "$p" "$g/$name.plan" && grep -qF "$w" "$g/$name.plan"
	check $? "$name: the plan in the guest has the full-size shape ('$p', '$w')"
done
diag "$(cat "$g/ramdisk.out" 2>/dev/null)"
done_testing
