#!/bin/sh
# A newer perf than the host's, from Debian, run with its own loader.
#
#   perf-runtime.sh VERSION     VERSION is 7.3 (trixie-backports), 7.2 (sid),
#                               6.12 (trixie) or 5.10 (bullseye)
#
# Prints the path of an executable wrapper (DIR/bin/perf) that runs
#   DIR/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --argv0 DIR/bin/perf \
#       --library-path DIR/usr/lib/x86_64-linux-gnu DIR/usr/bin/perf "$@"
# Debian's perf 7.x needs glibc 2.38 or later; with its own loader and
# libraries it runs on an older host (Debian 12) all the same.  The workload
# perf starts (perf record -- CMD) runs with the host's libraries: the
# library path is the loader's argument, not LD_LIBRARY_PATH.
#
# DIR is $MEMCG_LAB_CACHE/perf-VERSION (default /var/cache/memcg-lab, as
# vm.sh), built in a temporary directory and renamed into place; a second
# call finds it and downloads nothing.  The wrapper finds DIR from its own
# path, so the directory can be copied elsewhere (vm --perf puts it in a
# guest).  Packages come through a private apt configuration
# (APT_CONFIG) under $cache/apt/perf-SUITE/: /etc/apt is never touched.
#
# Exit 2 with one line on stderr when it cannot: no apt access (apt's own
# message), no such version, or a perf that does not run once unpacked
# (the library the loader could not find).  The loader searches DIR first,
# then its built-in system directories: a library missing from DIR that the
# host has under the same name is taken from the host, so DIR holds the
# whole closure of perf's library dependencies.
set -eu

me=memcg-lab-perf-runtime
die() { echo "$me: $*" >&2; exit 2; }
note() { [ -n "${QUIET:-}" ] || echo "$me: $*" >&2; }

[ $# = 1 ] || die "usage: perf-runtime.sh VERSION (7.3 or 7.2)"
want=$1
# The suites that hold each version (the first one has perf itself, the
# others the libraries it needs; only suites that exist: no
# trixie-backports-security, no sid-security).
# 5.10 (bullseye's linux-perf-5.10) is an old perf for the lab's refusals:
# it has no perf lock contention.
pkg=linux-perf
case $want in
7.3) suites="trixie-backports trixie trixie-security" ;;
7.2) suites="sid" ;;
6.12) suites="trixie trixie-security" ;;
5.10) suites="bullseye bullseye-security" pkg=linux-perf-5.10 ;;
*) die "unknown perf version '$want': expected 7.3 (Debian trixie-backports), 7.2 (sid), 6.12 (trixie) or 5.10 (bullseye)" ;;
esac
perf_suite=${suites%% *}
# What linux-perf 7.x loads: these, and every library package they and
# linux-perf depend on (lib_closure), checked at the end by running it.
# 5.10 needs glibc 2.31, older than the host's: it runs with the host's
# C library and loader (bullseye's loader knows no --argv0).
seed_libs=""
[ "$pkg" = linux-perf-5.10 ] || seed_libs="libc6 libdw1t64 libelf1t64 libtraceevent1 libpython3.13 libslang2
libopencsd1 libnuma1 libzstd1 liblzma5 zlib1g libstdc++6 libgcc-s1
libcurl3t64-gnutls libunwind8 libcap2 libbz2-1.0 libexpat1 libssl3t64
libffi8 libdebuginfod1t64"

# shellcheck source=lab/scripts/lab-cache.sh
. "$(dirname "$0")/lab-cache.sh"
cache=$(lab_cache_dir)
dir=$cache/perf-$want
wrapper=$dir/bin/perf

# A perf that does not run says why through the loader: name the library.
check_runs() {	# wrapper
	out=$("$1" version 2>&1) && { echo "$out"; return 0; }
	lib=$(echo "$out" | sed -n 's/.*error while loading shared libraries: \([^:]*\):.*/\1/p' | head -n1)
	if [ -n "$lib" ]; then
		die "$1 cannot run: the library $lib is missing (from $dir/usr/lib/x86_64-linux-gnu)"
	fi
	die "$1 cannot run: $(echo "$out" | head -n1)"
}

if [ -x "$wrapper" ] && [ -f "$dir/version" ]; then
	check_runs "$wrapper" >/dev/null
	echo "$wrapper"
	exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found: perf $want is fetched with apt"
command -v dpkg-deb >/dev/null || die "dpkg-deb not found: perf $want is unpacked with dpkg-deb"
# shellcheck source=lab/scripts/apt-private.sh
. "$(dirname "$0")/apt-private.sh"

tmp=""
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

# ---- the private apt configuration ----
a=$cache/apt/perf-$perf_suite
mkdir -p "$cache/apt"
if [ ! -f "$a/apt.conf" ]; then
	tmp=$a.tmp.$$
	rm -rf "$tmp"
	# shellcheck disable=SC2086
	apt_private_write "$tmp" "$a" $suites
	mv -T "$tmp" "$a" 2>/dev/null || rm -rf "$tmp"
	tmp=""
fi
APT_CONFIG="$a/apt.conf"
export APT_CONFIG
apt_private_update "$a" "Debian $suites" || die "no apt access to Debian $perf_suite: $apt_msg"

# linux-perf of the wanted version from its suite (backports are not apt's
# candidate: ask for the version).
ver=$(apt-cache madison "$pkg" 2>/dev/null |
	awk -F' [|] ' -v w="$want" -v s="$perf_suite" \
		'{ gsub(/ /, "", $2) } index($2, w ".") == 1 && $3 ~ (" " s "/") { print $2; exit }' | tr -d ' ')
[ -n "$ver" ] || die "Debian $perf_suite has no $pkg $want.* (apt-cache madison $pkg: $(apt-cache madison "$pkg" 2>&1 | awk -F' [|] ' '{ printf "%s%s", sep, $2; sep = ", " }'))"

# The shared-library packages that PKGS depend on, transitively: one
# apt-cache call per level.  Only libraries: not perl or python3 (perf
# needs them only for scripts), and not the packages of a library that hold
# no shared object (-common, -stdlib, -minimal data and modules).
lib_closure() {	# pkgs...
	have=" " next="$*"
	while [ -n "$next" ]; do
		new=""
		for p in $next; do
			case $have in *" $p "*) continue ;; esac
			have="$have$p "
			new="$new $p"
		done
		[ -n "$new" ] || break
		# shellcheck disable=SC2086
		next=$(apt-cache depends --no-recommends --no-suggests --no-conflicts \
			--no-breaks --no-replaces --no-enhances $new 2>/dev/null |
			sed -n 's/^ *[|]*\(Pre\)*Depends: \([^ <]*\).*/\2/p' | sed 's/:any$//' |
			grep -E '^(lib|zlib)' | grep -vE -- '-(common|stdlib|minimal|data|bin|modules.*|perl)$' |
			sort -u | tr '\n' ' ')
	done
	echo "$have"
}

# ---- download and unpack ----
tmp=$dir.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp/deb" "$tmp/root"
chown _apt "$tmp/deb" 2>/dev/null || true
# Package names are words ([a-z0-9.+-]): the lists below split on spaces.
deps=$(apt-cache show "$pkg=$ver" | sed -n 's/^Depends: //p' |
	tr ',' '\n' | sed 's/^ *//; s/[ :].*//' | grep -E '^(lib|zlib)' | tr '\n' ' ')
# shellcheck disable=SC2086 # lists of package names, split on purpose
libs=$(lib_closure $seed_libs $deps)
# shellcheck disable=SC2086
[ -n "$seed_libs" ] || libs=$(printf '%s\n' $libs | grep -vxE 'libc6|libgcc-s1|libcrypt1' | tr '\n' ' ')
# shellcheck disable=SC2086
note "downloading $pkg $ver ($perf_suite) and $(printf '%s\n' $libs | grep -c .) library packages"
# shellcheck disable=SC2086
(cd "$tmp/deb" && apt-get download "$pkg=$ver" $libs) >"$tmp/apt.log" 2>&1 ||
	die "no apt access: apt-get download $pkg=$ver failed: $(grep -E '^(E|Err):' "$tmp/apt.log" | head -n1)"
for deb in "$tmp/deb/"*.deb; do
	dpkg-deb -x "$deb" "$tmp/root" || die "dpkg-deb -x $(basename "$deb") failed"
done
# Some libraries (libc6 of trixie on) live under /usr/lib only; others
# install the loader as /lib64 -> usr/lib/... links: the wrapper needs
# both in one place.
lib=$tmp/root/usr/lib/x86_64-linux-gnu
if [ -d "$tmp/root/lib/x86_64-linux-gnu" ] && [ ! -L "$tmp/root/lib" ]; then
	cp -a "$tmp/root/lib/x86_64-linux-gnu/." "$lib/"
fi
if [ -n "$seed_libs" ]; then
	[ -e "$lib/ld-linux-x86-64.so.2" ] || die "libc6 of Debian $perf_suite holds no ld-linux-x86-64.so.2"
else
	mkdir -p "$lib"
	ln -s /lib64/ld-linux-x86-64.so.2 "$lib/ld-linux-x86-64.so.2"
fi
[ -x "$tmp/root/usr/bin/perf" ] || {
	# linux-perf installs perf_<major.minor> and a /usr/bin/perf dispatcher
	# that picks it by the running kernel: use the versioned binary.
	p=""
	for v in "$tmp/root/usr/bin/perf_"*; do [ -f "$v" ] && [ -z "$p" ] && p=$v; done
	[ -n "$p" ] || die "$pkg $ver holds no /usr/bin/perf"
	ln -s "$(basename "$p")" "$tmp/root/usr/bin/perf"
}
mv "$tmp/root" "$tmp/x"
mkdir -p "$tmp/bin"
mv "$tmp/x/usr" "$tmp/usr"
# Documentation and headers: not needed to run, and vm --perf copies the
# directory into a guest's initramfs.
rm -rf "$tmp/x" "$tmp/deb" "$tmp/usr/share/doc" "$tmp/usr/share/man" \
	"$tmp/usr/share/locale" "$tmp/usr/share/info" "$tmp/usr/include"
cat > "$tmp/bin/perf" <<-'EOF'
	#!/bin/sh
	# Debian's perf, run with the loader and libraries beside it
	# (written by lab/scripts/perf-runtime.sh).
	# argv[0] stays this wrapper: perf puts the directory of its argv[0]
	# first in PATH, so that a "perf" it starts (perf record -- perf bench)
	# is this one, not DIR/usr/bin/perf without its loader.
	w=$(readlink -f "$0")
	d=$(dirname "$(dirname "$w")")
	exec "$d/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --argv0 "$w" \
		--library-path "$d/usr/lib/x86_64-linux-gnu" "$d/usr/bin/perf" "$@"
EOF
chmod 755 "$tmp/bin/perf"
mv "$tmp/apt.log" "$tmp/download.log"
echo "$pkg $ver $perf_suite" > "$tmp/version"
check_runs "$tmp/bin/perf" > "$tmp/perf-version"
mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
tmp=""
note "$(cat "$dir/perf-version") in $dir"
echo "$wrapper"
