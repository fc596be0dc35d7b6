#!/bin/sh
# TAP: `memcg-lab vm --perf 7.3` brings Debian's perf 7.3 (its own loader and
# libraries, lab/scripts/perf-runtime.sh) into the guest as "perf", for
# kernels newer than the host's perf: there it records lock contention on
# the guest's kernel, and the lab's lock report -i agrees with it row for
# row, caller and thread views.  A version perf-runtime.sh does not know
# ends before any boot with one line.
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"
k=6.12

$lab vm --perf 6.9 --kernel $k --shell true >"$tmp/o" 2>&1
[ $? = 2 ] && [ "$(wc -l < "$tmp/o")" = 1 ] && grep -q "unknown perf version '6.9'" "$tmp/o" &&
	[ -z "$(ls "$MEMCG_LAB_RESULTS" 2>/dev/null)" ]
check $? "--perf 6.9: exit 2, one line ($(cat "$tmp/o")), no results"

if ! w=$(QUIET=1 lab/scripts/perf-runtime.sh 7.3 2>"$tmp/rt.err"); then
	skip "perf 7.3 in a guest" "perf 7.3 cannot be fetched: $(cat "$tmp/rt.err")"
	done_testing
	exit
fi
if ! $lab vm --fetch --kernel $k >/dev/null 2>"$tmp/fetch.err"; then
	skip "perf 7.3 in a guest" "cannot get kernel $k: $(tail -n1 "$tmp/fetch.err")"
	done_testing
	exit
fi

# In the guest: record with perf 7.3, then compare its views with the lab's
# (the rows perf prints, sorted), and keep both under /out.
cat >"$tmp/guest.sh" <<'EOF'
rows() { awk '/contended/ && (/caller/ || /comm/) { t = 1; next } t && /^ *[0-9]+ / { print }' | sort; }
command -v perf; perf version
# Threads writing to shared pipes: pipe mutex waits even on one TCG thread.
perf lock record -a -o /tmp/lock.data -- perf bench sched messaging -p -t -g 4 -l 200 >/out/record.log 2>&1
echo "record=$?"
for v in caller thread; do
	f=; [ $v = thread ] && f=-t
	perf lock contention $f -i /tmp/lock.data 2>&1 | rows >/out/perf.$v
	/lab/bin/memcg-lab lock report --by $v -i /tmp/lock.data | rows >/out/lab.$v
	echo "$v rows=$(wc -l </out/perf.$v) diff=$(diff /out/perf.$v /out/lab.$v | grep -c '^[-+][^-+]')"
done
EOF
MEMCG_LAB_RESULTS=$tmp/r $lab vm --kernel $k --perf 7.3 --timeout 400 --shell "$(cat "$tmp/guest.sh")" \
	>"$tmp/out" 2>"$tmp/err"
st=$?
check $st "vm --perf 7.3 runs the guest command (exit $st$( [ $st = 0 ] || echo ": $(tail -n2 "$tmp/err")"))"
d=$(one_dir "$tmp/r")
out=$d/output.txt
[ "$(sed -n 1p "$out")" = "$(dirname "$(dirname "$w")")/bin/perf" ] && [ "$(sed -n 2p "$out")" = "perf version 7.3.4" ]
check $? "in the guest, perf on PATH is the runtime's, perf version 7.3.4 ($(sed -n 2p "$out"), $(grep '^kernel:' "$d/guest.txt"))"
grep -qx "record=0" "$out"
check $? "perf 7.3 lock record works on the guest's kernel"
for v in caller thread; do
	line=$(grep "^$v rows=" "$out")
	r=${line#* rows=}; r=${r%% *}
	[ "${line##*diff=}" = 0 ] && [ "${r:-0}" -ge 1 ]
	check $? "guest: the lab's $v view equals perf 7.3's row for row ($line)"
done
done_testing
