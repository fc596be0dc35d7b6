#!/bin/busybox sh
# shellcheck shell=dash
# /init of the lab's guest (lab/scripts/vm.sh puts it in the initramfs).
#
# Mounts what a lab host has (proc, sysfs, devtmpfs, cgroup2 with the memory
# controller enabled at the root, tracefs, debugfs, bpffs, /dev/shm, and
# /var/tmp on a disk filesystem), runs the
# one command written in /lab/vm/cmd from /lab, and sends back everything
# under /out as a base64 tar.gz on the second serial port, framed by markers
# that carry its checksum.  The exit status travels twice: as a marker line
# on the console and through qemu's isa-debug-exit port (value v makes qemu
# exit with 2v+1), so the host can check one against the other.
#
# PID 1 must never exit (the kernel would panic): every path ends in
# poweroff -f.

/bin/busybox mkdir -p /proc /sys /dev /tmp /out/results
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
/bin/busybox --install -s /bin 2>/dev/null
export PATH=/lab/bin:/bin:/usr/bin:/sbin:/usr/sbin
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null
ulimit -l unlimited 2>/dev/null
[ -f /boot/config ] && ln -s config "/boot/config-$(uname -r)"

# /var/tmp on a disk filesystem, as a host has it (statread's file
# allocators need one: clean page cache that reclaim drops without swap):
# ext2 on a RAM disk, /dev/ram0 of brd -- built into the lab kernel, for a
# Debian kernel its modules and what they need (ext4 serves ext2), which
# vm.sh put in /lab/vm/kmods with their load order.  Its size (KiB, from
# the guest's memory) is in /lab/vm/ramdisk-kib; brd takes pages only as
# they are written, and one inode per 256 KiB keeps mke2fs's tables small.
# One line on what /var/tmp is goes into guest.txt.
var_tmp_disk() {
	kib=$(cat /lab/vm/ramdisk-kib 2>/dev/null)
	if [ -f /lab/vm/kmods/order ]; then
		while read -r m || [ -n "$m" ]; do
			if [ "$m" = brd ]; then
				insmod /lab/vm/kmods/brd.ko rd_nr=1 ${kib:+"rd_size=$kib"}
			else
				insmod "/lab/vm/kmods/$m.ko"
			fi 2>/tmp/insmod.err || { echo "insmod $m: $(tail -n1 /tmp/insmod.err)"; return 1; }
		done < /lab/vm/kmods/order
	fi
	[ -b /dev/ram0 ] || { echo "no /dev/ram0: this kernel has no RAM disk (brd) built in, and vm brought no modules for it"; return 1; }
	mke2fs -q -m 0 -i 262144 /dev/ram0 >/tmp/mke2fs.err 2>&1 || { echo "mke2fs /dev/ram0: $(tail -n1 /tmp/mke2fs.err)"; return 1; }
	mount -t ext2 /dev/ram0 /var/tmp 2>/tmp/mount.err || { echo "mount /dev/ram0: $(tail -n1 /tmp/mount.err)"; return 1; }
	chmod 1777 /var/tmp
	echo "ext2 on /dev/ram0, $(( $(blockdev --getsize64 /dev/ram0) >> 20 )) MiB"
}
mkdir -p /var/tmp
var_tmp=$(var_tmp_disk) || var_tmp="none: $var_tmp"

# Serial ports: no echo, no CR/LF translation on the payload port.
stty -F /dev/ttyS1 raw -echo 2>/dev/null

console_marker() { echo "@@MEMCG-LAB-$*@@" > /dev/console; }

# Which cgroup version has the memory controller (a v1 hierarchy mounted
# with it, else cgroup2's root listing it): the host names union members
# by it (mem_cgroup's memsw on v1, swap on v2; lab/c2c/field_at.c).
memory_cgroup() {
	if grep -Eq '^[^ ]+ [^ ]+ cgroup ([^ ]*,)?memory(,| )' /proc/mounts; then
		echo v1
	elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		echo v2
	else
		echo none
	fi
}

# Under vm --lines: what the host needs to name the plugin's counts (code
# addresses, fields, the build ID perf looks the symbols up by).
lines_files() {
	d=${MEMCG_LAB_LINES_DIR:-}
	[ -n "$d" ] || return 0
	mkdir -p "$d"
	# vm --insns: instructions only; nothing to name.
	[ "${MEMCG_LAB_LINES_COLLECT:-}" != insns ] || return 0
	# The code's symbols (t, T, w, W: what perf names code by, and _text);
	# the data symbols are two fifths of the file and nobody reads them
	# on the host.  The payload crawls through a serial port.
	# (the lab wrote them, delta-encoded, before its first window where
	# it ran one: c2c/lines_session.c, c2c/lines_ksyms.h)
	[ -s "$d/kallsyms.delta" ] || grep ' [tTwW] ' /proc/kallsyms > "$d/kallsyms" 2>/dev/null
	# vm.sh took the BTF from the vmlinux it booted where it could.
	[ "${MEMCG_LAB_LINES_BTF:-}" = host ] ||
		{ [ -r /sys/kernel/btf/vmlinux ] && cat /sys/kernel/btf/vmlinux > "$d/vmlinux.btf" 2>/dev/null; }
	[ -r /sys/kernel/notes ] && cat /sys/kernel/notes > "$d/notes" 2>/dev/null
	return 0
}

finish() {
	rc=$1
	lines_files
	dmesg > /out/dmesg.txt 2>/dev/null
	tar -C /out -czf /tmp/payload.tgz . 2>/dev/null
	sum=$(sha256sum /tmp/payload.tgz | cut -d' ' -f1)
	{
		echo "@@MEMCG-LAB-PAYLOAD-BEGIN@@"
		base64 /tmp/payload.tgz
		echo "@@MEMCG-LAB-PAYLOAD-END $sum@@"
	} > /dev/ttyS1
	console_marker "EXIT=$rc"
	# isa-debug-exit at 0xf4: qemu exits with 2v+1 (v = rc, at most 127).
	v=$((rc > 127 ? 127 : rc))
	# shellcheck disable=SC2059 # the format is the one octal escape of the byte
	printf "$(printf '\\%03o' "$v")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	poweroff -f
	while :; do sleep 1; done
}

# shellcheck source=/dev/null # written by vm.sh into the initramfs
. /lab/vm/env
cd /lab || exit 1
{
	echo "kernel: $(uname -r)"
	echo "cmdline: $(cat /proc/cmdline)"
	echo "cpus: $(grep -c ^processor /proc/cpuinfo)"
	echo "var_tmp: $var_tmp"
	echo "memory_cgroup: $(memory_cgroup)"
	echo "uptime_at_start: $(cut -d' ' -f1 /proc/uptime)"
} > /out/guest.txt
console_marker "BEGIN $(uname -r)"
# The command's output goes to /out/output.txt and, live, to the console.
set -o pipefail
sh /lab/vm/cmd 2>&1 | tee /out/output.txt > /dev/console
rc=$?
echo "uptime_at_end: $(cut -d' ' -f1 /proc/uptime)" >> /out/guest.txt
echo "$rc" > /out/exit-status
finish "$rc"
