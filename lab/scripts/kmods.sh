#!/bin/sh
# Kernel modules of a Debian kernel that `vm` cached, decompressed into DIR
# with everything they depend on, for insmod in the guest (vm boots no
# module tree).  vm.sh uses it for the guest's RAM disk (brd, ext4).
#
#   kmods.sh KERNEL-DIR DIR MODULE...
#
# KERNEL-DIR is a kernel directory of vm's cache (its package file names
# the package, version and suite); the modules come from its
# linux-modules-<release> package (6.19 on; before, the image package holds
# them) through the same apt configuration vm used.  The MODULEs by name;
# each one's dependencies (the "depends=" of its .modinfo, and the soft
# "softdep=pre:" ones the package has) come along.
# DIR gets <name>.ko for each and `order`, the names in the order to load
# them (dependencies first).  DIR must not exist yet (it is made here).
# Exit 2 with one line on stderr when it cannot.
set -eu
me=kmods
die() { echo "$me: $*" >&2; exit 2; }
[ $# -ge 3 ] || die "usage: kmods.sh KERNEL-DIR DIR MODULE..."
kd=$1 dir=$2
shift 2
command -v objcopy >/dev/null || die "objcopy not found (apt-get install binutils)"
read -r pkg ver suite < "$kd/package" 2>/dev/null || die "$kd/package unreadable: not a Debian kernel of vm's cache"
cache=$(dirname "$(dirname "$kd")")
[ ! -f "$cache/apt/$suite/apt.conf" ] || export APT_CONFIG="$cache/apt/$suite/apt.conf"
rel=${pkg#linux-image-}
mkdir "$dir" || die "cannot create $dir"
mkdir "$dir/deb"
chown _apt "$dir/deb" 2>/dev/null || true
for p in "linux-modules-$rel=$ver" "$pkg=$ver"; do
	(cd "$dir/deb" && apt-get download "$p") > "$dir/apt.log" 2>&1 || continue
	deb=$(ls "$dir/deb/"*.deb)
	dpkg-deb -c "$deb" 2>/dev/null | grep -q '/kernel/.*\.ko' && break
	rm -f "$deb"
done
deb=$(ls "$dir/deb/"*.deb 2>/dev/null) ||
	die "no module package for $pkg $ver: $(grep -m1 -E '^(E|Err):' "$dir/apt.log" || echo "apt-get download failed")"
names=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | grep '/kernel/.*\.ko')

# The module's file in the package, by name (modinfo's names use _ where
# the file may have -).
file_of() {
	re=$(echo "$1" | sed 's/[_-]/[_-]/g')
	echo "$names" | grep -m1 "/$re\.ko\(\.xz\|\.zst\)*$"
}
# Extracts and decompresses one module into $dir/<name>.ko.
extract() {	# name file
	mkdir -p "$dir/x"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir/x" "$2"
	case $2 in
	*.xz) xz -dc "$dir/x/$2" > "$dir/$1.ko" ;;
	*.zst) zstd -dcq "$dir/x/$2" > "$dir/$1.ko" ;;
	*) mv "$dir/x/$2" "$dir/$1.ko" ;;
	esac
	rm -rf "$dir/x"
}
# Its dependencies, from the depends= string of its .modinfo section, and
# its soft pre-dependencies (softdep=pre: ...) that the package has as
# modules: "crypto-crc32c" is crc32c_generic (5.10's ext4 cannot mount
# without it: "Cannot load crc32c driver"); one the kernel has built in is
# no module of the package, and is left out.
depends() {
	objcopy -O binary -j .modinfo "$dir/$1.ko" "$dir/modinfo" 2>/dev/null ||
		die "$1.ko of $pkg $ver: no .modinfo section"
	tr '\0' '\n' < "$dir/modinfo" | sed -n 's/^depends=//p' | tr ',' ' '
	for s in $(tr '\0' '\n' < "$dir/modinfo" | sed -n 's/^softdep=.*pre: *\([^:]*\).*/\1/p' | sed 's/ post$//'); do
		s=${s#crypto-}
		for c in "$s" "${s}_generic"; do
			if file_of "$c" >/dev/null; then
				echo "$c"
				break
			fi
		done
	done
	rm -f "$dir/modinfo"
}
# Depth first, dependencies before the module: the load order.
: > "$dir/order"
visit() {	# name chain
	grep -qx "$1" "$dir/order" && return 0
	case " $2 " in *" $1 "*) die "$pkg $ver: module dependency cycle: $2 $1" ;; esac
	if [ ! -f "$dir/$1.ko" ]; then
		f=$(file_of "$1") || die "$pkg $ver has no module $1${2:+ (needed by$(echo "$2" | sed 's/.* / /'))}"
		extract "$1" "$f"
	fi
	deps=$(depends "$1") || exit 2
	for d in $deps; do
		visit "$d" "$2 $1"
	done
	echo "$1" >> "$dir/order"
}
for m in "$@"; do
	visit "$(echo "$m" | tr - _)" ""
done
rm -rf "$dir/deb" "$dir/apt.log"
