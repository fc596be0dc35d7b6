#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# memcg-lab lock report -i perf.data against perf lock contention -i on a
# perf.data recorded here with perf lock record: the same rows (contended
# count and total wait, as perf prints them) in the caller view and per
# thread (-t), for the host's perf and for Debian's perf 7.3 and 7.2 (each
# reading its own recording, with its own default --stack-skip).  Then perf.data files the lab must refuse with one line:
# truncated, without lock events, Zstd-compressed, pipe mode, not perf.data.
. "$(dirname "$0")/lib/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (perf lock record -a)"
command -v perf >/dev/null || skip_all "no perf in PATH"
# perf mounts tracefs itself where none is, and leaves it mounted: here
# only in a mount namespace of the test's own.
in_private_mount_ns "$@"
mount_tracefs || skip_all "cannot mount tracefs at /sys/kernel/tracing (see tracefs-mount.sh)"
[ -d /sys/kernel/tracing/events/lock/contention_begin ] ||
	skip_all "no lock:contention_begin tracepoint on this kernel (5.19+)"

tmp=$T
rows() {
	# perf prints its table on stderr (6.1) or stdout; keep the data rows.
	awk '/contended/ && (/caller/ || /comm/ || /symbol/) { t = 1; next } t && /^ *[0-9]+ / { print }' | sort
}

# Every agreement test runs against each perf users have: the host's (6.1
# here) and Debian's 7.3, 7.2 and 6.12, run with their own loader
# (lab/scripts/perf-runtime.sh fetches them into the lab's cache once).
# 7.x adds the inline frames of user addresses to call chains, 6.x does not.
perfs="host:$(command -v perf)"
for v in 7.3 7.2 6.12; do
	if p=$(QUIET=1 lab/scripts/perf-runtime.sh $v 2>"$tmp/runtime-$v.err"); then
		perfs="$perfs $v:$p"
	else
		skip "agreement with perf $v" "perf $v cannot be fetched: $(cat "$tmp/runtime-$v.err")"
	fi
done

# The recording perf's own view of its file, caller and thread, with its
# default --stack-skip: the lab must take that default from the file.
agree() {	# label perf
	local label=$1 P=$2 d=$tmp/$1 ver nrows view flag opt
	mkdir -p "$d"
	ver=$("$P" version | sed 's/^perf version //')
	# A short burst of lock contention: processes passing messages, and
	# shells forking subshells (no exec), whose page faults after fork
	# contend with user frames in libc: with its DWARF (libc6-dbg), perf
	# 7.x adds inline frames there, and perf lock contention gives a
	# forked child no mappings of its parent.
	"$P" lock record -a -o "$d/perf.data" -- bash -c '"$1" bench sched messaging -g 2 -l 400 >/dev/null &
		for k in 1 2; do ( for i in $(seq 300); do ( : ); done ) & done; wait' sh "$P" \
		</dev/null >"$d/record.log" 2>&1
	check $? "perf $ver: perf lock record made a perf.data"
	for view in caller thread; do
		flag=
		[ $view = thread ] && flag=-t
		"$P" lock contention $flag -i "$d/perf.data" >"$d/perf.$view" 2>&1
		rows <"$d/perf.$view" >"$d/perf.$view.rows"
		$LAB lock report -i "$d/perf.data" --by $view >"$d/lab.$view" 2>"$d/lab.$view.err"
		check $? "perf $ver: lock report --by $view reads its perf.data"
		rows <"$d/lab.$view" >"$d/lab.$view.rows"
		nrows=$(wc -l <"$d/perf.$view.rows")
		[ "$nrows" -ge 5 ]
		check $? "perf $ver: perf found contention to compare ($nrows $view rows)"
		diff "$d/perf.$view.rows" "$d/lab.$view.rows" >"$d/diff.$view"
		check $? "perf $ver: the $view view agrees with perf lock contention${flag:+ $flag} row for row (count, total/max/avg wait, key)"
		[ -s "$d/diff.$view" ] && diag "$(head -20 "$d/diff.$view")"
	done
	# --perf-text reads what this perf printed: the caller table, and on
	# perf 6.5+ its CSV (-x) and address view (-l): CSV and text agree.
	sum_text() { awk -F'\t' '$8 == "waiter" { s += $2; n++ } END { print n "/" s }'; }
	$LAB lock report --perf-text "$d/perf.caller" --tsv | sum_text >"$d/pt.caller"
	[ "$(cat "$d/pt.caller")" = "$(awk '{ s += $1; n++ } END { print n "/" s }' "$d/perf.caller.rows")" ]
	check $? "perf $ver: --perf-text reads its caller table (rows/contended $(cat "$d/pt.caller"))"
	case $ver in
	[0-5].*|6.[0-4].*) skip "perf $ver: --perf-text on -x and -l output" "perf $ver has no -x (6.5+)" ;;
	*)
		"$P" lock contention -x ';' -i "$d/perf.data" >"$d/perf.csv" 2>&1
		"$P" lock contention -l -i "$d/perf.data" >"$d/perf.addr" 2>&1
		"$P" lock contention -l -x ';' -i "$d/perf.data" >"$d/perf.addr.csv" 2>&1
		a=$($LAB lock report --perf-text "$d/perf.csv" --tsv | sum_text)
		b=$($LAB lock report --perf-text "$d/perf.addr" --tsv | sum_text)
		c=$($LAB lock report --perf-text "$d/perf.addr.csv" --tsv | sum_text)
		# (The views may differ by an end perf drops in one of them.)
		[ "$a" = "$(cat "$d/pt.caller")" ] && [ "$b" = "$c" ] && [ -n "${b%/*}" ]
		check $? "perf $ver: --perf-text on -x as on the text, -l as on -l -x (rows/contended $a, $b, $c)" ;;
	esac
	# perf's knobs for the caller search give the same rows with the same values.
	for opt in "--stack-skip 3" "--stack-skip 4" "--max-stack 5"; do
		"$P" lock contention $opt -i "$d/perf.data" 2>&1 | rows >"$d/perf.opt.rows"
		$LAB lock report $opt -i "$d/perf.data" | rows >"$d/lab.opt.rows"
		cmp -s "$d/perf.opt.rows" "$d/lab.opt.rows"
		check $? "perf $ver: with $opt the caller view still agrees with perf ($(wc -l <"$d/perf.opt.rows") rows)"
	done
}
for p in $perfs; do
	agree "${p%%:*}" "${p#*:}"
done
tmp_host=$tmp/host

# lock record --perf says which perf lock mode it used: Debian's 7.3 has no
# BPF skeletons (bpf_skeletons: [ OFF ] in its build options), so tracepoint
# mode, and its outputs parsed.
p73=$(echo " $perfs" | sed -n 's/.* 7\.3:\([^ ]*\).*/\1/p')
if [ -n "$p73" ]; then
	PATH=$(dirname "$p73"):$PATH $LAB lock record --perf -n mode -- "$p73" bench sched messaging -g 1 -l 100 \
		>"$tmp/mode.out" 2>"$tmp/mode.err"
	check $? "lock record --perf with perf 7.3 exits 0"
	grep -q "^perf lock: tracepoint mode (perf 7.3.4: .*without BPF skeletons" "$tmp/mode.out"
	check $? "it says it used tracepoint mode, and why ($(grep '^perf lock:' "$tmp/mode.out"))"
	res=$(ls -d "$MEMCG_LAB_RESULTS"/*-mode 2>/dev/null | head -1)
	grep -Eq '"perf_mode": ?"tracepoint"' "$res/meta.json" 2>/dev/null &&
		[ "$(wc -l <"$res/data/perf-lock-contention-caller.tsv")" -gt 1 ]
	check $? "meta.json says perf_mode tracepoint, and perf's caller table was parsed"
else
	skip "lock record --perf with perf 7.3" "perf 7.3 could not be fetched (see above)"
fi

# A perf too old for what --perf asks: Debian bullseye's 5.10 has no perf
# lock contention.  One line naming the subcommand and the version.
if p510=$(QUIET=1 lab/scripts/perf-runtime.sh 5.10 2>"$tmp/runtime-5.10.err"); then
	PATH=$(dirname "$p510"):$PATH $LAB lock record --perf -n old -d 1 >"$tmp/old.out" 2>"$tmp/old.err"
	st=$?
	[ $st -eq 2 ] && [ "$(wc -l <"$tmp/old.err")" -eq 1 ] && grep -q "perf 5.10.223 is too old for 'perf lock contention'" "$tmp/old.err" &&
		[ -z "$(ls -d "$MEMCG_LAB_RESULTS"/*-old 2>/dev/null)" ]
	check $? "lock record --perf with perf 5.10: exit 2, one line, no results ($(cat "$tmp/old.err"))"
else
	skip "lock record --perf with perf 5.10" "perf 5.10 cannot be fetched: $(cat "$tmp/runtime-5.10.err")"
fi

# A perf runtime that cannot run names the library the loader missed (a
# copy of the cached 7.3 without libpython3.13, which the host lacks: the
# loader falls back to the host's own directories for a library it has).
if [ -n "$p73" ]; then
	mkdir -p "$tmp/cache"
	cp -a "$(dirname "$(dirname "$p73")")" "$tmp/cache/perf-7.3"
	rm -f "$tmp/cache/perf-7.3/usr/lib/x86_64-linux-gnu/libpython3.13.so"*
	MEMCG_LAB_CACHE=$tmp/cache lab/scripts/perf-runtime.sh 7.3 >"$tmp/broken.out" 2>"$tmp/broken.err"
	st=$?
	[ $st -eq 2 ] && [ ! -s "$tmp/broken.out" ] && [ "$(wc -l <"$tmp/broken.err")" -eq 1 ] &&
		grep -q "the library libpython3.13.so.1.0 is missing" "$tmp/broken.err"
	check $? "a perf runtime missing a library: exit 2 naming it ($(cat "$tmp/broken.err"))"
	rm -rf "$tmp/cache"
	# No apt access (an empty cache, a proxy that refuses): apt's own words.
	MEMCG_LAB_CACHE=$tmp/nocache http_proxy=http://127.0.0.1:9 lab/scripts/perf-runtime.sh 7.3 \
		>"$tmp/noapt.out" 2>"$tmp/noapt.err"
	st=$?
	[ $st -eq 2 ] && [ ! -s "$tmp/noapt.out" ] && [ "$(grep -vc 'fetching the package index' "$tmp/noapt.err")" -eq 1 ] &&
		grep -q "no apt access to Debian trixie-backports: .*Could not connect" "$tmp/noapt.err" &&
		[ ! -e "$tmp/nocache/perf-7.3" ]
	check $? "no apt access: exit 2 with apt's reason, no runtime left ($(tail -n1 "$tmp/noapt.err"))"
	rm -rf "$tmp/nocache"
	# Cached: a second call fetches nothing, and the wrapper is perf 7.3.4.
	out=$(QUIET= lab/scripts/perf-runtime.sh 7.3 2>"$tmp/again.err")
	[ "$out" = "$p73" ] && [ ! -s "$tmp/again.err" ] && [ "$("$out" version)" = "perf version 7.3.4" ]
	check $? "perf-runtime.sh 7.3 again: the cached wrapper, nothing fetched, perf version 7.3.4"
fi

# TSV: a header row, and the same contended total as perf's rows.
$LAB lock report -i "$tmp_host/perf.data" --by caller --tsv >"$tmp/lab.tsv"
head -1 "$tmp/lab.tsv" | grep -q "^key	contended	wait_total_ns	wait_max_ns	wait_avg_ns"
check $? "--tsv starts with the header row key contended wait_total_ns wait_max_ns wait_avg_ns"
a=$(awk 'NR > 1 { s += $2 } END { print s }' "$tmp/lab.tsv")
b=$(awk '{ s += $1 } END { print s }' "$tmp_host/perf.caller.rows")
[ "$a" = "$b" ]
check $? "TSV contended total $a equals perf's $b"
$LAB lock report -i "$tmp_host/perf.data" --by lock --tsv >"$tmp/lab.lock.tsv"
[ "$(wc -l <"$tmp/lab.lock.tsv")" -gt 1 ]
check $? "--by lock lists lock addresses"

# Bad input: exit status 2 and exactly one line naming the file.
refuse() {
	local what=$1 file=$2 want=$3 out
	$LAB lock report -i "$file" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$want" "$tmp/err" &&
		grep -q -- "$file" "$tmp/err"
	check $? "$what: exit 2 and one line ($(cat "$tmp/err"))"
}

size=$(stat -c %s "$tmp_host/perf.data")
head -c $((size * 6 / 10)) "$tmp_host/perf.data" >"$tmp/truncated.data"
refuse "a truncated perf.data" "$tmp/truncated.data" "truncated"
# Cut after the data: in the table of header features, the event formats
# (the tracing data feature) are lost: the lab names the byte where perf
# says "incompatible file format" or falls back to the running kernel's
# formats.  Cut inside the last feature's section, perf reads the file and
# so must the lab, with the same rows.
hdr=$(perf report -i "$tmp_host/perf.data" --header-only 2>/dev/null)
data_end=$(echo "$hdr" | awk -F: '/^# data offset/ { o = $2 } /^# data size/ { s = $2 } END { print o + s }')
head -c $((data_end + 8)) "$tmp_host/perf.data" >"$tmp/cut-table.data"
head -c $((size - 16)) "$tmp_host/perf.data" >"$tmp/cut-feature.data"
refuse "a perf.data cut in its table of header features" "$tmp/cut-table.data" "table of its .* header features"
perf lock contention -i "$tmp/cut-feature.data" 2>&1 | rows >"$tmp/cut.perf"
$LAB lock report -i "$tmp/cut-feature.data" 2>/dev/null | rows >"$tmp/cut.lab"
[ -s "$tmp/cut.perf" ] && cmp -s "$tmp/cut.perf" "$tmp/cut.lab"
check $? "a perf.data cut inside its last header feature: the same rows as perf's (perf reads it too)"

perf record -e sched:sched_switch -a -o "$tmp/nolock.data" -- sleep 0.2 </dev/null >/dev/null 2>&1
refuse "a perf.data without lock events" "$tmp/nolock.data" "no lock:contention_begin/end events"

if perf record -z -e lock:contention_begin -a -o "$tmp/z.data" -- sleep 0.2 </dev/null >/dev/null 2>&1; then
	refuse "a Zstd-compressed perf.data" "$tmp/z.data" "Zstd"
else
	skip "a Zstd-compressed perf.data" "this perf cannot record with -z"
fi

perf lock record -a -o - -- sleep 0.2 </dev/null >"$tmp/pipe.data" 2>/dev/null
refuse "a pipe-mode perf.data" "$tmp/pipe.data" "pipe-mode"

echo "not a perf file" >"$tmp/text.data"
refuse "a text file" "$tmp/text.data" "not a perf.data file"
refuse "a missing file" "$tmp/missing.data" "cannot open"

done_testing
