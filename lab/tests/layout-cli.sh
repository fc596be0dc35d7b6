#!/bin/sh
# memcg-lab layout as a user and a kernel CI job run it: exit status and
# output of --check on the four real kernels, the committed reference
# captures against fresh ones, the default capture directory, --against a
# capture, the running kernel, and every kind of bad input (one line, exit 2).
set -u
. "$(dirname "$0")/lib/tap.sh"
has() { grep -qF -- "$2" "$1"; }
btf() { echo "build/btf/vmlinux-$1.btf"; }

$LAB layout --help >"$T/help" 2>&1
check $? "layout --help exits 0"
has "$T/help" "--against DIR_OR_BTF"; check $? "--help documents --against"

# --check on the eight kernels: exit status and the lines a reviewer reads
# (--width 0: a rule and each detail on one line, for grep; the default
# width is checked below).
for k in 5.10.262 6.1.192 6.12.117 6.18.44 6.16.12 7.1.13 7.2.12 7.3.4-rt; do
	$LAB layout --btf "$(btf $k)" --check --width 0 >"$T/check-$k" 2>"$T/err-$k"
	echo $? >"$T/rc-$k"
done
[ "$(cat "$T/rc-5.10.262")" = 1 ]; check $? "5.10.262 --check exits 1 (a hard rule failed)"
for k in 6.1.192 6.12.117 6.18.44 6.16.12 7.1.13 7.2.12 7.3.4-rt; do
	[ "$(cat "$T/rc-$k")" = 0 ] && ! grep -q '^FAIL' "$T/check-$k"
	check $? "$k --check exits 0 with no FAIL line"
done
grep -q '^FAIL  usage-alone ' "$T/check-5.10.262" && grep -q '^FAIL  limits-off-usage-line ' "$T/check-5.10.262"
check $? "5.10.262: both usage rules FAIL"
grep -F 'cacheline 0 (bytes 0-63): usage@0 (hot-written) shares it with min@8 (read-mostly) low@16 (read-mostly) high@24 (read-mostly) max@32 (read-mostly)' "$T/check-5.10.262" >/dev/null
check $? "5.10.262: the failure names min/low/high/max with offsets on cacheline 0"
has "$T/check-5.10.262" "class: pre-split page_counter"; check $? "5.10.262 is classed pre-split"
has "$T/check-6.18.44" "class: split page_counter; 7-slot memcg stock; separate obj_stock_pcp"
check $? "6.18.44 is classed split, 7 slots, obj_stock_pcp"
grep -q '^n/a   memcg-kmem-aligned .*CONFIG_MEMCG_V1' "$T/check-6.12.117"; check $? "6.12.117: kmem rule n/a naming CONFIG_MEMCG_V1"
grep -q '^warn  sometimes-written-one-line' "$T/check-6.12.117"; check $? "6.12.117: the watermark spill is a soft warn"
grep -q '^result: 16 pass, 0 FAIL, 0 warn, 6 n/a$' "$T/check-6.18.44"; check $? "6.18.44: 16 pass, 6 n/a"
has "$T/check-7.2.12" "class: split page_counter; 7-slot memcg stock; separate obj_stock_pcp, 5 objcg slots"
check $? "7.2.12 is classed with a 5-slot obj stock"
grep -q '^result: 16 pass, 0 FAIL, 0 warn, 6 n/a$' "$T/check-7.2.12"; check $? "7.2.12: 16 pass, 6 n/a"
grep -q '^pass  obj-stock-slots-one-line ' "$T/check-7.2.12"; check $? "7.2.12: the obj stock's hot block is on one line"
has "$T/check-7.3.4-rt" "lock debugging: no (memcg_stock_pcp.lock is local_trylock_t of 32 B (struct spinlock over struct rt_mutex_base: PREEMPT_RT"
check $? "7.3.4-rt: the 32-byte lock is PREEMPT_RT's, not lock debugging"
has "$T/check-7.3.4-rt" "; PREEMPT_RT stock lock (32 B)"; check $? "7.3.4-rt is classed PREEMPT_RT"
grep -q '^pass  stock-slots-rt-lines .*95 B in bytes 0-95 on cachelines 0-1' "$T/check-7.3.4-rt" &&
	grep -q '^pass  obj-stock-rt-lines .*89 B in bytes 0-95 on cachelines 0-1' "$T/check-7.3.4-rt"
check $? "7.3.4-rt: both stocks' hot blocks take lines 0-1, checked with the 32-byte lock"
grep -q '^result: 14 pass, 0 FAIL, 2 warn, 6 n/a$' "$T/check-7.3.4-rt"; check $? "7.3.4-rt: 14 pass, 2 warn, 6 n/a"
# The cold members are checked off every line of the hot block, not only
# line 0: RT's lock puts the last slots on line 1, beside the drain work.
grep -q '^warn  stock-cold-off-line ' "$T/check-7.3.4-rt" &&
	has "$T/check-7.3.4-rt" "struct memcg_stock_pcp, cacheline 1 (bytes 64-127): cached@40 (hot-written) shares it with work@96" &&
	grep -q '^warn  obj-stock-cold-off-line ' "$T/check-7.3.4-rt"
check $? "7.3.4-rt: the cold-off-line rules see work@96 on the hot block's line 1"
grep -q '^result: 14 pass, 0 FAIL, 0 warn, 8 n/a$' "$T/check-6.16.12"; check $? "6.16.12: 14 pass, 8 n/a"
for k in 5.10.262 6.1.192 6.12.117 6.18.44 6.16.12 7.1.13 7.2.12 7.3.4-rt; do
	[ ! -s "$T/err-$k" ]; check $? "$k --check writes nothing on stderr"
done

# The committed references are what the lab captures today.
for k in 5.10.262 6.1.192 6.12.117 6.18.44 6.16.12 7.1.13 7.2.12 7.3.4-rt; do
	$LAB layout --btf "$(btf $k)" --out "$T/cap-$k" >/dev/null 2>&1
	diff -r "layouts/$k" "$T/cap-$k" >"$T/diff-$k" 2>&1
	check $? "layouts/$k matches a fresh capture (regenerate: bin/memcg-lab layout --btf $(btf $k))"
done
# layouts/ holds real kernels only: each capture is of a kernel whose BTF
# lab/tests/data/btf/README.md names (a test's fixture is no reference:
# every --check validates the rules against what is there).
for d in layouts/*/; do
	k=$(basename "$d")
	grep -qF -- "$k" lab/tests/data/btf/README.md
	check $? "layouts/$k is a real kernel's capture (named in lab/tests/data/btf/README.md)"
done
has "$T/cap-6.18.44/obj_stock_pcp.txt" "struct obj_stock_pcp {"; check $? "pahole text captured per struct"
[ ! -e "$T/cap-6.12.117/obj_stock_pcp.txt" ]; check $? "no pahole text for a struct the kernel lacks"
has "$T/cap-6.18.44/cachelines.txt" "    4 [256-319] memory.usage@256+8[w] memory.failcnt@264+8"
check $? "cacheline map lists nested fields (memory.usage) with their tags"

# Without --out, a capture goes to layouts/<release>/ of the lab root.
mkdir -p "$T/root/layouts" && cp layouts/rules.conf "$T/root/layouts/"
MEMCG_LAB_ROOT="$T/root" $LAB layout --btf "$(btf 6.1.192)" >"$T/default" 2>&1
[ $? = 0 ] && [ -s "$T/root/layouts/6.1.192/page_counter.txt" ] && [ -s "$T/root/layouts/6.1.192/cachelines.txt" ]
check $? "default capture directory is layouts/<kernel-release>/"

# --against a capture directory, and with --check in one run.  Exit 1
# when a hot-written field gains a sharer no rule allows ('!'); a sharer a
# rule allows is listed without the '!', as --check says "(allowed)".
$LAB layout --btf "$(btf 6.18.44)" --against layouts/6.12.117 --width 0 >"$T/against" 2>&1
check $? "--against a capture exits 0 (failcnt and the stock's lock join lines the rules allow)"
has "$T/against" "    new sharing: usage@0 (hot-written, line 0) now shares its cacheline with failcnt@8 (allowed: usage-alone)" &&
	! grep -q '! new sharing' "$T/against"
check $? "--against layouts/6.12.117: failcnt joins usage's line, allowed by usage-alone (no '!')"
$LAB layout --btf "$(btf 6.18.44)" --check --width 0 | grep -q '^pass  usage-alone .*with failcnt@8 (allowed)$'
check $? "... which --check calls allowed"
$LAB layout --btf "$(btf 5.10.262)" --against "$(btf 6.1.192)" >"$T/presplit" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^  ! new sharing: usage@0 (hot-written, line 0) now shares its cacheline' "$T/presplit" &&
	grep -q '^[0-9]* hot-written fields* gained a cacheline sharer no rule allows' "$T/presplit"
check $? "--against across the split backwards: '!' the limits on usage's line, exit $rc (a gate)"
$LAB layout --btf "$(btf 7.3.4-rt)" --against layouts/7.3.4 --width 0 >"$T/rt" 2>&1
rc=$?
[ $rc = 1 ] && has "$T/rt" "  ! new sharing: cached@40 (hot-written, lines 0-1) now shares its cacheline with work@96" &&
	grep -q '^warn  stock-cold-off-line ' "$T/check-7.3.4-rt"
check $? "7.3.4 -> 7.3.4-rt: '!' work joins the slots' line 1, where --check warns; exit $rc"

# Output for a mail: --check and --against fit 80 columns (or --width),
# and the wrapped text is the one-line text, word for word.
words() { tr -s ' \n' '  ' <"$1"; }
for k in 5.10.262 6.12.117 7.3.4-rt; do
	$LAB layout --btf "$(btf $k)" --check >"$T/w80-$k"
	$LAB layout --btf "$(btf $k)" --check --width 60 >"$T/w60-$k"
	[ -z "$(awk 'length > 80' "$T/w80-$k")" ] && [ -z "$(awk 'length > 60' "$T/w60-$k")" ] &&
		[ "$(words "$T/w80-$k")" = "$(words "$T/check-$k")" ] && [ "$(words "$T/w60-$k")" = "$(words "$T/check-$k")" ]
	check $? "$k --check: no line over 80 columns (60 with --width 60), the same words as --width 0"
done
$LAB layout --btf "$(btf 6.18.44)" --against layouts/6.12.117 >"$T/against80"
$LAB layout --btf "$(btf 7.3.4-rt)" --against layouts/7.3.4 >"$T/rt80"
[ -z "$(awk 'length > 80' "$T/against80" "$T/rt80")" ] && [ "$(words "$T/against80")" = "$(words "$T/against")" ] &&
	[ "$(words "$T/rt80")" = "$(words "$T/rt")" ]
check $? "--against: no line over 80 columns, the same words as --width 0"
grep -q '^FAIL  usage-alone  *hard  page_counter: 1 violation$' "$T/w80-5.10.262" &&
	grep -q '^result: 2 pass, 5 FAIL, 0 warn, 15 n/a$' "$T/w80-5.10.262"
check $? "wrapped: the verdict, rule and severity still open their line; the result line whole"
$LAB layout --btf "$(btf 5.10.262)" --check --against "$(btf 6.1.192)" >"$T/both" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^FAIL  usage-alone' "$T/both" && has "$T/both" "+++ 5.10.262"
check $? "--check and --against together: the verdicts, then the diff; exit 1 from the check"

# The running kernel (no --btf/--vmlinux).
if [ -r /sys/kernel/btf/vmlinux ]; then
	$LAB layout --check >"$T/running" 2>&1
	rc=$?
	[ $rc -le 1 ] && has "$T/running" "(running kernel BTF /sys/kernel/btf/vmlinux)" && grep -q '^result: ' "$T/running"
	check $? "the running kernel's BTF is checked (exit $rc)"
else
	skip "the running kernel's BTF is checked" "/sys/kernel/btf/vmlinux missing (CONFIG_DEBUG_INFO_BTF=n)"
fi

# Bad input: one line on stderr naming the file, exit 2.
bad() {	# bad DESCRIPTION EXPECTED-TEXT ARGS...
	desc=$1; want=$2; shift 2
	$LAB layout "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && has "$T/err" "$want"
	check $? "$desc: exit 2, one line: $want"
	[ $rc = 2 ] || echo "# rc=$rc: $(cat "$T/err")"
}
echo "not a kernel" >"$T/text"
bad "a text file" "$T/text: neither BTF nor ELF" --btf "$T/text"
printf 'int x;\n' >"$T/nodbg.c" && cc -c -o "$T/nodbg.o" "$T/nodbg.c"
bad "an ELF with neither BTF nor DWARF" "$T/nodbg.o: ELF file with neither .BTF nor DWARF" --vmlinux "$T/nodbg.o"
head -c 1000 "$(btf 6.18.44)" >"$T/trunc.btf"
bad "a truncated BTF" "$T/trunc.btf: BTF magic but the BTF is damaged or truncated" --btf "$T/trunc.btf"
bad "a missing file" "$T/nope: cannot open" --btf "$T/nope"
bad "--btf and --vmlinux together" "exclusive" --btf "$(btf 6.18.44)" --vmlinux "$(btf 6.18.44)"
$LAB layout --frobnicate >/dev/null 2>"$T/err"
[ $? = 2 ] && has "$T/err" "layout: bad option or missing value: '--frobnicate' (see 'memcg-lab layout --help')" &&
	[ "$(wc -l < "$T/err")" = 1 ]
check $? "an unknown option: exit 2, one line naming it"
printf 'rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant alone usage allow\n' >"$T/r1.conf"
bad "a rules syntax error" "$T/r1.conf:4: expected 'alone FIELD [allow FIELD...]'" --btf "$(btf 6.18.44)" --check --rules "$T/r1.conf"
printf 'rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant apart usage from min hihg\n' >"$T/r2.conf"
bad "a rule naming a field no kernel has" "$T/r2.conf:4: rule a: field 'hihg' exists in no known kernel's page_counter" \
	--btf "$(btf 6.18.44)" --check --rules "$T/r2.conf"
mkdir -p "$T/empty"
bad "--against a directory that is no capture" "$T/empty: not a layout capture" --btf "$(btf 6.18.44)" --against "$T/empty"
cp "$(btf 6.18.44)" "$T/kernel.btf"
bad "a capture whose release is unknown" "the kernel release is unknown" --btf "$T/kernel.btf"

# Compressed BTF (and every --btf): xz as committed, gzip and zstd made
# here by their CLIs; read through the libraries, told by the magic bytes
# (a .zst named .btf is still zstd).  The check is the raw file's, its
# header naming the compression.
cp lab/tests/data/btf/vmlinux-7.2.12.btf.xz "$T/vmlinux-7.2.12.btf.xz"
gzip -c "$(btf 7.2.12)" >"$T/vmlinux-7.2.12.btf.gz"
$LAB layout --btf "$(btf 7.2.12)" --check --width 0 >"$T/zraw"
for z in xz gz zst; do
	f=$T/vmlinux-7.2.12.btf.$z
	if [ $z = zst ]; then
		command -v zstd >/dev/null || { skip "layout --btf .zst" "no zstd CLI to make one (apt-get install zstd)"; continue; }
		zstd -q -c "$(btf 7.2.12)" >"$T/named-raw.btf" && f=$T/named-raw.btf
	fi
	$LAB layout --btf "$f" --check --width 0 >"$T/z-$z" 2>"$T/z-$z.err"
	rc=$?
	[ $rc = 0 ] && [ ! -s "$T/z-$z.err" ] && [ "$(sed 1d "$T/z-$z")" = "$(sed 1d "$T/zraw")" ] &&
		grep -q "^layout check: .* $f, $( [ $z = gz ] && echo gzip || { [ $z = zst ] && echo zstd || echo xz; })-compressed)" "$T/z-$z"
	check $? "layout --btf $(basename "$f") --check: the raw file's verdicts, the compression named (exit $rc)"
done
grep -q '^layout check: 7.2.12 ' "$T/z-xz" && grep -q '^layout check: release unknown ' "$T/z-zst" 2>/dev/null
check $? "the release from a compressed file's name (vmlinux-7.2.12.btf.xz), none from named-raw.btf"
$LAB probe --btf "$T/vmlinux-7.2.12.btf.gz" --json >"$T/pz.json" && $LAB probe --btf "$(btf 7.2.12)" --json >"$T/pr.json" &&
	[ "$(grep -v '"path"' "$T/pz.json")" = "$(grep -v '"path"' "$T/pr.json")" ]
check $? "probe --btf of a .gz: the raw file's answers"
head -c 100000 "$T/vmlinux-7.2.12.btf.xz" >"$T/cut.btf.xz"
bad "a cut-off .xz" "$T/cut.btf.xz: the xz data ends before its stream does (cut off" --btf "$T/cut.btf.xz"
echo "not a kernel" | gzip >"$T/text.gz"
bad "a .gz of no kernel" "$T/text.gz (gzip): neither BTF nor ELF inside" --btf "$T/text.gz"

done_testing
