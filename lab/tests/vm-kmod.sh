#!/bin/sh
# TAP: the seed's kmem benchmark module (lab/kmod/kmem_bench.c) built
# against one Debian headers package and loaded in that kernel's guest.
# `vm --fetch --kmod --kernel 6.1` fetches bookworm's
# linux-headers-<release>, its -common and linux-kbuild-6.1 at the image's
# version into the kernel's cache directory and builds the module there
# (lab/scripts/kmod.sh); a guest of that kernel loads it with a loop count
# (insmod loops=1000000, the seed's loop at load) and the module reports
# that count, on each cache, in its log line and in its /proc counters;
# then `charge --mode kmem` finds the module where vm put it and drives its
# loop from a worker in a memcg, a batch per write(), and the module
# counts those loops (whole batches).  Refused, in one line with exit 2
# and nothing cached or made: a kernel whose headers package is not in the
# archive (the image of an older ABI: Debian drops its headers too), and a
# kernel given by path (no package to take headers from).
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"
k=${VM_KMOD_KERNEL:-6.1}
if ! $lab vm --fetch --kmod --kernel "$k" >"$tmp/fetch" 2>"$tmp/fetch.err"; then
	skip_all "cannot get kernel $k or build the module for it: $(tail -n1 "$tmp/fetch.err")"
fi
kd=$(sed -n 1p "$tmp/fetch")
ko=$(sed -n 2p "$tmp/fetch")
read -r pkg ver suite < "$kd/package"
rel=${pkg#linux-image-}
line=$(echo "$ver" | cut -d. -f1-2)

# The build: against that very package, cached with the kernel.
[ -f "$ko" ] && [ "$(cat "$(dirname "$ko")/release")" = "$rel" ] &&
	grep -qx "linux-headers-$rel, linux-headers-${rel%-amd64}-common, linux-kbuild-$line $ver ($suite)" "$(dirname "$ko")/built.txt"
check $? "kmem_bench.ko built for $rel against linux-headers-$rel, its -common and linux-kbuild-$line $ver ($(head -n1 "$(dirname "$ko")/built.txt" 2>/dev/null))"
[ -f "$kd/headers.1/tree" ] && [ -f "$(cat "$kd/headers.1/tree")/Module.symvers" ] && ! ls -d "$kd"/*.tmp.* >/dev/null 2>&1
check $? "the headers are cached with the kernel (headers.1), no half-made entry beside them"
$lab vm --fetch --kmod --kernel "$k" >"$tmp/fetch2" 2>"$tmp/fetch2.err"
[ $? = 0 ] && [ "$(sed -n 2p "$tmp/fetch2")" = "$ko" ] && ! grep -q fetching "$tmp/fetch2.err"
check $? "a second --kmod takes both from the cache (no download)"

# In the guest: the seed's loop at load, counted; then the charge driver's.
res=$tmp/guest
MEMCG_LAB_RESULTS=$res $lab vm --kernel "$k" --kmod --timeout 600 --shell '
	set -e
	mkdir /sys/fs/cgroup/kmod && echo $$ > /sys/fs/cgroup/kmod/cgroup.procs
	insmod /lab/build/kmod/$(uname -r)/kmem_bench.ko loops=1000000
	dmesg | grep "kmem_bench: [a-z]*accounted:"
	echo "proc accounted $(cat /proc/kmem_bench/accounted)"
	echo "proc unaccounted $(cat /proc/kmem_bench/unaccounted)"
	echo $$ > /sys/fs/cgroup/cgroup.procs
	rmdir /sys/fs/cgroup/kmod
	rmmod kmem_bench
	memcg-lab charge --mode kmem --duration 2 --warmup 1 --batch 1000
	test ! -e /proc/kmem_bench && echo "unloaded after the run"' >"$tmp/o" 2>&1
rc=$?
d=$(one_dir "$res")
check $rc "vm --kernel $k --kmod: the guest loaded the module and ran the driver on it ($(jget "$d/meta.json" vm.qemu_seconds) s in qemu)"
[ $rc = 0 ] || diag "$(tail -n 15 "$tmp/o")"
[ "$(jget "$d/meta.json" vm.kmod)" = "$(head -n1 "$(dirname "$ko")/built.txt")" ]
check $? "meta.json says what the guest's module was built against ($(jget "$d/meta.json" vm.kmod))"
for c in accounted unaccounted; do
	grep -q "kmem_bench: $c: 1000000 loops of 64 bytes in [1-9][0-9]* ns" "$tmp/o" &&
		grep -q "^proc $c 1000000 [1-9][0-9]* 64$" "$tmp/o"
	check $? "insmod loops=1000000: the $c cache's loop ran 1000000 times, as its log line and /proc counter say ($(grep -m1 "kmem_bench: $c:" "$tmp/o" | sed 's/.*kmem_bench: //'))"
done
# The driver: the module where vm put it, its loop driven by write()s of
# 1000 from a worker in a memcg; the module counts whole batches.
pairs=$(sed -n 's/^  in the kernel: \([0-9]*\) alloc+free pairs in .*/\1/p' "$tmp/o")
grep -q "^  module: /lab/build/kmod/$rel/kmem_bench.ko (built against linux-headers-$rel" "$tmp/o" &&
	grep -q "64-byte objects from its SLAB_ACCOUNT ('kmem_bench_accounted') cache, 1000 per write()" "$tmp/o" &&
	grep -q "^charge kmem: 1 process in 1 cgroup (cgroup v2)" "$tmp/o" &&
	[ -n "$pairs" ] && [ "$pairs" -gt 0 ] && [ $((pairs % 1000)) = 0 ]
check $? "charge --mode kmem ran the module's loop in a memcg; the module counted $pairs pairs, whole batches of 1000"
grep -q "unloaded after the run" "$tmp/o"
check $? "the driver unloaded the module it loaded"
! grep -q "stand-in" "$tmp/o"
check $? "with the module there, nothing ran the stand-in"

# Refused: a headers package the archive does not have (a kernel whose
# ABI Debian has dropped), one line, exit 2, nothing cached.
fk=$tmp/cache/kernels/linux-image-$line.0-999-amd64_$line.999-1
mkdir -p "$fk"
# (the apt configuration vm used for that suite, where it has one)
ln -s "$(dirname "$(dirname "$kd")")/apt" "$tmp/cache/apt"
: > "$fk/vmlinux"
echo "linux-image-$line.0-999-amd64 $line.999-1 $suite" > "$fk/package"
lab/scripts/kmod.sh --kernel-dir "$fk" >"$tmp/o2" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$tmp/o2")" = 1 ] &&
	grep -q "^kmod: linux-headers-$line.0-999-amd64 $line.999-1 is missing from " "$tmp/o2" &&
	[ "$(ls "$fk")" = "$(printf 'package\nvmlinux')" ]
check $? "a headers package missing from the archive: exit 2, one line naming it, nothing cached"
diag "$(cat "$tmp/o2")"
# A tree the module does not build against (a compiler error): one line
# with the compiler's, exit 2, and no module entry, not even a partial one.
bk=$tmp/cache/kernels/${pkg}_$ver-broken
mkdir -p "$bk/headers.1/root"
: > "$bk/vmlinux"
cp "$kd/package" "$bk/"
printf 'modules:\n\t@echo "kmem_bench.c:1:1: error: a tree broken on purpose" >&2; false\n' > "$bk/headers.1/root/Makefile"
echo "$bk/headers.1/root" > "$bk/headers.1/tree"
echo "a broken tree" > "$bk/headers.1/what"
lab/scripts/kmod.sh --kernel-dir "$bk" >"$tmp/o4" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$tmp/o4")" = 1 ] &&
	grep -q "^kmod: kmem_bench does not build against a broken tree: kmem_bench.c:1:1: error: a tree broken on purpose" "$tmp/o4" &&
	[ "$(ls "$bk")" = "$(printf 'headers.1\npackage\nvmlinux')" ]
check $? "a tree the module does not build against: exit 2, the compiler's line, no module entry left"
diag "$(cat "$tmp/o4")"
# A kernel by path has no package: vm --kmod refuses before a results
# directory exists.
MEMCG_LAB_RESULTS=$tmp/bypath $lab vm --kmod --kernel "$kd/vmlinux" --shell true >"$tmp/o3" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(grep -cv 'memcg-lab-vm: ' "$tmp/o3")" = 1 ] && grep -q "was given by path: no headers package is known for it" "$tmp/o3" &&
	[ ! -e "$tmp/bypath" ]
check $? "vm --kmod with a kernel given by path: exit 2, one line, no results directory"
diag "$(tail -n1 "$tmp/o3")"

# The verdicts a guest's run prints as it ends know the guest's clock: the
# seed's timing claim is "not measurable here" under TCG, in the guest's own
# table (vm.sh tells the run its accelerator: MEMCG_LAB_VM_ACCEL), not
# only in the report the host rewrites.
MEMCG_LAB_RESULTS=$tmp/exp $lab vm --kernel "$k" --kmod --timeout 600 -- run experiments/kmem-overhead.exp \
	-s experiment.repeats=1 -s "small accounted.duration=2" -s "small unaccounted.duration=2" >"$tmp/o4" 2>&1
rc=$?
grep -A4 "^verdicts: " "$tmp/o4" | grep -Eq "^ *series +not measurable here" &&
	grep -q "TCG timing" "$(one_dir "$tmp/exp")"/results/*/report.txt
check $? "the guest's own verdicts: the timing claim is not measurable under TCG (exit $rc)"
[ $? = 0 ] || diag "$(grep -A12 '^Verdicts' "$tmp/o4" | head -14)"
done_testing
