#!/bin/sh
# Builds the lab kernel: Debian's linux-source-6.1, tinyconfig plus
# lab/kernel-patches/lab-kernel.config, with every lab/kernel-patches/*.patch
# applied (the user-flush mutex of memcg-history section 3).
#
#   lab-kernel.sh [--print | --check]
#
# --print only prints the cached vmlinux's path (exit 1 if there is none).
# --check compiles only the C files the patches touch (after configuring),
# the quick test of a patch; nothing is cached.  LAB_KERNEL_PATCHES=DIR
# takes the patches (and lab-kernel.config, if DIR has one) from DIR instead
# of lab/kernel-patches, to try a patch of one's own.
#
# The result is cached outside the repository, under $MEMCG_LAB_CACHE
# (default /var/cache/memcg-lab), keyed by the source version, the patches
# and the config fragment:
#   lab-kernel/<key>/vmlinux        ELF with symbols, BTF and the PVH entry point
#   lab-kernel/<key>/vmlinux.debug  the same with its DWARF
#   lab-kernel/<key>/config         the final .config
#   lab-kernel/<key>/build.log      the whole build output
#   lab-kernel/<key>/build-seconds  how long the build took
# An entry exists only once a build succeeded (it is renamed into place), so
# a failed or interrupted build never leaves a half-built kernel behind; the
# object directory next to it just lets the next try continue.
#
# The compile runs under nice -n 19 on all CPUs: it takes long on a small
# shared machine, and it must not starve the tests of the other users.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
patchdir=${LAB_KERNEL_PATCHES:-$root/lab/kernel-patches}
fragment=$patchdir/lab-kernel.config
[ -f "$fragment" ] || fragment=$root/lab/kernel-patches/lab-kernel.config
ls "$patchdir"/*.patch >/dev/null 2>&1 || { echo "lab-kernel: no *.patch in $patchdir" >&2; exit 2; }
mode=build
case ${1:-} in
--print) mode=print ;;
--check) mode=check ;;
"") ;;
*) echo "lab-kernel: unknown option '$1' (--print, --check)" >&2; exit 2 ;;
esac
cache=${MEMCG_LAB_CACHE:-/var/cache/memcg-lab}
pkg=linux-source-6.1

die() { echo "lab-kernel: $*" >&2; exit 2; }

command -v apt-get >/dev/null || die "apt-get not found: the lab kernel's source comes from Debian's $pkg"
ver=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
	die "package $pkg is unknown to apt (no candidate in apt-cache policy; run apt-get update?)"

key=$( { echo "$pkg $ver"; cat "$fragment" "$patchdir"/*.patch; } | sha256sum | cut -c1-12)
kdir=$cache/lab-kernel
out=$kdir/6.1-$key

if [ $mode = print ]; then
	[ -f "$out/vmlinux" ] || exit 1
	echo "$out/vmlinux"
	exit 0
fi
if [ $mode = build ] && [ -f "$out/vmlinux" ]; then
	echo "lab-kernel: cached: $out/vmlinux (built in $(cat "$out/build-seconds") s)"
	exit 0
fi
for t in gcc make bison flex bc pahole; do
	command -v $t >/dev/null || die "$t not found (as root: make deps)"
done
mkdir -p "$kdir/debs" || die "cannot create $kdir"

# 1. The source package, fetched by name and version (apt's sandbox user
# must be able to write the download directory).
deb=$(ls "$kdir"/debs/${pkg}_"$(echo "$ver" | sed 's/:/%3a/')"_all.deb 2>/dev/null || true)
if [ -z "$deb" ]; then
	chown _apt "$kdir/debs" 2>/dev/null || true
	(cd "$kdir/debs" && apt-get download "$pkg=$ver" >/dev/null 2>"$kdir/debs/apt.err") ||
		die "apt-get download $pkg=$ver failed: $(tail -n1 "$kdir/debs/apt.err")"
	deb=$(ls "$kdir"/debs/${pkg}_*_all.deb | tail -n1)
fi

# 2. Pristine source with the lab's patches applied, made in a temporary
# directory and renamed into place only when complete.
srckey=$( { echo "$ver"; cat "$patchdir"/*.patch; } | sha256sum | cut -c1-12)
src=$kdir/src-$srckey
if [ ! -d "$src" ]; then
	rm -rf "$src.tmp" && mkdir -p "$src.tmp"
	echo "lab-kernel: unpacking $pkg $ver"
	if ! dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/linux-source-6.1.tar.xz |
		xz -dc | tar -x -C "$src.tmp" --strip-components=1; then
		rm -rf "$src.tmp"
		die "cannot unpack $deb"
	fi
	for p in "$patchdir"/*.patch; do
		if ! patch -s -p1 -d "$src.tmp" < "$p" >"$kdir/patch.log" 2>&1; then
			rm -rf "$src.tmp"
			die "patch $(basename "$p") does not apply to $pkg $ver: $(head -n3 "$kdir/patch.log" | tr '\n' ' ')"
		fi
		echo "lab-kernel: applied $(basename "$p")"
	done
	mv "$src.tmp" "$src"
fi

# 3. Configure: tinyconfig + the fragment, then check that every option of
# the fragment survived (a dependency Kconfig refused would be silent).
# One object directory per patched source: a changed config fragment
# rebuilds only what it touches.  A lock keeps two builds out of it.
obj=$kdir/obj-$srckey
mkdir -p "$obj"
exec 9>"$obj.lock"
flock -n 9 || die "another lab-kernel build is running in $obj"
make -s -C "$src" O="$obj" tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment" >"$obj/merge.log" 2>&1 ||
	die "merge_config failed: $(tail -n2 "$obj/merge.log")"
make -s -C "$src" O="$obj" olddefconfig >>"$obj/merge.log" 2>&1
missing=""
for line in $(grep -E '^CONFIG_[A-Z0-9_]+=' "$fragment" | sed 's/=n$/=N/'); do
	opt=${line%%=*}
	val=${line#*=}
	if [ "$val" = N ]; then
		grep -q "^$opt=" "$obj/.config" && missing="$missing $line"
	else
		grep -qx "$line" "$obj/.config" || missing="$missing $line"
	fi
done
[ -z "$missing" ] || die "these config options did not stick (a dependency is missing):$missing"

# 4. Build vmlinux only (booted directly through PVH: no bzImage needed),
# or for --check only the objects of the C files the patches touch.
targets=vmlinux
if [ $mode = check ]; then
	targets=$(sed -n 's|^+++ b/\(.*\)\.c$|\1.o|p; s|^+++ b/\(.*\)\.c[[:space:]].*|\1.o|p' "$patchdir"/*.patch | sort -u | tr '\n' ' ')
	[ -n "$targets" ] || die "--check: the patches touch no C file"
fi
echo "lab-kernel: building $targets in $obj with $(nproc) jobs at nice 19; log: $obj/build.log"
start=$(date +%s)
if ! nice -n 19 make -C "$src" O="$obj" -j"$(nproc)" $targets >"$obj/build.log" 2>&1; then
	echo "lab-kernel: build failed after $(( $(date +%s) - start )) s; the compiler said:" >&2
	grep -E -A3 'error:|Error [0-9]' "$obj/build.log" | head -n 30 >&2 ||
		tail -n 30 "$obj/build.log" >&2
	echo "lab-kernel: full log: $obj/build.log (no kernel was cached)" >&2
	exit 2
fi
secs=$(( $(date +%s) - start ))
if [ $mode = check ]; then
	echo "lab-kernel: $targets compiled cleanly with the patches in $secs s"
	exit 0
fi
grep -q 'mem_cgroup_user_flush_stats' "$obj/System.map" ||
	die "the built vmlinux lacks mem_cgroup_user_flush_stats: was the patch applied?"

rm -rf "$out.tmp" && mkdir -p "$out.tmp"
# The booted vmlinux keeps its symbols and .BTF but not the DWARF (a fifth
# of the size: qemu loads it faster); the full one stays for DWARF tools.
objcopy --strip-debug "$obj/vmlinux" "$out.tmp/vmlinux"
cp "$obj/vmlinux" "$out.tmp/vmlinux.debug"
cp "$obj/.config" "$obj/build.log" "$obj/System.map" "$out.tmp/"
mv "$out.tmp/.config" "$out.tmp/config"
echo "$secs" > "$out.tmp/build-seconds"
echo "$pkg $ver" > "$out.tmp/source"
mv "$out.tmp" "$out"
echo "lab-kernel: built $out/vmlinux in $secs s"
