#!/bin/bash
# Results on a disk that fills up, or that cannot be written at all: run,
# lock record, c2c report and plot each end with exit 2 and one line naming
# the file and the error, the run stays "incomplete", and no file cut short
# is left to pass for a whole one.  The small disks are tmpfs mounts in a
# private mount namespace: nobody else sees them, and they go with the test.
set -u
if [ "$(id -u)" = 0 ] && [ -z "${RESULTS_FULL_NS:-}" ] && unshare -m --propagation private true 2>/dev/null; then
	RESULTS_FULL_NS=1 exec unshare -m --propagation private "$0" "$@"
fi
. "$(dirname "$0")/lib/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to mount small tmpfs file systems"
[ -n "${RESULTS_FULL_NS:-}" ] || skip_all "unshare -m (a private mount namespace) is refused here"
mounts=()
# Innermost first: a disk is mounted inside another one's directory.
trap 'for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}"; done; rm -rf "$T"' EXIT
# A tmpfs of SIZE KiB at DIR; with FREE, filled up to FREE KiB left.
small_disk() { # dir size-kib [free-kib]
	mkdir -p "$1" && mount -t tmpfs -o "size=${2}k" tmpfs "$1" || return 1
	mounts+=("$1")
	if [ -n "${3:-}" ]; then
		local avail
		avail=$(df -k --output=avail "$1" | tail -1)
		[ "$avail" -le "$3" ] || dd if=/dev/zero of="$1/fill" bs=1k count=$((avail - $3)) 2>/dev/null
	fi
}
read_only() { mount -o remount,ro "$1"; }
# The lab's lines on stderr ("memcg-lab: ..."; run's progress lines aside).
# A run first sweeps what dead runs left, and says what it did or would not
# touch ("left by an earlier run: ..."): on a shared box that is another
# run's business, not this test's line.  Nor is the line that says why
# perf c2c is off on a box without a memory PMU ([collect] c2c = auto).
lab_lines() {
	grep '^memcg-lab: ' "$1" | grep -v '^memcg-lab: left by an earlier run: ' |
		grep -vc '^memcg-lab: skipping perf c2c: c2c: unsupported here: '
}
# The file named by a "memcg-lab: FILE: cannot write: ..." line.
named_file() { sed -n 's/^memcg-lab: \(.*\): cannot write: .*/\1/p' "$1" | head -1; }
# The file a failure named is gone, or, for meta.json (rewritten through a
# temporary file), still the whole earlier one, or, for a table appended
# to (metrics.tsv: util/outfile.c takes back what the failed writer added),
# whole rows only.
whole_or_gone() { # file
	[ ! -e "$1" ] || { [ "${1##*/}" = meta.json ] && [ "$(tail -c 2 "$1")" = "}" ]; } ||
		{ [ "${1##*/}" = metrics.tsv ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] &&
			awk -F'\t' 'NR == 1 { n = NF } NF != n { exit 1 }' "$1"; }
}
# No meta.json below DIR says complete, and no report.txt lacks the banner.
nothing_complete() {
	! grep -rqs '"status": *"complete' --include=meta.json "$1" &&
		! find "$1" -name report.txt -exec grep -L 'INCOMPLETE RUN' {} + 2>/dev/null | grep -q .
}

# ---- run: a tiny experiment on a disk that fills during the run ----------
if ! grep -q ' memory\| cgroup2 ' /proc/self/mounts; then
	skip "run on a full disk" "no memory controller mounted"
else
	cat > "$T/tiny.exp" <<'X'
[experiment]
name = full
repeats = 1
[driver]
command = statread
allocators = 0
duration = 1s
warmup = 0s
interval = 50ms
[plot]
enabled = no
X
	small_disk "$T/run" 64
	MEMCG_LAB_RESULTS=$T/run $LAB run "$T/tiny.exp" >"$T/run.out" 2>"$T/run.err" &
	pid=$!
	wait $pid; st=$?
	f=$(named_file "$T/run.err")
	ok '[ $st = 2 ] && [ "$(lab_lines "$T/run.err")" = 1 ] && grep -q "No space left on device" "$T/run.err"' \
		"run: exit 2 and one line naming the file ($(grep '^memcg-lab: ' "$T/run.err"))"
	ok '[ -n "$f" ] && [ "${f#$T/run/}" != "$f" ] && whole_or_gone "$f"' \
		"run: the file named is in the results directory, and not left cut short (${f#$T/})" ||
		diag "$(wc -c < "$f" 2>&1) bytes, rows by field count: $(awk -F'\t' '{ print NF }' "$f" 2>&1 | sort | uniq -c | tr '\n' ' ')" \
			"its last bytes: $(tail -c 80 "$f" 2>&1 | od -c | head -4)"
	ok 'grep -qs "\"status\":\"incomplete\"" "$T"/run/*/meta.json && nothing_complete "$T/run"' \
		"run: meta.json says incomplete; no meta.json or report.txt says complete"
	left=$(ls -d /sys/fs/cgroup/memcg-lab-$pid-* /sys/fs/cgroup/*/memcg-lab-$pid-* 2>/dev/null)
	ok '[ -z "$left" ]' "run: no cgroup of the run is left behind (${left:-none})"
fi

# ---- lock record ---------------------------------------------------------
small_disk "$T/lock" 16
MEMCG_LAB_RESULTS=$T/lock $LAB lock record --duration 1 >/dev/null 2>"$T/lock.err"; st=$?
if grep -q "tracefs\|tracepoint\|BPF" "$T/lock.err" && ! grep -q "cannot write" "$T/lock.err"; then
	skip "lock record on a full disk" "lock record cannot record here: $(head -1 "$T/lock.err")"
else
	f=$(named_file "$T/lock.err")
	ok '[ $st = 2 ] && [ "$(lab_lines "$T/lock.err")" = 1 ] && grep -q "No space left on device" "$T/lock.err"' \
		"lock record: exit 2 and one line naming the file ($(head -1 "$T/lock.err"))"
	ok '[ -n "$f" ] && whole_or_gone "$f"' "lock record: the file named is not left cut short (${f#$T/})"
	ok 'grep -qs "\"status\":\"incomplete\"" "$T"/lock/*/meta.json && nothing_complete "$T/lock"' \
		"lock record: meta.json says incomplete"
fi

# ---- c2c report --out: a recorded sample -----------------------------------
S=lab/tests/data/samples/c2c/07-falsesharing583-intel-tid-coalesce.txt
small_disk "$T/c2c" 8
$LAB c2c report $S --btf build/btf/vmlinux-6.18.44.btf --out "$T/c2c/o" >/dev/null 2>"$T/c2c.err"; st=$?
f=$(named_file "$T/c2c.err")
ok '[ $st = 2 ] && [ "$(lab_lines "$T/c2c.err")" = 1 ] && grep -q "No space left on device" "$T/c2c.err"' \
	"c2c report: exit 2 and one line naming the file ($(head -1 "$T/c2c.err"))"
ok '[ -n "$f" ] && [ "${f#$T/c2c/o/}" != "$f" ] && [ ! -e "$f" ]' \
	"c2c report: the file named is in --out, and not left cut short (${f#$T/})"

# ---- plot: a complete results directory on a disk with little room -------
make_results() { # dir
	mkdir -p "$1/data"
	echo '{"name":"t","status":"complete","probe":{"kernel":"6.18.44"}}' > "$1/meta.json"
	{
		printf 'step\trepeat\tmetric\tvalue\tunit\tbetter\n'
		for c in 1 2 4 8; do printf 'tasks=%s\t0\tcharge.ops_per_s\t%s\tops/s\thigher\n' $c $((c * 1000)); done
	} > "$1/data/metrics.tsv"
	printf 'low_ns\thigh_ns\tcount\n496\t503\t7\n4096\t4223\t2\n' > "$1/data/hist-lock.wait.tsv"
}
# Every PNG ends with its IEND chunk, every SVG with its closing tag, every
# text rendering has its 24 lines.
plots_whole() { # dir
	local p
	for p in "$1"/*.png; do [ -e "$p" ] || continue; [ "$(tail -c 8 "$p" | od -An -tx1 | tr -d ' \n')" = 49454e44ae426082 ] || return 1; done
	for p in "$1"/*.svg; do [ -e "$p" ] || continue; tail -c 16 "$p" | grep -q '</svg>' || return 1; done
	for p in "$1"/*.txt; do [ -e "$p" ] || continue; [ "$(wc -l < "$p")" -ge 24 ] || return 1; done
}
if ! command -v gnuplot >/dev/null; then
	skip "plot on a full disk" "gnuplot not installed (make deps)"
else
	small_disk "$T/plot" 256
	make_results "$T/plot/r"
	small_disk "$T/plot/r/plots" 256 24	# room for meta.json, not for the plots
	$LAB plot "$T/plot/r" >/dev/null 2>"$T/plot.err"; st=$?
	f=$(named_file "$T/plot.err")
	ok '[ $st = 2 ] && [ "$(lab_lines "$T/plot.err")" = 1 ] && grep -q "$T/plot/r/plots/.*: cannot write: " "$T/plot.err"' \
		"plot: exit 2 and one line naming the plot ($(head -1 "$T/plot.err"))"
	ok 'grep -q "\"status\":\"incomplete\"" "$T/plot/r/meta.json" && nothing_complete "$T/plot/r"' \
		"plot: the run whose plots/ is short says incomplete"
	ok '[ -n "$f" ] && [ ! -e "$f" ]' "plot: the plot named is not left cut short (${f#$T/})"
	ok 'plots_whole "$T/plot/r/plots"' "plot: every rendering left in plots/ is whole ($(ls "$T/plot/r/plots" | tr '\n' ' '))"
	rm -f "$T/plot/r/plots/fill"
	$LAB plot "$T/plot/r" >/dev/null 2>"$T/plot2.err"; st=$?
	ok '[ $st = 0 ] && grep -q "\"status\":\"complete\"" "$T/plot/r/meta.json" && ! grep -q unwritten "$T/plot/r/meta.json"' \
		"plot: with room again, every plot is written and the run is complete again ($(head -1 "$T/plot2.err"))"
fi

# ---- a read-only results directory: one line, exit 2, nothing made --------
small_disk "$T/ro" 64
make_results "$T/ro/r"
mkdir -p "$T/ro/r/plots"
cp "$T/ro/r/meta.json" "$T/meta.before"
read_only "$T/ro"
if grep -q ' memory\| cgroup2 ' /proc/self/mounts; then
	MEMCG_LAB_RESULTS=$T/ro $LAB run "$T/tiny.exp" >/dev/null 2>"$T/ro-run.err"; st=$?
	ok '[ $st = 2 ] && [ "$(lab_lines "$T/ro-run.err")" = 1 ] && grep -q "$T/ro/.*Read-only file system" "$T/ro-run.err"' \
		"run into a read-only directory: exit 2 and one line ($(head -1 "$T/ro-run.err"))"
else
	skip "run into a read-only directory" "no memory controller mounted"
fi
MEMCG_LAB_RESULTS=$T/ro $LAB lock record --duration 1 >/dev/null 2>"$T/ro-lock.err"; st=$?
ok '[ $st = 2 ] && [ "$(lab_lines "$T/ro-lock.err")" = 1 ] && grep -q "$T/ro/.*Read-only file system" "$T/ro-lock.err"' \
	"lock record into a read-only directory: exit 2 and one line ($(head -1 "$T/ro-lock.err"))"
$LAB c2c report $S --btf build/btf/vmlinux-6.18.44.btf --out "$T/ro/o" >/dev/null 2>"$T/ro-c2c.err"; st=$?
ok '[ $st = 2 ] && [ "$(lab_lines "$T/ro-c2c.err")" = 1 ] && grep -q "$T/ro/o.*Read-only file system" "$T/ro-c2c.err"' \
	"c2c report --out a read-only directory: exit 2 and one line ($(head -1 "$T/ro-c2c.err"))"
if command -v gnuplot >/dev/null; then
	$LAB plot "$T/ro/r" >/dev/null 2>"$T/ro-plot.err"; st=$?
	ok '[ $st = 2 ] && [ "$(lab_lines "$T/ro-plot.err")" = 1 ] && grep -q "$T/ro/r/.*Read-only file system" "$T/ro-plot.err"' \
		"plot of a read-only results directory: exit 2 and one line ($(head -1 "$T/ro-plot.err"))"
else
	skip "plot of a read-only results directory" "gnuplot not installed (make deps)"
fi
ok 'cmp -s "$T/meta.before" "$T/ro/r/meta.json" && [ -z "$(ls "$T/ro/r/plots")" ] && [ "$(ls "$T/ro")" = r ]' \
	"nothing was made or changed in the read-only directory ($(ls "$T/ro" | tr '\n' ' '))"
done_testing
