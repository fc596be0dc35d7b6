#!/bin/sh
# Builds the lab kernel: Debian's linux-source-7.3 (or, LAB_KERNEL=6.1,
# linux-source-6.1), tinyconfig plus lab/kernel-patches/lab-kernel.config
# plus the flavour's own lab/kernel-patches/<flavour>/lab-kernel.config,
# with every lab/kernel-patches/<flavour>/*.patch applied (the user-flush
# mutex of memcg-history section 3).
#
#   lab-kernel.sh [--print | --check | --apply]
#
# LAB_KERNEL=7.3 (default) or 6.1 picks the flavour.  7.3 is trixie-
# backports' build (reached with a private apt configuration): the newest
# Debian ships, with the multi-memcg stock (7 slots, 6.16), the per-
# subsystem rstat lock (6.16) and the lockless update lists (6.17); 6.1 is
# bookworm's, the old scheme (one-slot stock, one global rstat lock).
#
# --print only prints the cached vmlinux's path (exit 1 if there is none).
# --check compiles only the C files the patches touch that the config
# builds (after configuring), the quick test of a patch; nothing is cached.
# --apply only unpacks the source and puts the patch set on it (the tree
# in $MEMCG_LAB_CACHE/lab-kernel/<flavour>/src, printed), for a check of
# further patches against it (memcg-lab ab); nothing is built.
# LAB_KERNEL_PATCHES=DIR takes the patches (and the flavour's
# lab-kernel.config, if DIR has one) from DIR instead, to try a patch of
# one's own; LAB_KERNEL_PATCHES=none builds the same source and config
# with no patch at all, the "without" side of an A/B:
#   LAB_KERNEL_PATCHES=none memcg-lab vm --kernel lab ...
# LAB_KERNEL_PATCHES=lab/kernel-patches/7.3-batch32 is the lab kernel with
# MEMCG_CHARGE_BATCH 32 as well, the other side of the batch's A/B
# (experiments/lines-charge.exp): a rebuild of mm/memcontrol.o.
#
# The result is cached outside the repository, under $MEMCG_LAB_CACHE
# (default /var/cache/memcg-lab), keyed by the source version, the patches
# and the config fragments:
#   lab-kernel/<flavour>[-unpatched]-<key>/
#     vmlinux        ELF with symbols, BTF and the PVH entry point
#     vmlinux.debug  the same with its DWARF
#     config         the final .config
#     build.log      the whole build output
#     build-seconds  how long the build took
#     source         the package and version, and the patches applied
# An entry exists only once a build succeeded (it is renamed into place), so
# a failed or interrupted build never leaves a half-built kernel behind.
# One source tree and one object directory per flavour
# (lab-kernel/<flavour>/src, obj) serve all its patch sets: switching
# between patched and unpatched re-applies or reverses the patches there
# and rebuilds only what they touch (minutes, not the full build).
#
# The compile runs under nice -n 19 on all CPUs: it takes long on a small
# shared machine, and it must not starve the tests of the other users.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
die() { echo "lab-kernel: $*" >&2; exit 2; }
note() { echo "lab-kernel: $*"; }

flavour=${LAB_KERNEL:-7.3}
case $flavour in
7.3) pkg=linux-source-7.3 suite=trixie-backports ;;
6.1) pkg=linux-source-6.1 suite="" ;;
*) die "LAB_KERNEL=$flavour: unknown flavour (7.3, 6.1)" ;;
esac
patchdir=${LAB_KERNEL_PATCHES:-$root/lab/kernel-patches/$flavour}
if [ "$patchdir" = none ]; then
	patchdir="" variant=$flavour-unpatched
else
	variant=$flavour
fi
# The patches, one path a line, in order (a glob sorts them).
patches() {
	[ -z "$patchdir" ] && return 0
	for p in "$patchdir"/*.patch; do [ -f "$p" ] && printf '%s\n' "$p"; done
}
[ -z "$patchdir" ] || [ -n "$(patches)" ] || die "no *.patch in $patchdir"
common=$root/lab/kernel-patches/lab-kernel.config
fragment=$root/lab/kernel-patches/$flavour/lab-kernel.config
[ -n "$patchdir" ] && [ -f "$patchdir/lab-kernel.config" ] && fragment=$patchdir/lab-kernel.config
for f in "$common" "$fragment"; do [ -f "$f" ] || die "config fragment $f missing"; done
mode=build
case ${1:-} in
--print) mode=print ;;
--check) mode=check ;;
--apply) mode=apply ;;
"") ;;
*) die "unknown option '$1' (--print, --check)" ;;
esac
[ $mode != check ] || [ -n "$patchdir" ] || die "--check with LAB_KERNEL_PATCHES=none: no patch to check"
cache=${MEMCG_LAB_CACHE:-/var/cache/memcg-lab}
kdir=$cache/lab-kernel

# apt: the host's own sources for bookworm; a private configuration (never
# /etc/apt) for another suite.
# shellcheck source=lab/scripts/apt-private.sh
. "$here/apt-private.sh"
aptenv=""
use_suite() {
	[ -n "$suite" ] || return 0
	d=$kdir/apt/$suite
	if [ ! -f "$d/apt.conf" ]; then
		rm -rf "$d.tmp"
		apt_private_write "$d.tmp" "$d" "$suite"
		mv -T "$d.tmp" "$d"
	fi
	aptenv="APT_CONFIG=$d/apt.conf"
	apt_private_update "$d" "Debian $suite" || die "no apt access to Debian $suite: $apt_msg"
}

command -v apt-get >/dev/null || die "apt-get not found: the lab kernel's source comes from Debian's $pkg"
mkdir -p "$kdir" 2>/dev/null || die "cannot create $kdir"
use_suite
ver=$(env ${aptenv:+"$aptenv"} apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	die "package $pkg is unknown to apt${suite:+ (Debian $suite)} (no candidate in apt-cache policy; run apt-get update?)"
fi

key=$( { echo "$pkg $ver"; cat "$common" "$fragment"
	if [ -z "$patchdir" ]; then echo unpatched; else patches | while read -r p; do cat "$p"; done; fi; } |
	sha256sum | cut -c1-12)
out=$kdir/$variant-$key

if [ "$mode" = print ]; then
	[ -f "$out/vmlinux" ] || exit 1
	echo "$out/vmlinux"
	exit 0
fi
if [ "$mode" = build ] && [ -f "$out/vmlinux" ]; then
	echo "lab-kernel: cached: $out/vmlinux (built in $(cat "$out/build-seconds") s)"
	exit 0
fi
for t in gcc make bison flex bc pahole patch; do
	command -v "$t" >/dev/null || die "$t not found (as root: make deps)"
done
mkdir -p "$kdir/debs" || die "cannot create $kdir/debs"

# 1. The source package, fetched by name and version (apt's sandbox user
# must be able to write the download directory).
deb=$kdir/debs/${pkg}_$(echo "$ver" | sed 's/:/%3a/')_all.deb
if [ ! -f "$deb" ]; then
	chown _apt "$kdir/debs" 2>/dev/null || true
	(cd "$kdir/debs" && env ${aptenv:+"$aptenv"} apt-get download "$pkg=$ver" >/dev/null 2>"$kdir/debs/apt.err") ||
		die "apt-get download $pkg=$ver failed: $(tail -n1 "$kdir/debs/apt.err")"
	for d in "$kdir/debs/${pkg}"_*_all.deb; do [ -f "$d" ] && deb=$d; done
fi

# One build per flavour at a time: the tree and the objects are shared.
work=$kdir/$flavour
mkdir -p "$work"
exec 9>"$work/lock"
flock -n 9 || die "another lab-kernel build of $flavour is running in $work"

# 2. The pristine source, unpacked once per version.
src=$work/src
if [ ! -f "$src/.lab-source" ] || [ "$(cat "$src/.lab-source")" != "$pkg $ver" ]; then
	rm -rf "$src" "$src.tmp" "$work/obj" && mkdir -p "$src.tmp"
	echo "lab-kernel: unpacking $pkg $ver"
	if ! dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" |
		xz -dc | tar -x -C "$src.tmp" --strip-components=1; then
		rm -rf "$src.tmp"
		die "cannot unpack $deb"
	fi
	mkdir "$src.tmp/.lab-applied"
	echo "$pkg $ver" > "$src.tmp/.lab-source"
	mv "$src.tmp" "$src"
fi

# 3. The wanted patches on it: those applied for an earlier build are
# reversed first (last first), unless they are the same.  Each patch is
# tried with --dry-run before it is applied, so one that does not apply
# names its file and hunk and leaves the tree as it was.
applied=$src/.lab-applied
# The patches applied now, one name a line, last first.
applied_reversed() {
	for a in "$applied"/*; do [ -f "$a" ] && basename "$a"; done | sort -r
}
same=yes
[ "$(applied_reversed | sort)" = "$(patches | while read -r p; do basename "$p"; done)" ] || same=""
if [ -n "$same" ]; then
	while read -r p; do [ -z "$p" ] || cmp -s "$p" "$applied/$(basename "$p")" || same=""; done <<EOF
$(patches)
EOF
fi
if [ -z "$same" ]; then
	for p in $(applied_reversed); do
		patch -s -R -p1 -d "$src" < "$applied/$p" >"$work/patch.log" 2>&1 ||
			die "cannot reverse $p in $src ($(head -n1 "$work/patch.log")): remove $src to unpack it again"
		rm "$applied/$p"
		echo "lab-kernel: reversed $p"
	done
	while read -r p; do
		[ -n "$p" ] || continue	# none (the here-document's one empty line)
		b=$(basename "$p")
		if ! patch --dry-run -p1 -d "$src" < "$p" >"$work/patch.log" 2>&1; then
			where=$(awk '/^(patching|checking) file /{ f = $3 }
				/^Hunk #[0-9]+ FAILED at / { n++; at = $5; sub(/[^0-9].*/, "", at)
					if (!w) w = f " hunk " $2 " (at line " at ") FAILED" }
				/malformed|can.t find file/ && !w { w = $0 }
				END { if (w) print w (n > 1 ? "; " n " hunks failed in all" : "") }' "$work/patch.log")
			for q in $(applied_reversed); do
				patch -s -R -p1 -d "$src" < "$applied/$q" >/dev/null 2>&1 && rm "$applied/$q"
			done
			die "patch $b does not apply to $pkg $ver: ${where:-$(head -n1 "$work/patch.log")}"
		fi
		patch -s -p1 -d "$src" < "$p" >"$work/patch.log" 2>&1 || die "patch $b: $(head -n1 "$work/patch.log")"
		cp "$p" "$applied/$b"
		echo "lab-kernel: applied $b"
	done <<EOF
$(patches)
EOF
fi

if [ "$mode" = apply ]; then
	echo "$src"
	exit 0
fi

# 4. Configure: tinyconfig + the fragments, then check that every option of
# them survived (a dependency Kconfig refused would be silent).  An
# unchanged result keeps the old .config and its time, so nothing rebuilds.
obj=$work/obj
mkdir -p "$obj"
# From here on every step runs in a session of its own (setsid), in the
# background: a stop of this script (SIGTERM, SIGINT, SIGHUP: memcg-lab ab
# passes its own on) stops the step under way whole, compilers included,
# and waits for it before exiting.  (A foreground make would run on after
# the shell had gone: seen with a SIGTERM during tinyconfig.)
mk=""
start=$(date +%s)
stop_build() {
	if [ -n "$mk" ]; then
		# (no "--": dash's kill takes none, and said so to /dev/null)
		kill -TERM "-$mk" 2>/dev/null
		wait "$mk" || true
	fi
	echo "lab-kernel: stopped by signal $1 after $(( $(date +%s) - start )) s; no kernel was cached" >&2
	exit $((128 + $1))
}
trap 'stop_build 2' INT
trap 'stop_build 15' TERM
trap 'stop_build 1' HUP
# step CMD...: CMD in its own session; its exit status.  (wait in a list:
# set -e would end the script when a signal cuts the wait short, before
# the trap that stops CMD ran.)
step() {
	setsid "$@" &
	mk=$!
	step_st=0
	wait "$mk" || step_st=$?
	return "$step_st"
}
cat "$common" "$fragment" > "$obj/lab-fragment.config"
[ ! -f "$obj/.config" ] || cp -p "$obj/.config" "$obj/config.before"
step make -s -C "$src" O="$obj" tinyconfig >/dev/null
step "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$obj/lab-fragment.config" >"$obj/merge.log" 2>&1 ||
	die "merge_config failed: $(tail -n2 "$obj/merge.log")"
step make -s -C "$src" O="$obj" olddefconfig >>"$obj/merge.log" 2>&1
if [ -f "$obj/config.before" ] && cmp -s "$obj/.config" "$obj/config.before"; then
	mv "$obj/config.before" "$obj/.config"
fi
rm -f "$obj/config.before"
missing=""
while read -r line; do
	opt=${line%%=*}
	val=${line#*=}
	if [ "$val" = N ]; then
		! grep -q "^$opt=" "$obj/.config" || missing="$missing $line"
	else
		grep -qx "$line" "$obj/.config" || missing="$missing $line"
	fi
done <<EOF
$(grep -E '^CONFIG_[A-Z0-9_]+=' "$obj/lab-fragment.config" | sed 's/=n$/=N/')
EOF
[ -z "$missing" ] || die "these config options did not stick (a dependency is missing):$missing"

# 5. Build vmlinux only (booted directly through PVH: no bzImage needed),
# or for --check only the objects of the C files the patches touch and the
# config builds (obj-y or obj-$(CONFIG_X) with X=y in their Makefile).
targets=vmlinux
if [ "$mode" = check ]; then
	targets=""
	# The C files the patches touch, one a line.
	touched=$(patches | while read -r p; do
		sed -n 's|^+++ b/\(.*\.c\)\([[:space:]].*\)\{0,1\}$|\1|p' "$p"; done | sort -u)
	while read -r c; do
		[ -n "$c" ] || continue
		o=$(basename "$c" .c).o
		cond=$(sed -n "s/^obj-\(\$(\(CONFIG_[A-Z0-9_]*\))\|y\)[[:space:]]*[+:]=.*[[:space:]]$o\([[:space:]].*\)\{0,1\}$/\2/p" \
			"$src/$(dirname "$c")/Makefile" | head -n1)
		if [ -z "$cond" ] || grep -qx "$cond=y" "$obj/.config"; then
			targets="${targets:+$targets }${c%.c}.o"
		else
			echo "lab-kernel: not compiled: $c ($cond is off in this config)"
		fi
	done <<EOF
$touched
EOF
	[ -n "$targets" ] || die "--check: the patches touch no C file this config builds"
fi
echo "lab-kernel: building$([ "$mode" = check ] || echo " $variant") $targets in $obj with $(nproc) jobs at nice 19; log: $obj/build.log"
start=$(date +%s)
# make in a session of its own, as the configuration steps (stop_build).
# shellcheck disable=SC2086
setsid nice -n 19 make -C "$src" O="$obj" -j"$(nproc)" $targets >"$obj/build.log" 2>&1 &
mk=$!
st=0
wait "$mk" || st=$?	# (set -e: a failed build is reported below, not an exit here)
trap - INT TERM HUP
if [ $st != 0 ]; then
	echo "lab-kernel: build failed after $(( $(date +%s) - start )) s; the compiler said:" >&2
	grep -E -A3 'error:|Error [0-9]' "$obj/build.log" | head -n 30 >&2 ||
		tail -n 30 "$obj/build.log" >&2
	echo "lab-kernel: full log: $obj/build.log (no kernel was cached)" >&2
	exit 2
fi
secs=$(( $(date +%s) - start ))
if [ "$mode" = check ]; then
	echo "lab-kernel: $targets compiled cleanly with the patches in $secs s"
	exit 0
fi
# The user-flush mutex is in the build exactly when a patch of the set
# adds it (the lab's own; an A/B's set may have it or not).
if [ -n "$patchdir" ] && patches | while read -r p; do cat "$p"; done | grep -q '^+.*mem_cgroup_user_flush_stats('; then
	grep -q ' mem_cgroup_user_flush_stats$' "$obj/System.map" ||
		die "the built vmlinux lacks mem_cgroup_user_flush_stats: was the patch applied?"
else
	! grep -q ' mem_cgroup_user_flush_stats$' "$obj/System.map" ||
		die "the build has mem_cgroup_user_flush_stats though no patch adds it: $src is not pristine (remove it)"
fi

# A stop from here on leaves no half-made entry (only a renamed one counts).
trap 'rm -rf "$out.tmp"; exit 130' INT
trap 'rm -rf "$out.tmp"; exit 143' TERM
trap 'rm -rf "$out.tmp"; exit 129' HUP
rm -rf "$out.tmp" && mkdir -p "$out.tmp"
# The booted vmlinux keeps its symbols and .BTF but not the DWARF (a fifth
# of the size: qemu loads it faster); the full one stays for DWARF tools.
objcopy --strip-debug "$obj/vmlinux" "$out.tmp/vmlinux"
cp "$obj/vmlinux" "$out.tmp/vmlinux.debug"
cp "$obj/.config" "$obj/build.log" "$obj/System.map" "$out.tmp/"
mv "$out.tmp/.config" "$out.tmp/config"
echo "$secs" > "$out.tmp/build-seconds"
if [ -n "$patchdir" ]; then
	echo "$pkg $ver, patches: $(applied_reversed | sort | tr '\n' ' ' | sed 's/ $//')"
else
	echo "$pkg $ver, unpatched"
fi > "$out.tmp/source"
mv "$out.tmp" "$out"
echo "lab-kernel: built $out/vmlinux in $secs s"
