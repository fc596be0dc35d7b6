#!/bin/sh
# The DWARF input path, end to end: kernel-shaped structs compiled with -g
# (lab/tests/data/layout/kernel-shapes.c) are converted by pahole
# --btf_encode_detached inside `layout --vmlinux`, and every rule's failure
# path is taken on that real DWARF->BTF input: pre-split, split, broken and
# lockdep shapes, PREEMPT_RT's 32-byte stock lock, and the pending
# per-page_counter stock (page_counter.stock/batch, no memcg_stock_pcp).  The same object with pahole -J covers the ELF+.BTF input.
set -u
. "$(dirname "$0")/lib/tap.sh"
SRC=lab/tests/data/layout/kernel-shapes.c
has() { grep -qF -- "$2" "$1"; }

CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip_all "no C compiler ($CC) to build the DWARF fixture"
command -v pahole >/dev/null 2>&1 || skip_all "pahole missing (apt-get install dwarves): it converts DWARF to BTF"

for shape in PRESPLIT SPLIT BROKEN LOCKDEP RT RT_BROKEN PCSTOCK PCSTOCK_BROKEN; do
	# -fno-toplevel-reorder keeps the per-cpu variables in declaration order.
	"$CC" -g -O0 -fno-toplevel-reorder -c "-DSHAPE_$shape" -o "$T/$shape.o" "$SRC"
	check $? "$shape: fixture compiles with -g"
	! readelf -S "$T/$shape.o" | grep -q '\.BTF' && readelf -S "$T/$shape.o" | grep -q '\.debug_info'
	check $? "$shape: the object carries DWARF and no .BTF"
	mkdir -p "$T/tmp-$shape"
	TMPDIR="$T/tmp-$shape" $LAB layout --vmlinux "$T/$shape.o" --check --width 0 --out "$T/cap-$shape" \
		>"$T/$shape.out" 2>"$T/$shape.err"
	echo $? >"$T/$shape.rc"
	has "$T/$shape.out" "DWARF-only vmlinux converted with pahole --btf_encode_detached"
	check $? "$shape: read through pahole --btf_encode_detached"
done

# verdicts SHAPE "rule verdict" ...: each rule's verdict line in the --check output.
verdicts() {
	shape=$1; shift
	for pair in "$@"; do
		rule=${pair% *}; v=${pair#* }
		line=$(grep -E "^[a-zA-Z/]+ +$rule " "$T/$shape.out" | head -1)
		[ "${line%% *}" = "$v" ]
		check $? "$shape: $rule is $v"
		[ "${line%% *}" = "$v" ] || echo "# got: $line"
	done
}

verdicts PRESPLIT "usage-alone FAIL" "limits-off-usage-line FAIL" "limits-after-pad2 n/a" "padding-lines n/a" \
	"sometimes-written-one-line n/a" "size-three-lines n/a" "memcg-memory-aligned FAIL" "memcg-swap-aligned pass" \
	"memcg-kmem-aligned n/a" "memcg-tcpmem-aligned n/a" "stock-slots n/a" "stock-slots-one-line n/a" \
	"stock-percpu-aligned n/a" "stock-cold-off-line n/a" "stock-single-slot FAIL" "obj-stock-hot-one-line n/a" \
	"obj-stock-percpu-aligned n/a"
verdicts SPLIT "usage-alone pass" "limits-off-usage-line pass" "limits-after-pad2 pass" "padding-lines pass" \
	"sometimes-written-one-line pass" "size-three-lines pass" "memcg-memory-aligned pass" "memcg-swap-aligned pass" \
	"memcg-kmem-aligned pass" "memcg-tcpmem-aligned pass" "stock-slots pass" "stock-slots-one-line pass" \
	"stock-percpu-aligned pass" "stock-cold-off-line pass" "stock-single-slot n/a" "obj-stock-hot-one-line pass" \
	"obj-stock-percpu-aligned pass"
verdicts BROKEN "usage-alone FAIL" "limits-off-usage-line FAIL" "limits-after-pad2 FAIL" "padding-lines FAIL" \
	"sometimes-written-one-line warn" "size-three-lines warn" "memcg-memory-aligned FAIL" "memcg-swap-aligned FAIL" \
	"memcg-kmem-aligned FAIL" "memcg-tcpmem-aligned FAIL" "stock-slots FAIL" "stock-slots-one-line FAIL" \
	"stock-percpu-aligned FAIL" "stock-cold-off-line warn" "stock-single-slot n/a" "obj-stock-hot-one-line warn" \
	"obj-stock-percpu-aligned FAIL"
verdicts LOCKDEP "usage-alone pass" "stock-slots n/a" "stock-slots-one-line n/a" "stock-cold-off-line n/a" \
	"obj-stock-hot-one-line n/a" "stock-percpu-aligned pass" "obj-stock-percpu-aligned pass"

# RT as 7.3.4-rt has it: the slots end on line 1, where the drain work
# follows them (the cold-off-line rules check every line of the hot block).
verdicts RT "stock-slots pass" "stock-slots-one-line n/a" "stock-slots-rt-lines pass" "stock-cold-off-line warn" \
	"obj-stock-slots pass" "obj-stock-slots-one-line n/a" "obj-stock-rt-lines pass" "obj-stock-cold-off-line warn" \
	"obj-stock-hot-one-line n/a"
verdicts RT_BROKEN "stock-slots pass" "stock-slots-rt-lines FAIL" "stock-cold-off-line warn" "obj-stock-rt-lines pass"
verdicts PCSTOCK "usage-alone pass" "limits-off-usage-line pass" "limits-after-pad2 pass" "stock-slots n/a" \
	"stock-slots-one-line n/a" "stock-slots-rt-lines n/a" "stock-percpu-aligned n/a" "stock-cold-off-line n/a" \
	"stock-single-slot n/a" "obj-stock-slots pass" "obj-stock-slots-one-line pass" "obj-stock-rt-lines n/a"
verdicts PCSTOCK_BROKEN "usage-alone FAIL" "limits-off-usage-line FAIL" "limits-after-pad2 FAIL" "stock-slots n/a"

[ "$(cat "$T/PRESPLIT.rc")" = 1 ] && [ "$(cat "$T/BROKEN.rc")" = 1 ] && [ "$(cat "$T/RT_BROKEN.rc")" = 1 ] &&
	[ "$(cat "$T/PCSTOCK_BROKEN.rc")" = 1 ]; check $? "failing shapes exit 1"
[ "$(cat "$T/SPLIT.rc")" = 0 ] && [ "$(cat "$T/LOCKDEP.rc")" = 0 ] && [ "$(cat "$T/RT.rc")" = 0 ] &&
	[ "$(cat "$T/PCSTOCK.rc")" = 0 ]; check $? "passing shapes exit 0"

# PREEMPT_RT: the lock's real size, and what breaks the invariant there.
has "$T/RT.out" "lock debugging: no (memcg_stock_pcp.lock is local_trylock_t of 32 B (struct spinlock over struct rt_mutex_base: PREEMPT_RT, not debugging))"
check $? "RT: a 32-byte spinlock_t over rt_mutex_base is PREEMPT_RT, not lock debugging"
has "$T/RT.out" "lock, nr_pages, cached: 95 B in bytes 0-95 on cachelines 0-1, the fewest 95 B can take"
check $? "RT: the memcg stock's lock, counts and pointers take the two lines their 95 B need"
has "$T/RT.out" "89 B in bytes 0-95 on cachelines 0-1"; check $? "RT: the obj stock's hot block, 89 B on lines 0-1"
has "$T/RT_BROKEN.out" "struct memcg_stock_pcp: lock, nr_pages, cached: 95 B in bytes 0-135 span cachelines 0-2, 2 would do"
check $? "RT_BROKEN: work and flags between the lock and the slots make a third line"

# The per-page_counter stock: the stock rules n/a with that reason, page_counter's rules name stock and batch.
grep -q "^n/a   stock-slots-one-line .*no struct memcg_stock_pcp in this kernel (per-page_counter stock kernel" "$T/PCSTOCK.out"
check $? "PCSTOCK: the memcg stock rules are n/a: the stock moved into page_counter"
has "$T/PCSTOCK.out" "class: split page_counter; per-page_counter stock (page_counter.stock, no memcg_stock_pcp)"
check $? "PCSTOCK: classed as a per-page_counter stock"
has "$T/PCSTOCK.out" "none of min, low, high, max, parent, protection_support, track_failcnt, stock, batch on usage's cacheline 0"
check $? "PCSTOCK: limits-off-usage-line checks page_counter.stock and .batch"
has "$T/PCSTOCK_BROKEN.out" "usage@0 (hot-written) shares it with stock@16 (read-mostly) batch@24 (read-mostly)"
check $? "PCSTOCK_BROKEN: stock and batch on usage's line are named with their offsets"
has "$T/PCSTOCK_BROKEN.out" "stock@16 (read-mostly) is before _pad2_@128"; check $? "PCSTOCK_BROKEN: stock before _pad2_"
$LAB probe --vmlinux "$T/PCSTOCK.o" --json >"$T/pc-probe.json" 2>"$T/pc-probe.err"
python3 - "$T/pc-probe.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["features"]
ok = (f["stock_class"] == "page_counter" and f["stock_slots"] == 0 and f["obj_stock_slots"] == 5
      and "page_counter.stock" in f["evidence"]["stock_class"] and "no lock (atomics)" in f["evidence"]["stock_class"])
sys.exit(0 if ok else 1)
PY
check $? "PCSTOCK: probe says stock_class page_counter (evidence names page_counter.stock), obj_stock_slots 5"
$LAB probe --vmlinux "$T/RT.o" >"$T/rt-probe.txt" 2>&1
grep -q "^  lock_rt  *yes " "$T/rt-probe.txt" && grep -q "^  lock_debug  *no " "$T/rt-probe.txt"
check $? "RT: probe says lock_rt yes, lock_debug no"

# What the failures say.
o=$T/BROKEN.out
has "$o" "usage@8 (hot-written), expected at offset 0"; check $? "BROKEN: usage not at offset 0"
has "$o" "cacheline 0 (bytes 0-63): usage@8 (hot-written) shares it with high@0 (read-mostly)"
check $? "BROKEN: high on usage's line, with offsets"
has "$o" "_pad2_@64 is before 128 (2L)"; check $? "BROKEN: _pad2_ on top of _pad1_"
has "$o" "swap@184 (= memsw) is 56 bytes into cacheline 2"; check $? "BROKEN: misaligned swap, union alias named once"
has "$o" "nr_pages uint16_t[7], cached struct mem_cgroup *[6]: expected arrays of one length N >= 2"
check $? "BROKEN: 7 counts for 6 pointers"
has "$o" "cached@24+48 (hot-written) spans cachelines 0-1, not only cacheline 0 (bytes 0-31)"
check $? "BROKEN: the slots leave line 0, counted from where memcg_stock really starts"
has "$o" "per-cpu memcg_stock (struct memcg_stock_pcp) at .data..percpu+32 is 32 bytes into a cacheline"
check $? "BROKEN: memcg_stock not DEFINE_PER_CPU_ALIGNED"
has "$o" "per-cpu obj_stock (struct obj_stock_pcp) at .data..percpu+160 is 32 bytes into a cacheline"
check $? "BROKEN: obj_stock not DEFINE_PER_CPU_ALIGNED"
has "$T/PRESPLIT.out" "the fields span cachelines 0-1: cached@0 (line 0), nr_pages@64 (line 1)"
check $? "PRESPLIT: the single-slot pair split across lines"
has "$T/PRESPLIT.out" "mem_cgroup has no kmem (kernel built without CONFIG_MEMCG_V1)"
check $? "PRESPLIT: kmem n/a with its reason"
has "$T/LOCKDEP.out" "lock debugging: yes (memcg_stock_pcp.lock is local_trylock_t of 56 B"
check $? "LOCKDEP: lock debugging detected (a 56-byte local_trylock_t with lockdep's dep_map)"
grep -q "^n/a   stock-slots .*lock-debugging build: memcg_stock_pcp.lock is local_trylock_t of 56 B.*; the stock invariants assume a non-debug lock" "$T/LOCKDEP.out"
check $? "LOCKDEP: the stock rules say why they are skipped"

# The capture of a DWARF input: release from the "Linux version" banner, pahole text.
has "$T/cap-SPLIT/meta.tsv" "release	6.18.0-fixture-split"; check $? "release read from the vmlinux banner"
has "$T/cap-SPLIT/page_counter.txt" "struct page_counter {"; check $? "pahole text captured from the converted BTF"
[ -z "$(find "$T"/tmp-* -type f)" ]
check $? "pahole's temporary BTF files are removed"

# The same shapes as an ELF with .BTF (pahole -J): the same verdicts.
cp "$T/BROKEN.o" "$T/BROKEN-btf.o" && pahole -J "$T/BROKEN-btf.o" >/dev/null 2>&1
readelf -S "$T/BROKEN-btf.o" | grep -q '\.BTF'; check $? "pahole -J adds .BTF to the object"
$LAB layout --vmlinux "$T/BROKEN-btf.o" --check --width 0 >"$T/BROKEN-btf.out" 2>&1
has "$T/BROKEN-btf.out" "(ELF vmlinux with .BTF $T/BROKEN-btf.o)" &&
	[ "$(grep -E '^(pass|FAIL|warn|n/a) ' "$T/BROKEN-btf.out")" = "$(grep -E '^(pass|FAIL|warn|n/a) ' "$T/BROKEN.out")" ]
check $? "ELF+.BTF input gives the DWARF input's verdicts and messages"

# Diff between two DWARF shapes: the sharing the split removed.
$LAB layout --vmlinux "$T/SPLIT.o" --against "$T/cap-PRESPLIT" --width 0 >"$T/diff" 2>&1
grep -q "! ended sharing: usage (hot-written, was @0, now line 0) no longer shares a cacheline with min (now line 2), low (now line 2), high (now line 2), max (now line 2), parent (now line 2)" "$T/diff"
check $? "PRESPLIT -> SPLIT diff: usage stops sharing with min/low/high/max/parent"

done_testing
