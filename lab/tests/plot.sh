#!/bin/bash
# memcg-lab plot on a synthetic results directory: every plot exists as PNG
# (of the requested size), SVG and an ASCII rendering that fits 80 columns;
# without gnuplot, plot fails with one clear line and other commands work.
set -u
. "$(dirname "$0")/lib/tap.sh"

if ! command -v gnuplot >/dev/null; then
	skip_all "gnuplot not installed (make deps)"
fi
mkdir -p "$T/r/data"
echo '{"name":"t","status":"complete","probe":{"kernel":"6.18.44"}}' > "$T/r/meta.json"
{
	printf 'step\trepeat\tmetric\tvalue\tunit\tbetter\n'
	for c in 1 2 4 8; do for r in 0 1; do
		printf 'tasks=%s\t%s\tcharge.ops_per_s\t%s\tops/s\thigher\n' $c $r $((c * 1000 + r * 50))
	done; done
} > "$T/r/data/metrics.tsv"
{
	echo "# title: cgroup_rstat_lock hold time (method: rstat tracepoints)"
	printf 'low_ns\thigh_ns\tcount\n992\t1007\t5\n2048\t2111\t10\n65536\t67583\t3\n'
} > "$T/r/data/hist-lock.hold.tsv"
printf 'low_ns\thigh_ns\tcount\n496\t503\t7\n4096\t4223\t2\n' > "$T/r/data/hist-lock.wait.tsv"

out=$($LAB plot --size 640x400 "$T/r" 2>&1); st=$?
ok '[ $st = 0 ]' "plot exits 0"
for p in series-charge.ops_per_s cdf-lock; do
	ok '[ -s "$T/r/plots/$p.png" ] && [ -s "$T/r/plots/$p.svg" ] && [ -s "$T/r/plots/$p.txt" ]' \
		"$p: PNG, SVG and ASCII written and non-empty"
	wh=$(od -An -tu1 -j16 -N8 "$T/r/plots/$p.png" | awk '{print $3*256+$4 "x" $7*256+$8}')
	ok '[ "$wh" = 640x400 ]' "$p.png has the requested size 640x400 (got $wh)"
	ok 'grep -q "width=\"640\"" "$T/r/plots/$p.svg"' "$p.svg has the requested width"
	ok '[ -z "$(awk "length(\$0) > 80" "$T/r/plots/$p.txt")" ]' "$p.txt fits in 80 columns"
done
ok 'grep -q "cgroup_rstat_lock hold time (method: rstat tracepoints)" "$T/r/plots/cdf-lock.txt"' \
	"the CDF title names the lock and the method"
ok 'grep -q "charge.ops_per_s vs tasks" "$T/r/plots/series-charge.ops_per_s.txt"' "series title names metric and step"
# The legend says what the run's status is; run passes the one it is
# finishing with (meta.json still says incomplete while it plots).
sed -i 's/"status":"complete"/"status":"incomplete"/' "$T/r/meta.json"
$LAB plot --out "$T/st1" "$T/r" >/dev/null 2>&1
$LAB plot --out "$T/st2" --status complete "$T/r" >/dev/null 2>&1
$LAB plot --out "$T/st3" --status complete-with-failures "$T/r" >/dev/null 2>&1
f=series-charge.ops_per_s.txt
ok 'grep -q "A: 6.18.44 (incomplete)" "$T/st1/$f" && grep -q "A: 6.18.44 *\*" "$T/st2/$f" && ! grep -q "(incomplete)" "$T/st2/$f" &&
	grep -q "A: 6.18.44 (with failures)" "$T/st3/$f"' "legends: (incomplete) from meta.json; --status complete and complete-with-failures"
sed -i 's/"status":"incomplete"/"status":"complete"/' "$T/r/meta.json"
err=$($LAB plot --status done "$T/r" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "want complete"' "--status with an unknown status is refused"
# The script that drew a plot stays beside it and redraws it by itself.
cp "$T/r/plots/cdf-lock.txt" "$T/cdf-lock.first.txt"
rm -f "$T/r/plots/cdf-lock.txt"
ok 'gnuplot "$T/r/plots/cdf-lock.gp" && tr -d "\f" < "$T/r/plots/cdf-lock.txt" | cmp -s - "$T/cdf-lock.first.txt"' \
	"plots/cdf-lock.gp redraws the same plot with gnuplot alone (but for the form feed gnuplot starts it with)"

# The map plots, from a real layout capture and a real c2c attribution.
mkdir -p "$T/r/data/layout" "$T/r/data/c2c.x/c2c"
cp layouts/6.18.44/cachelines.txt "$T/r/data/layout/"
cp lab/tests/data/c2c/golden/report-10-mem_cgroup/fieldmap-mem_cgroup.tsv "$T/r/data/c2c.x/c2c/"
out=$($LAB plot "$T/r" 2>&1); st=$?
ok '[ $st = 0 ]' "plot with a layout capture and a c2c fieldmap exits 0"
for p in cachelines-page_counter cachelines-memcg_stock_pcp cachelines-mem_cgroup falsesharing-mem_cgroup; do
	ok '[ -s "$T/r/plots/$p.png" ] && [ -s "$T/r/plots/$p.svg" ] && [ -z "$(awk "length(\$0) > 80" "$T/r/plots/$p.txt")" ]' \
		"$p: PNG, SVG and an ASCII rendering within 80 columns"
done
ok 'grep -q "struct page_counter: 192 B, 3 cachelines" "$T/r/plots/cachelines-page_counter.txt"' \
	"the cacheline map is titled with the struct, its size and lines"
ok 'grep -q "memory.usage" "$T/r/plots/cachelines-mem_cgroup.tsv" && awk -F"\t" "\$5==\"memory.usage\" && \$4==1 {f=1} END {exit !f}" "$T/r/plots/cachelines-mem_cgroup.tsv"' \
	"memory.usage is drawn as hot-written"
ok 'grep -q "css.cgroup" "$T/r/plots/falsesharing-mem_cgroup.txt" && grep -q "readers: HITMs" "$T/r/plots/falsesharing-mem_cgroup.txt"' \
	"the false-sharing map names the fields and the metric"

# Writers beside readers (issue 30): the fieldmap c2c lines writes of a
# recorded guest run (lab/tests/data/lines/charge-6.1, through the host's
# real perf c2c report) has memory.usage's reader (66 HITMs) and its two
# writers (66 + 3 stores); the map draws both, each on its axis.
if command -v perf >/dev/null && [ -f build/btf/vmlinux-6.1.192.btf ]; then
	cp -r lab/tests/data/lines/charge-6.1 "$T/w"
	cp build/btf/vmlinux-6.1.192.btf "$T/w/lines/vmlinux.btf"
	$LAB c2c lines "$T/w" >/dev/null 2>&1
	mkdir -p "$T/wr/data/c2c.lines/c2c"
	cp "$T/r/meta.json" "$T/wr/"
	cp "$T/w/lines/c2c/fieldmap-mem_cgroup.tsv" "$T/wr/data/c2c.lines/c2c/"
	$LAB plot "$T/wr" >/dev/null 2>&1
	f=$T/wr/plots/falsesharing-mem_cgroup
	ok 'awk -F"\t" "\$1 == \"memory.usage\" && \$2 == 66 && \$3 == 69 {f = 1} END {exit !f}" "$f.0.tsv"' \
		"the map's data: memory.usage, 66 HITMs of readers, 69 stores of writers ($(tail -n1 "$f.0.tsv" | tr '\t' ' '))"
	ok 'grep -q "writers: stores (right axis) #" "$f.txt" && grep -q "readers: HITMs (left axis) \*" "$f.txt" &&
		[ "$(grep -c "#" "$f.txt")" -gt 10 ] && grep -q ">writers: stores (right axis)<" "$f.svg" &&
		grep -q ">stores of writing functions (perf c2c)<" "$f.svg"' \
		"writers drawn beside readers: a bar and a key in the text, the right axis and key in the SVG"
else
	skip "writers beside readers on a real c2c lines fieldmap" "no perf in PATH (linux-perf) or build/btf not built"
fi

# What a reader sees: no label over another, each byte range drawn once,
# and mail-wide text.
for sz in 800x500 560x400 1400x500; do
	$LAB plot --out "$T/map$sz" --size $sz "$T/r" >/dev/null 2>&1
	ov=$(awk -v pt=7 -f lab/tests/lib/svg-label-overlaps.awk "$T/map$sz/cachelines-mem_cgroup.svg")
	ok '[ -s "$T/map$sz/cachelines-mem_cgroup.svg" ] && [ -z "$ov" ]' \
		"cachelines-mem_cgroup at $sz: no two labels overlap ($(echo "$ov" | head -1))"
done
ok 'awk -F"\t" "NR > 1 { for (i = 1; i < n; i++) if (L[i] == \$1 && S[i] < \$3 && \$2 < E[i]) bad = 1
	n++; L[n] = \$1; S[n] = \$2; E[n] = \$3 } END { exit bad }" "$T/r/plots/cachelines-mem_cgroup.tsv"' \
	"the cacheline map draws each byte range once"
ok 'awk -F"\t" "\$1 == 7 && \$2 == 0 && \$5 == \"swap|memsw.usage\" && \$4 == 1 {f = 1} END {exit !f}" "$T/r/plots/cachelines-mem_cgroup.tsv"' \
	"the union members swap and memsw share one box, hot-written"
ok 'grep -q "swap|memsw" "$T/r/plots/cachelines-mem_cgroup.txt" && grep -q "children_min_usage" "$T/r/plots/cachelines-mem_cgroup.txt"' \
	"the ASCII map names the line prefixes and lists the long names"
wide=$(for f in "$T"/r/plots/*.txt; do [ "${f##*/}" = index.txt ] || [ "$(LC_ALL=C.UTF-8 wc -L < "$f")" -le 72 ] || echo "${f##*/}"; done)
ok '[ -n "$(ls "$T"/r/plots/*.txt)" ] && [ -z "$wide" ]' "every ASCII plot fits 72 columns ($wide)"
ok 'grep -q "10 µs" "$T/r/plots/cdf-lock.txt" && grep -q "1 µs" "$T/r/plots/cdf-lock.txt" && ! grep -q "e+0" "$T/r/plots/cdf-lock.txt"' \
	"the latency axis reads in µs, not 1e+04"
ok 'grep -q "^value_ns" "$T/r/plots/cdf-lock.1.tsv" 2>/dev/null || grep -q "^value_ns" "$T/r/plots/cdf-lock.0.1.tsv"' \
	"the CDF data stay in ns"

# Legends in the report's words: a stat-read level is "leaf cgroups", as
# the report's "1 root, N top-level, N leaves" says, not the file's "leaf".
mkdir -p "$T/lv/data"
cp "$T/r/meta.json" "$T/lv/"
for r in 0 1; do
	printf '# title: memory.stat read() latency (no allocators)\nlow_ns\thigh_ns\tcount\n4096\t4223\t3\n' \
		> "$T/lv/data/hist-stat-read.leaf.total-readers=10.r$r.tsv"
done
printf 'low_ns\thigh_ns\tcount\n4096\t4223\t3\n' > "$T/lv/data/hist-lock-hold.memory_cgrp_subsys.rstat_ss_lock.root4.level0.tsv"
$LAB plot "$T/lv" >/dev/null 2>&1
ok 'grep -q "leaf cgroups, total-readers=10" "$T/lv/plots/cdf-stat-read.txt" && ! grep -q "leaf\.total" "$T/lv/plots/cdf-stat-read.txt"' \
	"a stat-read CDF's legend says leaf cgroups"
ok 'grep -q "rstat_ss_lock, root 4, level 0" "$T/lv/plots/cdf-lock-hold.gp"' \
	"a lock's legend says root 4, level 0 as the report's lock table does"

# Metrics with no numeric step (phases, or A/B runs such as kmem-overhead):
# a bar per step and directory, its error bar min..max over the repeats.
for d in a:1000 b:2000; do
	mkdir -p "$T/ab${d%:*}/data"
	echo '{"name":"k","status":"complete","probe":{"kernel":"6.18.'${d%:*}'"}}' > "$T/ab${d%:*}/meta.json"
	{
		printf 'step\trepeat\tmetric\tvalue\tunit\tbetter\n'
		for r in 0 1 2; do
			printf 'accounted\t%s\tcharge.kmem.total\t%s\tops/s\thigher\n' $r $((${d#*:} + r * 100))
			printf -- '-\t%s\tlat\t%s\tns\tlower\n' $r $((2000000 + r * 1000000))
		done
	} > "$T/ab${d%:*}/data/metrics.tsv"
done
out=$($LAB plot --out "$T/ab" "$T/aba" "$T/abb" 2>&1); st=$?
ok '[ $st = 0 ] && ! echo "$out" | grep -q "nothing to plot" && [ -s "$T/ab/bars-charge.kmem.total.png" ] && [ -s "$T/ab/bars-charge.kmem.total.txt" ]' \
	"A/B runs without stepped metrics: a bar plot per metric ($(echo "$out" | head -1))"
ok 'awk -F"\t" "\$1 == \"accounted\" && \$2 == 1100 && \$3 == 1000 && \$4 == 1200 && \$5 == 3 && \$6 == 2100 && \$7 == 2000 && \$8 == 2200 {f = 1} END {exit !f}" "$T/ab/bars-charge.kmem.total.tsv"' \
	"the bars are A and B means with their min..max over the repeats"
ok 'grep -q "A: 6.18.a" "$T/ab/bars-charge.kmem.total.txt" && grep -q "B: 6.18.b" "$T/ab/bars-charge.kmem.total.txt"' \
	"the bar plot's legend names A and B"
ok 'grep -q "lat \[ms\]" "$T/ab/bars-lat.txt" && awk -F"\t" "\$1 == \"whole run\" && \$2 == 3 {f = 1} END {exit !f}" "$T/ab/bars-lat.tsv"' \
	"a time metric's bars are scaled to one unit (3000000 ns -> 3 ms)"

# Units said once and agreeing with the name (issue 31): the stock sweep's
# cpu_ns_per_charge (ns, up to 2.6 us) is drawn in ns, the name saying so,
# no "[µs]" anywhere; charges_per_s says "[ops/s]" once per rendering (the
# y axis of the PNG and SVG; the title of the text, which has no y label);
# so does a latency the name says nothing of (bars-lat, in ms).
for d in a b; do
	mkdir -p "$T/st$d/data"
	echo '{"name":"stock-slots","status":"complete","probe":{"kernel":"6.18.'$d'"}}' > "$T/st$d/meta.json"
	{
		printf 'step\trepeat\tmetric\tvalue\tunit\tbetter\n'
		for k in 1 2 4 7 8 12 16; do for r in 0 1; do
			printf 'K=%s\t%s\tstock.cpu_ns_per_charge\t%s\tns\tlower\n' $k $r $(( (k > 7 ? 2400 : 180) + r * 20 + k * 10 ))
			printf 'K=%s\t%s\tstock.charges_per_s\t%s\tops/s\thigher\n' $k $r $(( 5000000 / (k > 7 ? 24 : 2) ))
		done; done
	} > "$T/st$d/data/metrics.tsv"
done
$LAB plot --out "$T/stp" "$T/sta" "$T/stb" >/dev/null 2>&1
f=$T/stp/series-stock.cpu_ns_per_charge
ok '! grep -q "µs\|\[ns\]" "$f.txt" "$f.svg" && grep -q "stock.cpu_ns_per_charge vs K" "$f.txt" && grep -Eq "^ +2500 [|+]" "$f.txt" &&
	grep -q ">stock.cpu_ns_per_charge<" "$f.svg"' \
	"stock.cpu_ns_per_charge: drawn in ns (2500 on the axis), the name its only unit"
f=$T/stp/series-stock.charges_per_s
ok '[ "$(grep -o "\[ops/s\]" "$f.txt" | wc -l)" = 1 ] && [ "$(grep -o "\[ops/s\]" "$f.svg" | wc -l)" = 1 ] &&
	grep -q ">stock.charges_per_s \[ops/s\]<" "$f.svg"' \
	"stock.charges_per_s: [ops/s] once in the text (its title), once in the SVG (its y axis)"
f=$T/ab/bars-lat
ok '[ "$(grep -o "\[ms\]" "$f.txt" | wc -l)" = 1 ] && [ "$(grep -o "\[ms\]" "$f.svg" | wc -l)" = 1 ]' \
	"bars-lat: [ms] once in the text, once in the SVG"
# ASCII keys clear of the axis labels and of each other: the x label's row
# is the label alone, each key entry's name starts after a space (an
# error bar's sample ran into "K", A's sample into "B: 6.18.b").
f=$T/stp/series-stock.cpu_ns_per_charge.txt
ok 'grep -Eq "^ +K +$" "$f" && grep -q " B: 6.18.b" "$f" && grep -Eq "^ +A: 6.18.a " "$f"' \
	"series key: the x label K on its own row, the entries apart ($(grep -E "6.18.a|^ +K" "$f" | tr -s " " | tr "\n" "/"))"

err=$(PATH=/nonexistent $LAB plot "$T/r" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "gnuplot is not installed"' \
	"without gnuplot: one clear line, exit 2"
PATH=/nonexistent $LAB compare --tsv "$T/r" "$T/r" >/dev/null 2>&1; st=$?
ok '[ $st = 0 ]' "without gnuplot other commands still work"
printf 'low_ns\thigh_ns\tcount\n1000\t1031\t5\n' > "$T/r/data/hist-bad.x.tsv"
err=$($LAB plot "$T/r" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "hist-bad.x.tsv:2: not a lab histogram row"' "a malformed histogram: file:line"
rm "$T/r/data/hist-bad.x.tsv"
err=$($LAB plot --size 10x10 "$T/r" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "WIDTHxHEIGHT"' "a bad --size is refused"

# Killed while gnuplot draws: nothing of the lab's is left in /tmp (the
# script lives in the results' plots/).  A gnuplot that hangs holds it there.
mkdir -p "$T/slow"
printf '#!/bin/sh\n[ "$1" = --version ] && exec gnuplot "$@"\nexec sleep 30\n' > "$T/slow/gnuplot-slow"
printf '#!/bin/sh\nPATH=%s exec "%s/gnuplot-slow" "$@"\n' "$PATH" "$T/slow" > "$T/slow/gnuplot"
chmod +x "$T/slow/gnuplot" "$T/slow/gnuplot-slow"
before=$(ls -d /tmp/memcg-lab-* 2>/dev/null | grep -vx "$T" | sort)
PATH=$T/slow:$PATH setsid $LAB plot "$T/r" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do pgrep -f "^sleep 30" >/dev/null && break; sleep 0.1; done
kill -KILL -- -$pid 2>/dev/null; wait $pid 2>/dev/null
after=$(ls -d /tmp/memcg-lab-* 2>/dev/null | grep -vx "$T" | sort)
ok '[ "$before" = "$after" ]' "plot killed mid-draw leaves nothing in /tmp ($(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' '))"
done_testing
