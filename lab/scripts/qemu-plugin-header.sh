#!/bin/sh
# The qemu-plugin.h of the installed qemu-system-x86's own version, for the
# lab's TCG plugin (lab/c2c/plugin/).
#
#   qemu-plugin-header.sh        prints the directory that holds qemu-plugin.h
#
# No Debian package ships qemu-plugin.h, but Debian's qemu is built with the
# plugin API, and the header is in its source package's orig tarball
# (bookworm: qemu_7.2+dfsg.orig.tar.xz, 23.5 MB, at
# qemu-7.2.0/include/qemu/qemu-plugin.h).  The source package comes through
# a private apt configuration with deb-src lines for the host's own suites
# (lab/scripts/apt-private.sh: /etc/apt is never touched), is downloaded
# into a temporary directory, and only the header is kept:
#   $cache/qemu-plugin/<source version without epoch>/qemu-plugin.h
#   $cache/qemu-plugin/<...>/source    "qemu <version> <orig tarball> <what>"
# The tarball goes.  A second call finds the header and downloads nothing.
# $cache is $MEMCG_LAB_CACHE, /var/cache/memcg-lab, or ~/.cache/memcg-lab
# when that is not writable (as vm.sh).
#
# Debian patches the upstream stable releases in (v7.2.1.diff ...): a patch
# that touches qemu-plugin.h would make the orig tarball's header the wrong
# one, so that is checked and refused.  When the archive no longer carries
# the installed source version, the newest one of the same upstream version
# (the same orig tarball) is taken and `source` says so.
#
# Exit 2 with one line on stderr naming the qemu version and what is
# missing (qemu not installed, not from a Debian package, no apt access,
# no such source, no header in the tarball); the caller (the Makefile)
# then builds everything but the plugin.
set -eu

me=memcg-lab-qemu-plugin-header
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "$me: $*" >&2; exit 2; }
note() { [ -n "${QUIET:-}" ] || echo "$me: $*" >&2; }

pkg=qemu-system-x86
# "source-version binary-version status" of the installed package.
info=$(dpkg-query -W -f='${source:Version} ${Version} ${db:Status-Status}' "$pkg" 2>/dev/null) || info=""
read -r srcver binver status <<EOF
$info
EOF
if [ "${status:-}" != installed ]; then
	if command -v qemu-system-x86_64 >/dev/null; then
		die "$(qemu-system-x86_64 --version | head -n1) is not from Debian's $pkg: no source package to take qemu-plugin.h from"
	fi
	die "$pkg is not installed (make deps): no qemu to build the TCG plugin for"
fi
# 1:7.2+dfsg-7+deb12u18 -> 7.2+dfsg-7+deb12u18 (a path part) and 7.2+dfsg (upstream).
noepoch=${srcver#*:}
upstream=${noepoch%-*}
what="qemu $binver"

# shellcheck source=lab/scripts/lab-cache.sh
. "$here/lab-cache.sh"
cache=$(lab_cache_dir)
dir=$cache/qemu-plugin/$noepoch
# The header's directory on stdout, once what it includes can be had: from
# qemu 8.x on it includes <glib.h> (Debian: libglib2.0-dev).
found() {
	if grep -q '^#include <glib\.h>' "$dir/qemu-plugin.h" && ! pkg-config --exists glib-2.0 2>/dev/null; then
		die "$what: its qemu-plugin.h includes <glib.h>, and glib's headers are missing (apt-get install libglib2.0-dev)"
	fi
	echo "$dir"
	exit 0
}
if [ -f "$dir/qemu-plugin.h" ] && [ -f "$dir/source" ]; then
	found
fi

command -v apt-get >/dev/null || die "$what: apt-get not found, so no source package to take qemu-plugin.h from"
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | tr -d '"')
[ -n "$codename" ] || die "$what: /etc/os-release names no VERSION_CODENAME: which Debian suite holds its source?"
# shellcheck source=lab/scripts/apt-private.sh
. "$here/apt-private.sh"

tmp=""
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

# ---- the private deb-src configuration of the host's suites ----
a=$cache/apt/src-$codename
mkdir -p "$cache/apt" "$cache/qemu-plugin" || die "$what: cannot create $cache/apt and $cache/qemu-plugin"
if [ ! -f "$a/apt.conf" ]; then
	tmp=$a.tmp.$$
	rm -rf "$tmp"
	apt_type=deb-src apt_private_write "$tmp" "$a" "$codename" "$codename-updates" "$codename-security"
	mv -T "$tmp" "$a" 2>/dev/null || rm -rf "$tmp"
	tmp=""
fi
export APT_CONFIG="$a/apt.conf"
apt_private_update "$a" "Debian $codename sources" ||
	die "$what: no apt access to Debian $codename's sources for qemu-plugin.h: $apt_msg"

# The versions of source package qemu the index knows, newest first.
src_versions() { apt-cache showsrc qemu 2>/dev/null | sed -n 's/^Version: //p'; }
has_version() { src_versions | grep -qxF "$1"; }
if ! has_version "$srcver"; then
	# An index older than the installed qemu: fetch it again, once.
	rm -f "$a/lists/"*Sources*
	apt_private_update "$a" "Debian $codename sources" ||
		die "$what: no apt access to Debian $codename's sources for qemu-plugin.h: $apt_msg"
fi
want=$srcver
if ! has_version "$srcver"; then
	# The same upstream version has the same orig tarball, so the same header.
	want=$(src_versions | while read -r v; do
		case ${v#*:} in "$upstream"-*) echo "$v" ;; esac
	done | sort -V -r | head -n1)
	[ -n "$want" ] ||
		die "$what: Debian $codename's sources carry no qemu $upstream (they have: $(src_versions | tr '\n' ' ' | sed 's/ $//')): no qemu-plugin.h"
	what="$what (header from source $want: the installed source $srcver is gone from the archive)"
fi

# ---- download, extract the header, check it ----
tmp=$dir.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp/dl"
chown _apt "$tmp/dl" 2>/dev/null || true
note "downloading Debian's qemu $want source (about 24 MB, once) for qemu-plugin.h into $dir"
if ! (cd "$tmp/dl" && apt-get source --download-only "qemu=$want") >"$tmp/apt.log" 2>&1; then
	die "$what: apt-get source qemu=$want failed: $(apt_failure "$tmp/apt.log")"
fi
first() { [ -e "$1" ] && echo "$1"; }
orig=$(first "$tmp/dl/"*.orig.tar.*) || die "$what: the source package qemu $want has no orig tarball"
member=$(tar -tf "$orig" 2>/dev/null | grep -m1 '^[^/]*/include/qemu/qemu-plugin\.h$' || true)
[ -n "$member" ] || die "$what: $(basename "$orig") holds no include/qemu/qemu-plugin.h (a qemu without the plugin API)"
tar --no-same-owner -xf "$orig" -C "$tmp" "$member" || die "$what: cannot extract $member from $(basename "$orig")"
grep -q '^#define QEMU_PLUGIN_VERSION [0-9]' "$tmp/$member" ||
	die "$what: $member defines no QEMU_PLUGIN_VERSION"
if deb=$(first "$tmp/dl/"*.debian.tar.*); then
	mkdir -p "$tmp/debian"
	tar --no-same-owner -xf "$deb" -C "$tmp/debian" --wildcards 'debian/patches/*' 2>/dev/null || true
	touched=$(grep -l '^+++ [^ ]*include/qemu/qemu-plugin\.h' "$tmp/debian/debian/patches/"* 2>/dev/null | sed 's:.*/::' | tr '\n' ' ' || true)
	[ -z "$touched" ] ||
		die "$what: Debian's patches change qemu-plugin.h (${touched% }): the orig tarball's header is not the one qemu was built with"
fi
mkdir -p "$tmp/out"
mv "$tmp/$member" "$tmp/out/qemu-plugin.h"
echo "qemu $want $(basename "$orig") $member (installed: $pkg $binver)" > "$tmp/out/source"
mv -T "$tmp/out" "$dir" 2>/dev/null || [ -f "$dir/qemu-plugin.h" ] || die "$what: cannot create $dir"
rm -rf "$tmp"
tmp=""
found
