#!/bin/sh
# TAP: an A/B across kernels, the way a user makes one: the stock-slot
# experiment (experiments/stock-slots.exp, K = 1..8 memcgs charging in turn
# on one CPU) in a Debian 6.12 guest (one stock slot) and on the running
# kernel, both results directories fed to `compare`.  What the A/B shows is
# the count of memcgs keeping a precharge: 1 whatever K on 6.12, min(K, N)
# where the running kernel has N slots (7 from 6.16).  Throughput under qemu
# TCG means nothing, and the guest's results say so in their meta.json.
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/vm/lib.sh

command -v qemu-system-x86_64 >/dev/null ||
	{ echo "1..0 # SKIP qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"; exit 0; }
$lab vm --fetch --kernel 6.12 >/dev/null 2>"$tmp/fetch.err" ||
	{ echo "1..0 # SKIP cannot get kernel 6.12: $(tail -n1 "$tmp/fetch.err")"; exit 0; }
kmax=8
set -- experiments/stock-slots.exp -s experiment.repeats=1 -s driver.stock-max=$kmax

MEMCG_LAB_RESULTS=$tmp/a $lab vm --kernel 6.12 --cpus 2 -- run "$@" >"$tmp/a.out" 2>&1
rc=$?
ok $rc "A: stock-slots ran in a 6.12 guest"
[ $rc = 0 ] || diag "$(tail -n 8 "$tmp/a.out")"
a=$(ls -d "$tmp"/a/*/results/*-stock-slots 2>/dev/null | head -n1)
[ -n "$a" ] && [ "$(jget "$a/meta.json" vm.accel)" != "" ] && [ "$(jget "$a/meta.json" probe.features.stock_slots)" = 1 ]
ok $? "A: its results came back, marked as made in qemu ($(jget "$a/meta.json" vm.accel)), 1 stock slot"

# B: the running kernel, when this host can charge memcgs at all.
$lab probe --json > "$tmp/host.json" 2>/dev/null
slots=$(jget "$tmp/host.json" features.stock_slots)
cgmode=$(jget "$tmp/host.json" machine.cgroup.mode)
if [ "$(id -u)" != 0 ] || [ "$cgmode" = none ] || [ -z "$cgmode" ]; then
	skip "B: stock-slots on the running kernel" \
		"$([ "$(id -u)" != 0 ] && echo "needs root to create cgroups" || echo "no memory controller here (cgroup mode '${cgmode:-unknown}')")"
	done_testing
	exit
fi
MEMCG_LAB_RESULTS=$tmp/b $lab run "$@" >"$tmp/b.out" 2>&1
rc=$?
b=$(ls -d "$tmp"/b/*-stock-slots 2>/dev/null | head -n1)
ok $rc "B: stock-slots ran on the running kernel ($(uname -r), $slots stock slots)"
[ $rc = 0 ] || diag "$(tail -n 5 "$tmp/b.out")"

$lab compare "$a" "$b" > "$tmp/cmp.txt" 2>&1
ok $? "compare A B exits 0"
grep -q "kernel 6.12" "$tmp/cmp.txt" && grep -q "kernel $(uname -r)" "$tmp/cmp.txt" &&
	grep -q "stock slots 1" "$tmp/cmp.txt" && grep -q "stock slots $slots" "$tmp/cmp.txt"
ok $? "compare names both kernels and their stock slots (1 and $slots)"
$lab compare --tsv --metric '^stock\.holders$' "$a" "$b" > "$tmp/cmp.tsv" 2>&1
want="" got=""
for k in $(seq 1 $kmax); do
	want="$want K=$k:1:$((k < slots ? k : slots))"
done
got=$(awk -F'\t' '$2 == "stock.holders" { printf " %s:%g:%g", $1, $4, $7 }' "$tmp/cmp.tsv")
[ "$got" = "$want" ]
ok $? "the cliff: memcgs keeping a precharge, A 1 at every K, B min(K, $slots)"
diag "K:A:B$got"
[ "$got" = "$want" ] || diag "want$want" "$(cat "$tmp/cmp.tsv")"
done_testing
