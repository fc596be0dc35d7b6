#!/bin/busybox sh
# /init of the lab's guest (lab/scripts/vm.sh puts it in the initramfs).
#
# Mounts what a lab host has (proc, sysfs, devtmpfs, cgroup2 with the memory
# controller enabled at the root, tracefs, debugfs, bpffs, /dev/shm), runs the
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

# Serial ports: no echo, no CR/LF translation on the payload port.
stty -F /dev/ttyS1 raw -echo 2>/dev/null

console_marker() { echo "@@MEMCG-LAB-$*@@" > /dev/console; }

finish() {
	rc=$1
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
	printf "$(printf '\\%03o' "$v")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	poweroff -f
	while :; do sleep 1; done
}

. /lab/vm/env
cd /lab
{
	echo "kernel: $(uname -r)"
	echo "cmdline: $(cat /proc/cmdline)"
	echo "cpus: $(grep -c ^processor /proc/cpuinfo)"
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
