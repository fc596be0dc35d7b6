#!/bin/sh
# On the host: the hold and wait times of stats_user_flush_mutex by both
# tools of one klockstat-check.sh run, one line per tool and measure:
#   TOOL MEASURE COUNT MEAN_NS P50_NS MAX_NS METHOD
# klockstat's from CHECKS/TAG.out (its rows, one per call stack: counts and
# totals summed, the largest max; times print as "12.3 us", "456 ns"; no
# percentiles: "-"), the lab's from LOCKDIR/data/lock-hold.tsv.
#
#   klockstat-table.sh CHECKS LOCKDIR [TAG]
c=$1 r=$2 t=${3:-klockstat}
for sec in Hold Wait; do
	awk -v sec="$sec" -v m="$(cat "$c/$t.method" 2>/dev/null | cut -d' ' -f1)" '
	function ns(v, u) { return v * (u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : u == "m" ? 6e10 : 3.6e12) }
	/Caller/ { on = ($0 ~ ("Avg " sec)); next }
	on && NF == 8 && $4 ~ /^[0-9]+$/ { cnt += $4; tot += ns($7, $8); x = ns($5, $6); if (x > max) max = x }
	END { printf "klockstat %s %d %.0f - %.0f %s\n", tolower(sec), cnt, (cnt ? tot / cnt : 0), max, m ? m : "none" }' "$c/$t.out" 2>/dev/null
done
for m in hold wait; do
	awk -F'\t' -v m="$m" '$1 == "stats_user_flush_mutex" && $3 == m { print "lab", m, $5, $7, $9, $8, $4; found = 1 }
		END { if (!found) print "lab", m, 0, 0, "-", 0, "none" }' "$r/data/lock-hold.tsv" 2>/dev/null
done
