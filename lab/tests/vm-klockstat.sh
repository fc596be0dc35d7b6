#!/bin/sh
# TAP: the lab's hold times of stats_user_flush_mutex against the reference
# tool's, on one run in the lab kernel (make lab-kernel): klockstat, from
# Debian's libbpf-tools (bookworm's 0.26: fentry/fexit on mutex_lock and
# mutex_unlock, count, average, maximum and total per caller), brought into
# the guest with --add like the lab's own binary, and the lab's lock
# collector (lock record, bpf-fentry: fexit of mutex_lock to fentry of
# mutex_unlock on the mutex's address) around 16 memory.stat readers
# (lab/tests/vm/klockstat-check.sh).  Both see every acquisition, so:
#   - the hold counts are equal;
#   - mean and max hold agree within 10% (the two programs run on the same
#     trampolines, a few instructions apart);
#   - p50 is not compared: klockstat has no percentiles.
# A klockstat that cannot attach (or attaches kprobes, where the kernel has
# no fentry) skips the comparison with its reason: it is never a pass.
# LAB_KERNEL (7.3 by default) picks the lab kernel.
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"
lab/scripts/lab-kernel.sh --print >/dev/null 2>"$tmp/print.err" ||
	skip_all "no ${LAB_KERNEL:-7.3} lab kernel built (make lab-kernel)$(head -c 200 "$tmp/print.err" | tr '\n' ' ')"
(cd "$tmp" && apt-get download libbpf-tools >/dev/null 2>"$tmp/apt.err") ||
	skip_all "cannot get Debian's libbpf-tools (klockstat): $(tail -n1 "$tmp/apt.err")"
dpkg-deb -x "$tmp"/libbpf-tools_*.deb "$tmp/bt" && [ -x "$tmp/bt/usr/sbin/klockstat" ] ||
	skip_all "Debian's libbpf-tools package has no usr/sbin/klockstat"
kver=$(dpkg-deb -f "$tmp"/libbpf-tools_*.deb Version)

res=$tmp/res
MEMCG_LAB_RESULTS=$res $lab vm --kernel lab --cpus 2 --timeout 600 \
	--add lab/tests/vm --add "$tmp/bt/usr/sbin/klockstat" --env "KLOCKSTAT=$tmp/bt/usr/sbin/klockstat" \
	--shell 'sh lab/tests/vm/klockstat-check.sh' >"$tmp/vm.out" 2>&1
rc=$?
d=$(one_dir "$res")
c=$d/results/checks
check $rc "the lab kernel guest booted and ran the readers under klockstat and lock record ($(jget "$d/meta.json" vm.accel), $(jget "$d/meta.json" vm.guest_kernel))"
[ $rc = 0 ] || { diag "$(tail -n 20 "$tmp/vm.out")"; done_testing; exit; }

method=$(cat "$c/klockstat.method" 2>/dev/null)
krc=$(cat "$c/klockstat.rc" 2>/dev/null)
case $method in
fentry*) ;;
*)
	why=$(grep -v '^libbpf: ' "$c/klockstat.err" 2>/dev/null | tail -n1)
	skip "klockstat $kver against the lab's hold times" \
		"klockstat did not attach by fentry (${method:-it did not start}; exit ${krc:-?}: ${why:-no message})"
	done_testing
	exit ;;
esac
check "$krc" "klockstat $kver attached by $method and printed its table (exit $krc)"
check "$(cat "$c/klockstat-lab.rc")" "lock record around the readers exits 0"
[ "$(cat "$c/klockstat-lab.rc")" = 0 ] || diag "$(tail -n 5 "$c/klockstat-lab.err")"

r=$(ls -d "$d"/results/*-lock-klockstat 2>/dev/null | head -n1)
sh lab/tests/vm/klockstat-table.sh "$c" "$r" > "$tmp/table"
row() { awk -v t="$1" -v m="$2" '$1 == t && $2 == m { print $3, $4, $5, $6, $7 }' "$tmp/table"; }
set -- $(row klockstat hold)
k_cnt=${1:-0} k_mean=${2:-0} k_max=${4:-0}
set -- $(row lab hold)
l_cnt=${1:-0} l_mean=${2:-0} l_p50=${3:--} l_max=${4:-0} l_method=${5:-none}

diag "stats_user_flush_mutex, one run, under $(jget "$d/meta.json" vm.accel) (absolute times are the emulator's):"
diag "$(printf '%-10s %-5s %8s %12s %12s %12s %s\n' tool measure count mean_ns p50_ns max_ns method; \
		while read -r l; do printf '%-10s %-5s %8s %12s %12s %12s %s\n' $l; done < "$tmp/table")"

[ "$l_method" = bpf-fentry ]
check $? "the lab measured the holds by fentry/fexit like klockstat (method $l_method)"
[ "$k_cnt" -gt 0 ] && [ "$k_cnt" = "$l_cnt" ]
check $? "hold counts are equal: lab $l_cnt, klockstat $k_cnt"
within() {	# a b: |a - b| <= 10% of b, both > 0
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && b > 0 && (a - b) <= 0.1 * b && (b - a) <= 0.1 * b) }'
}
within "$l_mean" "$k_mean"
check $? "mean hold within 10%: lab $l_mean ns, klockstat $k_mean ns"
# The largest hold is one acquisition: under TCG (single-threaded, the
# vCPUs in turns) a vCPU switch can fall between the two tools' programs
# on one trampoline and give one of them a timeslice more (lab 14.7 ms
# against klockstat's 8 ms once, with the other test queue loading the
# host; the means agreed).  Within 10% under KVM; under TCG within 2x.
accel=$(jget "$d/meta.json" vm.accel)
if [ "$accel" = kvm ]; then
	within "$l_max" "$k_max"
else
	awk -v a="$l_max" -v b="$k_max" 'BEGIN { exit !(a > 0 && b > 0 && a <= 2 * b && b <= 2 * a) }'
fi
check $? "max hold within $([ "$accel" = kvm ] && echo 10% || echo "2x ($accel: a vCPU switch between the two tools' programs is one timeslice)"): lab $l_max ns, klockstat $k_max ns"
skip "p50 hold against klockstat's" "klockstat prints count, average, max and total only (no percentiles); the mean stands in (lab p50 $l_p50 ns)"
done_testing
