# Shared by the lab's TAP shell tests (sourced, not run): cd to the lab's
# root, a private temp dir removed on exit (results of the commands a test
# runs go there too), and the TAP helpers.
#   ok 'shell condition' "description"    a test that passes when the condition holds
#   skip "description" "reason"           a skipped test, with its reason
#   done_testing                          the plan, at the end
cd "$(dirname "$0")/../.." || exit 1
LAB=$PWD/bin/memcg-lab
T=$(mktemp -d /tmp/memcg-lab-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
# Nothing a test runs leaves results in the lab's own results/.
export MEMCG_LAB_RESULTS=$T/results
n=0
ok() { n=$((n + 1)); if eval "$1"; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
done_testing() { echo "1..$n"; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# "memcg-lab-<pid>-<starttime>" of a process, as util/owner.h names things.
lab_owner_name_of() {
	local pid=$1 stat
	stat=$(cat "/proc/$pid/stat") || return 1
	stat=${stat##*) }
	# After the comm, field 3 (state) is $1: starttime, field 22, is $20.
	set -- $stat
	echo "memcg-lab-$pid-${20}"
}
# A test on an exit status: cmd; check $? "description".
check() { local st=$1; shift; ok "[ $st -eq 0 ]" "$*"; }
