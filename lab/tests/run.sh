#!/bin/bash
# memcg-lab run: experiment-file validation (file:line and what was
# expected, before anything starts), -s overrides, a run into one complete
# results directory with two driver phases, and an interrupted run that
# stays marked incomplete and leaves no cgroups behind.
set -u
. "$(dirname "$0")/lib/tap.sh"

bad() { # file-content expected-message description
	printf "$1" > "$T/bad.exp"
	want=$2
	err=$($LAB run --validate "$T/bad.exp" 2>&1 >/dev/null); st=$?
	ok '[ $st = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q -- "$want"' "$3 ($err)"
}
bad '[experiment]\nname = x\nrepeats = 0\n' "bad.exp:3: \[experiment\] repeats = '0': want an integer 1..100" \
	"a bad value: file:line and what was expected"
bad '[experiment]\nname = x\nrepeat = 3\n' "bad.exp:3: unknown key 'repeat' in \[experiment\]" "an unknown key"
bad '[experiment]\nname = x\n[colect]\nlock = yes\n' "bad.exp:4: unknown section \[colect\]" "an unknown section"
bad '[experiment]\nname = x\n[driver]\ncommand = nope\n' "bad.exp:4: \[driver\] command = 'nope'" "an unknown driver"
bad '[experiment]\nname = x\n[schedule]\nparam = tasks\nvalues = 1\n' "has no \[driver\] section" \
	"a schedule without a driver"
bad '[experiment]\nname = x\n[driver]\ncommand = statread\n[schedule]\nparam = readers\nvalues = 3..1\n' \
	"bad.exp:7: \[schedule\] values = '3..1'" "a descending range"
bad '[experiment]\nname = x\n[driver]\ncommand = statread\ninterval = 0\n' \
	"bad.exp:5: driver 'statread' refused its options: .*--interval" "the driver's own check, mapped to the line"
bad '[experiment]\nname = Bad Name\n' "want \[a-z0-9-\] only" "a name that cannot name a directory"
bad '[experiment]\nname = x\n[derive]\nr = a / b\n' "bad.exp:4: \[derive\] r = 'a / b': want STEP:METRIC / STEP:METRIC" \
	"a derived metric that names no step"
err=$($LAB run --validate -s experiment.repeats=x "$T/bad.exp" 2>&1); st=$?
ok '[ $st = 2 ]' "a bad -s override is refused"

printf '[experiment]\nname = t\n' > "$T/t.exp"
err=$($LAB run --validate -s experiment.nokey=1 "$T/t.exp" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "command line (-s experiment.nokey)"' "an override is named as such"

for f in experiments/*.exp; do
	out=$($LAB run --validate "$f" 2>&1); st=$?
	ok '[ $st = 0 ]' "shipped $(basename "$f") validates ($out)"
done

# Without root a run is refused before its results directory exists (the
# drivers' --validate passes without root: cli.sh).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$T/nr" && chmod 777 "$T/nr"
	err=$(cd "$T/nr" && MEMCG_LAB_RESULTS="$T/nr/results" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$LAB" run "$OLDPWD/experiments/stock-slots.exp" 2>&1 >/dev/null); st=$?
	ok '[ $st = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "stock-slots.exp: a run places its workers in memory cgroups, which needs root (running as uid 65534)" && [ ! -e "$T/nr/results" ]' \
		"run without root: one line, exit 2, no results directory ($err)"
else
	skip "run without root" "needs root and setpriv to drop it"
fi

if [ "$(id -u)" != 0 ] || ! grep -q ' memory\| cgroup2 ' /proc/self/mounts; then
	skip "runs" "need root and a memory controller"
	done_testing
	exit 0
fi
cat > "$T/two.exp" <<'X'
[experiment]
name = two-phases
repeats = 2
[driver quick]
command = statread
allocators = 0
duration = 1s
warmup = 0s
interval = 50ms
[schedule quick]
param = readers
values = 1,2
[derive]
twice_as_many = quick:readers=2:statread.all.reads_s / quick:readers=1:statread.all.reads_s
[plot]
enabled = yes
headline = bars-twice_as_many
[claim twice]
published = two readers read twice as often as one
quantity = metric:-:twice_as_many
value = 2 ratio
machine = any
condition = readers every 50 ms
source = mm/memcontrol.c of v6.18
X
export MEMCG_LAB_RESULTS=$T/results
out=$($LAB run "$T/two.exp" 2>"$T/err"); st=$?
dir=$(echo "$out" | sed -n 's/^results: //p')
ok '[ $st = 0 ] && [ -d "$dir" ]' "a two-step run finishes and names its directory"
ok 'grep -q "\"status\":\"complete\"" "$dir/meta.json"' "meta.json says complete"
ok '[ -s "$dir/report.txt" ] && [ -x "$dir/reproduce.sh" ] && [ -s "$dir/experiment.exp" ]' \
	"report.txt, reproduce.sh and the experiment file are kept"
ok '[ $(grep -c "^quick:readers=1	" "$dir/data/metrics.tsv") -gt 0 ] && [ $(grep -c "^quick:readers=2	1	" "$dir/data/metrics.tsv") -gt 0 ]' \
	"metrics carry the phase, step and repeat"
ok 'grep -q "step 4/4" "$T/err"' "progress lines count the steps"
ratio=$(awk -F'\t' '$3=="twice_as_many" && $2==0 {print $4}' "$dir/data/metrics.tsv")
ok 'awk -v r="$ratio" "BEGIN{exit !(r > 1.5 && r < 2.5)}"' "a derived ratio: 2 readers read about twice as often as 1 ($ratio)"
# report.txt's first screen: the verdicts (this experiment has no claims:
# a line saying so), then the summary of what the run found (at most 20
# lines with its title), before the kernel and the per-step tables.
head -40 "$dir/report.txt" > "$T/screen"
diag "$(cat "$T/screen")"
ver_at=$(grep -n '^Verdicts' "$T/screen" | cut -d: -f1)
sum_at=$(grep -n '^Summary$' "$T/screen" | cut -d: -f1)
sum_len=$(awk '/^Summary$/ { on = 1 } on && /^$/ { exit } on { n++ } END { print n + 0 }' "$dir/report.txt")
ok '[ "${ver_at:-99}" -le 5 ] && grep -A5 "^Verdicts" "$T/screen" | grep -Eq "^  twice +(reproduced|not reproduced|not measurable here) +2 ratio"' \
	"report.txt opens with the verdicts (line ${ver_at:-none})"
ok 'awk -F"\t" "NR == 2 && \$1 == \"twice\" && \$5 == \"2 ratio\" && \$15 == \"metric:-:twice_as_many\" { f = 1 } END { exit !f }" "$dir/verdicts.tsv"' \
	"verdicts.tsv beside it: the claim, its published figure and quantity"
ok 'echo "$out" | tail -4 | head -1 | grep -q "^verdicts: 1 " && echo "$out" | tail -2 | head -1 | grep -q "^  twice "' \
	"run ends with the verdict table, then the results directory"
ok '[ -s "$dir/plots/bars-twice_as_many.png" ] && [ -s "$dir/plots/all/series-statread.all.reads_s.png" ] &&
	grep -q "^bars-twice_as_many.png	" "$dir/plots/index.txt" && grep -q "<td>twice</td>" "$dir/plots/index.html"' \
	"the headline plot in plots/, the rest in plots/all/, the index with the verdict"
ok '[ "${sum_at:-99}" -le 30 ] && [ "$sum_len" -le 20 ]' \
	"then its summary (line ${sum_at:-none}, $sum_len lines with its title)"
shown=$(sed -n 's/^  ratio  *twice_as_many \([0-9.]*\) (sd [0-9.]*%, 2 runs)$/\1/p' "$T/screen")
ok 'awk -v r="$shown" "BEGIN{exit !(r > 1.5 && r < 2.5)}"' "its first screen gives the ratio, mean of both repeats ($shown)"
ok 'grep -Eq "^  measured +quick: statread\.all\.p99: readers=1 [0-9.]+[mun]?s, readers=2 [0-9.]+[mun]?s$" "$T/screen"' \
	"and the phase's headline, the readers' p99 per step"
ok '[ "$(grep -n "^Driver results" "$dir/report.txt" | cut -d: -f1)" -gt $((sum_at + sum_len)) ]' \
	"the per-step table comes after the summary"
ok 'grep -q "\"kernel\"" "$dir/meta.json"' "the probe is in meta.json"
if command -v gnuplot >/dev/null; then
	p=$(ls "$dir"/plots/series-*.txt "$dir"/plots/all/series-*.txt 2>/dev/null | head -1)
	ok '[ -s "$p" ] && grep -q "A: " "$p" && ! grep -q "(incomplete)" "$p"' \
		"a complete run's plots do not call it incomplete ($(grep -o "A: .*" "$p" 2>/dev/null | head -1 | tr -s " "))"
else
	skip "plots of a complete run" "gnuplot not installed"
fi

# Interrupted: SIGINT in the middle of the driver.
sed -e 's/duration = 1s/duration = 20s/' -e 's/name = two-phases/name = interrupted/' "$T/two.exp" > "$T/long.exp"
$LAB run "$T/long.exp" >"$T/out2" 2>&1 &
pid=$!
for _ in $(seq 50); do ls "$T/results"/*interrupted*/log >/dev/null 2>&1 && grep -q "step 1/" "$T/results"/*interrupted*/log && break; sleep 0.1; done
sleep 1
kill -INT $pid
wait $pid; st=$?
idir=$(ls -d "$T/results"/*interrupted* | head -1)
ok '[ $st != 0 ]' "an interrupted run exits non-zero ($st)"
ok 'grep -q "\"status\":\"incomplete\"" "$idir/meta.json"' "an interrupted run stays incomplete"
ok '[ -z "$(ls /sys/fs/cgroup/memory 2>/dev/null | grep "^memcg-lab-$pid-")" ]' "no cgroup of the interrupted run is left"
ok '! pgrep -f "memcg-lab statread" >/dev/null || [ -z "$(pgrep -P $pid)" ]' "no driver process of the run is left"
done_testing
