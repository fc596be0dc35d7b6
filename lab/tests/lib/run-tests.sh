#!/bin/bash
# make test's runner: every TAP program given, through prove, in two queues
# at once (two CPUs: a guest's qemu is one busy thread):
#   - the guest files (lab/tests/vm-*.sh), one after the other;
#   - everything else, one after the other (the files that make lab cgroups
#     or mount tracefs never run beside each other);
# then the ASan+UBSan builds of the unit tests (ASAN_BINS), then the ten
# slowest files and how long the whole took.  Exit 1 when a file failed.
#
#   run-tests.sh TEST... -- ASAN_BIN...
#
# RUN_TESTS_SERIAL=1 runs the two queues one after the other (to measure a
# file alone); each queue's whole output is kept in $RUN_TESTS_LOG (default
# build/test-logs/) and printed once its queue is done.  RUN_TESTS_GUESTS=N
# (default 2) splits the guest files into N queues, the longest first onto
# the queue with the least so far (their CPU seconds measured here below;
# a file not in the list counts 60): the other files mostly wait (sleeps,
# stops, perf's windows), the guests are CPU-bound, and two of them share
# the two CPUs with them.
set -u
cd "$(dirname "$0")/../../.." || exit 2
logs=${RUN_TESTS_LOG:-build/test-logs}
mkdir -p "$logs" || exit 2
rm -f "$logs"/*.log
t0=$(date +%s)

guests=() others=() asan=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case $1 in
	*/vm-*.sh) guests+=("$1") ;;
	*) others+=("$1") ;;
	esac
	shift
done
[ $# -gt 0 ] && shift
asan=("$@")

# CPU seconds of each guest file in a make test here (quiet, 2 CPUs).
guest_weight() {
	case ${1##*/} in
	vm-probe-lines.sh) echo 530 ;; vm-ab.sh) echo 205 ;; vm-kernels.sh) echo 145 ;;
	vm-lines-split.sh) echo 83 ;; vm-lines.sh) echo 100 ;; vm-bigguest.sh) echo 52 ;;
	vm-lines-errors.sh) echo 45 ;; vm-errors.sh) echo 35 ;; vm-klockstat.sh) echo 31 ;;
	vm-experiments.sh) echo 19 ;; vm-perf.sh) echo 17 ;; *) echo 60 ;;
	esac
}

queue() {	# NAME FILE...: one prove over the files, into $logs/NAME.log
	local name=$1; shift
	[ $# -gt 0 ] || { echo "(no $name files)" > "$logs/$name.log"; return 0; }
	prove --timer -f "$@" > "$logs/$name.log" 2>&1
}

# The lab's own files print as they go; the guests' queue, into its log,
# is printed once both are done.
echo "=== the lab's tests (${#others[@]} files; the ${#guests[@]} guest files beside them)"
if [ -n "${RUN_TESTS_SERIAL:-}" ]; then
	prove --timer -f ${others[@]+"${others[@]}"} 2>&1 | tee "$logs/others.log"; st_o=${PIPESTATUS[0]}
	queue guests ${guests[@]+"${guests[@]}"}; st_g=$?
else
	nq=${RUN_TESTS_GUESTS:-2}
	case $nq in '' | *[!0-9]* | 0) nq=1 ;; esac
	# The guest files, heaviest first, each onto the lightest queue.
	qfiles=() qload=()
	for ((q = 0; q < nq; q++)); do qfiles[q]="" qload[q]=0; done
	while read -r w f; do
		[ -n "$f" ] || continue
		best=0
		for ((q = 1; q < nq; q++)); do [ "${qload[q]}" -lt "${qload[best]}" ] && best=$q; done
		qfiles[best]="${qfiles[best]} $f"
		qload[best]=$((qload[best] + w))
	done < <(for f in ${guests[@]+"${guests[@]}"}; do echo "$(guest_weight "$f") $f"; done | sort -rn)
	gpids=()
	for ((q = 0; q < nq; q++)); do
		# shellcheck disable=SC2086
		queue "guests$q" ${qfiles[q]} &
		gpids+=($!)
	done
	# A stop of make test stops the guests' queues too.
	trap 'kill "${gpids[@]}" 2>/dev/null; wait; exit 130' INT TERM HUP
	prove --timer -f ${others[@]+"${others[@]}"} 2>&1 | tee "$logs/others.log"; st_o=${PIPESTATUS[0]}
	st_g=0
	for p in "${gpids[@]}"; do wait "$p" || st_g=1; done
	trap - INT TERM HUP
	cat "$logs"/guests[0-9]*.log > "$logs/guests.log"
fi
echo "=== the guest tests (${#guests[@]} files in ${RUN_TESTS_GUESTS:-2} queues, run beside the others)"
cat "$logs/guests.log"
st_a=0
if [ ${#asan[@]} -gt 0 ]; then
	echo "=== the unit tests under ASan+UBSan (${#asan[@]} files)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		prove --timer -f "${asan[@]}" > "$logs/asan.log" 2>&1
	st_a=$?
	cat "$logs/asan.log"
fi

# prove --timer: "[HH:MM:SS] FILE ..... ok   1234 ms ( ... )"
echo "=== the ten slowest files"
cat "$logs/others.log" "$logs/guests.log" "$logs/asan.log" 2>/dev/null | awk '/^\[[0-9:]+\] / && / ms / {
		for (i = 1; i <= NF; i++) if ($i == "ms") { print $(i - 1), $2 }
	}' | sort -rn | head -n 10 | awk '{ printf "  %8.1f s  %s\n", $1 / 1000, $2 }'
secs=$(( $(date +%s) - t0 ))
echo "=== make test's files took $((secs / 60)) min $((secs % 60)) s"
[ "$st_o" = 0 ] && [ "$st_g" = 0 ] && [ "$st_a" = 0 ]
