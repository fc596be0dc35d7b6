#!/bin/sh
# The Debian packages the lab needs, by purpose, and how to get them.
#
#   deps.sh ensure PURPOSE   install what PURPOSE (build|run|test|kernel|distcheck|all) lacks
#   deps.sh install all      the same for every purpose
#   deps.sh list PURPOSE     print the package names
#
# As root the missing packages are installed with apt-get; otherwise the
# exact apt-get line is printed and the exit status is 2.
#
# Packages are named by what they give, never by a toolchain's version, so
# that one list holds on Debian 12, 13 and sid (clang 14, 19, 21): clang and
# libclang-rt-dev are the suite's default clang and its sanitizer runtimes.
# For test (and all) the sanitizer build is then checked for real: a program
# is linked with ASan, UBSan and libFuzzer by the clang on PATH; when that
# fails, the runtime of that clang's version (libclang-rt-N-dev) is
# installed, or one line says what is missing.
#
# Another apt or dpkg at work (unattended-upgrades on a fresh box) holds
# apt's locks: apt-get waits for them up to APT_LOCK_WAIT seconds (default
# 600), and one line says so while it waits; past that, one line names the
# lock and its holder, exit 2.
set -eu

# clang compiles the lab's BPF programs (lab/bpf/*.bpf.c) into the binary.
# liblzma, zlib and libzstd: a compressed --btf/--vmlinux (xz, gzip, zstd).
# asciidoctor builds the manual pages (doc/*.txt; make man).
build_pkgs="gcc make pkg-config libbpf-dev libtracefs-dev libtraceevent-dev
libinih-dev libjson-c-dev libhwloc-dev libelf-dev libdw-dev zlib1g-dev liblzma-dev libzstd-dev libarchive-dev xz-utils clang
asciidoctor"
# pahole reads and converts layouts; perf records c2c/lock data; gnuplot plots.
run_pkgs="dwarves linux-perf gnuplot-nox"
# prove runs the TAP tests (perl); clang and its runtimes (libclang-rt-dev:
# the default clang's) build the sanitizer and fuzz targets; qemu and a
# static busybox boot real kernels for the guest tests (vm), glib's headers
# build the lines plugin against a qemu 8+ header; headless
# chromium renders the plot index (plot-index.sh); shellcheck checks the
# scripts (shellcheck.sh); tmux presses Ctrl-C twice (kill.sh); zstd makes
# the .zst BTF the tests read (layout-cli.sh).
test_pkgs="perl clang libclang-rt-dev qemu-system-x86 libglib2.0-dev busybox-static chromium shellcheck tmux zstd"
# make lab-kernel: what building a kernel with BTF needs.
kernel_pkgs="bison flex bc dwarves patch"
# make distcheck: minimal chroots of other Debian suites.
distcheck_pkgs="debootstrap debian-archive-keyring"

me=memcg-lab
lock_wait=${APT_LOCK_WAIT:-600}
case $lock_wait in
'' | *[!0-9]*) echo "$me: APT_LOCK_WAIT='$lock_wait' is not a number of seconds" >&2; exit 2 ;;
esac

# The lists are package names, joined by echo on purpose.
# shellcheck disable=SC2086
pkgs_for() {
	case "$1" in
	build) echo $build_pkgs ;;
	run) echo $build_pkgs $run_pkgs ;;
	test) echo $build_pkgs $run_pkgs $test_pkgs ;;
	kernel) echo $build_pkgs $kernel_pkgs ;;
	distcheck) echo $build_pkgs $distcheck_pkgs ;;
	all) echo $build_pkgs $run_pkgs $test_pkgs $kernel_pkgs $distcheck_pkgs ;;
	*) echo "deps.sh: unknown purpose '$1' (build, run, test, kernel, distcheck, all)" >&2; exit 2 ;;
	esac
}

installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

missing_of() {
	for p in "$@"; do
		installed "$p" || printf '%s ' "$p"
	done
}

cmd=${1:-ensure}
purpose=${2:-all}
case "$cmd" in
list) pkgs_for "$purpose"; exit 0 ;;
ensure|install) ;;
*) echo "usage: deps.sh ensure|install|list PURPOSE" >&2; exit 2 ;;
esac
pkgs=$(pkgs_for "$purpose")

tmp=""
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
tmpdir() { [ -n "$tmp" ] || tmp=$(mktemp -d "${TMPDIR:-/tmp}/memcg-lab-deps.XXXXXX"); }

# The first of apt's locks that a process holds, as "PATH PID NAME": the
# kernel's word (/proc/locks: apt and dpkg take fcntl locks), not apt's,
# which differs between versions (apt 3.3 says nothing while it waits).
apt_lock_holder() {
	for f in /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock; do
		ino=$(stat -c %i "$f" 2>/dev/null) || continue
		pid=$(awk -v i=":$ino" '$2 != "->" && substr($6, length($6) - length(i) + 1) == i && $5 > 0 {
			print $5; exit }' /proc/locks)
		[ -n "$pid" ] || continue
		echo "$f $pid $(cat "/proc/$pid/comm" 2>/dev/null || echo '?')"
		return 0
	done
	return 1
}

# apt_get ARGS...: apt-get ARGS, its output in $tmp/apt.log, once none of
# apt's locks is held, waiting until $deadline and saying so once.  A lock
# taken between the look and apt's start: apt waits 2 s for it
# (DPkg::Lock::Timeout, apt >= 1.9) or fails on it, and the look is made
# again.
apt_get() {
	tmpdir
	while :; do
		if held=$(apt_lock_holder); then
			held_path=$(echo "$held" | cut -d' ' -f1) held_pid=$(echo "$held" | cut -d' ' -f2)
			held_name=$(echo "$held" | cut -d' ' -f3-)
			[ -n "$said" ] || echo "$me: another apt or dpkg is at work: waiting up to $lock_wait s for" \
				"apt's lock $held_path, held by process $held_pid ($held_name)" >&2
			said=1
			if [ "$(date +%s)" -ge "$deadline" ]; then
				echo "$me: apt's lock $held_path is still held by process $held_pid ($held_name) after" \
					"$lock_wait s (APT_LOCK_WAIT); run this again once that apt or dpkg is done" >&2
				exit 2
			fi
			sleep 1
			continue
		fi
		# Its messages untranslated, for apt_error and the lock's words.
		st=0
		LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=2 "$@" \
			>"$tmp/apt.log" 2>&1 || st=$?
		[ "$st" != 0 ] || return 0
		grep -q 'Could not get lock \|Unable to acquire the dpkg frontend lock\|Unable to lock ' "$tmp/apt.log" ||
			return "$st"
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "$me: apt's lock is still held after $lock_wait s (APT_LOCK_WAIT): $(apt_error)" >&2
			exit 2
		fi
		sleep 1
	done
}

# apt's own words for a failed apt-get: its first error line.
apt_error() { grep -m1 '^E: ' "$tmp/apt.log" 2>/dev/null || tail -n1 "$tmp/apt.log" 2>/dev/null || true; }

# install PKG...: what is missing of them, with one apt-get update when an
# install from the current package index fails.
install() {
	# shellcheck disable=SC2086
	missing=$(missing_of "$@")
	[ -n "$missing" ] || return 0
	line="apt-get install -y --no-install-recommends $missing"
	if [ "$(id -u)" != 0 ]; then
		echo "$me: missing Debian packages; as root run: $line" >&2
		exit 2
	fi
	echo "$me: installing missing packages: $missing" >&2
	deadline=$(($(date +%s) + lock_wait)) said=""
	# shellcheck disable=SC2086
	if ! apt_get install -y --no-install-recommends $missing; then
		apt_get update || { echo "$me: apt-get update failed: $(apt_error)" >&2; exit 2; }
		# shellcheck disable=SC2086
		apt_get install -y --no-install-recommends $missing || true
	fi
	# shellcheck disable=SC2086
	rest=$(missing_of $missing)
	if [ -n "$rest" ]; then
		echo "$me: could not install: $rest($(apt_error))" >&2
		exit 2
	fi
}

# san_links: clang links a libFuzzer target with ASan and UBSan, as the
# sanitizer and fuzz builds do; clang's first error in $tmp/san.err.
san_links() {
	tmpdir
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return n && d[0] == 1; }' > "$tmp/san.c"
	clang -fsanitize=fuzzer,address,undefined -o "$tmp/san" "$tmp/san.c" 2>"$tmp/san.err"
}

# shellcheck disable=SC2086
install $pkgs
case $purpose in test|all) ;; *) exit 0 ;; esac
san_links && exit 0
# The clang on PATH is not the default one: the runtime of its own version.
v=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
if [ -n "$v" ] && ! installed "libclang-rt-$v-dev" && apt-cache show "libclang-rt-$v-dev" >/dev/null 2>&1; then
	install "libclang-rt-$v-dev"
	san_links && exit 0
fi
echo "$me: clang ${v:-?} cannot link -fsanitize=fuzzer,address,undefined" \
	"(libclang-rt-${v:-N}-dev): $(head -n1 "$tmp/san.err")" >&2
exit 2
