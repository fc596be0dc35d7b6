# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the lab's shell tests (sourced; tests/tap.h is the C twin).
#   ok COND_EXIT_STATUS "what"   (use: ok $? "what", or: check CMD...; ok $? ...)
#   skip "what" "why"; skip_all "why"; diag "text"; done_testing
TAP_N=0
TAP_FAILED=0

ok() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

diag() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
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
