#!/bin/bash
# TAP: an A/B of guest runs under the lines plugin, through compare and
# plot, on the runs recorded here (lab/tests/data/lines/charge-5.10 and
# charge-6.1, the README there) laid out as `vm --lines -- run
# experiments/lines-charge.exp` leaves them: the experiment's directory
# under results/ of the vm directory, whose lines/ hold the counts.  The
# windows' operations (window-ops.tsv, which the recorded runs predate)
# are given here: 5.10's window 4000 faults, 6.1's 5000.
#   - compare prints the cacheline table per field, false and true HITMs
#     of each side, per 1000 faults, with the change: memory.parent's
#     false sharing against usage on 5.10, none on 6.1; memory.usage on both;
#   - the split claim is reproduced from those counts, the batch claim is
#     not measurable (the split confounds the pair);
#   - plot draws the coloured cacheline map of each side (5.10's
#     memory.parent false sharing, 6.1's read with no HITM) and the bars A
#     against B, PNG, SVG and ASCII within 72 columns.
set -u
. "$(dirname "$0")/lib/tap.sh"

for r in 5.10.262 6.1.192; do
	[ -f build/btf/vmlinux-$r.btf ] || skip_all "build/btf/ is not built (make build)"
done

# side NAME RELEASE SPLIT BATCH OPS: a vm directory with the recorded run,
# its counts converted, and the experiment's run inside it.
side() {
	local v=$T/vm-$1 r
	cp -r "lab/tests/data/lines/charge-$1" "$v"
	cp "build/btf/vmlinux-$2.btf" "$v/lines/vmlinux.btf"
	printf 'window\tops\tunit\n0\t%s\tfaults\n' "$5" > "$v/lines/window-ops.tsv"
	$LAB c2c lines "$v" >"$T/c2c-$1.out" 2>&1 || return 1
	r=$v/results/run
	mkdir -p "$r/data"
	cp experiments/lines-charge.exp "$r/experiment.exp"
	printf '{"name":"lines-charge","status":"complete","probe":{"kernel":"%s","features":{"cacheline_split":%s,"stock_slots":1}},"runtime":{"charge_batch":%s},"vm":{"accel":"tcg","kernel_spec":"%s"}}\n' \
		"$2" "$3" "$4" "$1" > "$r/meta.json"
	printf 'step\trepeat\tmetric\tvalue\tunit\tbetter\n-\t0\tcharge.anon.total\t40000\tops/s\thigher\n' \
		> "$r/data/metrics.tsv"
}
side 5.10 5.10.262 false 32 4000 && side 6.1 6.1.192 true 64 5000
ok '[ $? = 0 ]' "the recorded runs convert (c2c lines), each with its experiment's directory"
A=$T/vm-5.10/results/run B=$T/vm-6.1/results/run

# field FILE STRUCT FIELD COLUMN: a column of a fields.tsv row.
field() {
	awk -F'\t' -v st="$2" -v f="$3" -v col="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["struct"] == st && $c["field"] == f { print $c[col]; exit }' "$1"
}
pa=$(field "$T/vm-5.10/lines/fields.tsv" mem_cgroup memory.parent false_hitm)
ua=$(field "$T/vm-5.10/lines/fields.tsv" mem_cgroup memory.usage true_hitm)
ub=$(field "$T/vm-6.1/lines/fields.tsv" mem_cgroup memory.usage true_hitm)

out=$($LAB compare "$A" "$B" 2>&1); st=$?
ok '[ $st = 0 ] && echo "$out" | grep -q "^  A: 4.00K faults in its windows" && echo "$out" | grep -q "^  B: 5.00K faults in its windows"' \
	"compare: each side's windows and the faults they counted"
# memory.parent: A's false HITMs and none true, per 1000 faults; none on B: -100%.
want=$(awk -v p="$pa" 'BEGIN { printf "%.3g", p * 1000 / 4000 }')
ok 'echo "$out" | grep -Eq "^  memory\.parent +$pa +0 +$want +0 +0 +0 +-100\.0%$"' \
	"compare: memory.parent, $pa false HITMs on 5.10 ($want per 1000 faults), none on 6.1"
ok 'echo "$out" | grep -Eq "^  memory\.usage +[0-9.K]+ +$ua +[0-9.]+ +0 +$ub +[0-9.]+ +[-+][0-9.]+%$"' \
	"compare: memory.usage, true sharing on both ($ua, $ub)"
ok '[ $(echo "$out" | awk "{ if (length > m) m = length } END { print m }") -le 80 ]' "compare: within 80 columns"
ok 'echo "$out" | grep -Eq "^  split +reproduced +> 0 -> 0 hitm +A $pa, B 0 hitm"' \
	"the split claim, reproduced from the counts (A $pa false HITMs, B 0)"
ok 'echo "$out" | grep -Eq "^  batch +not measurable here" && echo "$out" | grep -q "the pair confounds it"' \
	"the batch claim: not measurable, the split confounds 5.10 against 6.1"

out=$($LAB plot "$A" "$B" --out "$T/plots" 2>&1); st=$?
ok '[ $st = 0 ]' "plot exits 0"
# Headline plots of experiments/lines-charge.exp in plots/, the rest in all/.
for p in linesmap-mem_cgroup linesmap-mem_cgroup.B linesbars-mem_cgroup all/linesmap-memcg_stock_pcp; do
	ok '[ -s "$T/plots/$p.png" ] && [ -s "$T/plots/$p.svg" ] && [ -s "$T/plots/$p.txt" ] &&
	    [ "$(LC_ALL=C.UTF-8 wc -L < "$T/plots/$p.txt")" -le 72 ]' \
		"$p: PNG, SVG and ASCII within 72 columns"
done
# The ASCII maps: each row of cachelines (those the plugin followed) on a
# text row of its own, with its labels.
for p in linesmap-mem_cgroup linesmap-mem_cgroup.B all/linesmap-memcg_stock_pcp; do
	bad=$(awk -F'\t' -v nl=0 -f lab/tests/lib/ascii-map-rows.awk "$T/plots/$p.tsv" "$T/plots/$p.txt")
	ok '[ -z "$bad" ]' "$p.txt: each row of the map on its own text row, with its labels${bad:+: $(echo "$bad" | head -n1)}"
done
ok '! grep -Eq "[^ ](true|false) sharing, " "$T/plots/linesbars-mem_cgroup.txt" && grep -q "false sharing, B: 6.1.192" "$T/plots/linesbars-mem_cgroup.txt"' \
	"linesbars ASCII key: no entry runs into the one before it"
# The maps' boxes: tag 3 false sharing, 4 true sharing, 5 no HITM.
tag() { awk -F'\t' -v n="$2" 'NR > 1 && ($5 == n || $5 ~ "(^|[|])" n "$") { print $4; exit }' "$1"; }
ok '[ "$(tag "$T/plots/linesmap-mem_cgroup.tsv" memory.parent)" = 3 ] &&
    [ "$(tag "$T/plots/linesmap-mem_cgroup.tsv" memory.usage)" = 4 ] &&
    [ "$(tag "$T/plots/linesmap-mem_cgroup.tsv" memory.max)" = 5 ]' \
	"5.10's map: memory.parent false sharing, memory.usage true sharing, memory.max read without a HITM"
ok '[ "$(tag "$T/plots/linesmap-mem_cgroup.B.tsv" memory.parent)" = 5 ] &&
    [ "$(tag "$T/plots/linesmap-mem_cgroup.B.tsv" memory.usage)" = 4 ]' \
	"6.1's map: memory.parent read without a HITM, memory.usage true sharing"
ok 'awk -F"\t" -v p="$pa" "\$1 == \"memory.parent\" { f = \$2 == p * 1000 / 4000 && \$4 == 0 } END { exit !f }" \
	"$T/plots/linesbars-mem_cgroup.tsv"' "the bars: memory.parent's false sharing per 1000 faults on A, none on B"
ok 'grep -q "memory.parent: $pa false, 0 true HITMs" "$T/plots/linesmap-mem_cgroup.gp"' \
	"5.10's map lists memory.parent's HITMs under it"

# One side without counts: said in one line, no bars.
rm -r "$T/vm-6.1/lines"
out=$($LAB compare "$A" "$B" 2>&1)
ok 'echo "$out" | grep -q "Cacheline transfers: only A has them" &&
    [ $(echo "$out" | awk "{ if (length > m) m = length } END { print m }") -le 80 ]' \
	"compare: one side without counts is said, within 80 columns"
done_testing
