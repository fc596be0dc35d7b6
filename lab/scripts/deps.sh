#!/bin/sh
# The Debian packages the lab needs, by purpose, and how to get them.
#
#   deps.sh ensure PURPOSE   install what PURPOSE (build|test|run|kernel|all) lacks
#   deps.sh install all      the same for every purpose
#   deps.sh list PURPOSE     print the package names
#
# As root the missing packages are installed with apt-get; otherwise the
# exact apt-get line is printed and the exit status is 2.
set -eu

# clang compiles the lab's BPF programs (lab/bpf/*.bpf.c) into the binary.
build_pkgs="gcc make pkg-config libbpf-dev libtracefs-dev libtraceevent-dev
libinih-dev libjson-c-dev libhwloc-dev libelf-dev libdw-dev zlib1g-dev xz-utils clang"
# pahole reads and converts layouts; perf records c2c/lock data; gnuplot plots.
run_pkgs="dwarves linux-perf gnuplot-nox"
# prove runs the TAP tests (perl); clang builds the sanitizer and fuzz targets;
# qemu and a static busybox boot real kernels for the guest tests (vm).
test_pkgs="perl clang libclang-rt-14-dev qemu-system-x86 busybox-static tmux"
# make lab-kernel: what building a kernel with BTF needs.
kernel_pkgs="bison flex bc dwarves patch"

pkgs_for() {
	case "$1" in
	build) echo $build_pkgs ;;
	run) echo $build_pkgs $run_pkgs ;;
	test) echo $build_pkgs $run_pkgs $test_pkgs ;;
	kernel) echo $build_pkgs $kernel_pkgs ;;
	all) echo $build_pkgs $run_pkgs $test_pkgs $kernel_pkgs ;;
	*) echo "deps.sh: unknown purpose '$1' (build, run, test, kernel, all)" >&2; exit 2 ;;
	esac
}

missing_of() {
	for p in $(pkgs_for "$1"); do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$st" = installed ] || printf '%s ' "$p"
	done
}

cmd=${1:-ensure}
purpose=${2:-all}
case "$cmd" in
list) pkgs_for "$purpose"; exit 0 ;;
ensure|install) ;;
*) echo "usage: deps.sh ensure|install|list PURPOSE" >&2; exit 2 ;;
esac

missing=$(missing_of "$purpose")
[ -n "$missing" ] || exit 0
line="apt-get install -y --no-install-recommends $missing"
if [ "$(id -u)" != 0 ]; then
	echo "memcg-lab: missing Debian packages; as root run: $line" >&2
	exit 2
fi
echo "memcg-lab: installing missing packages: $missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Update the package index only when an install from the current one fails.
if ! apt-get install -y --no-install-recommends $missing >/dev/null 2>&1; then
	apt-get update >/dev/null
	apt-get install -y --no-install-recommends $missing >/dev/null
fi
rest=$(missing_of "$purpose")
if [ -n "$rest" ]; then
	echo "memcg-lab: could not install: $rest" >&2
	exit 2
fi
