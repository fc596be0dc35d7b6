#!/bin/bash
# `memcg-lab c2c losses` (perf/perfdata_loss.c) against perf's own counts.
#
# 1. Real recordings that lose records: `perf record -e cpu-clock -c 10000
#    -m 1 -a` (cpu-clock's shortest period, 10 us: kernel/events/core.c
#    perf_swevent_start_hrtimer(); a one-page ring buffer) around a busy
#    loop on every CPU.  Where one try loses nothing, the next runs the
#    loops 4 times as long (3 tries); only then the comparison is skipped,
#    saying so.  The counts must equal those of `perf report --stats` of
#    the same file (SAMPLE, LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE
#    records; LOST_SAMPLES summed over the events), the LOST sum that of
#    the PERF_RECORD_LOST lines of `perf report -D`; and perf report's
#    own warnings must agree: its "lost N chunks!" are the LOST records,
#    its "Processed N samples and lost X%!" (printed above 5%) is the
#    share of LOST_SAMPLES, and the lab's lost_pct, of the larger of LOST
#    and LOST_SAMPLES, is at least X.  For perf 6.1 (the host's) and,
#    where lab/scripts/perf-runtime.sh provides it, perf 7.3, each reading
#    its own recording and the other's where it can (perf 6.1 refuses
#    7.3's).
# 2. Known losses: build/tests/tools/memsamples writes LOST, LOST_SAMPLES,
#    THROTTLE, UNTHROTTLE and AUX records (TRUNCATED, COLLISION, PARTIAL)
#    among its samples; both perfs must count what the lab counts (AUX:
#    its "AUX data lost N times" and "detected collision N times"), and
#    perf 7.3 must set perf record --filter's BPF drops apart as the lab
#    does (perf 6.1 predates the flag and counts them as lost).
# 3. Refusals, exit 2 and one line naming the file and the byte: a real
#    recording cut in its data section and in its header, and perf record
#    -z's compressed records (the lab has no Zstd decoder).
set -u
. "$(dirname "$0")/lib/tap.sh"

host_perf=$(command -v perf) || skip_all "no perf in PATH (Debian package linux-perf)"
[ -x "$LAB" ] || skip_all "bin/memcg-lab is not built (make build)"
[ -x build/tests/tools/memsamples ] || skip_all "build/tests/tools/memsamples is not built (make build)"

perfs=("$host_perf")
if p73=$(lab/scripts/perf-runtime.sh 7.3 2>"$T/p73.err") && [ -x "$p73" ]; then
	perfs+=("$p73")
else
	skip "the checks against perf 7.3" "lab/scripts/perf-runtime.sh 7.3: $(head -1 "$T/p73.err")"
fi

# perf's version, "6.1.187".
version_of() { "$1" --version 2>/dev/null | awk '{ print $3 }'; }

# The lab's TSV of FILE into $T/mine.tsv; col NAME prints a column of it.
mine() { "$LAB" c2c losses --tsv "$1" >"$T/mine.tsv" 2>"$T/mine.err"; }
col() { awk -F'\t' -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == 2 && k { print $k }' "$T/mine.tsv"; }

# perf report --stats of FILE by PERF into $T/stats: "total.NAME N" for the
# aggregated counts, "evsel.NAME N" summed over the events' sections
# (evsel.LOST_SAMPLES_BPF: perf 7.x's "LOST_SAMPLES (BPF)"); st NAME reads
# one (perf leaves out the counts that are 0).
perf_stats() {
	"$1" report --stats -i "$2" >"$T/stats.raw" 2>"$T/stats.err" || return 1
	awk '/^Aggregated stats:/ { agg = 1; next }
	     / stats:$/ { agg = 0; next }
	     $2 == "events:" { if (agg) a[$1] = $3; else e[$1] += $3 }
	     $1 == "LOST_SAMPLES" && $2 == "(BPF)" && $3 == "events:" { e["LOST_SAMPLES_BPF"] += $4 }
	     END { for (k in a) print "total." k, a[k]; for (k in e) print "evsel." k, e[k] }' \
		"$T/stats.raw" >"$T/stats"
}
st() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' "$T/stats"; }

# perf report's warnings (stderr) of FILE by PERF into $T/warn.
perf_warnings() { "$1" report --stdio --sort cpu -i "$2" 2>"$T/warn" >/dev/null; }

# Compares the lab's counts of FILE with PERF's report of it.
compare_stats() {
	local P=$1 F=$2 what=$3 v bpf
	v=$(version_of "$P")
	if ! perf_stats "$P" "$F"; then
		skip "$what: perf $v report --stats" "perf $v cannot read it: $(grep -m1 . "$T/stats.err")"
		return
	fi
	ok '[ "$(col samples)" = "$(st total.SAMPLE)" ] && [ "$(col lost_records)" = "$(st total.LOST)" ] &&
	    [ "$(col throttle)" = "$(st total.THROTTLE)" ] && [ "$(col unthrottle)" = "$(st total.UNTHROTTLE)" ]' \
		"$what: perf $v report --stats counts the same $(col samples) samples, $(col lost_records) LOST, $(col throttle) THROTTLE, $(col unthrottle) UNTHROTTLE" ||
		{ diag "lab: $(tr '\n' ' ' <"$T/mine.tsv")"; diag <"$T/stats"; }
	bpf=$(st evsel.LOST_SAMPLES_BPF)
	if grep -q 'LOST_SAMPLES (BPF)' "$T/stats.raw"; then
		ok '[ "$(col lost_samples)" = "$(st evsel.LOST_SAMPLES)" ]' \
			"$what: perf $v's LOST_SAMPLES summed over the events, $(st evsel.LOST_SAMPLES), BPF drops ($bpf) apart" ||
			diag <"$T/stats"
	else
		ok '[ "$(col lost_samples)" = "$(st evsel.LOST_SAMPLES)" ]' \
			"$what: perf $v's LOST_SAMPLES summed over the events, $(st evsel.LOST_SAMPLES)" || diag <"$T/stats"
	fi
}

# The share and the LOST records against perf report's warnings.
compare_warnings() {
	local P=$1 F=$2 what=$3 v chunks total pct ls_pct
	v=$(version_of "$P")
	perf_warnings "$P" "$F" || { skip "$what: perf $v report's warnings" "perf $v report failed: $(grep -m1 . "$T/warn")"; return; }
	chunks=$(sed -n 's/^Processed [0-9]* events and lost \([0-9]*\) chunks!$/\1/p' "$T/warn")
	ok '[ "${chunks:-0}" = "$(col lost_records)" ]' \
		"$what: perf $v report's \"lost ${chunks:-0} chunks\" are the $(col lost_records) LOST records"
	# perf's share is LOST_SAMPLES' alone; the lab's takes the larger view.
	total=$(sed -n 's/^Processed \([0-9]*\) samples and lost [0-9.]*%!$/\1/p' "$T/warn")
	pct=$(sed -n 's/^Processed [0-9]* samples and lost \([0-9.]*\)%!$/\1/p' "$T/warn")
	ls_pct=$(awk -v s="$(col samples)" -v l="$(col lost_samples)" 'BEGIN { printf "%.2f", s + l ? 100 * l / (s + l) : 0 }')
	if [ -n "$pct" ]; then
		ok '[ "$total" = $(($(col samples) + $(col lost_samples))) ] && [ "$pct" = "$ls_pct" ] &&
		    awk -v a="$(col lost_pct)" -v b="$pct" "BEGIN { exit !(a >= b) }"' \
			"$what: perf $v report's \"Processed $total samples and lost $pct%\" is the lab's LOST_SAMPLES share; lost_pct $(col lost_pct)" ||
			grep Processed "$T/warn" | diag
	else
		ok 'awk -v p="$ls_pct" "BEGIN { exit !(p <= 5) }"' \
			"$what: perf $v report prints no share (it does above 5%), the lab's LOST_SAMPLES share is $ls_pct%"
	fi
}

# perf record as above, the loops running ITERATIONS times on each CPU.
ncpu=$(nproc)
record() {
	"$1" record -e cpu-clock -c 10000 -m 1 -a -o "$2" -- \
		sh -c 'l() { i=0; while [ $i -lt "$1" ]; do i=$((i + 1)); done; }
		       c=0; while [ $c -lt "$2" ]; do l "$1" & c=$((c + 1)); done; wait' sh "$3" "$ncpu" \
		>"$T/record.log" 2>&1
}

# 1. Real recordings.
declare -A recorded
for P in "${perfs[@]}"; do
	v=$(version_of "$P")
	F=$T/lossy-$v.data
	got=
	for iters in 50000 200000 800000; do
		if ! record "$P" "$F" "$iters"; then
			got=failed
			break
		fi
		perf_stats "$P" "$F" || { got=unread; break; }
		if [ "$(st total.LOST)" != 0 ] || [ "$(st evsel.LOST_SAMPLES)" != 0 ]; then
			got=lossy
			break
		fi
	done
	why=
	case $got in
	failed) why="perf $v record failed: $(tail -1 "$T/record.log")" ;;
	unread) why="perf $v report --stats cannot read its own recording: $(grep -m1 . "$T/stats.err")" ;;
	lossy) ;;
	*) why="perf $v record -e cpu-clock -c 10000 -m 1 -a lost nothing in 3 tries (busy loops of up to"
	   why="$why $iters iterations on each of $ncpu CPUs): its ring buffer kept up here" ;;
	esac
	if [ -n "$why" ]; then
		skip "perf $v: a recording that loses records" "$why"
		continue
	fi
	recorded[$v]=$F
	mine "$F"
	ok '[ -s "$T/mine.tsv" ] && [ "$(col lost_pct)" != "-" ]' \
		"perf $v: a recording of ${iters}-iteration loops: $("$LAB" c2c losses "$F" 2>&1)" || diag <"$T/mine.err"
	sum=$("$P" report -D -i "$F" 2>/dev/null | grep -a 'PERF_RECORD_LOST: ' | sed 's/.*lost://' | awk '{ s += $1 } END { print s + 0 }')
	ok '[ "$(col lost)" = "$sum" ]' "perf $v: the LOST records' sum is perf report -D's, $sum"
done
for v in "${!recorded[@]}"; do
	F=${recorded[$v]}
	mine "$F"
	for P in "${perfs[@]}"; do
		compare_stats "$P" "$F" "the perf $v recording"
		[ "$(version_of "$P")" = "$v" ] && compare_warnings "$P" "$F" "the perf $v recording"
	done
done

# 2. Known losses.
K=$T/known.data
build/tests/tools/memsamples -o "$K" --loss lost=300 --loss throttle --loss lost=5 --loss unthrottle \
	--loss lost-samples=200 --loss lost-samples=150 --loss aux=1 --loss aux=8 --loss aux=4 --loss aux=0 \
	lcl-hitm,0xffff888100000000,10 store,0xffff888100000040,3 >"$T/ms.err" 2>&1
check $? "memsamples writes known losses" || diag <"$T/ms.err"
mine "$K"
ok '[ "$(tr "\t" " " <"$T/mine.tsv" | tail -1)" = "13 305 2 350 1 1 2 96.42" ]' \
	"known: the lab counts 13 samples, LOST 305 in 2, LOST_SAMPLES 350, 1 throttle and 1 unthrottle, 2 AUX losses, 96.42%" ||
	diag <"$T/mine.tsv"
for P in "${perfs[@]}"; do
	v=$(version_of "$P")
	compare_stats "$P" "$K" known
	compare_warnings "$P" "$K" known
	perf_stats "$P" "$K" && perf_warnings "$P" "$K"
	ok 'grep -qx "AUX data lost 1 times out of $(st total.AUX)!" "$T/warn" &&
	    grep -qx "AUX data detected collision  1 times out of $(st total.AUX)!" "$T/warn" &&
	    "$LAB" c2c losses "$K" | grep -q "AUX data lost in 2 of $(st total.AUX) AUX records (1 by collision)"' \
		"known: perf $v's AUX data lost 1 and collided 1 times in $(st total.AUX) AUX records, the lab's 2 lost (1 by collision)" ||
		grep AUX "$T/warn" | diag
done
B=$T/bpf.data
build/tests/tools/memsamples -o "$B" --loss lost-samples=20 --loss bpf-dropped=7 l1-hit,0xffff888100000000,5 >"$T/ms.err" 2>&1
mine "$B"
for P in "${perfs[@]}"; do
	v=$(version_of "$P")
	perf_stats "$P" "$B" || continue
	if grep -q 'LOST_SAMPLES (BPF)' "$T/stats.raw"; then
		ok '[ "$(st evsel.LOST_SAMPLES)" = 20 ] && [ "$(st evsel.LOST_SAMPLES_BPF)" = 7 ] && [ "$(col lost_samples)" = 20 ] &&
		    "$LAB" c2c losses "$B" | grep -q "7 dropped by the --filter BPF program (not lost)"' \
			"BPF drops: perf $v and the lab set the 7 apart from the 20 lost" || diag <"$T/stats"
	else
		skip "BPF drops: perf $v" "perf $v predates PERF_RECORD_MISC_LOST_SAMPLES_BPF: it prints no (BPF) count"
	fi
done

# 3. Refusals.
refused() {	# FILE WANT DESCRIPTION
	# shellcheck disable=SC2034 # file and want: read by the eval in ok
	local file=$1 want=$2 rc
	"$LAB" c2c losses "$file" >"$T/out" 2>"$T/err"
	rc=$?
	ok '[ $rc = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF -- "$file" "$T/err" &&
	    grep -qE -- "$want" "$T/err"' "$3: exit 2, one line: $(head -1 "$T/err")" || diag "exit $rc" <"$T/err"
}
[ ${#recorded[@]} = 0 ] && skip "a real recording cut short" "no perf made one above"
for v in "${!recorded[@]}"; do
	F=${recorded[$v]}
	C=$T/cut-$v.data
	size=$(stat -c %s "$F")
	head -c $((size / 2)) "$F" >"$C"
	refused "$C" "truncated: the data section ends at byte [0-9]+ but the file has $((size / 2))" \
		"the perf $v recording cut at half its $size bytes"
	head -c 64 "$F" >"$C"
	refused "$C" "truncated: the header ends at byte 104 but the file has 64" "the perf $v recording cut in its header"
done
for P in "${perfs[@]}"; do
	v=$(version_of "$P")
	Z=$T/z-$v.data
	if "$P" record -z -e cpu-clock -o "$Z" -- sleep 0.2 >"$T/record.log" 2>&1; then
		refused "$Z" "records are Zstd-compressed" "perf $v record -z"
	else
		skip "perf $v record -z" "it failed (built without Zstd?): $(tail -1 "$T/record.log")"
	fi
done
refused "$T/none.data" "cannot open: No such file" "a missing file"

done_testing
