#!/bin/bash
# TAP: `memcg-lab lines predict` and `lines suggest` on a run directory:
# the objects, windows and guest files of the 5.10 guest run recorded in
# lab/tests/data/lines/charge-5.10 with its BTF (build/btf), and an access
# trace made here (lab/tests/lib/lines-synth.awk through
# build/tests/tools/lines-trace-make): SYNTHETIC accesses modelled on 5.10's
# charge path, not recorded in a guest; the figures below are what the
# replay gives for them, no claim about a kernel.
#   - predict on page_counter edited (--pad-after usage) and on 6.1's BTF:
#     the limits' false sharing of 5.10's layout goes; predicted-fields.tsv
#     names the trace and the layout; --line-size 128 runs;
#   - suggest --struct page_counter: a layout whose limits (min, low, high,
#     max, parent) have no predicted false sharing, where the kernel's had;
#   - bad input, one line each and exit 2: a trace of another format
#     version, a cut-off one (with its record count), one never finished, a
#     layout without the struct, an edit naming no member, an offset over
#     another member, a budget the struct cannot meet.
set -u
. "$(dirname "$0")/lib/tap.sh"

[ -f build/btf/vmlinux-5.10.262.btf ] && [ -f build/btf/vmlinux-6.1.192.btf ] ||
	skip_all "build/btf/ is not built (make build)"
[ -x build/tests/tools/lines-trace-make ] || skip_all "build/tests/tools/lines-trace-make is not built (make build)"

R=$T/run
cp -r lab/tests/data/lines/charge-5.10 "$R"
cp build/btf/vmlinux-5.10.262.btf "$R/lines/vmlinux.btf"
synth() {
	awk -v vcpus=4 -v ops="${1:-300}" -v burst=3 -v cg=0xffff88803fa3d000 -v parent=0xffff88803fa38000 \
		-v stocks=0xffff88803e6314a0,0xffff88803e6b14a0,0xffff88803e7314a0,0xffff88803e7b14a0 \
		-f lab/tests/lib/lines-synth.awk
}
synth >"$T/acc.txt"
build/tests/tools/lines-trace-make "$R/lines/trace.bin" <"$T/acc.txt"
nrec=$(grep -vc '^#' "$T/acc.txt")

# col FILE STRUCT FIELD COLUMN: a fields.tsv cell.
col() {
	awk -F'\t' -v st="$2" -v f="$3" -v c="$4" '/^#/ { next } !h { for (i = 1; i <= NF; i++) k[$i] = i; h = 1; next }
		$k["struct"] == st && $k["field"] == f { print $k[c]; exit }' "$1"
}
# limits_false FILE: the false HITMs of memory.min, low, high, max, parent.
limits_false() {
	awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) k[$i] = i; h = 1; next }
		$k["struct"] == "mem_cgroup" && $k["field"] ~ /^memory\.(min|low|high|max|parent)$/ { s += $k["false_hitm"] }
		END { print s + 0 }' "$1"
}

"$LAB" lines predict "$R" --struct page_counter --pad-after usage --no-map >"$T/p1.out" 2>"$T/p1.err"
check $? "predict --struct page_counter --pad-after usage: exit 0" || diag <"$T/p1.err"
P=$R/lines/predicted-fields.tsv
ok '[ "$(head -1 "$P")" = "# memcg-lab predicted-fields 1" ] && grep -qx "# trace	$R/lines/trace.bin" "$P" &&
    grep -q "^# layout	the recorded layout edited (struct page_counter --pad-after usage), 64-byte lines" "$P"' \
	"predicted-fields.tsv opens with its format, the trace and the layout"
ok '[ "$(col "$P" mem_cgroup memory.min offset)" = 320 ] && [ "$(col "$P" mem_cgroup memory.usage offset)" = 256 ]' \
	"the predicted rows at the new offsets: memory.usage 256, memory.min 320 (a line of its own)"
rec_high=$(awk '$1 == "memory.high" { print $4; exit }' "$T/p1.out")
ok '[ "${rec_high:-0}" -gt 0 ] && [ "$(col "$P" mem_cgroup memory.high false_hitm)" = 0 ]' \
	"memory.high: $rec_high false HITMs on the recorded layout, 0 predicted"
ok 'grep -q "records replayed on 7 objects" "$T/p1.out" && grep -q "where objects meet" "$T/p1.out" &&
    grep -q "memcg_stock_pcp (memcg_stock cpu0) bytes 0..31 and bytes outside it, 300 accesses outside" "$T/p1.out"' \
	"the stocks' neighbours on their lines: counted, not replayed, their lines named"

"$LAB" lines predict "$R" --layout build/btf/vmlinux-6.1.192.btf --no-map -o "$T/p61" >"$T/p2.out" 2>"$T/p2.err"
check $? "predict --layout 6.1.192's BTF: exit 0" || diag <"$T/p2.err"
ok '[ "$(limits_false "$T/p61/predicted-fields.tsv")" = 0 ] && [ "$(col "$T/p61/predicted-fields.tsv" mem_cgroup memory.usage offset)" = 256 ]' \
	"6.1's layout: memory.usage at 256, no false sharing on the limits"
ok 'grep -q "fields missing from the layout" "$T/p2.out" || ! grep -q "vmstats_local" "$T/acc.txt"' \
	"fields 6.1 lacks are named when the trace touches them"

"$LAB" lines predict "$R" --line-size 128 --no-map -o "$T/p128" >"$T/p3.out" 2>"$T/p3.err"
check $? "predict --line-size 128 (the recorded layout in 128-byte pairs): exit 0" || diag <"$T/p3.err"
ok 'grep -q "^# line_size	128" "$T/p128/predicted-fields.tsv"' "its rows say 128"

"$LAB" lines suggest "$R" --struct page_counter --budget +0 --no-map -o "$T/s" >"$T/s.out" 2>"$T/s.err"
check $? "suggest --struct page_counter --budget +0: exit 0" || diag <"$T/s.err"
S=$T/s/suggested-fields.tsv
kern=$(awk '$1 == "the" && $2 == "kernel'"'"'s" { print $4; exit }' "$T/s.out")
ok '[ -f "$S" ] && [ "$(limits_false "$S")" = 0 ] && [ "${kern:-0}" -gt 0 ]' \
	"the proposal: no false sharing on the limits (the kernel's layout: $kern false events)" ||
	diag <"$T/s.out"
ok 'grep -q "^+	CACHELINE_PADDING(_pad1_);" "$T/s.out" && grep -q "^ struct page_counter {" "$T/s.out" &&
    grep -q "<- proposed" "$T/s.out"' "the proposal printed as a diff of the definition, with its padding"
ok 'grep -q "^proposed: .*, 128 B (2 lines), against the kernel.s 112 B:" "$T/s.out"' "within the budget: 2 lines, as 5.10's page_counter" ||
	grep "^proposed" "$T/s.out" | diag

# In the reviewer's hands: a 5.10 guest run (its recorded counts converted
# by c2c lines, 4000 faults in its window) with the synthetic trace,
# predicted on 6.1's layout, beside the 6.1 run's measured counts (5000
# faults): compare, report --mail, plot.
side() {	# NAME RELEASE SPLIT BATCH OPS (as lines-ab.sh lays a vm run out)
	local v=$T/vm-$1 r
	cp -r "lab/tests/data/lines/charge-$1" "$v"
	cp "build/btf/vmlinux-$2.btf" "$v/lines/vmlinux.btf"
	printf 'window\tops\tunit\n0\t%s\tfaults\n' "$5" >"$v/lines/window-ops.tsv"
	"$LAB" c2c lines "$v" --no-perf >"$T/c2c-$1.out" 2>&1 || return 1
	r=$v/results/run
	mkdir -p "$r/data"
	cp experiments/lines-charge.exp "$r/experiment.exp"
	printf '{"name":"lines-charge","status":"complete","probe":{"kernel":"%s","features":{"cacheline_split":%s,"stock_slots":1}},"runtime":{"charge_batch":%s},"vm":{"accel":"tcg","kernel_spec":"%s"}}\n' \
		"$2" "$3" "$4" "$1" >"$r/meta.json"
	printf 'step\trepeat\tmetric\tvalue\tunit\tbetter\n-\t0\tcharge.anon.total\t40000\tops/s\thigher\n' >"$r/data/metrics.tsv"
}
side 5.10 5.10.262 false 32 4000 && side 6.1 6.1.192 true 64 5000
ok '[ $? = 0 ]' "two vm runs laid out, their counts converted"
cp "$R/lines/trace.bin" "$T/vm-5.10/lines/"
"$LAB" lines predict "$T/vm-5.10" --layout build/btf/vmlinux-6.1.192.btf --no-map >"$T/pv.out" 2>&1
ok '[ $? = 0 ] && grep -qx "# ops	4000	faults" "$T/vm-5.10/lines/predicted-fields.tsv"' \
	"predict in the run: predicted-fields.tsv in its lines/, with the trace's 4000 faults"
A=$T/vm-5.10/results/run B=$T/vm-6.1/results/run
"$LAB" compare "$A" "$B" >"$T/cmp.out" 2>&1
pu=$(col "$T/vm-5.10/lines/predicted-fields.tsv" mem_cgroup memory.usage true_hitm)
mu=$(col "$T/vm-6.1/lines/fields.tsv" mem_cgroup memory.usage true_hitm)
ok 'grep -q "^Predicted beside measured (B)" "$T/cmp.out" && grep -q "^  predicted from trace $T/vm-5.10/lines/trace.bin" "$T/cmp.out" &&
    grep -Eq "^  memory\.usage +0 +[0-9.K]+ +[0-9.]+ +0 +$mu +[0-9.]+ +true " "$T/cmp.out"' \
	"compare A B: A's prediction (from its trace) beside B's measured, memory.usage true sharing on both" ||
	sed -n '/^Predicted/,/same class/p' "$T/cmp.out" | diag
# memory.usage per 1000 faults of each side, and the error of the prediction.
pu_all=$(awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) k[$i] = i; h = 1; next }
	$k["field"] == "memory.usage" { print $k["hitm_loads"] + $k["hitm_stores"]; exit }' "$T/vm-5.10/lines/predicted-fields.tsv")
mu_all=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	$k["field"] == "memory.usage" { print $k["hitm_loads"] + $k["hitm_stores"]; exit }' "$T/vm-6.1/lines/fields.tsv")
ok 'grep -Eq "^  memory\.usage +0 +[0-9.K]+ +$(awk -v p="$pu_all" "BEGIN { printf \"%.3g\", p / 4 }") +0 +[0-9.K]+ +$(awk -v m="$mu_all" "BEGIN { printf \"%.3g\", m / 5 }") +true +[+]?$(awk -v p="$pu_all" -v m="$mu_all" "BEGIN { printf \"%.0f\", 100 * (p / 4 - m / 5) / (m / 5) }")%$" "$T/cmp.out"' \
	"compare: memory.usage per 1000 faults, $pu_all HITMs of 4000 predicted against $mu_all of 5000 measured, and the error" ||
	grep "memory.usage" "$T/cmp.out" | diag
ok 'grep -q "^  total HITMs per 1000 ops: predicted" "$T/cmp.out" && grep -q "^  (1), the same class predicted: 1$" "$T/cmp.out"' \
	"compare: the totals per 1000 faults, one field of 20 HITMs or more, its class the same"
"$LAB" lines predict "$T/vm-5.10" --layout build/btf/vmlinux-6.1.192.btf --no-map -o "$T/pm" --measured "$T/vm-6.1" \
	>"$T/pm.out" 2>&1
ok '[ $? = 0 ] && grep -q "^Predicted beside measured ($T/vm-6.1)" "$T/pm.out" && grep -q "^  measured: $T/vm-6.1/lines/fields.tsv" "$T/pm.out" &&
    grep -Eq "^  memory\.usage +0 .* true +[+]?[0-9]+%$" "$T/pm.out"' \
	"predict --measured: the prediction beside the 6.1 run's fields.tsv at once" || diag <"$T/pm.out"
"$LAB" report --mail "$A" "$B" >"$T/mail.out" 2>&1
ok '[ $? = 0 ] && grep -q "^Predicted beside measured (B)" "$T/mail.out" &&
    [ "$(sed -n "/^Predicted beside/,/same class predicted/p" "$T/mail.out" | grep -v "^  predicted from trace /\|^  measured: /" | awk "length > 72" | wc -l)" = 0 ]' \
	"report --mail A B: the prediction beside B's measured, within the mail's 72 columns (but the paths)" ||
	sed -n '/^Predicted beside/,/same class predicted/p' "$T/mail.out" | awk 'length > 72' | diag
"$LAB" plot "$A" "$B" >"$T/plot.out" 2>&1
P2=$(dirname "$A")/compare-run-vs-run/plots
ok '[ -f "$P2/linesmap-mem_cgroup.txt" ] && [ -f "$P2/linesmap-mem_cgroup.B.txt" ] && [ -f "$P2/linesmap-mem_cgroup.predicted.png" ] &&
    grep -q "^linesmap-mem_cgroup.predicted.png	struct mem_cgroup: predicted from A: 5.10.262.s trace, the layout of build/btf/vmlinux-6.1.192.btf" "$P2/index.txt"' \
	"plot A B: A's predicted map beside the measured maps (a headline as they are), named in index.txt" ||
	{ ls -R "$P2" | diag; diag <"$T/plot.out"; }

# Bad input: one line on stderr, exit 2, naming what is wrong.
bad() {	# description pattern command...
	local what=$1 pat=$2
	shift 2
	"$@" >"$T/bad.out" 2>"$T/bad.err"
	local rc=$?
	ok '[ $rc = 2 ] && [ "$(wc -l <"$T/bad.err")" = 1 ] && grep -q -- "$pat" "$T/bad.err"' "$what: exit 2, one line" ||
		{ echo "rc $rc" | diag; diag <"$T/bad.err"; }
}
B=$T/bad
cp -r "$R" "$B"
build/tests/tools/lines-trace-make "$B/lines/trace.bin" --version 2 <"$T/acc.txt"
bad "a trace of format version 2" "trace format version 2; this memcg-lab reads version 1" \
	"$LAB" lines predict "$B" --line-size 128
build/tests/tools/lines-trace-make "$B/lines/trace.bin" --cut 10 <"$T/acc.txt"
bad "a trace cut short" "cut off: $((nrec - 1)) whole records of the $nrec its header announces" \
	"$LAB" lines predict "$B" --line-size 128
build/tests/tools/lines-trace-make "$B/lines/trace.bin" --status writing <"$T/acc.txt"
bad "a trace the plugin never finished" "cut off: the plugin did not finish the trace (status writing): $nrec whole records" \
	"$LAB" lines suggest "$B" --struct page_counter
printf '\x9f\xeb\x01\x00\x18\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00\x10\x00\x00\x00\x05\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x01\x04\x00\x00\x00\x20\x00\x00\x00\x00int\x00' >"$T/int-only.btf"
bad "a layout without the struct" "has no struct mem_cgroup, a struct of the trace's objects" \
	"$LAB" lines predict "$R" --layout "$T/int-only.btf"
bad "an edit of a struct neither traced nor inside one" "has no struct obj_stock_pcp" \
	"$LAB" lines predict "$R" --struct obj_stock_pcp --pad-after lock
bad "an edit naming no member" "struct page_counter has no member nope" \
	"$LAB" lines predict "$R" --struct page_counter --move nope=64
bad "an edit of a field inside a member" "memory.usage is inside member memory (struct page_counter)" \
	"$LAB" lines predict "$R" --struct mem_cgroup --align memory.usage=64
bad "an offset over another member" "member min at 0..7 overlaps member usage at 0..7" \
	"$LAB" lines predict "$R" --struct page_counter --move min=0
bad "--align other than 64 or 128" "want MEMBER=64 or MEMBER=128" \
	"$LAB" lines predict "$R" --struct page_counter --align min=32
bad "a budget the struct cannot meet" "its members need at least 2 (112 bytes)" \
	"$LAB" lines suggest "$R" --struct page_counter --budget -1
bad "suggest without --struct" "--struct S is required" "$LAB" lines suggest "$R"
bad "no trace in the directory" "no trace.bin in it" "$LAB" lines predict "$T"
bad "--measured without counts" "--measured $T: no fields.tsv in it nor in its lines/" \
	"$LAB" lines predict "$R" --line-size 128 --no-map -o "$T/pm2" --measured "$T"
done_testing
