#!/bin/sh
# `memcg-lab layout --check` (load BTF, all five structs, every rule, the
# reference captures for validation) against what a user would otherwise
# run: pahole -C printing the same structs from the same BTF.  Runs are
# interleaved and the medians compared, so machine noise hits both alike.
# Target: ratio <= 1 (the check costs no more than pahole's printout).
set -u
cd "$(dirname "$0")/../.."
LAB=bin/memcg-lab
RUNS=${BENCH_RUNS:-15}
STRUCTS=mem_cgroup,page_counter,memcg_stock_pcp,obj_stock_pcp,memcg_vmstats_percpu

command -v pahole >/dev/null 2>&1 || { echo "bench layout: SKIP pahole not installed (apt-get install dwarves)"; exit 0; }
[ -x "$LAB" ] || { echo "bench layout: $LAB missing (make build)" >&2; exit 2; }

now_us() { echo $(($(date +%s%N) / 1000)); }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

T=$(mktemp -d /tmp/memcg-lab-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "layout --check vs pahole -F btf -C <the same 5 structs>: median of $RUNS interleaved runs each"
printf '%-10s %10s %10s %8s\n' kernel check_ms pahole_ms ratio
for btf in build/btf/vmlinux-*.btf; do
	k=${btf#build/btf/vmlinux-}; k=${k%.btf}
	: >"$T/check"; : >"$T/pahole"
	for i in $(seq "$RUNS"); do
		t0=$(now_us); $LAB layout --btf "$btf" --check >/dev/null 2>&1; t1=$(now_us)
		pahole -F btf -C "$STRUCTS" "$btf" >/dev/null 2>&1; t2=$(now_us)
		echo $((t1 - t0)) >>"$T/check"; echo $((t2 - t1)) >>"$T/pahole"
	done
	c=$(median <"$T/check"); p=$(median <"$T/pahole")
	awk -v k="$k" -v c="$c" -v p="$p" 'BEGIN { printf "%-10s %10.1f %10.1f %8.2f\n", k, c / 1000, p / 1000, c / p }'
done
