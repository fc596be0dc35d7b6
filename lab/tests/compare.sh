#!/bin/bash
# memcg-lab compare on synthetic results directories with known means and
# variances: the Welch t statistic against a hand-computed value, the
# significance marker, the 80-column table, the scaling layout, and the
# refusals (different experiments, not a results directory).
set -u
. "$(dirname "$0")/lib/tap.sh"

mkrun() { # dir experiment status kernel
	mkdir -p "$1/data"
	printf '{"name":"%s","status":"%s","probe":{"kernel":"%s","features":{"stock_slots":%s}}}\n' \
		"$2" "$3" "$4" "$5" > "$1/meta.json"
	printf 'step\trepeat\tmetric\tvalue\tunit\tbetter\n' > "$1/data/metrics.tsv"
}
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$2" "$3" "$4" "$5" "$6" "$7" >> "$1/data/metrics.tsv"; }

mkrun "$T/a" stock-netperf complete 6.12.117 1
mkrun "$T/b" stock-netperf complete 6.18.44 7
# clients=6: A = 34000 34100 34200 (mean 34100, sd 100); B = 46800 47100 47400 (mean 47100, sd 300)
# t = 13000 / sqrt(100^2/3 + 300^2/3) = 71.2039; df = 2.4390 (Welch-Satterthwaite)
for r in 0 1 2; do
	row "$T/a" clients=6 $r sock.mbps.total $((34000 + r * 100)) Mbps higher
	row "$T/b" clients=6 $r sock.mbps.total $((46800 + r * 300)) Mbps higher
	# clients=12: -7.1% with tight runs (t = -24.5): a regression
	row "$T/a" clients=12 $r sock.mbps.total $((28000 + r * 100)) Mbps higher
	row "$T/b" clients=12 $r sock.mbps.total $((26000 + r * 100)) Mbps higher
	# clients=18: -0.4%, t = -1.22, p = 0.29: no significant change
	row "$T/a" clients=18 $r sock.mbps.total $((28000 + r * 100)) Mbps higher
	row "$T/b" clients=18 $r sock.mbps.total $((27900 + r * 100)) Mbps higher
	# same mean, noise only: must not be marked
	row "$T/a" clients=6 $r cpu.sys_pct $((50 + r)) % lower
	row "$T/b" clients=6 $r cpu.sys_pct $((52 - r)) % lower
done

tsv=$($LAB compare --tsv "$T/a" "$T/b")
t=$(echo "$tsv" | awk -F'\t' '$1=="clients=6" && $2=="sock.mbps.total" {print $10}')
df=$(echo "$tsv" | awk -F'\t' '$1=="clients=6" && $2=="sock.mbps.total" {print $11}')
ok 'awk -v t="$t" "BEGIN{exit !(t > 71.2039 && t < 71.2040)}"' "Welch t = 71.2039 as computed by hand (got $t)"
ok 'awk -v d="$df" "BEGIN{exit !(d > 2.4390 && d < 2.4391)}"' "Welch df = 2.4390 (got $df)"
ok 'echo "$tsv" | awk -F"\t" "\$1==\"clients=6\" && \$2==\"sock.mbps.total\" {exit \$13!=\"yes\"}"' "a 38% gain with tight runs is significant"
ok 'echo "$tsv" | awk -F"\t" "\$2==\"cpu.sys_pct\" {exit \$13!=\"no\"}"' "equal means are not significant"

out=$($LAB compare "$T/a" "$T/b")
ok 'echo "$out" | grep -Eq "^ +34100 .* \+38\.1% \* +47100 .* sock\.mbps\.total$"' "table row: A mean, %change with marker, B mean"
ok '[ -z "$(echo "$out" | awk "length(\$0) > 80")" ]' "no line wider than 80 columns"
ok 'echo "$out" | grep -q "kernel 6.12.117" && echo "$out" | grep -q "stock slots 7"' "each side's kernel and features in the header"
ok 'echo "$out" | grep -q "runs: A 3, B 3"' "run counts shown"
ok 'echo "$out" | grep -Eq "^ +6 \| +34100 \| +47100 \(38\.1% improvement\)"' "scaling layout: improvement"
ok 'echo "$out" | grep -Eq "^ +12 \| +28100 \| +26100 \(7\.1% regression\)"' "scaling layout: a regression Welch's t finds"
ok 'echo "$out" | grep -Eq "^ +18 \| +28100 \| +28000 \(no significant change, p = 0\.29\)$"' \
	"scaling layout: -0.4% at p = 0.29 is no significant change, not a regression"

# The seed's claims, judged on both sides, its table beside ours.  With
# no experiment.exp: no verdicts, and why.
ok 'echo "$out" | grep -q "^Verdicts: the seed.s claims, A the base and B the patched kernel" &&
	echo "$out" | grep -A2 "^Verdicts" | grep -q "no experiment.exp"' "without claims: no verdicts, and why"
cat > "$T/a/experiment.exp" <<'EOF'
[experiment]
name = stock-netperf
[claim netperf]
published = netperf throughput per client
quantity = metric:clients=6,12:sock.mbps.total
base = 34000.0, 30617.1 Mbps
patched = 46000.0, 47919.7 Mbps
change = +35.2%, +56.5%
ab = probe.features.stock_slots: 1 -> 7
machine = 72 CPUs
condition = 6 and 12 clients
source = <20250416180229.2902751-1-shakeel.butt@linux.dev>
EOF
out=$($LAB compare "$T/a" "$T/b")
ok 'echo "$out" | grep -q "^  netperf  *not reproduced  *2 steps  *1 of 2 steps reproduced$"' \
	"the claim per step: +38.1% at 6 (against +35.2%) reproduced, -7.1% at 12 (against +56.5%) not" || diag "$out"
ok 'echo "$out" | grep -Eq "^clients \| +base \| +patched +\| +A \| +B$" &&
	echo "$out" | grep -Eq "^ +6 \| +34000.0 \| +46000.0 +\(\+35.2%\) \| +34100 \| +47100 +\(\+38.1%\)$"' \
	"the seed's table: its base, patched and change beside A, B and ours"
ok '[ -z "$(echo "$out" | LC_ALL=C.UTF-8 awk "length(\$0) > 80")" ]' "still no line wider than 80 columns"
mkrun "$T/e" stock-netperf complete 6.12.117 1
cp "$T/b/data/metrics.tsv" "$T/e/data/"
out=$($LAB compare "$T/a" "$T/e")
ok 'echo "$out" | tr -s " \n" " " | grep -q "A and B do not differ in probe.features.stock_slots (both 1"' \
	"two one-slot kernels: not measurable, and why"

mkrun "$T/c" charge-batch complete 6.18.44 7
row "$T/c" clients=6 0 sock.mbps.total 1 Mbps higher
err=$($LAB compare "$T/a" "$T/c" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "experiment .stock-netperf. but .*charge-batch"' "different experiments are refused, naming both"
out=$($LAB compare --common "$T/a" "$T/c"); st=$?
ok '[ $st = 0 ] && echo "$out" | grep -q "only in A"' "--common compares the shared metrics and says what was left out"

mkrun "$T/d" stock-netperf incomplete 6.18.44 7
row "$T/d" clients=6 0 sock.mbps.total 1 Mbps higher
out=$($LAB compare "$T/a" "$T/d")
ok 'echo "$out" | grep -q "INCOMPLETE RUN" && echo "$out" | grep -q "B did not finish"' "an incomplete run is marked"

# Guest instructions per operation (the lines plugin's, c2c/lines_out.h):
# compared like any metric, and said what they are, once.
mkrun "$T/ia" charge-batch complete 7.3.4 7
mkrun "$T/ib" charge-batch complete 7.3.4 7
for r in 0 1; do
	row "$T/ia" tasks=4 $r charge.anon.insns_per_op $((21000 + r * 10)) insns/op lower
	row "$T/ib" tasks=4 $r charge.anon.insns_per_op $((19000 + r * 10)) insns/op lower
done
out=$($LAB compare "$T/ia" "$T/ib")
ok 'echo "$out" | grep -q "charge.anon.insns_per_op" && [ "$(echo "$out" | tr -s "\n " "  " | grep -o "guest instructions: exact; a proxy for time that leaves out cache misses" | wc -l)" = 1 ]' \
	"insns_per_op is compared, and said once: guest instructions, exact, a proxy for time without cache misses"
out=$($LAB compare "$T/a" "$T/b")
ok '! echo "$out" | grep -q "guest instructions"' "not said where no such metric is shown"

err=$($LAB compare "$T/a" /etc 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "/etc/meta.json"' "not a results directory: exit 2, names the file"
printf 'clients=6\tx\tm\t1\t-\t-\n' >> "$T/d/data/metrics.tsv"
err=$($LAB compare "$T/a" "$T/d" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "metrics.tsv:3: field repeat"' "a malformed metrics row: file:line and field"
done_testing
