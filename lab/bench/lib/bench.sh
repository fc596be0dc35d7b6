# SPDX-License-Identifier: GPL-2.0
# Sourced by every lab/bench/*.sh (POSIX sh).  Each target a benchmark
# checks becomes one row, "metric<TAB>target<TAB>measured<TAB>verdict",
# appended to the file $BENCH_TABLE names (set by lab/bench/lib/run.sh,
# which `make bench` runs and which prints the rows of all benchmarks as
# one table at the end); the same line is printed for a reader of this
# benchmark alone.  Verdicts: met, MISSED, SKIPPED (reason).  A benchmark
# ends with bench_exit: status 1 when one of its targets was missed.
# Errors (a timed command failed, nothing measured) exit 2 at once.

bench_missed=0

bench_row() {	# metric target measured verdict
	printf '%s: %s (target %s): %s\n' "$1" "$3" "$2" "$4"
	if [ -n "${BENCH_TABLE:-}" ]; then
		printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$BENCH_TABLE" || {
			echo "bench: cannot append to $BENCH_TABLE" >&2
			exit 2
		}
	fi
}

# bench_target METRIC OP TARGET MEASURED [UNIT]: OP is >= or <=; MEASURED
# must be a number (anything else is an error of the benchmark: exit 2).
bench_target() {
	verdict=$(awk -v m="$4" -v t="$3" -v op="$2" 'BEGIN {
		if (m !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) { print "ERROR"; exit }
		ok = op == ">=" ? m + 0 >= t + 0 : op == "<=" ? m + 0 <= t + 0 : -1
		print ok < 0 ? "ERROR" : ok ? "met" : "MISSED" }')
	if [ "$verdict" = ERROR ]; then
		echo "bench: $1: measured '$4' is not a number (or '$2' is not >= or <=)" >&2
		exit 2
	fi
	[ "$verdict" = MISSED ] && bench_missed=1
	bench_row "$1" "$2 $3${5:-}" "$4${5:-}" "$verdict"
}

# bench_equal METRIC WANT GOT: a correctness target (e.g. the same rows).
bench_equal() {
	if [ "$2" = "$3" ]; then
		bench_row "$1" "$2" "$3" met
	else
		bench_missed=1
		bench_row "$1" "$2" "$3" MISSED
	fi
}

# bench_skip METRIC TARGET REASON: a target this machine cannot measure.
bench_skip() {
	bench_row "$1" "$2" "-" "SKIPPED ($3)"
}

bench_exit() {
	exit "$bench_missed"
}

bench_median() {	# numbers on stdin, one a line
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit 1; print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_time OUT CMD...: runs CMD (stdout and stderr to OUT) and prints its
# wall seconds; a command that fails ends the benchmark (exit 2) with its
# status and the end of its output, so a failed run is never timed.
bench_time() {
	bench_time_ok 0 "$@"
}

# bench_time_ok "STATUS..." OUT CMD...: the same, for a command whose
# documented statuses include more than 0 (layout --check: 1, a rule FAILs).
bench_time_ok() {
	ok=$1 out=$2
	shift 2
	t0=$(date +%s%N)
	"$@" >"$out" 2>&1
	rc=$?
	t1=$(date +%s%N)
	case " $ok " in
	*" $rc "*) ;;
	*)
		echo "bench: '$*' exited $rc:" >&2
		tail -5 "$out" >&2
		exit 2
		;;
	esac
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }'
}
