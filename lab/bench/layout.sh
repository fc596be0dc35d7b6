#!/bin/sh
# `memcg-lab layout --check` (load BTF, all five structs, every rule, the
# reference captures for validation) against what a user would otherwise
# run: pahole -C printing the same structs from the same BTF.  Runs are
# interleaved and the medians compared, so machine noise hits both alike.
# Target: ratio <= 1 per kernel (the check costs no more than pahole's
# printout).  pahole must exit 0 and print the structs; the check must
# end with its result line and exit 0 or 1 (1: a rule FAILs on that
# kernel, a finding, not an error), or the benchmark fails.
# Knob: BENCH_RUNS (15).
set -u
cd "$(dirname "$0")/../.."
. lab/bench/lib/bench.sh
LAB=bin/memcg-lab
RUNS=${BENCH_RUNS:-15}
STRUCTS=mem_cgroup,page_counter,memcg_stock_pcp,obj_stock_pcp,memcg_vmstats_percpu

[ -x "$LAB" ] || { echo "bench layout: $LAB missing (make build)" >&2; exit 2; }
set -- build/btf/vmlinux-*.btf
[ -e "$1" ] || { echo "bench layout: no build/btf/vmlinux-*.btf (make build)" >&2; exit 2; }
if ! command -v pahole >/dev/null 2>&1; then
	for btf; do
		k=${btf#build/btf/vmlinux-}
		bench_skip "layout --check vs pahole -C, time, ${k%.btf}" "<= 1" "pahole not installed (apt-get install dwarves)"
	done
	exit 0
fi

T=$(mktemp -d /tmp/memcg-lab-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo "layout --check vs pahole -F btf -C <the same 5 structs>: median of $RUNS interleaved runs each"
printf '%-10s %10s %10s %8s\n' kernel check_ms pahole_ms ratio
for btf; do
	k=${btf#build/btf/vmlinux-}; k=${k%.btf}
	: >"$T/check"; : >"$T/pahole"
	for i in $(seq "$RUNS"); do
		bench_time_ok "0 1" "$T/out" "$LAB" layout --btf "$btf" --check >>"$T/check" || exit 2
		grep -q '^result: [0-9]* pass' "$T/out" || { echo "bench layout: layout --check printed no result line for $btf" >&2; exit 2; }
		bench_time "$T/out" pahole -F btf -C "$STRUCTS" "$btf" >>"$T/pahole" || exit 2
		grep -q '^struct mem_cgroup {' "$T/out" || { echo "bench layout: pahole printed no struct mem_cgroup for $btf" >&2; exit 2; }
	done
	c=$(bench_median <"$T/check"); p=$(bench_median <"$T/pahole")
	awk -v k="$k" -v c="$c" -v p="$p" 'BEGIN { printf "%-10s %10.1f %10.1f %8.2f\n", k, c * 1000, p * 1000, c / p }'
	echo "$k $(awk -v c="$c" -v p="$p" 'BEGIN { printf "%.2f", c / p }')" >>"$T/ratios"
done
while read -r k ratio; do
	bench_target "layout --check vs pahole -C, time, $k" '<=' 1 "$ratio"
done <"$T/ratios"
bench_exit
