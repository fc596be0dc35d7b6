#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Lock benchmarks, as ratios measured in this run:
#  1. reading the same perf.data (>= 1M lock events): memcg-lab lock report
#     vs perf lock contention -i, same (caller) view; wall time, best of
#     $LOCK_BENCH_RUNS each, interleaved (perf, lab, perf, lab, ...).
#     Target: the lab at least 5x faster.  The rows must be the same as
#     perf's: a fast wrong answer is a missed target.
#  2. the lock tracer's cost on the real stat-read driver (readers at every
#     level of a tree in reclaim, build/bench/statread-tracer): untraced and
#     traced runs in alternating order, the medians of their ratios.
#     Targets: reads per CPU-second traced/untraced >= 0.95, read() p50
#     traced/untraced <= 1.05 (the same 5%), and the tracer running in at
#     least 90% of the measured phase (else the ratios flatter it).
# The perf.data is a real recording (perf lock record around perf bench
# sched messaging) repeated with shifted timestamps up to 1M+ events, so the
# shared machine is not loaded for minutes (lab/bench/perfdata-repeat.c).
# Every command timed or compared must exit 0, or the benchmark fails.
# Knobs: LOCK_BENCH_EVENTS (1000000), LOCK_BENCH_RUNS (3),
# TRACER_ROUNDS (3), TRACER_SECONDS (6).
set -u
cd "$(dirname "$0")/../.."
. lab/bench/lib/bench.sh
LAB=$PWD/bin/memcg-lab
REPEAT=$PWD/build/bench/perfdata-repeat
TRACER=$PWD/build/bench/statread-tracer
EVENTS=${LOCK_BENCH_EVENTS:-1000000}
RUNS=${LOCK_BENCH_RUNS:-3}
ROUNDS=${TRACER_ROUNDS:-3}
SECS=${TRACER_SECONDS:-6}
SPEED="lock report vs perf lock contention -i: speed-up"
ROWS="lock report rows vs perf lock contention's"
CPU="lock tracer on statread: reads/CPU-s traced/untraced"
P50="lock tracer on statread: read p50 traced/untraced"
COVER="lock tracer on statread: share of measured phase traced"

[ -x "$LAB" ] && [ -x "$REPEAT" ] && [ -x "$TRACER" ] || { echo "bench lock: $LAB or build/bench/* missing (make build)" >&2; exit 2; }
why=
if [ "$(id -u)" != 0 ]; then why="needs root"
elif ! command -v perf >/dev/null; then why="perf not installed"
elif [ ! -d /sys/kernel/tracing/events/lock/contention_begin ] &&
     ! grep -aq btf_trace_contention_begin /sys/kernel/btf/vmlinux 2>/dev/null; then
	# tracefs may not be mounted yet (perf and the lab mount it): BTF tells.
	why="no lock:contention_begin tracepoint on this kernel (5.19+)"
fi
if [ -n "$why" ]; then
	for m in "$ROWS|identical" "$SPEED|>= 5x" "$CPU|>= 0.95" "$P50|<= 1.05" "$COVER|>= 0.9"; do
		bench_skip "${m%|*}" "${m#*|}" "$why"
	done
	exit 0
fi
tmp=$(mktemp -d /tmp/lock-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
fail() { echo "bench lock: $*" >&2; exit 2; }

# --- 1. perf.data reading ---------------------------------------------------
perf lock record -a -o "$tmp/one.data" -- perf bench sched messaging -g 10 -l 600 \
	</dev/null >"$tmp/record.log" 2>&1 || { tail -5 "$tmp/record.log" >&2; fail "perf lock record failed"; }
perf script -i "$tmp/one.data" -F event >"$tmp/events" 2>"$tmp/script.err" || { cat "$tmp/script.err" >&2; fail "perf script failed"; }
samples=$(grep -c contention "$tmp/events")
[ "$samples" -gt 0 ] || fail "perf lock record recorded no lock:contention_* event"
copies=$(( (EVENTS + samples - 1) / samples ))
"$REPEAT" "$tmp/one.data" "$tmp/big.data" "$copies" >/dev/null || fail "perfdata-repeat failed"
events=$((samples * copies))
echo "perf.data: $samples lock events recorded, repeated x$copies = $events events ($(du -h "$tmp/big.data" | cut -f1))"

rows() {
	awk '/contended/ && /caller/ { t = 1; next } t && /^ *[0-9]+ / { print }' "$1" | sort
}
# Interleaved: perf, lab, perf, lab, ...; every run's status checked, and
# every run's rows compared, not only the first.
: >"$tmp/perf.t"; : >"$tmp/lab.t"
for i in $(seq "$RUNS"); do
	bench_time "$tmp/perf.out" perf lock contention -i "$tmp/big.data" >>"$tmp/perf.t" || exit 2
	bench_time "$tmp/lab.out" "$LAB" lock report -i "$tmp/big.data" >>"$tmp/lab.t" || exit 2
	rows "$tmp/perf.out" >"$tmp/perf.rows"
	rows "$tmp/lab.out" >"$tmp/lab.rows"
	[ -s "$tmp/perf.rows" ] || fail "perf lock contention printed no caller rows (run $i)"
	if ! cmp -s "$tmp/perf.rows" "$tmp/lab.rows"; then
		echo "run $i: rows DIFFER from perf lock contention:"
		diff "$tmp/perf.rows" "$tmp/lab.rows" | head -10
		differ="$(diff "$tmp/perf.rows" "$tmp/lab.rows" | grep -c '^[<>]') lines differ"
	fi
done
bench_equal "$ROWS" identical "${differ:-identical}"
perf_s=$(sort -g "$tmp/perf.t" | head -1)
lab_s=$(sort -g "$tmp/lab.t" | head -1)
printf "report, best of %d interleaved: perf lock contention -i %.2f s, memcg-lab lock report -i %.2f s (%d caller rows)\n" \
	"$RUNS" "$perf_s" "$lab_s" "$(wc -l <"$tmp/perf.rows")"
bench_target "$SPEED" '>=' 5 "$(awk -v p="$perf_s" -v l="$lab_s" 'BEGIN { printf "%.1f", p / l }')" x
rm -f "$tmp/big.data"

# --- 2. tracer overhead on the stat-read driver -------------------------------
"$TRACER" "$ROUNDS" "$SECS" >"$tmp/tracer.out" 2>&1
rc=$?
cat "$tmp/tracer.out"
[ "$rc" = 0 ] || fail "statread-tracer exited $rc"
st=$(sed -n 's/^ratios: //p' "$tmp/tracer.out")
set -- $st
[ "$1 $3 $5 $9" = "reads_per_s reads_per_cpu_s p50 covered" ] || fail "statread-tracer: unexpected line 'ratios: $st'"
echo "readers' reads/s traced/untraced (others' load moves it most): median $2"
bench_target "$CPU" '>=' 0.95 "$4"
bench_target "$P50" '<=' 1.05 "$6"
bench_target "$COVER" '>=' 0.9 "${10}"
bench_exit
