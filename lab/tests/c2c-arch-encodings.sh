#!/bin/bash
# perf c2c on the boxes users have: Intel PEBS, AMD IBS (Zen 4) and Arm SPE
# memory samples, as each PMU encodes them, written by the lab's perf.data
# writer (build/tests/tools/memsamples --arch, lab/perf/perfdata_write.c),
# read by the real `perf c2c report` (the host's 6.1 and, where
# lab/scripts/perf-runtime.sh provides it, 7.3) with the flags the
# collector uses (lab/c2c/c2c.c report_and_parse: --stdio -NN
# -c pid,tid,iaddr --full-symbols), then named by `memcg-lab c2c report`
# (struct fields from the 6.1.192 BTF fixture, counts by side in
# fields.tsv, what the sides are in pmu.tsv and the printed table).
#
# The encodings, from the source that produces them:
# - Intel: arch/x86/events/intel/ds.c (load latency data source): a local
#   HITM is an L3 hit with a HITM snoop, a remote HITM a remote cache hit
#   (REM_CCE1) with a HITM snoop; tools/perf/util/mem-events.c
#   c2c_decode_stats() counts them as lcl_hitm and rmt_hitm.
# - AMD IBS, Zen 4: arch/x86/events/amd/ibs.c perf_ibs_get_mem_lvl() with
#   g_zen4_data_src[] and perf_ibs_get_mem_snoop(): DataSrc 1 (local L3 or
#   another L1/L2 of the CCX) is L3 + LVLNUM_L3; DataSrc 2 (another CCX's
#   cache, same NUMA node: "near CCX") is REM_CCE1 + ANY_CACHE + REMOTE +
#   HOPS_0; DataSrc 5 (another CCX in another node: "far") is REM_CCE2 +
#   ANY_CACHE + REMOTE + HOPS_1; each HITM when the line was in M state
#   (CacheHitSt 0); names of the values: tools/perf/util/amd-sample-raw.c
#   pr_ibs_op_data2_extended().  c2c_decode_stats() counts DataSrc 1 as
#   lcl_hitm and both 2 and 5 as rmt_hitm: on AMD "Rmt" is another CCX,
#   often on the same socket, and near and far are one count.
# - Arm SPE: the kernel writes SPE records into the AUX buffer; perf
#   decodes them when it reports (tools/perf/util/arm-spe-decoder/
#   arm-spe-pkt-decoder.c, arm-spe-decoder.c) and turns each load's data
#   source into data_src by the CPU's MIDR (tools/perf/util/arm-spe.c:
#   arm_spe__synth_data_source_neoverse() in 6.1 for Neoverse N1, N2, V1;
#   arm_spe__synth_data_source_common() later, with more CPUs): peer core
#   0x9 is L2 + SNOOPX_PEER, local and peer cluster 0xa/0xc L3 +
#   SNOOPX_PEER (lcl_peer), remote 0xd REM_CCE1 + REMOTE + SNOOPX_PEER
#   (rmt_peer).  A CPU perf does not know gets
#   arm_spe__synth_data_source_generic() (6.1): L1/LLC hit or miss from the
#   events, no peer.  perf c2c report shows peer columns by default when
#   the file's HEADER_ARCH is arm64 (builtin-c2c.c perf_c2c__report(),
#   perf_env__arch(); perf_env__e_machine() in 7.x), since 6.0 (Leo Yan's
#   "perf c2c: Use 'peer' as default display for Arm64").
# So the Arm files here are SPE traces, and the decoding is the real
# perf's: with a Neoverse V2 MIDR (Graviton4, Grace) perf 6.1 decodes no
# data source and shows 0 shared cachelines, which the lab must say in
# one line instead of reporting as no sharing; perf 7.3 decodes it.
set -u
. "$(dirname "$0")/lib/tap.sh"

host_perf=$(command -v perf) || skip_all "no perf in PATH (Debian package linux-perf)"
MS=build/tests/tools/memsamples
[ -x $MS ] || skip_all "$MS is not built (make build)"
BTF=build/btf/vmlinux-6.1.192.btf
[ -f "$BTF" ] || skip_all "$BTF is not built (make build)"

perfs=("$host_perf")
if p73=$(lab/scripts/perf-runtime.sh 7.3 2>"$T/p73.err") && [ -x "$p73" ]; then
	perfs+=("$p73")
else
	skip "the checks against perf 7.3" "lab/scripts/perf-runtime.sh 7.3: $(head -1 "$T/p73.err")"
fi

# The objects (offsets: layouts/6.1.192/): a struct mem_cgroup, memory.usage
# at 256, memory.failcnt at 376, css.refcnt.percpu_count_ptr at 16; the
# memcg_stock_pcp of cpu0 and cpu1, cached at 0, nr_pages at 8.
M=0xffff888104a38000
S0=0xffff88813bc30040
S1=0xffff88813bc70040
USAGE=$((M + 256)) FAILCNT=$((M + 376)) REFCNT=$((M + 16)) OTHER=$((M + 1024))

# Intel: local and remote HITM.
$MS -o "$T/intel.data" \
	lcl-hitm,$USAGE,12,cpu=0,ip=0xffffffff81345670 \
	rmt-hitm,$USAGE,4,cpu=1,ip=0xffffffff81345690,pid=1001 \
	rmt-hitm,$FAILCNT,5,cpu=1,ip=0xffffffff81345700 \
	lcl-hitm,$((S0 + 8)),7,cpu=0,ip=0xffffffff81350040 \
	rmt-hitm,$((S1 + 0)),3,cpu=1,ip=0xffffffff81350000,pid=1001 \
	l1-hit,$OTHER,9,cpu=0 store,$OTHER,6,cpu=1
check $? "memsamples wrote the Intel perf.data"
# object, field, lcl, rmt
cat > "$T/intel.want" <<X
mem_cgroup@$M	mem_cgroup.memory.failcnt	0	5
mem_cgroup@$M	mem_cgroup.memory.usage	12	4
memcg_stock_pcp@$S0	memcg_stock_pcp.nr_pages	7	0
memcg_stock_pcp@$S1	memcg_stock_pcp.cached	0	3
X

# AMD Zen 4: same-CCX (DataSrc 1), near-CCX (2) and far-CCX (5) HITM; the
# near ones on memory.usage and nr_pages, the far one alone on failcnt,
# both on cached; clean hits, DRAM, L1 and stores beside them.
$MS --arch amd -o "$T/amd.data" \
	ccx-hitm,$USAGE,10,cpu=0,ip=0xffffffff81345670 \
	near-ccx-hitm,$USAGE,6,cpu=1,ip=0xffffffff81345690,pid=1001 \
	far-ccx-hitm,$FAILCNT,4,cpu=1,ip=0xffffffff81345700 \
	near-ccx-hitm,$((S0 + 8)),5,cpu=1,ip=0xffffffff81350040 \
	ccx-hitm,$((S1 + 0)),3,cpu=0,ip=0xffffffff81350000,pid=1001 \
	far-ccx-hitm,$((S1 + 0)),2,cpu=1,ip=0xffffffff81350000 \
	l3-hit,$OTHER,3 dram,$((OTHER + 8)),2 l1-hit,$((OTHER + 16)),4 \
	store,$OTHER,6,cpu=1 store-miss,$((OTHER + 64)),3,cpu=1
check $? "memsamples --arch amd wrote the IBS perf.data"
# object, field, same-CCX (lcl), other-CCX (rmt)
cat > "$T/amd.want" <<X
mem_cgroup@$M	mem_cgroup.memory.failcnt	0	4
mem_cgroup@$M	mem_cgroup.memory.usage	10	6
memcg_stock_pcp@$S0	memcg_stock_pcp.nr_pages	0	5
memcg_stock_pcp@$S1	memcg_stock_pcp.cached	3	2
X

# Arm SPE: peer core, peer and local cluster, remote socket; L1, L2,
# system cache, DRAM and stores beside them.  The same records with a
# Neoverse N1 MIDR (every perf since 6.1 decodes it) and a Neoverse V2 one.
arm_samples=(
	"peer-core,$USAGE,12,cpu=0,ip=0xffffffff81345670"
	"peer-cluster,$USAGE,4,cpu=1,ip=0xffffffff81345690,pid=1001"
	"remote,$FAILCNT,3,cpu=1,ip=0xffffffff81345700"
	"local-cluster,$REFCNT,5,cpu=0,ip=0xffffffff812a0010"
	"peer-core,$((S0 + 8)),7,cpu=1,ip=0xffffffff81350040"
	"remote,$((S1 + 0)),2,cpu=0,ip=0xffffffff81350000,pid=1001"
	"l1,$OTHER,9" "l2,$((OTHER + 8)),4" "sys-cache,$((OTHER + 16)),2" "dram,$((OTHER + 24)),3" "store,$OTHER,6,cpu=1"
)
$MS --arch arm --cpuid 0x00000000410fd0c0 -o "$T/arm-n1.data" "${arm_samples[@]}"
check $? "memsamples --arch arm wrote an SPE trace with a Neoverse N1 MIDR"
$MS --arch arm --cpuid 0x00000000410fd4f0 -o "$T/arm-v2.data" "${arm_samples[@]}"
check $? "memsamples --arch arm wrote the same SPE trace with a Neoverse V2 MIDR"
# object, field, lcl peer, rmt peer
cat > "$T/arm.want" <<X
mem_cgroup@$M	mem_cgroup.css.refcnt.percpu_count_ptr	5	0
mem_cgroup@$M	mem_cgroup.memory.failcnt	0	3
mem_cgroup@$M	mem_cgroup.memory.usage	16	0
memcg_stock_pcp@$S0	memcg_stock_pcp.nr_pages	7	0
memcg_stock_pcp@$S1	memcg_stock_pcp.cached	0	2
X

# object, field and the sums of two columns of every named row of a fields.tsv.
by_field() {	# fields.tsv col1 col2
	awk -F'\t' -v a="$2" -v b="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["field"] != "" { k = $c["object"] "\t" $c["field"]; x[k] += $c[a]; y[k] += $c[b] }
		END { for (k in x) printf "%s\t%g\t%g\n", k, x[k], y[k] }' "$1" | sort
}

# perf c2c report of $T/SET.data (extra perf flags after SET) into R.txt,
# then memcg-lab c2c report of it into R.lab/ and R.out.
report() {	# R SET [perf flags]
	local r=$1 set=$2
	shift 2
	"$PERF" c2c report -i "$T/$set.data" --stdio -NN -c pid,tid,iaddr --full-symbols "$@" >"$r.txt" 2>"$r.err"
	perf_st=$?
	"$LAB" c2c report "$r.txt" --btf "$BTF" --struct mem_cgroup --base $M \
		--struct memcg_stock_pcp --base $S0 --base $S1 -o "$r.lab" >"$r.out" 2>&1
	lab_st=$?
}
stat_of() { awk -F: -v k="$2" '{ sub(/^ +/, "", $1); sub(/ +$/, "", $1) } $1 == k { gsub(/ /, "", $2); print $2; exit }' "$1"; }
pmu_of() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$1/pmu.tsv"; }

intel() {
	local r=$T/intel.$v
	report "$r" intel
	ok '[ $perf_st = 0 ] && [ "$(stat_of "$r.txt" "Load Local HITM")" = 19 ] &&
	    [ "$(stat_of "$r.txt" "Load Remote HITM")" = 12 ]' \
		"$v: Intel: perf decodes 19 local and 12 remote HITM"
	by_field "$r.lab/fields.tsv" hitm_lcl hitm_rmt | diff -u "$T/intel.want" - >"$r.diff"
	ok '[ $lab_st = 0 ] && [ ! -s "$r.diff" ] && [ "$(pmu_of "$r.lab" vendor)" = intel ]' \
		"$v: Intel: local and remote HITM per named field$(tr '\n' ' ' <"$r.diff")"
}

amd() {
	local r=$T/amd.$v
	report "$r" amd
	# Near and far both count as remote HITM; perf says "RMT Load Hit".
	ok '[ $perf_st = 0 ] && [ "$(stat_of "$r.txt" "Load Local HITM")" = 13 ] &&
	    [ "$(stat_of "$r.txt" "Load Remote HITM")" = 17 ] && grep -q "Events *: ibs_op//" "$r.txt"' \
		"$v: AMD: perf decodes 13 same-CCX HITM as Local and all 17 near- and far-CCX HITM as Remote"
	diag "$v: AMD: $(grep -E "Load (Local|Remote) HITM|Remote cache \(HITM\)" "$r.txt" | tr -s ' ' | tr '\n' ';')"
	by_field "$r.lab/fields.tsv" hitm_lcl hitm_rmt | diff -u "$T/amd.want" - >"$r.diff"
	ok '[ $lab_st = 0 ] && [ ! -s "$r.diff" ] && grep -q "All 6 offset rows named from BTF" "$r.out"' \
		"$v: AMD: same-CCX and other-CCX (near + far) HITM per named field$(tr '\n' ' ' <"$r.diff")"
	# The sides are named for AMD, in the table and in pmu.tsv.
	ok 'grep -q "^Cacheline .* HITM other-CCX 4 same-CCX 0 " "$r.out" &&
	    grep -q "offset field .* other-CCX  same-CCX" "$r.out" &&
	    grep -q "^AMD IBS: .*Rmt HITM = modified in another CCX.s cache, in the same NUMA node" "$r.out" &&
	    ! grep -iE "(another|other|remote) (socket|node)" "$r.out" | grep -qv "not a remote socket" &&
	    [ "$(pmu_of "$r.lab" rmt)" = other-CCX ] && [ "$(pmu_of "$r.lab" lcl)" = same-CCX ]' \
		"$v: AMD: the lab calls Rmt another CCX (same or another NUMA node), not a remote socket"
	grep -m1 "^Cacheline" "$r.out" | diag
	# IBS has no peer snoops: a peer display of it shows nothing, and says so.
	r=$T/amd-peer.$v
	report "$r" amd -d peer
	ok '[ $perf_st = 0 ] && [ $lab_st = 0 ] &&
	    head -1 "$r.out" | grep -q "^$r.txt: cannot show: AMD IBS records no peer snoops"' \
		"$v: AMD, a peer display: the lab's first line says IBS records no peer snoops"
}

arm() {
	local r=$T/arm-n1.$v
	report "$r" arm-n1
	# perf 7.x warns that version 1 metadata takes the MIDR from CPUID.
	ok '[ $perf_st = 0 ] && ! grep -v "^Old SPE metadata" "$r.err" | grep -q . &&
	    grep -q "Cachelines sort on *: Peer Snoop" "$r.txt" &&
	    [ "$(stat_of "$r.txt" "Load HIT Local Peer")" = 28 ] && [ "$(stat_of "$r.txt" "Load HIT Remote Peer")" = 5 ]' \
		"$v: Arm N1: perf decodes the SPE trace: peer display (arm64), 28 local and 5 remote peer snoops" ||
		diag "perf's stderr: $(head -c 300 "$r.err")"
	by_field "$r.lab/fields.tsv" peer_lcl peer_rmt | diff -u "$T/arm.want" - >"$r.diff"
	ok '[ $lab_st = 0 ] && [ ! -s "$r.diff" ] && grep -q "All 6 offset rows named from BTF" "$r.out" &&
	    [ "$(pmu_of "$r.lab" display)" = peer ] && [ -z "$(pmu_of "$r.lab" limit)" ]' \
		"$v: Arm N1: local and remote peer snoops per named field$(tr '\n' ' ' <"$r.diff")"
	grep "^  0x" "$r.out" | head -3 | diag

	# A report without peer columns: Arm's HITM columns are always empty.
	r=$T/arm-tot.$v
	report "$r" arm-n1 -d tot
	ok '[ $perf_st = 0 ] && [ $lab_st = 0 ] && grep -q "sort on *: Total HITMs" "$r.txt" &&
	    head -1 "$r.out" | grep -q "^$r.txt: cannot show: Arm SPE records no HITM and this report shows HITM" &&
	    ! grep -q "cachelines" <(head -1 "$r.out") && [ -n "$(pmu_of "$r.lab" limit)" ]' \
		"$v: Arm, a report without peer columns: the lab's first line says it cannot show sharing: $(head -1 "$r.out" | cut -c1-150)"

	# Neoverse V2: whether this perf knows the CPU decides what the report holds.
	r=$T/arm-v2.$v
	report "$r" arm-v2
	by_field "$r.lab/fields.tsv" peer_lcl peer_rmt | diff -u "$T/arm.want" - >"$r.diff"
	case $v in
	perf-6.1.*)
		ok '[ $perf_st = 0 ] && [ "$(stat_of "$r.txt" "Total Shared Cache Lines")" = 0 ] &&
		    [ "$(stat_of "$r.txt" "Load HIT Local Peer")" = 0 ] && [ "$(stat_of "$r.txt" "Loads - Miss")" -gt 0 ]' \
			"$v: Arm V2: perf 6.1 decodes no SPE data source of this CPU: 0 shared cachelines, no peer"
		ok '[ $lab_st = 0 ] &&
		    head -1 "$r.out" | grep -q "^$r.txt: cannot show: perf decoded no SPE data source here: of 51 loads" &&
		    ! grep -qE "[0-9]+ cachelines" "$r.out" && grep -q "not a measurement of no sharing" "$r.out" &&
		    [ -n "$(pmu_of "$r.lab" limit)" ]' \
			"$v: Arm V2: the lab says in one line that this perf cannot show peer snoops, not 0 cachelines"
		head -1 "$r.out" | cut -c1-240 | diag
		;;
	perf-7.3.*)
		ok '[ $perf_st = 0 ] && [ $lab_st = 0 ] && [ ! -s "$r.diff" ] && [ -z "$(pmu_of "$r.lab" limit)" ]' \
			"$v: Arm V2: perf 7.3 decodes it: the same peer snoops per named field$(tr '\n' ' ' <"$r.diff")"
		;;
	*)
		ok '[ $lab_st = 0 ] && { [ ! -s "$r.diff" ] || head -1 "$r.out" | grep -q "cannot show: perf decoded no SPE"; }' \
			"$v: Arm V2: either decoded (peer per field) or said in one line that it cannot be shown"
		;;
	esac
}

for PERF in "${perfs[@]}"; do
	v=$("$PERF" version 2>/dev/null | awk '{ print "perf-" $3 }')
	[ -n "$v" ] || v=$PERF
	intel
	amd
	arm
done
done_testing
