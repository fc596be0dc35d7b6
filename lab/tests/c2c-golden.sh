#!/bin/bash
# Golden outputs of `memcg-lab c2c parse` for every perf c2c sample, and of
# `memcg-lab c2c report` for the samples whose objects are known.
#
#   lab/tests/c2c-golden.sh           TAP: compare with lab/tests/data/c2c/golden
#   lab/tests/c2c-golden.sh --update  rewrite the goldens (review the diff!)
set -u
. "$(dirname "$0")/lib/tap.sh"
S=lab/tests/data/samples/c2c
G=lab/tests/data/c2c/golden
update=0
[ "${1:-}" = --update ] && update=1

check_golden() {	# name, directory with the outputs
	if [ $update = 1 ]; then
		rm -rf "$G/$1" && mkdir -p "$G/$1" && cp "$2"/*.tsv "$G/$1/"
		ok true "$1: golden rewritten"
		return
	fi
	diff -r -u "$G/$1" "$2" >"$T/diff" 2>&1; st=$?
	ok '[ $st = 0 ]' "$1 matches its golden output"
	[ $st = 0 ] || sed 's/^/# /' "$T/diff" | head -40
}
attribution_only() { rm -f "$1/offsets.tsv" "$1/stats.tsv" "$1/cachelines.tsv" "$1/warnings.tsv"; }

for f in $S/*.txt; do
	name=$(basename "$f" .txt)
	if $LAB c2c parse -q "$f" --out "$T/$name" >/dev/null 2>"$T/err"; then
		check_golden "$name" "$T/$name"
	else
		ok false "$name: c2c parse failed: $(head -1 "$T/err")"
	fi
done

# The 2021 memcg rstat regression (sample 10): the hot line is the struct
# mem_cgroup itself (its css at offset 0), on a kernel of the 5.10-5.14
# layout.  Offsets 0x0 and 0x10 must come out as css.cgroup and
# css.refcnt.percpu_count_ptr (the thread's percpu-refcount.h source lines).
if $LAB c2c report -q $S/10-lkml-fengtang-memcg-rstat-cascadelake.txt --btf build/btf/vmlinux-5.10.262.btf \
	--struct mem_cgroup --base 0xffff8881c0642000 --out "$T/r10" >"$T/report.txt" 2>"$T/err"; then
	attribution_only "$T/r10"
	check_golden report-10-mem_cgroup "$T/r10"
else
	ok false "c2c report of sample 10 failed: $(head -1 "$T/err")"
fi

# The same line read as the first line of mem_cgroup's union { swap; memsw; }
# (5.10: at 320): --cgroup names the member live on the run's version
# (memsw on v1, swap on v2); without it, and with no --objects to say, both.
base=$(printf '0x%x' $((0xffff8881c0642000 - 320)))
for c in v1:memsw v2:swap none:'swap|memsw'; do
	v=${c%%:*} want=mem_cgroup.${c#*:}.usage
	args=()
	[ "$v" = none ] || args=(--cgroup "$v")
	$LAB c2c report -q $S/10-lkml-fengtang-memcg-rstat-cascadelake.txt --btf build/btf/vmlinux-5.10.262.btf \
		--struct mem_cgroup --base "$base" "${args[@]}" --out "$T/u$v" >"$T/u$v.txt" 2>"$T/err"
	ok '[ $? = 0 ] && grep -qF "$want" "$T/u$v.txt" &&
		awk -F"\t" -v f="$want" "\$7 == f {n++} END {exit !n}" "$T/u$v/fields.tsv"' \
		"report, cgroup $v: offset 320 of mem_cgroup is $want"
done
$LAB c2c report -q $S/10-lkml-fengtang-memcg-rstat-cascadelake.txt --btf build/btf/vmlinux-5.10.262.btf \
	--base "$base" --cgroup v3 >/dev/null 2>"$T/err"; st=$?
ok '[ $st = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q -- "--cgroup .v3.: expected v1 or v2" "$T/err"' \
	"report --cgroup v3: exit 2, one line ($(cat "$T/err"))"

# Sample 06 without any object address: attribution by code symbol only.
if $LAB c2c report -q $S/06-joemario-example-report-2016-intel.txt --out "$T/r06" >"$T/r06.txt" 2>"$T/err"; then
	attribution_only "$T/r06"
	check_golden report-06-symbols "$T/r06"
	ok 'grep -q "fields cannot be named" "$T/r06.txt"' \
		"without an object address the report says plainly that fields cannot be named"
else
	ok false "c2c report of sample 06 failed: $(head -1 "$T/err")"
fi
done_testing
