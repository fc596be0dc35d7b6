#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make bench`: runs each benchmark given (lab/bench/*.sh), collects the
# target rows they append to $BENCH_TABLE (lab/bench/lib/bench.sh), and
# prints them as one table.  Every benchmark runs, whatever the others did.
# Exit status 1 when a target was missed or a benchmark failed (a
# benchmark that exits non-zero without a MISSED row gets a FAILED row
# saying so); skipped targets are listed with their reason and do not fail.
set -u
table=$(mktemp /tmp/memcg-lab-bench-table.XXXXXX) || exit 2
trap 'rm -f "$table"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export BENCH_TABLE="$table"
for b in "$@"; do
	name=$(basename "$b" .sh)
	echo "== bench $name"
	before=$(wc -l <"$table")
	"$b"
	rc=$?
	if [ "$rc" != 0 ] && ! tail -n +$((before + 1)) "$table" | cut -f4 | grep -qx MISSED; then
		printf '%s\t%s\t%s\t%s\n' "$name: ran to the end" "exit 0" "exit $rc" FAILED >>"$table"
	elif [ "$rc" = 0 ] && [ "$(wc -l <"$table")" = "$before" ]; then
		printf '%s\t%s\t%s\t%s\n' "$name: checked a target" "a row" "none" FAILED >>"$table"
	fi
	echo
done
echo "== bench targets"
awk -F'\t' '
{ m[NR] = $1; t[NR] = $2; v[NR] = $3; d[NR] = $4
  for (i = 1; i <= 3; i++) if (length($i) > w[i]) w[i] = length($i) }
END {
	if (w[1] < 6) w[1] = 6; if (w[2] < 6) w[2] = 6; if (w[3] < 8) w[3] = 8
	printf "%-" w[1] "s  %-" w[2] "s  %-" w[3] "s  %s\n", "metric", "target", "measured", "verdict"
	for (i = 1; i <= NR; i++) {
		printf "%-" w[1] "s  %-" w[2] "s  %-" w[3] "s  %s\n", m[i], t[i], v[i], d[i]
		if (d[i] == "met") met++; else if (d[i] ~ /^SKIPPED/) skip++; else bad++
	}
	printf "%d met, %d MISSED or FAILED, %d skipped\n", met, bad, skip
	exit bad > 0
}' "$table"
