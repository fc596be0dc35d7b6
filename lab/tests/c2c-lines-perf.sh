#!/bin/bash
# TAP: the lines plugin's counts through the tools a PMU box uses, on guest
# runs recorded here (lab/tests/data/lines/charge-5.10, charge-6.1: the
# README there).  `memcg-lab c2c lines` writes perf.data; the REAL
# `perf c2c report` of the host (6.1) and of perf 7.3
# (lab/scripts/perf-runtime.sh) must read it and:
#   - count exactly the plugin's events: Load Local HITM = the sites' load
#     HITMs, Store L1D Miss = their store HITMs and invalidations;
#   - name the guest kernel's code from the build-ID cache the lab wrote
#     (page_counter_try_charge, not a host symbol);
#   - and `memcg-lab c2c report --objects` of that report must name the
#     same struct mem_cgroup fields that fields.tsv gives HITMs to
#     (5.10: memory.parent and memory.usage among them; 6.1: usage, no limit).
set -u
. "$(dirname "$0")/lib/tap.sh"

host_perf=$(command -v perf) || skip_all "no perf in PATH (Debian package linux-perf)"
for r in 5.10.262 6.1.192; do
	[ -f build/btf/vmlinux-$r.btf ] || skip_all "build/btf/ is not built (make build)"
done
perfs=("$host_perf")
if p73=$(lab/scripts/perf-runtime.sh 7.3 2>"$T/p73.err") && [ -x "$p73" ]; then
	perfs+=("$p73")
else
	skip "the checks against perf 7.3" "lab/scripts/perf-runtime.sh 7.3: $(head -1 "$T/p73.err")"
fi

# sum COLUMNS...: the sum of the named site columns of lines.tsv.
site_sum() {
	awk -F'\t' -v cols="$2" '
		$1 == "#fields" && $2 == "site" { for (i = 3; i <= NF; i++) c[$i] = i - 1; next }
		$1 == "site" { n = split(cols, k, ","); for (j = 1; j <= n; j++) s += $(c[k[j]]) }
		END { print s + 0 }' "$1"
}
# The mem_cgroup fields with HITMs: of fields.tsv, and of the lab's c2c report.
lines_fields() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["struct"] == "mem_cgroup" && $c["hitm_loads"] + $c["hitm_stores"] > 0 { print "mem_cgroup." $c["field"] }' "$1" | sort -u
}
report_fields() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["struct"] == "mem_cgroup" && $c["field"] != "" && $c["hitm"] > 0 { print $c["field"] }' "$1" | sort -u
}

for k in 5.10:5.10.262 6.1:6.1.192; do
	kern=${k%%:*} rel=${k#*:}
	d=$T/run-$kern
	cp -r "lab/tests/data/lines/charge-$kern" "$d"
	cp "build/btf/vmlinux-$rel.btf" "$d/lines/vmlinux.btf"
	"$LAB" c2c lines "$d" >"$T/lines-$kern.out" 2>&1
	ok '[ $? = 0 ] && [ -s "$d/lines/perf.data" ] && [ -s "$d/lines/c2c.txt" ] && [ -s "$d/lines/tasks=4/c2c.txt" ]' \
		"$kern: c2c lines writes perf.data and the host perf's c2c.txt, for all windows and for tasks=4"
	lh=$(site_sum "$d/lines/lines.tsv" load_hitm)
	st=$(site_sum "$d/lines/lines.tsv" store_hitm,store_inval)
	lines_fields "$d/lines/fields.tsv" > "$T/want-$kern"
	for PERF in "${perfs[@]}"; do
		v=$("$PERF" version 2>/dev/null | awk '{ print "perf-" $3 }')
		r=$T/c2c-$kern-$v
		"$PERF" --buildid-dir "$d/lines/buildid" c2c report -i "$d/lines/perf.data" --stdio -NN \
			-c pid,tid,iaddr --full-symbols >"$r.txt" 2>"$r.err"
		ok '[ $? = 0 ] && grep -Eq "Load Local HITM +: +$lh\$" "$r.txt" && grep -Eq "Store L1D Miss +: +$st\$" "$r.txt"' \
			"$kern $v: reads the perf.data: $lh load HITMs, $st store misses, as the plugin counted"
		# (perf 6.1 prints ??:0 for Source:Line from a symbol file; 7.3 sym+off.)
		ok 'grep -q "\[k\] page_counter_try_charge " "$r.txt" && ! grep -q "\[k\] 0xffffffff" "$r.txt"' \
			"$kern $v: names the guest kernel's code, every kernel address ($(grep -c '\[k\] page_counter_try_charge ' "$r.txt") rows of page_counter_try_charge)"
		"$LAB" c2c report "$r.txt" --objects "$d/lines/c2c/objects.tsv" --btf "$d/lines/vmlinux.btf" \
			-o "$r.lab" >"$r.lab.out" 2>&1
		report_fields "$r.lab/fields.tsv" | diff -u "$T/want-$kern" - >"$r.diff"
		ok '[ ! -s "$r.diff" ] && [ -s "$T/want-$kern" ]' \
			"$kern $v: c2c report --objects names the fields fields.tsv gives HITMs: $(tr '\n' ' ' < "$T/want-$kern")$(sed 's/^/ /' "$r.diff" | tr '\n' ' ')"
	done
done
ok 'grep -qx "mem_cgroup.memory.parent" "$T/want-5.10" && grep -qx "mem_cgroup.memory.usage" "$T/want-5.10"' \
	"5.10: memory.parent and memory.usage both have HITMs"
ok 'grep -qx "mem_cgroup.memory.usage" "$T/want-6.1" && ! grep -Eqx "mem_cgroup.memory.(max|parent|high|low)" "$T/want-6.1"' \
	"6.1: memory.usage has HITMs, none of max, parent, high, low"
done_testing
