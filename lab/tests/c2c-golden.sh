#!/bin/sh
# Golden outputs of `memcg-lab c2c parse` for every perf c2c sample, and of
# `memcg-lab c2c report` for the samples whose objects are known.
#
#   lab/tests/c2c-golden.sh           TAP: compare with lab/tests/data/c2c/golden
#   lab/tests/c2c-golden.sh --update  rewrite the goldens (review the diff!)
set -u
bin=bin/memcg-lab
samples=lab/tests/data/samples/c2c
golden=lab/tests/data/c2c/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
update=0
[ "${1:-}" = --update ] && update=1
n=0
fail=0

check() {	# name dir-with-outputs
	n=$((n + 1))
	if [ $update = 1 ]; then
		rm -rf "$golden/$1" && mkdir -p "$golden/$1" && cp "$2"/*.tsv "$golden/$1/"
		echo "ok $n - $1: golden rewritten"
		return
	fi
	if diff -r -u "$golden/$1" "$2" >"$tmp/diff" 2>&1; then
		echo "ok $n - $1 matches its golden output"
	else
		echo "not ok $n - $1 differs from its golden output"
		sed 's/^/# /' "$tmp/diff" | head -40
		fail=1
	fi
}

for f in "$samples"/*.txt; do
	name=$(basename "$f" .txt)
	out="$tmp/$name"
	if ! "$bin" c2c parse -q "$f" --out "$out" >/dev/null 2>"$tmp/err"; then
		n=$((n + 1))
		echo "not ok $n - $name: c2c parse failed: $(head -1 "$tmp/err")"
		fail=1
		continue
	fi
	check "$name" "$out"
done

# The 2021 memcg rstat regression (sample 10): the hot line is the struct
# mem_cgroup itself (its css at offset 0), on a kernel of the 5.10-5.14
# layout.  Offsets 0x0 and 0x10 must come out as css.cgroup and
# css.refcnt.percpu_count_ptr (the thread's percpu-refcount.h source lines).
btf=build/btf/vmlinux-5.10.262.btf
out="$tmp/report-10"
if "$bin" c2c report -q "$samples/10-lkml-fengtang-memcg-rstat-cascadelake.txt" --btf "$btf" \
	--struct mem_cgroup --base 0xffff8881c0642000 --out "$out" >"$tmp/report.txt" 2>"$tmp/err"; then
	rm -f "$out/offsets.tsv" "$out/stats.tsv" "$out/cachelines.tsv" "$out/warnings.tsv"
	check report-10-mem_cgroup "$out"
else
	n=$((n + 1))
	echo "not ok $n - c2c report of sample 10 failed: $(head -1 "$tmp/err")"
	fail=1
fi

# Sample 06 without any object address: attribution by code symbol only.
out="$tmp/report-06"
if "$bin" c2c report -q "$samples/06-joemario-example-report-2016-intel.txt" --out "$out" \
	>"$tmp/report06.txt" 2>"$tmp/err"; then
	rm -f "$out/offsets.tsv" "$out/stats.tsv" "$out/cachelines.tsv" "$out/warnings.tsv"
	check report-06-symbols "$out"
	n=$((n + 1))
	if grep -q "fields cannot be named" "$tmp/report06.txt"; then
		echo "ok $n - without an object address the report says plainly that fields cannot be named"
	else
		echo "not ok $n - the no-address statement is missing"
		fail=1
	fi
else
	n=$((n + 1))
	echo "not ok $n - c2c report of sample 06 failed: $(head -1 "$tmp/err")"
	fail=1
fi
echo "1..$n"
exit $fail
