#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The stat-read workload's own costs: reader self-cost per memory.stat read
# (target <= 5% of the read) and histogram record cost per value (target:
# cheaper than keeping every value and sorting), each next to what a user
# would otherwise use (cat in a loop; keep-all-and-sort).  The program must
# exit 0 and print both figures, or the benchmark fails.
set -u
cd "$(dirname "$0")/../.."
. lab/bench/lib/bench.sh
SELF="statread reader self-cost, share of the read"
HIST="statread hist_record vs keep-all+qsort, speed-up"
echo "== statread: reader self-cost and histogram record cost"
out=$(mktemp /tmp/memcg-lab-bench.XXXXXX) || exit 2
trap 'rm -f "$out"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
build/bench/statread-selfcost "$@" >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" = 0 ] || { echo "bench statread: statread-selfcost exited $rc" >&2; exit 2; }
why=$(sed -n 's/^reader self-cost: SKIPPED: //p' "$out")
if [ -n "$why" ]; then
	bench_skip "$SELF" "<= 5%" "$why"
else
	bench_target "$SELF" '<=' 5 "$(sed -n 's/.* per read = \([0-9.]*\)% of the read.*/\1/p' "$out")" %
fi
bench_target "$HIST" '>=' 1 "$(sed -n 's/.* per value: \([0-9.]*\)x hist_record.*/\1/p' "$out")" x
bench_exit
