#!/bin/bash
# The c2c window's bounds against real perf (issue 30, item 5): a 224-CPU
# box must not fill its disk or wait forever on a report.
#
#   - the size cap: perf record --max-size stops the session at the cap
#     (tools/perf/builtin-record.c record__output_max_size_exceeded: "perf
#     size limit reached"); the lab marks the window cut short, the
#     results are not complete, one line says so;
#   - the free-space check: on a small tmpfs there is no window at all,
#     one line, and nothing marked complete;
#   - the report's time limit: the real perf c2c report of a large
#     recording, killed past a short limit;
#   - the perf.data is removed once its report is parsed, unless --keep.
# Real perf records cpu-clock through lab/tests/lib/perf-c2c-cpu-clock.sh
# (no memory PMU here); perf 6.1 from PATH.
set -u
. "$(dirname "$0")/lib/tap.sh"

command -v perf >/dev/null || skip_all "no perf in PATH (Debian package linux-perf)"
[ "$(id -u)" = 0 ] || skip_all "needs root (system-wide perf record and a tmpfs mount)"
mkdir -p "$T/bin"
ln -s "$PWD/lab/tests/lib/perf-c2c-cpu-clock.sh" "$T/bin/perf"
busy='timeout 4 sh -c "while :; do :; done" & timeout 4 sh -c "while :; do :; done"; wait'

lab_c2c() {	# results under $1, then c2c record's arguments
	local base=$1; shift
	PATH=$T/bin:$PATH MEMCG_LAB_RESULTS=$base MEMCG_LAB_C2C_VENDOR=GenuineIntel "$LAB" c2c record "$@" \
		>"$T/out" 2>"$T/err"
}
status_of() { sed -n 's/.*"status": *"\([^"]*\)".*/\1/p' "$1"/*/meta.json; }

# The size cap: 1 MiB, reached within a second at 60 kHz on two busy CPUs.
lab_c2c "$T/cap" --duration 4 --start 0.3 --window 3 --max-size 1M -- sh -c "$busy"
st=$?
win=$(tail -1 "$T"/cap/*/data/windows.tsv 2>/dev/null)
ok '[ $st = 2 ] && [ "$(grep -c "CUT SHORT at its 1.0 MiB size cap" "$T/err")" = 1 ] &&
    [ "$(status_of "$T/cap")" = incomplete ] && [ "$(echo "$win" | cut -f13)" = cut-at-size-cap ] &&
    grep -q "perf size limit reached" "$T"/cap/*/data/perf-record.log' \
	"a window that reaches its size cap: cut short, one line, results incomplete, exit 2 ($win)" ||
	diag < "$T/err"
ok '[ "$(echo "$win" | cut -f6)" = 1048576 ] && [ "$(echo "$win" | cut -f7)" -lt 4194304 ]' \
	"perf stopped near the cap: $(echo "$win" | cut -f7) bytes written under a 1 MiB cap"

# The free-space check: 40 MiB free is less than a window needs (a 16 MiB
# recording and 64 MiB for its reports): no window, not a full disk.
mkdir "$T/small"
if mount -t tmpfs -o size=40M memcg-lab-test "$T/small"; then
	lab_c2c "$T/small/results" --duration 2 --start 0.3 --window 1 -- sleep 2
	st=$?
	ok '[ $st = 2 ] && [ "$(grep -c "free, less than the 80.0 MiB a window needs at least" "$T/err")" = 1 ] &&
	    [ "$(status_of "$T/small/results")" = incomplete ] &&
	    [ -z "$(find "$T/small" -name "perf.c2c.data*" -o -name "c2c-report*")" ]' \
		"a disk too small for the window: one line, no window, no data, results incomplete, exit 2" ||
		diag < "$T/err"
	umount "$T/small"
else
	ok false "mount a 40 MiB tmpfs for the free-space check"
fi

# The report's time limit: the real perf c2c report of 3 s at 60 kHz on
# two CPUs (~360 K samples, most of a second of perf's time here), killed
# at 0.05 s; the recording is kept (--keep) and reported again by hand.
lab_c2c "$T/slow" --duration 4 --start 0.3 --window 3 --keep --report-timeout 0.05 -- sh -c "$busy"
st=$?
d=$(echo "$T"/slow/*/data)
win=$(tail -1 "$d/windows.tsv" 2>/dev/null)
ok '[ $st = 2 ] && grep -q "perf c2c report ran past its 0.05 s limit (c2c_report_timeout)" "$T/err" &&
    [ "$(echo "$win" | cut -f13)" = report-timed-out ] && [ ! -e "$d/c2c-report.txt" ] &&
    ! pgrep -f "c2c report -i $d/perf.c2c.data" >/dev/null && [ "$(status_of "$T/slow")" = incomplete ]' \
	"a report past its limit: perf killed, no report file, the window marked, results incomplete" ||
	diag < "$T/err"
t0=$(date +%s.%N)
perf c2c report -i "$d/perf.c2c.data" --stdio -NN -c pid,tid,iaddr --full-symbols --no-source >/dev/null 2>&1
check $? "the kept recording reports whole without a limit, in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"

# Lost samples, counted from the perf.data itself (perf/perfdata_loss.h):
# real perf record with a one-page buffer (-m 1) at 60 kHz on two busy
# CPUs loses records; the window's row says how many, and marks it.
PERF_C2C_WRAPPER_MMAP=1 lab_c2c "$T/lost" --duration 4 --start 0.3 --window 3 -- sh -c "$busy"
st=$?
win=$(tail -1 "$T"/lost/*/data/windows.tsv 2>/dev/null)
ok '[ $st = 0 ] && [ "$(echo "$win" | cut -f9)" -gt 0 ] && [ "$(echo "$win" | cut -f8)" -gt 0 ] &&
    [ "$(echo "$win" | cut -f13)" = lost-over-5pct ] && grep -q "lost (.*%) MARKED: partial" "$T/out"' \
	"a recording made to lose samples: $(echo "$win" | cut -f8) samples, $(echo "$win" | cut -f9) lost ($(echo "$win" | cut -f10)%), marked" ||
	diag < "$T/err"

# Removed once reported; kept with --keep (above).
lab_c2c "$T/rm" --duration 2 --start 0.3 --window 1 -- sleep 2
st=$?
d=$(echo "$T"/rm/*/data)
ok '[ $st = 0 ] && [ ! -e "$d/perf.c2c.data" ] && [ -s "$d/c2c-report.txt" ] && [ -s "$d/c2c/stats.tsv" ] &&
    grep -q "perf.data removed (c2c_keep to keep it)" "$T/out" && [ "$(status_of "$T/rm")" = complete ]' \
	"the perf.data is removed once its report is parsed; the results are complete" || diag < "$T/err"
done_testing
