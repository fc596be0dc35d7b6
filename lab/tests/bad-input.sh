#!/bin/bash
# The bad-input page (doc/memcg-lab-bad-input.txt, `memcg-lab help
# bad-input`), entry by entry: every example is run (in a directory with the
# fixtures the examples name) and must print its message on stderr (one
# line; "..." stands for anything) and exit with the status given.  Entries
# that name another test are checked to be covered there.  So the page
# cannot drift from what the lab does.
set -u
. "$(dirname "$0")/lib/tap.sh"

PAGE=$PWD/doc/memcg-lab-bad-input.txt
F=$T/fx
mkdir -p "$F"
cd "$F" || exit 1

# Fixtures named by the examples.
head -c 100 "$OLDPWD/build/btf/vmlinux-6.18.44.btf" > trunc.btf
# A well-formed raw BTF (header, one type, the empty string) whose only type
# has kind 25, which no libbpf knows: what a newer kernel's new kind looks like.
printf '\x9f\xeb\x01\x00\x18\x00\x00\x00\x00\x00\x00\x00\x0c\x00\x00\x00\x0c\x00\x00\x00\x01\x00\x00\x00' > newkind.btf
printf '\x00\x00\x00\x00\x00\x00\x00\x19\x00\x00\x00\x00\x00' >> newkind.btf
printf '[experiment]\nname = x\nrepeat = 3\n' > unknown-key.exp
printf '[experiment]\nname = x\nrepeats = 0\n' > bad-value.exp
printf '[experiment]\nname = x\n[driver]\ncommand = statread\ninterval = 0\n' > driver-refuses.exp
claim_tail='published = p\nmachine = m\ncondition = c\n'
printf "[experiment]\nname = x\n[claim x]\nquantity = netperf:mbps\nvalue = 1 Mbps\n$claim_tail"'source = <1@x.org>\n' > claim-quantity.exp
printf "[experiment]\nname = x\n[claim x]\nquantity = metric:-:m\nvalue = 17063.7\n$claim_tail"'source = <1@x.org>\n' > claim-unit.exp
printf "[experiment]\nname = x\n[claim x]\nquantity = metric:-:m\nvalue = 1 Mbps\n$claim_tail" > claim-source.exp
printf '[experiment]\nname = x\n[plot]\nheadline = chart-x\n' > bad-headline.exp
printf '[experiment]\nname = x\ndescription = %0200d\n' 0 > long-line.exp
printf '[experiment]\nname = x\nrepeats = 2\n' > no-driver.exp
printf 'rule x\n' > bad-rules.conf
cp "$OLDPWD/build/btf/vmlinux-6.18.44.btf" k.btf
mkdir edited-capture
cp "$OLDPWD"/layouts/6.18.44/*.tsv edited-capture/
sed -i 's/^cacheline\t64$/cacheline\t48/' edited-capture/meta.tsv
printf 'rule y\n  struct page_counter\n  severity hard\n  invariant alone usage_nope\n  why x\n' > unknown-field.conf
head -c 1000 "$OLDPWD/lab/tests/data/fuzz/perfdata/perf-lock-record-sleep.data" > trunc.data
c2c=$OLDPWD/lab/tests/data/samples/c2c/06-joemario-example-report-2016-intel.txt
head -c $(($(wc -c < "$c2c") * 70 / 100)) "$c2c" > cut.txt
head -n $(($(grep -n "Shared Data Cache Line Table" "$c2c" | cut -d: -f1) - 2)) "$c2c" > stats-only.txt
# The lines plugin's access trace (c2c/lines_trace.h): version 2 (its
# header's bytes 8..11), and the last 30 bytes cut off a trace of 4 records.
tr=$OLDPWD/lab/tests/data/fuzz/lines-trace/complete.bin
{ head -c 8 "$tr"; printf '\x02\x00\x00\x00'; tail -c +13 "$tr"; } > v2.trace
head -c $(($(wc -c < "$tr") - 30)) "$tr" > cut.trace
mkres() { # dir experiment value
	mkdir -p "$1/data"
	printf '{"name":"%s","status":"complete"}\n' "$2" > "$1/meta.json"
	printf 'step\trepeat\tmetric\tvalue\tunit\tbetter\n-\t0\tm\t%s\tops/s\thigher\n' "$3" > "$1/data/metrics.tsv"
}
mkres results-a stock-slots 1
mkres results-b kmem-overhead 2
mkres results-bad stock-slots x
mkres results-empty stock-slots 1
: > results-empty/data/metrics.tsv
mkres results-nohead stock-slots 1
sed -i 1d results-nohead/data/metrics.tsv
PATH=$(dirname "$LAB"):$PATH

# "..." in the table stands for anything; everything else is literal.
to_regex() { printf '%s' "$1" | sed -e 's/[][\.*^$(){}+?|/]/\\&/g' -e 's/\\\.\\\.\\\./.*/g'; }

# The page's BAD INPUT section: each entry a term ("KIND::") and a listing
# of three lines: the example ("$ memcg-lab ...", after a condition such as
# "(non-root) ", or "(tested in FILE)"), the message, "exit N".  One row per
# entry, its fields apart by US (\037: read keeps an empty one): kind,
# example, message, status, the lines listed.
rows=$(awk -v OFS='\037' '
	$0 == "BAD INPUT" { on = 1; next }
	!on { next }
	/^-+$/ && prev ~ /^[A-Z][A-Z ]*$/ { exit }
	/^----$/ { if (inl) print kind, l[1], l[2], l[3], n; inl = !inl; n = 0; prev = $0; next }
	inl { l[++n] = $0 }
	!inl && /::$/ { kind = substr($0, 1, length($0) - 2) }
	{ prev = $0 }' "$PAGE")
[ -n "$rows" ] || { ok false "doc/memcg-lab-bad-input.txt has a BAD INPUT section"; done_testing; exit 0; }
while IFS=$'\037' read -r kind example msg status nlines; do
	if [ "$nlines" != 3 ] || ! [[ $status =~ ^exit\ [0-9]+$ ]]; then
		ok false "$kind: an entry of three lines (example, message, exit N), not $nlines"
		continue
	fi
	want=${status#exit }
	cmd=$(echo "$example" | sed -n 's/^\(([^)]*) \)\{0,1\}\$ \(memcg-lab .*\)$/\2/p')
	case $example in
	"(tested in "*)
		file=${example#(tested in }; file=${file%)}
		msg=${msg#...}; msg=${msg%...}
		ok '[ -n "$msg" ] && [ -f "$OLDPWD/lab/tests/$file" ] && grep -qF -- "$msg" "$OLDPWD/lab/tests/$file"' \
			"$kind: covered by $file"
		continue ;;
	"(no swap)"*)
		if awk '$1 == "SwapFree:" && $2 > 0 { f = 1 } END { exit !f }' /proc/meminfo; then
			skip "$kind" "this box has swap"
			continue
		fi
		pre="" ;;
	"(non-root)"*)
		command -v setpriv >/dev/null || { skip "$kind" "no setpriv to drop root"; continue; }
		pre="setpriv --reuid=65534 --regid=65534 --clear-groups" ;;
	"(without gnuplot)"*)
		pre="env PATH=/nonexistent" ;;
	"(full disk)"*)
		mkdir -p full
		if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=16k tmpfs full 2>/dev/null; then
			skip "$kind" "needs root to mount a small tmpfs"
			continue
		fi
		dd if=/dev/zero of=full/fill bs=1k count=64 2>/dev/null
		pre="env MEMCG_LAB_RESULTS=$F/full" ;;
	"(read-only results)"*)
		mkdir -p full
		if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o ro,size=16k tmpfs full 2>/dev/null; then
			skip "$kind" "needs root to mount a read-only tmpfs"
			continue
		fi
		pre="env MEMCG_LAB_RESULTS=$F/full" ;;
	*) pre="" ;;
	esac
	[ -n "$cmd" ] || { ok false "$kind: an example '\$ memcg-lab ...' ($example)"; continue; }
	err=$($pre $LAB ${cmd#memcg-lab } 2>&1 >/dev/null); st=$?
	case $example in "(full disk)"* | "(read-only results)"*) umount "$F/full" ;; esac
	re="^$(to_regex "$msg")\$"
	ok '[ "$st" = "$want" ] && [ "$(printf "%s\n" "$err" | grep -c .)" = 1 ] && printf "%s\n" "$err" | grep -Eq -- "$re"' \
		"$kind: exit $want and one line ($err)"
done <<< "$rows"
# Every entry was read: as many rows as the section has terms.
terms=$(awk '$0 == "BAD INPUT" { on = 1; next } on && /^[A-Z][A-Z ]*$/ { exit } on && /^[^ \t].*::$/ { n++ } END { print n + 0 }' "$PAGE")
ok '[ "$terms" = "$(printf "%s\n" "$rows" | grep -c .)" ]' "every entry of the page read ($terms)"
# Refused input is refused before anything is made: no results directory.
made=$(ls "$MEMCG_LAB_RESULTS" 2>/dev/null | tr '\n' ' ')
ok '[ -z "$made" ]' "no row left a results directory behind (${made:-none})"
done_testing
