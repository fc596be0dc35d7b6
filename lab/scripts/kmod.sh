#!/bin/sh
# Builds the lab's kernel module (lab/kmod: kmem_bench, the seed's kmem
# accounting benchmark) for one kernel, out of tree, and prints the path
# of the .ko.
#
#   kmod.sh --kernel-dir DIR   a kernel of vm's cache (lab/scripts/vm.sh):
#       a Debian kernel: against its linux-headers-<release> package, with
#         linux-headers-<release>-common (or what it depends on) and
#         linux-kbuild-<line> of the same version and suite, fetched with
#         the apt configuration vm used and kept in DIR/headers.1/;
#       the lab kernel (make lab-kernel): against its object tree
#         (lab-kernel/<flavour>/obj), which must hold that very build.
#     The module is cached in DIR/kmod.<key>/ (key: the module's source,
#     the kernel tree and the compiler) with built.txt saying what it was
#     built against.
#   kmod.sh --running OUT      the running kernel, against
#       /lib/modules/$(uname -r)/build where present, into
#       OUT/<release>/kmem_bench.ko (make kmod: OUT = build/kmod).  Without
#       that directory one line says so and nothing is built (exit 0): the
#       charge driver's kmem mode then runs its close()/open() stand-in.
#
# The guest finds the module where the host's lab keeps it, relative to
# the lab's root: build/kmod/<release>/kmem_bench.ko (vm --kmod puts it
# there), and so does `memcg-lab charge --mode kmem`.
#
# Every cache entry is made in a temporary directory and renamed into
# place once complete: a download or build cut short never counts.  When
# the module cannot be built (a package missing from the archive, tools
# that do not run here, a compiler error): one line on stderr naming the
# package or the error, exit 2, and nothing is cached.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
me=kmod
die() { echo "$me: $*" >&2; exit 2; }
note() { echo "$me: $*" >&2; }
cleanup_paths=""
# shellcheck disable=SC2086 # the lab's own temporary names, no spaces
trap '[ -z "$cleanup_paths" ] || rm -rf $cleanup_paths' EXIT
trap 'exit 130' INT TERM HUP
tmpname() { t="$1.tmp.$$"; cleanup_paths="$cleanup_paths $t"; rm -rf "$t"; }
publish() { mv -T "$1" "$2" 2>/dev/null || rm -rf "$1"; }

src=$root/lab/kmod
if [ ! -f "$src/kmem_bench.c" ] || [ ! -f "$src/Kbuild" ]; then die "$src: the module's source is missing"; fi
command -v make >/dev/null || die "make not found (apt-get install make)"

# The compiler a kernel tree names (gcc-10 in bullseye's headers), when
# this host has it; else the host's gcc, said in one line: the module is
# only the loop, the code it measures is the kernel's own.
pick_cc() {	# kernel-tree
	want=$(sed -n 's/^CC = .*)\(gcc-[0-9][0-9]*\)$/\1/p' "$1/.kernelvariables" 2>/dev/null | head -n1)
	[ -n "$want" ] || want=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(gcc-[0-9]*\) .*/\1/p' "$1/.config" 2>/dev/null || true)
	cc=""
	cc_note=""
	if [ -n "$want" ] && ! command -v "$want" >/dev/null; then
		command -v gcc >/dev/null || die "neither $want nor gcc on this host: apt-get install gcc"
		cc=gcc
		cc_note="built with this host's $(gcc -dumpfullversion 2>/dev/null | sed 's/^/gcc /') ($want, the kernel's compiler, is not installed here)"
	fi
	return 0
}

# Builds the module in a copy of lab/kmod against a kernel tree into DIR,
# with DIR/release: the kernel release it is for (its vermagic), the
# directory the lab keeps it in (build/kmod/<release>/).
build_in() {	# kernel-tree dir
	mkdir -p "$2"
	cp "$src/kmem_bench.c" "$src/Kbuild" "$2/"
	# shellcheck disable=SC2086 # extra: KBUILD_EXTRA_SYMBOLS=..., one word
	if ! make -C "$1" M="$2" ${cc:+CC="$cc"} ${extra:-} modules >"$2/build.log" 2>&1 || [ ! -f "$2/kmem_bench.ko" ]; then
		why=$(grep -m1 -E 'error:|Error [0-9]|GLIBC_|cannot execute|No such file|not found' "$2/build.log" ||
			tail -n1 "$2/build.log")
		die "kmem_bench does not build against $what: $(echo "$why" | sed "s|$2/||g")"
	fi
	command -v objcopy >/dev/null || die "objcopy not found (apt-get install binutils)"
	objcopy -O binary -j .modinfo "$2/kmem_bench.ko" "$2/modinfo" 2>/dev/null || : > "$2/modinfo"
	tr '\0' '\n' < "$2/modinfo" | sed -n 's/^vermagic=\([^ ]*\).*/\1/p' > "$2/release"
	[ -s "$2/release" ] || die "$2/kmem_bench.ko: no vermagic in its .modinfo"
}

# The cache key: the module's source, the tree and the compiler.
key_of() {	# tree-identity
	# (the entry's format: kmem_bench.ko, built.txt, release)
	{ echo "entry 2"; cat "$src/kmem_bench.c" "$src/Kbuild"; echo "$1"; echo "${cc:-default}"; } |
		sha256sum | cut -c1-12
}

# ---- a Debian kernel of vm's cache ----

# The headers of PKG's release at VER, with what they depend on at the
# same version (-common, linux-kbuild-<line>), extracted into DIR/headers.1.
debian_headers() {	# kernel-dir
	kd=$1
	read -r pkg ver suite < "$kd/package"
	rel=${pkg#linux-image-}
	h=$kd/headers.1
	if [ -f "$h/tree" ]; then
		return 0
	fi
	cache=$(dirname "$(dirname "$kd")")
	if [ -f "$cache/apt/$suite/apt.conf" ]; then
		export APT_CONFIG="$cache/apt/$suite/apt.conf"
	fi
	command -v apt-get >/dev/null || die "apt-get not found: the headers come from Debian's linux-headers-$rel"
	where="Debian $suite"
	[ "$suite" != host-apt ] || where="this host's apt sources"
	info=$(apt-cache show "linux-headers-$rel=$ver" 2>/dev/null) ||
		die "linux-headers-$rel $ver is missing from $where (apt-cache show knows no such version): cannot build the module for $pkg"
	# linux-headers-<release>-common and linux-kbuild-<line>, at the
	# image's version: what the headers' Makefile includes and runs.
	parts=$(echo "$info" | sed -n 's/^Depends: //p' | head -n1 | tr ',' '\n' |
		sed -n 's/^ *\(linux-\(headers\|kbuild\)-[^ ]*\).*/\1/p')
	tmpname "$h"
	mkdir -p "$t/deb" "$t/root"
	chown _apt "$t/deb" 2>/dev/null || true
	# shellcheck disable=SC2086 # package names, one word each
	names=$(echo "linux-headers-$rel" $parts | sed 's/ /, /g')
	note "fetching $names $ver ($suite) for the kmem_bench module"
	for p in "linux-headers-$rel" $parts; do
		if ! (cd "$t/deb" && apt-get download "$p=$ver") >"$t/apt.log" 2>&1; then
			die "$p $ver is missing from $where: $(grep -m1 -E '^(E|Err):' "$t/apt.log" || echo "apt-get download failed")"
		fi
	done
	for deb in "$t/deb/"*.deb; do
		dpkg-deb -x "$deb" "$t/root" || die "cannot unpack $deb"
	done
	tree=$t/root/usr/src/linux-headers-$rel
	if [ ! -f "$tree/Makefile" ] || [ ! -f "$tree/Module.symvers" ]; then
		die "linux-headers-$rel $ver holds no kernel build tree (no usr/src/linux-headers-$rel/Makefile or Module.symvers)"
	fi
	# Its Makefile includes the -common one by its installed path: the
	# path it has here once renamed into place.
	sed -i "s|^include /usr/src/|include $h/root/usr/src/|" "$tree/Makefile"
	# The kbuild tools are built for that suite's C library: they must run here.
	fixdep=$tree/scripts/basic/fixdep
	[ -x "$fixdep" ] || die "$(echo "$parts" | grep kbuild || echo linux-kbuild) $ver holds no scripts/basic/fixdep: the headers cannot build modules"
	if out=$("$fixdep" 2>&1); [ -n "$out" ] && echo "$out" | grep -qiE 'GLIBC|not found|cannot execute|No such file'; then
		die "the kbuild tools of $where ($(echo "$parts" | grep kbuild)) do not run on this host: $(echo "$out" | head -n1)"
	fi
	echo "$h/root/usr/src/linux-headers-$rel" > "$t/tree"
	echo "$names $ver ($suite)" > "$t/what"
	rm -rf "$t/deb" "$t/apt.log"
	publish "$t" "$h"
}

# ---- the lab kernel ----

# Its object tree: lab-kernel/<flavour>/obj beside the cache entry, which
# must hold the same build (the build ID of its vmlinux).
lab_tree() {	# kernel-dir
	kd=$1
	base=$(basename "$kd")
	flavour=${base%%-*}
	tree=$(dirname "$kd")/$flavour/obj
	if [ ! -f "$tree/Makefile" ] || [ ! -f "$tree/vmlinux" ]; then
		die "the lab kernel's object tree $tree is gone: run make lab-kernel again"
	fi
	grep -qx 'CONFIG_MODULES=y' "$tree/.config" 2>/dev/null ||
		die "the lab kernel $kd is built without CONFIG_MODULES: no module loads in it"
	id() { readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: *//p'; }
	if [ -z "$(id "$kd/vmlinux")" ] || [ "$(id "$kd/vmlinux")" != "$(id "$tree/vmlinux")" ]; then
		die "the lab kernel's object tree $tree holds another build than $kd (patched vs unpatched): build that one again (make lab-kernel) to build the module against it"
	fi
	# `make vmlinux` leaves vmlinux.symvers; Module.symvers only comes with
	# `make modules`.
	extra=""
	[ -f "$tree/Module.symvers" ] || [ ! -f "$tree/vmlinux.symvers" ] || extra="KBUILD_EXTRA_SYMBOLS=$tree/vmlinux.symvers"
	exec 9>"$(dirname "$tree")/lock"
	flock -n 9 || die "a lab-kernel build of $flavour is running in $(dirname "$tree"): build the module once it ended"
	# `make vmlinux` does not make the modules' linker script and tools:
	# modules_prepare does, once (nothing of vmlinux is rebuilt).
	if [ ! -f "$tree/scripts/module.lds" ]; then
		nice -n 19 make -C "$tree" modules_prepare >"$tree/modules_prepare.log" 2>&1 ||
			die "make modules_prepare failed in $tree: $(grep -m1 -E 'error|Error' "$tree/modules_prepare.log" || tail -n1 "$tree/modules_prepare.log")"
	fi
	what="the lab kernel's object tree $tree ($(cat "$kd/source" 2>/dev/null || echo "$base"))"
}

kernel_dir() {
	kd=$1
	[ -f "$kd/vmlinux" ] || die "$kd holds no vmlinux: not a kernel of vm's cache"
	cc=""
	cc_note=""
	if [ -f "$kd/package" ]; then
		read -r pkg _ < "$kd/package"
		case $pkg in
		linux-image-*) ;;
		*) die "kernel $(cut -d' ' -f2- "$kd/package") was given by path: no headers package is known for it (vm --kmod needs a Debian kernel or the lab kernel)" ;;
		esac
		debian_headers "$kd"
		tree=$(cat "$kd/headers.1/tree")
		what=$(cat "$kd/headers.1/what")
		pick_cc "$tree"
		extra=""
	elif [ -f "$kd/source" ]; then
		lab_tree "$kd"
	else
		die "$kd: neither a Debian kernel nor the lab kernel (no package or source file)"
	fi
	k=$kd/kmod.$(key_of "$tree $what")
	if [ ! -f "$k/kmem_bench.ko" ]; then
		tmpname "$k"
		build_in "$tree" "$t"
		{
			echo "$what"
			[ -z "$cc_note" ] || echo "$cc_note"
		} > "$t/built.txt"
		find "$t" -mindepth 1 -maxdepth 1 ! -name kmem_bench.ko ! -name built.txt ! -name build.log ! -name release -exec rm -rf {} +
		publish "$t" "$k"
		[ -z "$cc_note" ] || note "$cc_note"
	fi
	echo "$k/kmem_bench.ko"
}

# ---- the running kernel ----

running() {
	out=$1
	rel=$(uname -r)
	tree=/lib/modules/$rel/build
	if [ ! -f "$tree/Makefile" ]; then
		note "no headers for the running kernel $rel (no $tree): charge --mode kmem runs its close()/open() stand-in"
		exit 0
	fi
	cc=""
	cc_note=""
	pick_cc "$tree"
	extra=""
	what="$tree"
	d=$out/$rel
	k=$(key_of "$(readlink -f "$tree") $(stat -c %Y "$tree/Makefile")")
	if [ -f "$d/kmem_bench.ko" ] && [ "$(cat "$d/key" 2>/dev/null)" = "$k" ]; then
		echo "$d/kmem_bench.ko"
		return 0
	fi
	mkdir -p "$out"
	tmpname "$d"
	build_in "$tree" "$t"
	{
		echo "the running kernel's headers, $tree"
		[ -z "$cc_note" ] || echo "$cc_note"
	} > "$t/built.txt"
	echo "$k" > "$t/key"
	find "$t" -mindepth 1 -maxdepth 1 ! -name kmem_bench.ko ! -name built.txt ! -name build.log ! -name release ! -name key -exec rm -rf {} +
	rm -rf "$d"
	publish "$t" "$d"
	echo "$d/kmem_bench.ko"
}

case ${1:-} in
--kernel-dir) [ $# = 2 ] || die "usage: kmod.sh --kernel-dir DIR"; kernel_dir "$2" ;;
--running) [ $# = 2 ] || die "usage: kmod.sh --running OUT"; running "$2" ;;
*) die "usage: kmod.sh --kernel-dir DIR | kmod.sh --running OUT" ;;
esac
