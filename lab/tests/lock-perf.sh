#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# memcg-lab lock report -i perf.data against perf lock contention -i on a
# perf.data recorded here with perf lock record: the same rows (contended
# count and total wait, as perf prints them) in the caller view and per
# thread (-t).  Then perf.data files the lab must refuse with one line:
# truncated, without lock events, Zstd-compressed, pipe mode, not perf.data.
. "$(dirname "$0")/lib/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (perf lock record -a)"
command -v perf >/dev/null || skip_all "no perf in PATH"
# perf mounts tracefs itself where none is, and leaves it mounted: here
# only in a mount namespace of the test's own.
in_private_mount_ns "$@"
mount_tracefs || skip_all "cannot mount tracefs at /sys/kernel/tracing (see tracefs-mount.sh)"
[ -d /sys/kernel/tracing/events/lock/contention_begin ] ||
	skip_all "no lock:contention_begin tracepoint on this kernel (5.19+)"

tmp=$T

# A short burst of lock contention: processes passing messages.
perf lock record -a -o "$tmp/perf.data" -- perf bench sched messaging -g 2 -l 400 \
	</dev/null >"$tmp/record.log" 2>&1
check $? "perf lock record made a perf.data"

# perf prints its table on stderr (6.1) or stdout; keep the data rows.
rows() {
	awk '/contended/ && (/caller/ || /comm/ || /symbol/) { t = 1; next } t && /^ *[0-9]+ / { print }' | sort
}

for view in caller thread; do
	flag=
	[ $view = thread ] && flag=-t
	perf lock contention $flag -i "$tmp/perf.data" >"$tmp/perf.$view" 2>&1
	rows <"$tmp/perf.$view" >"$tmp/perf.$view.rows"
	$LAB lock report -i "$tmp/perf.data" --by $view >"$tmp/lab.$view" 2>"$tmp/lab.$view.err"
	check $? "lock report --by $view reads the perf.data"
	rows <"$tmp/lab.$view" >"$tmp/lab.$view.rows"
	nrows=$(wc -l <"$tmp/perf.$view.rows")
	[ "$nrows" -ge 5 ]
	check $? "perf found contention to compare ($nrows $view rows)"
	diff "$tmp/perf.$view.rows" "$tmp/lab.$view.rows" >"$tmp/diff.$view"
	check $? "the $view view agrees with perf lock contention${flag:+ $flag} row for row (count, total/max/avg wait, key)"
	[ -s "$tmp/diff.$view" ] && diag "$(head -20 "$tmp/diff.$view")"
done

# perf's knobs for the caller search give the same rows with the same values.
for opt in "--stack-skip 4" "--max-stack 5"; do
	perf lock contention $opt -i "$tmp/perf.data" 2>&1 | rows >"$tmp/perf.opt.rows"
	$LAB lock report $opt -i "$tmp/perf.data" | rows >"$tmp/lab.opt.rows"
	cmp -s "$tmp/perf.opt.rows" "$tmp/lab.opt.rows"
	check $? "with $opt the caller view still agrees with perf ($(wc -l <"$tmp/perf.opt.rows") rows)"
done

# TSV: a header row, and the same contended total as perf's rows.
$LAB lock report -i "$tmp/perf.data" --by caller --tsv >"$tmp/lab.tsv"
head -1 "$tmp/lab.tsv" | grep -q "^key	contended	wait_total_ns	wait_max_ns	wait_avg_ns"
check $? "--tsv starts with the header row key contended wait_total_ns wait_max_ns wait_avg_ns"
a=$(awk 'NR > 1 { s += $2 } END { print s }' "$tmp/lab.tsv")
b=$(awk '{ s += $1 } END { print s }' "$tmp/perf.caller.rows")
[ "$a" = "$b" ]
check $? "TSV contended total $a equals perf's $b"
$LAB lock report -i "$tmp/perf.data" --by lock --tsv >"$tmp/lab.lock.tsv"
[ "$(wc -l <"$tmp/lab.lock.tsv")" -gt 1 ]
check $? "--by lock lists lock addresses"

# Bad input: exit status 2 and exactly one line naming the file.
refuse() {
	local what=$1 file=$2 want=$3 out
	$LAB lock report -i "$file" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$want" "$tmp/err" &&
		grep -q -- "$file" "$tmp/err"
	check $? "$what: exit 2 and one line ($(cat "$tmp/err"))"
}

size=$(stat -c %s "$tmp/perf.data")
head -c $((size * 6 / 10)) "$tmp/perf.data" >"$tmp/truncated.data"
refuse "a truncated perf.data" "$tmp/truncated.data" "truncated"

perf record -e sched:sched_switch -a -o "$tmp/nolock.data" -- sleep 0.2 </dev/null >/dev/null 2>&1
refuse "a perf.data without lock events" "$tmp/nolock.data" "no lock:contention_begin/end events"

if perf record -z -e lock:contention_begin -a -o "$tmp/z.data" -- sleep 0.2 </dev/null >/dev/null 2>&1; then
	refuse "a Zstd-compressed perf.data" "$tmp/z.data" "Zstd"
else
	skip "a Zstd-compressed perf.data" "this perf cannot record with -z"
fi

perf lock record -a -o - -- sleep 0.2 </dev/null >"$tmp/pipe.data" 2>/dev/null
refuse "a pipe-mode perf.data" "$tmp/pipe.data" "pipe-mode"

echo "not a perf file" >"$tmp/text.data"
refuse "a text file" "$tmp/text.data" "not a perf.data file"
refuse "a missing file" "$tmp/missing.data" "cannot open"

done_testing
