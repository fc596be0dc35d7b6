# The one TAP library of the lab's shell tests, lab/tests/*.sh and the guest
# tests lab/tests/vm-*.sh (sourced, not run; plain sh): cd to the lab's
# root, a private temp dir $T removed on exit (results of the commands a
# test runs go there too; TAP_KEEP=1 keeps it), and the TAP helpers.
#   ok 'shell condition' "description"    passes when the condition, eval'd, holds
#   check STATUS "description"            passes when STATUS (of the command just run) is 0
#   skip "description" "reason"           a skipped test, with its reason
#   skip_all "reason"                     the whole file skipped: plan 1..0, exit 0
#   diag "line"... | diag                 comment lines (#), from arguments or stdin
#   done_testing                          the plan, at the end; fails when a test failed
# ok and check return the test's own status, so that `ok ... || diag ...`
# adds what was seen on failure.
cd "$(dirname "$0")/../.." || exit 1
LAB=$PWD/bin/memcg-lab
T=$(mktemp -d "${TMPDIR:-/tmp}/memcg-lab-test.XXXXXX")
# TAP_KEEP=1 keeps $T (what the commands wrote: results, plots) to look at.
if [ -n "${TAP_KEEP:-}" ]; then
	trap 'echo "# kept $T" >&2' EXIT
else
	trap 'rm -rf "$T"' EXIT
fi
# Nothing a test runs leaves results in the lab's own results/.
export MEMCG_LAB_RESULTS=$T/results
n=0
failed=0
tap_result() {	# status description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; return 0; fi
	echo "not ok $n - $2"
	failed=$((failed + 1))
	return 1
}
ok() { eval "$1"; tap_result $? "$2"; }
check() { tap_result "$1" "$2"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
done_testing() { echo "1..$n"; [ "$failed" = 0 ]; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
diag() {
	if [ $# = 0 ]; then sed 's/^/# /'; else printf '%s\n' "$@" | sed 's/^/# /'; fi
}
# "memcg-lab-<pid>-<starttime>" of a process, as util/owner.h names things.
lab_owner_name_of() {
	local pid=$1 stat
	stat=$(cat "/proc/$pid/stat") || return 1
	stat=${stat##*) }
	# After the comm, field 3 (state) is $1: starttime, field 22, is $20.
	set -- $stat
	echo "memcg-lab-$pid-${20}"
}
# Re-runs the test in a mount namespace of its own (call it right after
# sourcing this file, with "$@"), so that it may unmount or mount tracefs
# without touching the host's; skips when the namespace cannot be made.
in_private_mount_ns() {
	[ -n "${LAB_TEST_PRIVATE_NS:-}" ] && return 0
	command -v unshare >/dev/null || skip_all "no unshare (util-linux) for a private mount namespace"
	unshare -m --propagation private true 2>/dev/null ||
		skip_all "cannot make a private mount namespace here (unshare -m refused)"
	rm -rf "$T"
	trap - EXIT
	LAB_TEST_PRIVATE_NS=1 exec unshare -m --propagation private "$0" "$@"
}
# In such a namespace: every tracefs mount gone, as on a fresh machine.
unmount_tracefs() {
	awk '$3 == "tracefs" { print $2 }' /proc/self/mounts | sort -r | while read -r m; do
		umount "$m" || return 1
	done
}
tracefs_mounted() { awk '$3 == "tracefs" { f = 1 } END { exit !f }' /proc/self/mounts; }
# In such a namespace: tracefs at /sys/kernel/tracing, for a test that
# looks at its instances (the namespace's mount goes with the test).
mount_tracefs() {
	[ -d /sys/kernel/tracing/instances ] && return 0
	mount -t tracefs nodev /sys/kernel/tracing
}
