#!/bin/sh
# Host side, for guest tests: kernel modules of a Debian kernel `vm` cached,
# decompressed into DIR, for insmod in the guest (vm boots no module tree).
#
#   kmods.sh KERNEL-DIR DIR MODULE...
#
# KERNEL-DIR is what `memcg-lab vm --fetch` printed (its package file names
# the package, version and suite); the modules come from its
# linux-modules-<release> package (6.19 on; before, the image package holds
# them) through the same apt configuration vm used.  MODULEs by name, in
# the order to load them.  Exit 2 with one line on stderr when it cannot.
set -eu
[ $# -ge 3 ] || { echo "usage: kmods.sh KERNEL-DIR DIR MODULE..." >&2; exit 2; }
kd=$1 dir=$2
shift 2
read -r pkg ver suite < "$kd/package" || { echo "kmods: $kd/package unreadable" >&2; exit 2; }
cache=$(dirname "$(dirname "$kd")")
[ ! -f "$cache/apt/$suite/apt.conf" ] || export APT_CONFIG="$cache/apt/$suite/apt.conf"
rel=${pkg#linux-image-}
mkdir -p "$dir/deb"
chown _apt "$dir/deb" 2>/dev/null || true
for p in "linux-modules-$rel=$ver" "$pkg=$ver"; do
	(cd "$dir/deb" && apt-get download "$p") > "$dir/apt.log" 2>&1 || continue
	deb=$(ls "$dir/deb/"*.deb)
	dpkg-deb -c "$deb" 2>/dev/null | grep -q '/kernel/.*\.ko' && break
	rm -f "$deb"
done
deb=$(ls "$dir/deb/"*.deb 2>/dev/null) ||
	{ echo "kmods: no module package for $pkg $ver: $(grep -m1 -E '^(E|Err):' "$dir/apt.log")" >&2; exit 2; }
names=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | grep '/kernel/.*\.ko')
files=""
for m in "$@"; do
	f=$(echo "$names" | grep -m1 "/$m\.ko\(\.xz\|\.zst\)*$") ||
		{ echo "kmods: $pkg $ver has no module $m" >&2; exit 2; }
	files="$files $f"
done
mkdir -p "$dir/x"
# shellcheck disable=SC2086
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir/x" $files
for f in $files; do
	m=$(basename "$f" | sed 's/\.ko.*//')
	case $f in
	*.xz) xz -dc "$dir/x/$f" > "$dir/$m.ko" ;;
	*.zst) zstd -dcq "$dir/x/$f" > "$dir/$m.ko" ;;
	*) mv "$dir/x/$f" "$dir/$m.ko" ;;
	esac
done
rm -rf "$dir/x"
rm -rf "$dir/deb" "$dir/apt.log"
