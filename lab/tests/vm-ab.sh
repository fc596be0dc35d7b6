#!/bin/sh
# TAP: A/B across real kernels, the way a user makes one: each side in a
# qemu guest of its own kernel, both results directories fed to `compare`
# (doc/memcg-lab-vm.txt, "A/B ACROSS KERNELS", names these command lines):
#   - experiments/stock-slots.exp (K = 1..8 memcgs charging in turn on one
#     CPU) on 6.12 against 6.16: the memcgs keeping a precharge, 1 at every
#     K on 6.12 (one stock slot), up to min(K, 7) on 6.16 (NR_MEMCG_STOCK 7);
#   - the charge batch (probe --runtime: how far the first charge moves
#     memory.current) on 5.10 against 6.1: 32 pages against 64;
#   - experiments/obj-stock-slots.exp on 7.1 against 7.2, where this tree
#     has it.
# Counts only: throughput under qemu TCG means nothing, and the guests'
# results say so in their meta.json.
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"

# guest NAME KERNEL LAB-ARGS...: runs `memcg-lab LAB-ARGS` in a guest of
# KERNEL; sets dir to the guest's own results directory (empty on failure).
guest() {
	name=$1 k=$2
	shift 2
	dir=""
	if ! $lab vm --fetch --kernel "$k" >/dev/null 2>"$tmp/$name.fetch"; then
		skip "$name: a $k guest" "cannot get kernel $k: $(tail -n1 "$tmp/$name.fetch")"
		return 1
	fi
	t0=$(date +%s)
	MEMCG_LAB_RESULTS=$tmp/$name $lab vm --kernel "$k" --cpus 2 -- "$@" >"$tmp/$name.out" 2>&1
	rc=$?
	dir=$(ls -d "$tmp/$name"/*/results/*/ 2>/dev/null | head -n1 | sed 's:/$::')
	[ $rc = 0 ] && [ -n "$dir" ] && [ "$(jget "$dir/meta.json" status)" = complete ] &&
		[ -n "$(jget "$dir/meta.json" vm.accel)" ]
	check $? "$name: memcg-lab $1 ran in a $k guest, its results came back marked as made in qemu ($(( $(date +%s) - t0 )) s)"
	[ $rc = 0 ] || { diag "$(tail -n 8 "$tmp/$name.out")"; dir=""; return 1; }
}

# pair TAG KA KB LAB-ARGS...: LAB-ARGS in a KA guest and in a KB guest, then
# `compare A B` into $tmp/cmp.txt; sets a and b (fails when a side failed).
pair() {
	tag=$1 ka=$2 kb=$3
	shift 3
	a="" b=""
	if guest "$tag-$ka" "$ka" "$@"; then a=$dir; fi
	if guest "$tag-$kb" "$kb" "$@"; then b=$dir; fi
	[ -n "$a" ] && [ -n "$b" ] || return 1
	$lab compare "$a" "$b" > "$tmp/cmp.txt" 2>&1
	check $? "compare $tag $ka $kb exits 0"
}

# cliff METRIC SLOTS [REACH]: the holders per K in a and b through
# `compare --tsv` (sets got, " K=k:A:B ..."): one holder at every K on A
# (one slot), more than one from K = 2 on B and never more than
# min(K, SLOTS); with REACH, B reaches SLOTS at some K.  Fails with why in
# $tmp/why.
cliff() {
	metric=$1 slots=$2 reach=${3:-}
	$lab compare --tsv --metric "^$(echo "$metric" | sed 's/\./\\./g')\$" "$a" "$b" > "$tmp/cmp.tsv" 2>&1
	got=$(awk -F'\t' -v m="$metric" '$2 == m { printf " %s:%g:%g", $1, $4, $7 }' "$tmp/cmp.tsv")
	echo "$got" | tr ' ' '\n' | awk -F'[=:]' -v kmax=$kmax -v s="$slots" -v reach="$reach" '
		NF == 4 { n++; k = $2; if ($3 != 1) bad = bad " A(K=" k ")=" $3
			  if (k >= 2 && $4 < 2) bad = bad " B(K=" k ")=" $4 " < 2"
			  if ($4 > (k < s ? k : s)) bad = bad " B(K=" k ")=" $4 " > min(K, " s ")"
			  if ($4 == s) hit = 1 }
		END { if (reach && !hit) bad = bad " B never reached " s
		      if (n != kmax || bad != "") { print "wrong:" bad " (" n " steps)"; exit 1 } }' > "$tmp/why"
}

# 1. The stock's slots: 6.12 against 6.16.
kmax=8
if pair slots 6.12 6.16 run experiments/stock-slots.exp -s experiment.repeats=1 -s driver.stock-max=$kmax; then
	grep -q "kernel 6.12" "$tmp/cmp.txt" && grep -q "kernel 6.16" "$tmp/cmp.txt" &&
		grep -q "stock slots 1" "$tmp/cmp.txt" && grep -q "stock slots 7" "$tmp/cmp.txt" &&
		grep -q "in a qemu guest" "$tmp/cmp.txt"
	check $? "compare names both kernels, their stock slots (1 and 7) and the qemu guests"
	# 6.12: exactly one holder at every K (the cliff at K = 2).  6.16:
	# more than one from K = 2 on, never more than min(K, 7).  (Under
	# TCG a reading now and then finds one or two slots drained: the
	# most of 5 readings per K fell 1 short of K at K = 5..8 here; the
	# runtime probe's exact 7 is vm-kernels.sh's to check.)
	cliff stock.holders 7
	check $? "the cliff through compare: memcgs keeping a precharge, 6.12 1 at every K, 6.16 more than 1 from K = 2, at most min(K, 7)"
	diag "K:6.12:6.16$got"
	[ -s "$tmp/why" ] && diag "$(cat "$tmp/why")" "$(cat "$tmp/cmp.tsv")"
fi

# 2. The charge batch: 5.10 against 6.1.
if pair batch 5.10 6.1 probe --runtime --results runtime; then
	grep -q "kernel 5.10" "$tmp/cmp.txt" && grep -q "kernel 6.1\." "$tmp/cmp.txt" &&
		grep -q "cacheline split no" "$tmp/cmp.txt" && grep -q "cacheline split yes" "$tmp/cmp.txt"
	check $? "compare names both kernels and the page_counter split (5.10 no, 6.1 yes)"
	$lab compare --tsv --metric '^runtime\.' "$a" "$b" > "$tmp/cmp.tsv" 2>&1
	got=$(awk -F'\t' '$2 ~ /^runtime\.(charge_batch|stock_slots)$/ { printf " %s:%g:%g", $2, $4, $7 }' "$tmp/cmp.tsv")
	want=" runtime.charge_batch:32:64 runtime.stock_slots:1:1"
	[ "$got" = "$want" ]
	check $? "the charge batch through compare: 32 pages on 5.10, 64 on 6.1 (one stock slot on both)"
	diag "metric:5.10:6.1$got"
	[ "$got" = "$want" ] || diag "want$want" "$(cat "$tmp/cmp.tsv")"
fi

# 3. The obj stock's slots: 7.1 against 7.2 (experiments/obj-stock-slots.exp).
if [ ! -f experiments/obj-stock-slots.exp ]; then
	skip "obj-stock-slots.exp on 7.1 against 7.2" "experiments/obj-stock-slots.exp is not in this tree"
else
	kmax=8
	if pair objslots 7.1 7.2 run experiments/obj-stock-slots.exp -s experiment.repeats=1 -s driver.stock-max=$kmax; then
		grep -q "kernel 7.1" "$tmp/cmp.txt" && grep -q "kernel 7.2" "$tmp/cmp.txt" &&
			grep -q "obj stock slots 1" "$tmp/cmp.txt" && grep -q "obj stock slots 5" "$tmp/cmp.txt"
		check $? "compare names both kernels and their obj stock slots (1 and 5)"
		# 7.1: one objcg cached, one holder at every K.  7.2: more than
		# one from K = 2, never more than min(K, 5), and 5 reached.
		cliff objstock.holders 5 reach
		check $? "the obj stock cliff through compare: 7.1 1 holder at every K, 7.2 more than 1 from K = 2, at most min(K, 5), 5 reached"
		diag "K:7.1:7.2$got"
		[ -s "$tmp/why" ] && diag "$(cat "$tmp/why")" "$(cat "$tmp/cmp.tsv")"
	fi
fi
done_testing
