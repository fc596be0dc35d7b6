#!/bin/sh
# TAP: a shipped experiment runs unchanged in a guest, as a user types it:
# `vm --kernel 7.3 -- run experiments/statread-flush.exp` (its [small]
# values on the default 2-vCPU guest; one repeat and less work per
# allocator here, to keep the test short).  Its allocators read sparse
# files on a disk filesystem, and the guest's /var/tmp is one by default:
# ext2 on a RAM disk (/dev/ram0 of brd, half the guest's memory), with
# Debian's brd and ext4 modules and what they need (lab/scripts/kmods.sh,
# cached with the kernel).  A kernel vm has no modules for (a vmlinux
# path) boots with /var/tmp on the initramfs, and vm and the experiment
# each say so in one line.
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"
k=${VM_EXP_KERNEL:-7.3}
if ! kd=$($lab vm --fetch --kernel "$k" 2>"$tmp/fetch.err"); then
	skip_all "cannot get kernel $k: $(tail -n1 "$tmp/fetch.err")"
fi

res=$tmp/exp
MEMCG_LAB_RESULTS=$res $lab vm --kernel "$k" --timeout 600 -- \
	run experiments/statread-flush.exp -s experiment.repeats=1 -s driver.work=256M >"$tmp/o" 2>&1
rc=$?
d=$(one_dir "$res")
check $rc "vm --kernel $k -- run experiments/statread-flush.exp exits 0 ($(jget "$d/meta.json" vm.qemu_seconds) s in qemu)"
[ $rc = 0 ] || diag "$(tail -n 12 "$tmp/o")"
vt=$(jget "$d/meta.json" vm.guest_var_tmp)
[ "$vt" = "ext2 on /dev/ram0, 512 MiB" ]
check $? "the guest's /var/tmp is ext2 on a RAM disk of half its 1024 MiB ($vt)"
[ -f "$kd/disk-modules.2/order" ] && grep -qx brd "$kd/disk-modules.2/order" && grep -qx ext4 "$kd/disk-modules.2/order"
check $? "the RAM disk's modules are cached with the kernel ($(tr '\n' ' ' < "$kd/disk-modules.2/order" 2>/dev/null))"
r=$(ls -d "$d"/results/*-statread-flush 2>/dev/null | head -n1)
[ -n "$r" ] && [ "$(jget "$r/meta.json" status)" = complete ] && [ -n "$(jget "$r/meta.json" scaled)" ]
check $? "its results came back complete, with the [small] values of a 2-CPU guest (scaled: $(jget "$r/meta.json" scaled))"
[ -n "$r" ] && grep -q 'allocator files: /var/tmp (ext4, sparse temporary files)' "$r/log"
check $? "its allocators read sparse files in /var/tmp ($([ -z "$r" ] || grep -m1 -o 'allocator files: .*' "$r/log"))"
work=$(awk -F'\t' '$3 == "statread.alloc.real" { print $4 }' "$r/data/metrics.tsv" 2>/dev/null)
flushed=$(awk -F'\t' '$3 == "flush.flushed" { print $4 }' "$r/data/metrics.tsv" 2>/dev/null)
[ -n "$work" ] && awk -v f="${flushed:-0}" 'BEGIN { exit !(f > 0) }'
check $? "the allocators did their work under reclaim (statread.alloc.real ${work:-none} s, ${flushed:-no} flushes)"

# No modules to be had: a vmlinux given by path (vm.sh knows no package for it).
MEMCG_LAB_RESULTS=$tmp/nomod $lab vm --kernel "$kd/vmlinux" --timeout 300 -- \
	run --plan experiments/statread-flush.exp >"$tmp/o2" 2>&1
rc=$?
d=$(one_dir "$tmp/nomod")
[ $rc = 2 ] && grep -q "^memcg-lab: the guest's /var/tmp was not on a disk (no /dev/ram0: this kernel has no RAM disk (brd) built in, and vm brought no modules for it)" "$tmp/o2" &&
	grep -q "needs a directory on a disk filesystem: /var/tmp is on tmpfs" "$tmp/o2" &&
	case $(jget "$d/meta.json" vm.guest_var_tmp) in none:*) true ;; *) false ;; esac
check $? "a kernel without the RAM disk's modules: vm says /var/tmp is not on a disk, the plan refuses (exit 2)"
diag "$(grep -e 'not on a disk' -e 'disk filesystem' "$tmp/o2")"
done_testing
