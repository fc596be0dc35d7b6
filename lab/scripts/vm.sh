#!/bin/sh
# The engine behind `memcg-lab vm`: real kernels under qemu.
#
#   vm.sh kernel [--suite S] SPEC   fetch and cache a kernel; prints its directory
#   vm.sh run --out DIR --tmp DIR --binary BIN --kernel SPEC [--suite S]
#             [--kernel-dir DIR (of a kernel already fetched)] --cpus N
#             [--nodes M --sockets S --threads-per-core T (0: qemu's own)]
#             --mem MB --timeout S --accel A [--add PATH]... [--env K=V]...
#             [--perf VERSION (Debian's perf, lab/scripts/perf-runtime.sh)]
#             [--append ARGS] [--console] [--lines [--lines-opts OPTS] [--lines-window lab|command]]
#             [--insns] [--trace] [--trace-struct NAME[@SYMBOL]]...
#             [--kmod KO (lab/scripts/kmod.sh built it)] [--icount]
#             (--shell CMD | -- LAB-ARGS...)
#   The guest's settings have no defaults here: memcg-lab vm (lab/cmd/vm.c)
#   holds them and passes each one.  --tmp is an empty private directory
#   memcg-lab vm made (mkdtemp, 0700, marked as the lab's: util/owned.h)
#   for the guest's images; this script removes it when it ends.
#
# SPEC is a Debian kernel image package (linux-image-6.1.0-57-amd64, or a
# meta package such as linux-image-6.12-amd64, followed to its image), an
# alias (5.10 = bullseye's linux-image-amd64, 6.1 = bookworm's, 6.12 =
# bookworm's linux-image-6.12-amd64), "lab" (the kernel `make lab-kernel`
# built) or the path of a vmlinux/bzImage.  Packages come from the host's
# own apt sources when they include the suite; otherwise from a private apt
# configuration (APT_CONFIG) under the cache, so /etc/apt is never touched.
#
# Everything large lives under $MEMCG_LAB_CACHE (default /var/cache/memcg-lab,
# or ~/.cache/memcg-lab when that is not writable):
#   kernels/<package>_<version>/  vmlinux (ELF, booted via PVH), config,
#                                 package, disk-modules.2/ (brd, ext4 and
#                                 their dependencies: lab/scripts/kmods.sh)
#   apt/<suite>/                  private apt configuration and lists
#   initramfs/<sha>.cpio.gz       initramfs images, keyed by their contents
#                                 (the 8 used last are kept)
# Each entry is built in a temporary directory and renamed into place.
#
# `run` writes into DIR: console.log (the guest's console), payload.tgz
# (what the guest sent back, checksum verified: output.txt with the
# command's stdout and stderr, exit-status, guest.txt, dmesg.txt, results/
# with the guest's results directories; memcg-lab vm extracts it) and
# vm.env (what was booted and how).
# The guest's /var/tmp is a disk filesystem, as a host's is: ext2 on a RAM
# disk of half its memory (vm-init.sh; guest_var_tmp in vm.env says what
# it got, and memcg-lab vm notes when it is not on a disk).
# With --lines qemu loads the lab's TCG plugin (build/lines-plugin.so,
# lab/c2c/README), which writes DIR/plugin-lines.tsv at qemu's exit
# (memcg-lab vm moves it to DIR/lines/lines.tsv once the payload is in); OPTS
# are its NAME=VALUE options, comma-separated (out= is set here; windows=each
# unless OPTS say otherwise).  The guest gets MEMCG_LAB_LINES_DIR=/out/lines:
# the lab there opens the windows and writes what they hold, /init adds the
# kernel's code symbols and notes (and its BTF, unless this script took it
# from the vmlinux it boots: DIR/plugin-vmlinux.btf); memcg-lab vm checks
# the plugin's status and turns it all into lines/fields.tsv, perf.data and
# c2c.txt.  --insns: the plugin counts the instructions alone (mode=insns),
# under single-threaded TCG on a guest clock that counts instructions
# (-icount); --trace: the access trace too (DIR/plugin-lines.tsv.trace,
# moved to lines/trace.bin); --trace-struct: more objects, by type
# (MEMCG_LAB_LINES_STRUCTS in the guest).
# With --lines-window command the window is opened around --shell CMD
# instead (`memcg-lab c2c window -- sh CMD`), for a program that opens none.
# With --kmod the lab's kmem_bench module (lab/scripts/kmod.sh built it for
# this kernel) lands in the guest where the lab looks for it,
# /lab/build/kmod/<release>/kmem_bench.ko with its built.txt (vm.env's
# kmod says what it was built against).  With --icount (and --insns) qemu
# runs TCG with -icount shift=0: the guest's clock advances 1 ns per
# instruction it executes, so what the lab times inside are instruction
# counts.
# Exit status: the guest command's, or 2 with one line on stderr when the
# guest could not run it (no qemu, no apt, unknown package, a panic, a hang).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
me=memcg-lab-vm

die() { echo "$me: $*" >&2; exit 2; }

# Temporary paths (per process: concurrent runs do not share them) go away
# on every exit.  set -e ends the script on any failing command: say so
# when that was not one of ours (die's 2, or the guest's status at the end).
cleanup_paths=""
on_exit() {
	rc=$?
	# A qemu still running (this script was stopped mid-boot) goes too.
	[ -z "${qpid:-}" ] || kill "$qpid" 2>/dev/null || true
	# shellcheck disable=SC2086
	[ -z "$cleanup_paths" ] || rm -rf $cleanup_paths
	[ "$rc" = 0 ] || [ "$rc" = 2 ] || [ "$rc" = 130 ] || [ -n "${finished:-}" ] ||
		echo "$me: internal error: a command of lab/scripts/vm.sh failed (exit $rc)" >&2
}
trap on_exit EXIT
trap 'exit 130' INT TERM HUP
# Sets t to a fresh temporary name next to a cache entry, removed on exit unless
# publish() moved it into place.
tmpname() { t="$1.tmp.$$"; cleanup_paths="$cleanup_paths $t"; rm -rf "$t"; }
# Moves a finished temporary entry into place; when a concurrent run got
# there first, its entry stays and ours goes.
publish() { mv -T "$1" "$2" 2>/dev/null || rm -rf "$1"; }
# For functions called as $(...): a subshell does not inherit the EXIT
# trap, and must clean up only what it made itself.
own_cleanup() { cleanup_paths=""; trap on_exit EXIT; }
note() { [ -n "${quiet:-}" ] || echo "$me: $*" >&2; }

# shellcheck source=lab/scripts/lab-cache.sh
. "$here/lab-cache.sh"
cache=$(lab_cache_dir)
mkdir -p "$cache" || die "cannot create the cache directory $cache"

# ---- apt: the host's configuration, or a private one for another suite ----

# shellcheck source=lab/scripts/apt-private.sh
. "$here/apt-private.sh"

aptenv=""	# "APT_CONFIG=..." for a private suite, "" for the host's

# Asked once per process (subshells inherit the answer once it is known).
host_has_suite() {
	# shellcheck disable=SC2016 # $(CODENAME) is apt's own template
	[ -n "${host_suites+set}" ] ||
		host_suites=$(apt-get indextargets --format '$(CODENAME)' 2>/dev/null | sort -u)
	echo "$host_suites" | grep -qx "$1"
}

# The security archive carries <codename>-security for released codenames
# only (no trixie-backports-security, no sid-security): ask it, with apt's
# own fetcher, instead of guessing from the name.
security_suite_exists() {	# suite scratch-dir
	/usr/lib/apt/apt-helper download-file \
		"http://deb.debian.org/debian-security/dists/$1-security/Release" "$2/security-release" \
		>/dev/null 2>&1
}

use_suite() {
	suite=$1
	aptenv=""
	[ -n "$suite" ] || return 0
	command -v apt-get >/dev/null || die "apt-get not found: kernels are fetched with apt"
	host_has_suite "$suite" && return 0
	d=$cache/apt/$suite
	if [ ! -f "$d/apt.conf" ]; then
		tmpname "$d"
		mkdir -p "$t/lists/partial"
		security=""
		if security_suite_exists "$suite" "$t/lists/partial"; then
			security=$suite-security
		fi
		rm -f "$t/lists/partial/security-release"
		apt_private_write "$t" "$d" "$suite" ${security:+"$security"}
		publish "$t" "$d"
	fi
	aptenv="APT_CONFIG=$d/apt.conf"
	urc=0
	apt_private_update "$d" "Debian $suite" || urc=$?
	[ "$urc" = 0 ] && return 0
	# A suite apt refused (or could not reach) leaves no configuration
	# behind: the next try starts afresh.
	rm -rf "$d"
	[ "$urc" = 2 ] || die "apt-get update refused Debian suite $suite: $apt_msg"
	die "no apt access to Debian $suite: $apt_msg"
}

# The suites a kernel line alias (6.12, 7.3-rt) is looked up in; the newest
# package of the line across all of them wins.
line_suites="bullseye bookworm trixie trixie-backports sid experimental"
# The kernel line aliases (vm --list, the messages): memcg-lab vm passes
# them (VM_KERNEL_LINES in lab/experiment/guest.h, which `memcg-lab help`
# prints too).
lines_known=${MEMCG_LAB_VM_LINES:-}
case $lines_known in
'' | *[!0-9.\ ]*) die "MEMCG_LAB_VM_LINES='$lines_known' is no list of kernel lines: run vm.sh through memcg-lab vm" ;;
esac

# The package lists of $line_suites (fetching those not there yet).
suite_lists() {
	for s in $line_suites; do
		use_suite "$s"
		if [ -n "$aptenv" ]; then
			echo "$cache/apt/$s/lists"
		else
			apt-config shell L Dir::State::Lists/d | sed "s/^L='\(.*\)'$/\1/"
		fi
	done
}

# Prints the path of a table "suite package version" of every amd64 and
# rt-amd64 kernel image package in $line_suites: two apt-cache calls per
# suite, rebuilt only when a package list changed.
kernel_table() {
	own_cleanup
	tab=$cache/kernels/resolved/kernel-lines
	lists=$(suite_lists)
	# shellcheck disable=SC2086
	if [ -f "$tab" ] && [ -z "$(find $lists -maxdepth 1 -newer "$tab" -name '*Packages*' 2>/dev/null)" ]; then
		echo "$tab"
		return 0
	fi
	mkdir -p "$(dirname "$tab")"
	tmpname "$tab"
	for s in $line_suites; do
		use_suite "$s"
		names=$(env ${aptenv:+"$aptenv"} apt-cache pkgnames linux-image- 2>/dev/null |
			grep -E '^linux-image-[0-9][^ ]*-(rt-)?amd64$' | grep -vE -- '-(cloud|dbg|unsigned)-' || true)
		[ -n "$names" ] || continue
		# shellcheck disable=SC2086
		env ${aptenv:+"$aptenv"} apt-cache show --no-all-versions $names 2>/dev/null |
			awk -v s="$s" '/^Package: / { p = $2 } /^Version: / { print s, p, $2 }'
	done > "$t"
	mv "$t" "$tab"
	echo "$tab"
}

# Prints "suite package version" for a kernel line alias: LINE (flavour
# amd64) or LINE-rt (flavour rt-amd64), the newest image package of that
# line in $line_suites.  Package names across the releases: linux-image-
# 5.10.0-32-amd64, 6.1.0-57-amd64, 6.12.117+deb12-amd64, 7.3.4+deb13-amd64,
# 7.3-amd64 (experimental); a meta package of the line (linux-image-6.12-
# amd64) ties with its target and is followed later.
resolve_line() {
	own_cleanup
	spec=$1
	line=${spec%-rt}
	flavour=amd64
	[ "$line" = "$spec" ] || flavour=rt-amd64
	tab=$(kernel_table)
	re="^linux-image-$(echo "$line" | sed 's/\./\\./g')([.][0-9]+)*(\+[a-z0-9]+)?(-[0-9][0-9a-z.]*)?-$flavour\$"
	best="" bestv=""
	while read -r s p v; do
		case $v in "$line".*|"$line"~*|"$line"-*) ;; *) continue ;; esac
		if [ -z "$bestv" ] || dpkg --compare-versions "$v" gt "$bestv"; then
			best="$s $p $v" bestv=$v
		fi
	done <<-EOF
	$(RE=$re awk '$2 ~ ENVIRON["RE"]' "$tab")
	EOF
	[ -n "$best" ] ||
		die "no suite carries kernel line $line (flavour $flavour): no linux-image-$line* package in $(echo "$line_suites" | sed 's/ /, /g')"
	echo "$best"
}

# Follows meta packages (linux-image-amd64 -> linux-image-6.1.0-57-amd64)
# and prints "package version".  One apt-cache call per hop; the answer is
# remembered until apt's package lists change.
resolve_package() {
	lists=$(env ${aptenv:+"$aptenv"} apt-config shell L Dir::State::Lists/d | sed "s/^L='\(.*\)'$/\1/")
	memo=$cache/kernels/resolved/${suite:-host}-$1
	if [ -f "$memo" ] && [ -z "$(find "$lists" -maxdepth 1 -newer "$memo" -name '*Packages*' 2>/dev/null)" ]; then
		cat "$memo"
		return 0
	fi
	p=$1
	for _ in 1 2 3 4; do
		info=$(env ${aptenv:+"$aptenv"} apt-cache show --no-all-versions "$p" 2>/dev/null) ||
			die "no Debian package named '$p'${suite:+ in $suite} (apt-cache show knows none; expected e.g. linux-image-6.1.0-57-amd64, linux-image-6.12-amd64 or an alias: $lines_known, LINE-rt, lab)"
		field() { echo "$info" | sed -n "s/^$1: //p" | head -n1; }
		deps=$(field Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep '^linux-image-' || true)
		if [ -n "$deps" ] && [ "$(echo "$deps" | wc -l)" = 1 ] && [ "$(field Installed-Size)" -lt 1000 ]; then
			p=$deps
			continue
		fi
		mkdir -p "$(dirname "$memo")"
		echo "$p $(field Version)" | tee "$memo"
		return 0
	done
	die "package '$1' leads through more than 3 meta packages"
}

# bzImage -> ELF vmlinux: the payload location is in the setup header
# (setup_sects at 0x1f1, payload_offset at 0x248, payload_length at 0x24c).
extract_vmlinux() {	# bzImage out
	le32() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
	sects=$(od -An -t u1 -j 497 -N 1 "$1" | tr -d ' ')
	[ "$sects" = 0 ] && sects=4
	off=$(( (sects + 1) * 512 + $(le32 "$1" 584) ))
	len=$(le32 "$1" 588)
	magic=$(od -An -t x1 -j "$off" -N 4 "$1" | tr -d ' ')
	case $magic in
	fd377a58) dec="xz -dc" ;;
	28b52ffd) dec="zstd -dcq" ;;
	1f8b*) dec="gzip -dc" ;;
	*) return 1 ;;
	esac
	# head stops reading at the payload's end: tail's broken pipe is expected.
	tail -c +"$((off + 1))" "$1" 2>/dev/null | head -c "$len" | $dec > "$2" 2>/dev/null || true
	[ "$(od -An -c -N 4 "$2" | tr -d ' ')" = '177ELF' ]
}

# Prints the cached kernel directory of SPEC, fetching it when needed.
kernel_dir() {
	own_cleanup
	spec=$1
	case $spec in
	lab)
		v=$("$root/lab/scripts/lab-kernel.sh" --print) ||
			die "no lab kernel built yet: run 'make lab-kernel' (it takes long: see lab/scripts/lab-kernel.sh)"
		dirname "$v"
		return 0 ;;
	/*|./*|../*)
		[ -f "$spec" ] || die "kernel image $spec: no such file"
		d=$cache/kernels/file-$(sha256sum "$spec" | cut -c1-16)
		if [ ! -f "$d/vmlinux" ]; then
			tmpname "$d"
			mkdir -p "$t"
			if [ "$(od -An -c -N 4 "$spec" | tr -d ' ')" = '177ELF' ]; then
				cp "$spec" "$t/vmlinux"
			else
				extract_vmlinux "$spec" "$t/vmlinux" ||
					die "$spec is neither an ELF vmlinux nor a bzImage with an xz/zstd/gzip payload"
			fi
			echo "file $spec" > "$t/package"
			publish "$t" "$d"
		fi
		echo "$d"
		return 0 ;;
	[0-9]*)
		echo "$spec" | grep -qE '^[0-9]+\.[0-9]+(-rt)?$' ||
			die "unknown kernel '$spec': expected a kernel line ($lines_known) or LINE-rt, a Debian package (linux-image-...), 'lab' or a path"
		host_has_suite none || true
		spv=$(resolve_line "$spec")
		use_suite "${spv%% *}"
		pkg=$(echo "$spv" | cut -d' ' -f2) ;;
	linux-image-*) use_suite "$opt_suite"; pkg=$spec ;;
	*) die "unknown kernel '$spec': expected a kernel line ($lines_known) or LINE-rt, a Debian package (linux-image-...), 'lab' or a path" ;;
	esac
	command -v apt-get >/dev/null || die "apt-get not found: kernels are fetched with apt"
	pv=$(resolve_package "$pkg")
	pkg=${pv% *}
	ver=${pv#* }
	d=$cache/kernels/${pkg}_$ver
	if [ ! -f "$d/vmlinux" ]; then
		tmpname "$d"
		fetch_image "$pkg" "$ver" "$t"
		publish "$t" "$d"
	fi
	echo "$d"
}

# Downloads PKG=VER into DIR and leaves there vmlinux, config and package.
# Up to 6.18 the image package holds /boot/vmlinuz-* and /boot/config-*.
# From 6.19 on linux-image-<ver> is empty: the image is in linux-binary-<ver>
# (at /boot/vmlinuz-*, and from 7.2 at /usr/lib/modules/<ver>/vmlinuz) and
# the config in linux-base-<ver> (/usr/lib/modules/<ver>/config): those of
# its dependencies come along, at the same version.
fetch_image() {	# pkg ver dir
	mkdir -p "$3/deb" "$3/x"
	chown _apt "$3/deb" 2>/dev/null || true
	info=$(env ${aptenv:+"$aptenv"} apt-cache show "$1=$2" 2>/dev/null) || info=""
	# "name=version" of those parts, from the (= version) Depends names.
	parts=$(echo "$info" | sed -n 's/^Depends: //p' | head -n1 | tr ',|' '\n' |
		sed -n 's/^ *\([^ ]*\) (= \([^)]*\)).*/\1=\2/p' |
		grep -F -e "linux-binary-${1#linux-image-}=" -e "linux-base-${1#linux-image-}=" || true)
	note "downloading $1 $2${suite:+ ($suite)}${parts:+ with $(echo "$parts" | tr '\n' ' ' | sed 's/ $//; s/ /, /g')}"
	# shellcheck disable=SC2086 # parts: name=version words, one a line
	for p in "$1=$2" $parts; do
		if ! (cd "$3/deb" && env ${aptenv:+"$aptenv"} apt-get download "$p") >"$3/apt.log" 2>&1; then
			# linux-base-<ver> (the config) is not in every suite
			# that has the image (6.19 to 7.1 in trixie-backports).
			case $p in
			linux-base-*) note "no kernel config: $(grep -E '^(E|Err):' "$3/apt.log" | head -n1)"; continue ;;
			esac
			die "apt-get download $p failed: $(apt_failure "$3/apt.log")"
		fi
	done
	for deb in "$3/deb/"*.deb; do
		# tar fails on the patterns a part does not hold: the files
		# found below decide.
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$3/x" --wildcards \
			'./boot/vmlinuz-*' './boot/config-*' './usr/lib/modules/*/vmlinuz' \
			'./usr/lib/modules/*/config' 2>/dev/null || true
	done
	img=""
	for f in "$3/x/boot/vmlinuz-"* "$3/x/usr/lib/modules/"*/vmlinuz; do [ -f "$f" ] && [ -z "$img" ] && img=$f; done
	if [ -z "$img" ]; then
		held=$(for deb in "$3/deb/"*.deb; do dpkg-deb -c "$deb"; done | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }')
		die "$1 $2 holds no kernel image (no /boot/vmlinuz-* nor /usr/lib/modules/*/vmlinuz${parts:+ in it or in $(echo "$parts" | tr '\n' ' ' | sed 's/ $//; s/ /, /g')}): it holds $(echo "$held" | grep -c .) files, e.g. $(echo "$held" | head -n2 | tr '\n' ' ' | sed 's/ $//; s/ /, /')"
	fi
	extract_vmlinux "$img" "$3/vmlinux" ||
		die "cannot decompress the kernel of $1 $2 (${img#"$3/x"}: payload neither xz, zstd nor gzip)"
	cfg=""
	for f in "$3/x/boot/config-"* "$3/x/usr/lib/modules/"*/config; do [ -f "$f" ] && [ -z "$cfg" ] && cfg=$f; done
	if [ -n "$cfg" ]; then mv "$cfg" "$3/config"; fi
	echo "$1 $2 ${suite:-host-apt}" > "$3/package"
	rm -rf "$3/x" "$3/deb" "$3/apt.log"
}

# `vm --list`: every kernel line alias, what it resolves to, whether cached.
cmd_list() {
	host_has_suite none || true
	# In a subshell: kernel_table's own_cleanup must not forget ours.
	(kernel_table) >/dev/null
	tmpname "$cache/list-err"
	printf '%-9s %-36s %-22s %-17s %s\n' ALIAS PACKAGE VERSION SUITE CACHED
	for l in $lines_known; do
		for a in "$l" "$l-rt"; do
			spv=$( (resolve_line "$a") 2>"$t") || {
				printf '%-9s %s\n' "$a" "-  ($(tail -n1 "$t" | sed "s/^$me: //"))"
				continue
			}
			s=${spv%% *}
			use_suite "$s"
			pv=$( (resolve_package "$(echo "$spv" | cut -d' ' -f2)") 2>"$t") || {
				printf '%-9s %s\n' "$a" "-  ($(tail -n1 "$t" | sed "s/^$me: //"))"
				continue
			}
			c=no
			[ -f "$cache/kernels/${pv% *}_${pv#* }/vmlinux" ] && c=yes
			printf '%-9s %-36s %-22s %-17s %s\n' "$a" "${pv% *}" "${pv#* }" "$s" "$c"
		done
	done
}

# ---- the guest's disk ----

# The modules of the guest's RAM disk (its /var/tmp: vm-init.sh), brd and
# ext4 with what they need, for a Debian kernel that has them as modules:
# fetched once (lab/scripts/kmods.sh, from the kernel's module package)
# into the kernel's cache directory.  Prints that directory; nothing for
# a kernel that has them built in (the lab kernel) or is no Debian
# package, or, with a note, when they cannot be had (the guest then says
# that its /var/tmp is not on a disk).
disk_modules() {	# kernel-dir
	own_cleanup
	case $(cut -d' ' -f1 "$1/package" 2>/dev/null) in
	linux-image-*) ;;
	*) return 0 ;;
	esac
	# Those its config builds as modules (without a config: both).
	mods="brd ext4"
	if [ -f "$1/config" ]; then
		mods=""
		grep -qx 'CONFIG_BLK_DEV_RAM=y' "$1/config" || mods=brd
		grep -qxE 'CONFIG_EXT[24]_FS=y' "$1/config" || mods="$mods ext4"
		[ -n "$mods" ] || return 0
	fi
	# Versioned: a directory kmods.sh made before it followed soft
	# dependencies (disk-modules) lacks 5.10's crc32c_generic.
	d=$1/disk-modules.2
	if [ ! -f "$d/order" ]; then
		tmpname "$d"
		note "fetching the modules of the guest's RAM disk ($(echo "$mods" | sed 's/ /, /g')) for $(cut -d' ' -f1-2 "$1/package")"
		# shellcheck disable=SC2086
		if ! msg=$("$here/kmods.sh" "$1" "$t" $mods 2>&1 >/dev/null); then
			note "the guest's /var/tmp will not be on a disk: ${msg#kmods: }"
			return 0
		fi
		publish "$t" "$d"
	fi
	echo "$d"
}

# ---- the initramfs ----

# Copies an ELF and the libraries ldd names (same paths in the guest).
add_elf() {	# src dst-in-root stage
	mkdir -p "$3$(dirname "$2")"
	cp -L "$1" "$3$2"
	ldd "$1" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' |
	while read -r lib; do
		[ -e "$3$lib" ] && continue
		mkdir -p "$3$(dirname "$lib")"
		cp -L "$lib" "$3$lib"
	done
}

is_elf() { [ "$(od -An -c -N 4 "$1" 2>/dev/null | tr -d ' ')" = '177ELF' ]; }

# Stages the guest's root in $1 and prints the cached cpio.gz path.
build_initramfs() {
	own_cleanup
	st=$1
	bb=$(command -v busybox || true)
	[ -n "$bb" ] && file_is_static "$bb" || bb=/bin/busybox
	[ -x "$bb" ] || die "busybox not found: apt-get install --no-install-recommends busybox-static"
	file_is_static "$bb" || die "$bb is not statically linked: apt-get install busybox-static"
	mkdir -p "$st/bin" "$st/lab/vm" "$st/lab/bin" "$st/out/results" "$st/tmp" \
		"$st/proc" "$st/sys" "$st/dev" "$st/etc" "$st/root"
	cp "$bb" "$st/bin/busybox"
	# Applets become links at boot (busybox --install -s), except sh and
	# the ones /init needs before that.
	for a in sh mount mkdir; do ln -sf busybox "$st/bin/$a"; done
	cp "$here/vm-init.sh" "$st/init"
	chmod 755 "$st/init"
	add_elf "$opt_binary" /lab/bin/memcg-lab "$st"
	for d in experiments layouts plots; do
		if [ -d "$root/$d" ]; then cp -r "$root/$d" "$st/lab/"; fi
	done
	echo "root:x:0:0:root:/root:/bin/sh" > "$st/etc/passwd"
	echo "root:x:0:" > "$st/etc/group"
	for a in $opt_add; do
		case $a in
		/*) src=$a ;;
		*) src=$root/$a ;;
		esac
		[ -e "$src" ] || die "--add $a: no such file"
		case $src in
		"$root"/*) dst=/lab/${src#"$root"/} ;;
		*) dst=$src ;;
		esac
		if [ -d "$src" ]; then
			mkdir -p "$st$dst"
			cp -r "$src/." "$st$dst/"
			find "$src" -type f | while read -r f; do
				if is_elf "$f"; then add_elf "$f" "$dst${f#"$src"}" "$st"; fi
			done
		elif is_elf "$src"; then
			add_elf "$src" "$dst" "$st"
		else
			mkdir -p "$st$(dirname "$dst")"
			cp "$src" "$st$dst"
		fi
	done
	# The perf runtime is self-contained (its own loader and libraries):
	# copied as it is, at the same path, without add_elf's host libraries.
	if [ -n "${perf_dir:-}" ]; then
		mkdir -p "$st$perf_dir"
		cp -a "$perf_dir/." "$st$perf_dir/"
	fi
	# Contents decide the cache key (the command and env files come last,
	# in a second small archive appended to the cached one).
	sum=$(cd "$st" && find . -type f -o -type l | LC_ALL=C sort |
		while read -r f; do echo "$f"; if [ -L "$f" ]; then readlink "$f"; else cat "$f"; fi; done |
		sha256sum | cut -c1-16)
	img=$cache/initramfs/$sum.cpio.gz
	if [ ! -f "$img" ]; then
		mkdir -p "$cache/initramfs"
		tmpname "$img"
		(cd "$st" && find . | LC_ALL=C sort | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$t" ||
			die "cannot write the initramfs $img"
		mv "$t" "$img"
	fi
	# Each build of the lab makes a new image: keep the 8 used last.
	touch "$img"
	# shellcheck disable=SC2012 # the lab's own names ([0-9a-f].cpio.gz), newest first
	ls -t "$cache"/initramfs/*.cpio.gz | tail -n +9 | while read -r old; do rm -f "$old"; done
	echo "$img"
}

file_is_static() { ! ldd "$1" >/dev/null 2>&1; }

# ---- booting ----

# MEMCG_LAB_QEMU: another qemu (a newer Debian one run with its own loader).
qemu_bin=${MEMCG_LAB_QEMU:-qemu-system-x86_64}

# KVM only where it can work: /dev/kvm usable and the CPU shows VT-x/AMD-V
# (a VM whose host exposes /dev/kvm without nested virtualization has the
# device but qemu aborts on it).  Otherwise TCG: slower, and throughput in it
# means nothing, but counts and code paths are the guest kernel's own.
pick_accel() {
	case $opt_accel in
	kvm|tcg|mttcg) accel=$opt_accel ;;
	auto)
		accel=tcg
		if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
			accel=kvm
		fi ;;
	*) die "--accel: '$opt_accel' is not kvm, tcg, mttcg or auto" ;;
	esac
}
# TCG runs the vCPUs in one thread: with one thread per vCPU (MTTCG), a
# guest's live code patching (text_poke_bp: int3, IPI, rewrite) sometimes
# leaves another vCPU running the stale int3 ("Oops: int3" in the patched
# function, then a panic, before /init) -- 3 boots in 25 on a loaded 2-CPU
# host here.  One thread costs ~25% of a boot's time.
# --accel mttcg asks for it anyway.
accel_args() {
	case $accel in
	kvm) echo "-accel kvm -cpu host" ;;
	mttcg) echo "-accel tcg,thread=multi -cpu max" ;;
	*) echo "-accel tcg,thread=single -cpu max${opt_icount:+ -icount shift=0,sleep=off}" ;;
	esac
}

# -smp and -numa of the guest's shape (memcg-lab vm checked it): qemu
# numbers vCPUs socket by socket, core by core, thread by thread, so node i
# holds the i-th run of N/M of them, and the i-th M-th of the memory (the
# last node the rest).  No shape asked for: plain -smp N, qemu's own.
topology_args() {
	if [ "$opt_sockets" = 0 ]; then
		echo "-smp $opt_cpus"
		return
	fi
	echo "-smp $opt_cpus,sockets=$opt_sockets,cores=$((opt_cpus / opt_sockets / opt_threads)),threads=$opt_threads"
	[ "$opt_nodes" != 0 ] || return 0
	per=$((opt_cpus / opt_nodes)) nmem=$((opt_mem / opt_nodes)) i=0
	while [ "$i" -lt "$opt_nodes" ]; do
		m=$nmem
		[ "$i" != $((opt_nodes - 1)) ] || m=$((opt_mem - nmem * (opt_nodes - 1)))
		echo "-object memory-backend-ram,id=node$i,size=${m}M"
		echo "-numa node,nodeid=$i,cpus=$((i * per))-$((i * per + per - 1)),memdev=node$i"
		i=$((i + 1))
	done
}

# qemu's own word on why it stopped: the first line of its stderr in its
# own name that is not a warning, without that name ("qemu-system-x86_64:
# Invalid SMP CPUs 256. The max CPUs ..."); else the first line that is
# neither a warning nor a warning's continuation; or the signal that ended it.
# A plugin that refused to load (--lines) said why on the line before
# qemu's "Could not load plugin": that line follows in parentheses.
qemu_error() {	# qemu.log qemu-exit
	msg=$(awk '/^[^ ]*qemu[^ ]*: warning: / { w = 1; next }
		/^[^ ]*qemu[^ ]*: / { sub(/^[^ ]*qemu[^ ]*: /, "")
			# A plugin that refused to load said why just before.
			if (/^Could not load plugin/ && prev != "") $0 = $0 " (" prev ")"
			print; found = 1; exit }
		NF { prev = $0 }
		!w && NF && other == "" { other = $0 }
		END { if (!found && other != "") print other }' "$1" 2>/dev/null)
	[ -n "$msg" ] || [ "$2" -le 128 ] || [ "$2" = 137 ] || msg="qemu died of signal $(($2 - 128))${msg:+: $msg}"
	echo "$msg"
}

# --lines: the plugin's -plugin argument (qemu splits it at commas).
# MEMCG_LAB_LINES_PLUGIN: another plugin file (the tests' refusals).
lines_arg() {	# outdir
	plugin=${MEMCG_LAB_LINES_PLUGIN:-$root/build/lines-plugin.so}
	if [ ! -f "$plugin" ]; then
		why="not built (make)"
		[ -f "$root/build/lines-plugin.missing" ] && why=$(cat "$root/build/lines-plugin.missing")
		die "--lines: no $plugin: $why"
	fi
	case $1$plugin in *,*) die "--lines: the path $1 or $plugin has a comma, which qemu's -plugin cannot take" ;; esac
	case ,$opt_lines_opts, in *,out=*) die "--lines-opts: out= is set by vm (DIR/lines/lines.tsv)" ;; esac
	# The plugin writes beside the guest's lines/ (which comes back with
	# the payload, into a directory that must not exist yet); memcg-lab vm
	# moves the file into it.
	# A qemu built without the plugin API refuses -plugin while it reads
	# its options (-version after it exits before anything is loaded).
	if ! msg=$($qemu_bin -plugin "$plugin" -version 2>&1 >/dev/null); then
		die "--lines: $qemu_bin cannot load TCG plugins: $(echo "$msg" | sed -n '1s/^[^ ]*qemu[^ ]*: //p')"
	fi
	ver=$($qemu_bin --version 2>/dev/null | sed -n '1s/^QEMU emulator version //p' | tr -d '(),' | tr ' ' '_')
	# Each window on its own unless asked otherwise: the host names them
	# by the labels the guest's lab gave them (lines/<label>/).
	each=",windows=each"
	case ,$opt_lines_opts, in *,windows=*) each="" ;; esac
	# --insns: the instructions alone; --trace: the access trace, capped
	# (c2c/lines_trace.h's default unless OPTS give trace=N).
	extra=""
	[ -z "$opt_insns" ] || extra="$extra,mode=insns"
	if [ -n "$opt_trace" ]; then
		case ,$opt_lines_opts, in *,trace=*) ;; *) extra="$extra,trace=$trace_default" ;; esac
	fi
	echo "$plugin,out=$1/plugin-lines.tsv,qemu=${ver:-unknown}$each$extra${opt_lines_opts:+,$opt_lines_opts}"
}

# c2c/lines_trace.h's LINES_TRACE_DEFAULT_RECORDS (24 bytes each).
trace_default=16777216

# 0 ok, 10 no marker, 11 panic, 12 timeout, 13 qemu refused or failed (its
# reason in $qemu_msg); the guest's rc in $guest_rc.
boot_once() {	# kernel initrd outdir
	con=$3/console.log
	pay=$3/payload.b64
	rm -f "$con" "$pay"
	t0=$(date +%s.%N)
	set +e
	# --foreground: qemu stays in our process group, so Ctrl-C and a
	# kill of the group reach it; in the background so a signal to this
	# script runs its trap at once, and on_exit stops qemu (qpid).
	# accel_args and topology_args print options made of checked numbers
	# and fixed words, split on purpose.
	# shellcheck disable=SC2046,SC2086
	timeout --foreground -k 5 "$opt_timeout" "$qemu_bin" $(accel_args) \
		${plugin_arg:+-plugin "$plugin_arg"} \
		$(topology_args) -m "$opt_mem" -nodefaults -no-reboot \
		-display none -monitor none -nic none \
		-serial "file:$con" -serial "file:$pay" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-kernel "$1" -initrd "$2" \
		-append "console=ttyS0 panic=-1 quiet rdinit=/init memcg_lab.attempt=$attempts brd.rd_nr=1 brd.rd_size=$ramdisk_kib $opt_append" \
		>"$3/qemu.log" 2>&1 </dev/null &
	qpid=$!
	# (a qemu killed by a signal: said below, not by the shell)
	{ wait "$qpid"; } 2>/dev/null
	qrc=$?
	qpid=""
	set -e
	t1=$(date +%s.%N)
	boot_seconds=$(printf '%.2f' "$(echo "$t1 - $t0" | bc)")
	# qemu that refused its arguments made no console file.
	[ -f "$con" ] || : > "$con"
	tr -d '\r' < "$con" > "$con.tmp" 2>/dev/null && mv "$con.tmp" "$con"
	guest_rc=$(sed -n 's/.*@@MEMCG-LAB-EXIT=\([0-9]*\)@@.*/\1/p' "$con" | tail -n1)
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		return 12
	fi
	if [ -z "$guest_rc" ]; then
		grep -q 'Kernel panic' "$con" && return 11
		# Not the guest's doing: qemu said why (a refused -smp, a
		# missing ROM, an abort), and a second boot would say it again.
		qemu_msg=$(qemu_error "$3/qemu.log" "$qrc")
		[ -z "$qemu_msg" ] || return 13
		[ $((qrc % 2)) = 1 ] && grep -q '@@MEMCG-LAB-BEGIN' "$con" && {
			# /init ran and the port answered, but the end marker was
			# lost (qemu's own errors exit 1 before any BEGIN).
			guest_rc=$(( (qrc - 1) / 2 ))
			return 0
		}
		return 10
	fi
	# Both channels: the debug-exit code must agree with the marker.
	if [ $((qrc % 2)) = 1 ] && [ "$qrc" != $(( 2 * (guest_rc > 127 ? 127 : guest_rc) + 1 )) ]; then
		die "guest said exit $guest_rc but qemu's isa-debug-exit reported $(( (qrc - 1) / 2 ))"
	fi
	return 0
}

# Decodes the payload (tar.gz between markers, checksum verified) into
# DIR/payload.tgz.  What it holds is the guest's word: memcg-lab vm checks
# every member before it extracts any (util/untar.h), never tar here.
decode_payload() {	# dir
	pay=$1/payload.b64
	[ -s "$pay" ] || return 1
	tr -d '\r' < "$pay" | sed -n '/@@MEMCG-LAB-PAYLOAD-BEGIN@@/,/@@MEMCG-LAB-PAYLOAD-END/p' |
		sed '1d;$d' | base64 -d > "$1/payload.tgz" 2>/dev/null || return 1
	want=$(tr -d '\r' < "$pay" | sed -n 's/.*@@MEMCG-LAB-PAYLOAD-END \([0-9a-f]*\)@@.*/\1/p')
	got=$(sha256sum "$1/payload.tgz" | cut -d' ' -f1)
	[ -n "$want" ] && [ "$want" = "$got" ] || return 1
	rm -f "$pay"
}

last_lines() { tail -n "${2:-25}" "$1" 2>/dev/null | sed 's/^/  | /'; }

# What a crash said: from the first oops/BUG/panic line (with the 3 lines
# before it) on, at most 30 lines, and always the "Kernel panic" line.
crash_lines() {
	first=$(grep -n -m1 -E 'Kernel panic|BUG:|Oops|general protection|sysrq: Trigger' "$1" | cut -d: -f1)
	[ -n "$first" ] || { last_lines "$1"; return; }
	start=$((first > 3 ? first - 3 : 1))
	sed -n "$start,$((start + 29))p" "$1" | sed 's/^/  | /'
	sed -n "$((start + 30)),\$p" "$1" | grep -m1 'Kernel panic' | sed 's/^/  | /'
}

cmd_run() {
	opt_out="" opt_tmp="" opt_binary="" opt_kernel="" opt_kdir="" opt_suite="" opt_cpus="" opt_mem=""
	opt_timeout="" opt_add="" opt_append="" opt_console="" opt_shell="" envs="" opt_accel="" opt_perf=""
	opt_nodes=0 opt_sockets=0 opt_threads=1 opt_lines="" opt_lines_opts="" opt_lines_window=lab plugin_arg=""
	opt_kmod="" opt_icount="" opt_insns="" opt_trace="" opt_trace_structs=""
	while [ $# -gt 0 ]; do
		case $1 in
		--out) opt_out=$2; shift ;;
		--tmp) opt_tmp=$2; shift ;;
		--binary) opt_binary=$2; shift ;;
		--kernel) opt_kernel=$2; shift ;;
		--kernel-dir) opt_kdir=$2; shift ;;
		--suite) opt_suite=$2; shift ;;
		--cpus) opt_cpus=$2; shift ;;
		--mem) opt_mem=$2; shift ;;
		--nodes) opt_nodes=$2; shift ;;
		--sockets) opt_sockets=$2; shift ;;
		--threads-per-core) opt_threads=$2; shift ;;
		--timeout) opt_timeout=$2; shift ;;
		--add) opt_add="$opt_add $2"; shift ;;
		--perf) opt_perf=$2; shift ;;
		--env) envs="$envs
export $(printf '%s' "${2%%=*}")='$(printf '%s' "${2#*=}" | sed "s/'/'\\\\''/g")'"; shift ;;
		--append) opt_append=$2; shift ;;
		--accel) opt_accel=$2; shift ;;
		--console) opt_console=1 ;;
		--lines) opt_lines=1 ;;
		--lines-opts) opt_lines=1 opt_lines_opts=$2; shift ;;
		--lines-window) opt_lines=1 opt_lines_window=$2; shift ;;
		--kmod) opt_kmod=$2; shift ;;
		--icount) opt_icount=1 ;;
		--insns) opt_lines=1 opt_insns=1 ;;
		--trace) opt_lines=1 opt_trace=1 ;;
		--trace-struct) opt_lines=1 opt_trace_structs="$opt_trace_structs${opt_trace_structs:+,}$2"; shift ;;
		--shell) opt_shell=$2; shift ;;
		--) shift; break ;;
		*) die "run: unknown option '$1'" ;;
		esac
		shift
	done
	[ -n "$opt_out" ] || die "run: --out DIR is required"
	if [ -z "$opt_tmp" ] || [ ! -d "$opt_tmp" ] || [ -L "$opt_tmp" ]; then
		die "run: --tmp DIR (an empty private directory memcg-lab vm made) is required"
	fi
	for o in kernel:$opt_kernel cpus:$opt_cpus mem:$opt_mem timeout:$opt_timeout accel:$opt_accel; do
		[ -n "${o#*:}" ] || die "run: --${o%%:*} is required (memcg-lab vm passes its defaults)"
	done
	[ -x "$opt_binary" ] || die "run: --binary: '$opt_binary' is not an executable"
	[ -n "$opt_shell" ] || [ $# -gt 0 ] || die "run: nothing to run (--shell CMD or -- LAB-ARGS)"
	case $opt_lines_window in
	lab) ;;
	command) [ -n "$opt_shell" ] || die "run: --lines-window command opens the window around --shell CMD" ;;
	*) die "run: --lines-window '$opt_lines_window': not lab or command" ;;
	esac
	command -v "$qemu_bin" >/dev/null ||
		die "$qemu_bin not found: apt-get install --no-install-recommends qemu-system-x86 (or make deps)"
	mkdir -p "$opt_out"
	pick_accel
	[ -z "$opt_icount" ] || [ "$accel" = tcg ] ||
		die "--icount: qemu counts instructions under single-threaded TCG only, not $accel"
	if [ -n "$opt_kmod" ] && { [ ! -f "$opt_kmod" ] || [ ! -s "$(dirname "$opt_kmod")/release" ]; }; then
		die "run: --kmod $opt_kmod: not a module lab/scripts/kmod.sh built (no release file beside it)"
	fi
	if [ -n "$opt_lines" ]; then
		[ "$accel" != kvm ] || die "--lines: the plugin needs TCG (under KVM qemu sees no access): --accel tcg or mttcg"
		plugin_arg=$(lines_arg "$opt_out")
		# --insns under single-threaded TCG: the guest's clock counts its
		# instructions (1 ns each; idle time skipped), not the host's
		# time, so that the instructions an operation takes do not
		# depend on how fast the host ran the guest (timer ticks, waits):
		# two runs agree to 0.02% against 3% on the host's clock.
		# (One -icount for both: accel_args adds it where opt_icount is set.)
		if [ -n "$opt_insns" ] && [ "$accel" = tcg ]; then
			opt_icount=1
		fi
		# The trace's size, said before it is written: the cap the
		# plugin got, in records and bytes.
		if [ -n "$opt_trace" ]; then
			cap=$(echo ",$plugin_arg," | sed -n 's/.*,trace=\([0-9]*\),.*/\1/p' | tail -n1)
			note "--trace: at most ${cap:-?} records of 24 bytes ($(( ${cap:-0} * 24 / 1048576 )) MiB) into lines/trace.bin; a full one is said (lab/c2c/README: a 1.2 s window of 4 charging tasks took ~100 K records, 2-3 MiB)"
		fi
		# The lab in the guest opens the windows and says what they hold
		# (lab/c2c/lines_session.h); /init adds the kernel's symbols.
		envs="$envs
export MEMCG_LAB_LINES_DIR=/out/lines"
		# Counting instructions alone, the lab finds no objects (they
		# would name nothing); --trace-struct: more objects, by type.
		[ -z "$opt_insns" ] || envs="$envs
export MEMCG_LAB_LINES_COLLECT=insns"
		[ -z "$opt_trace_structs" ] || envs="$envs
export MEMCG_LAB_LINES_STRUCTS=$opt_trace_structs"
		case $opt_trace_structs in *[!A-Za-z0-9_,@]*) die "--trace-struct: '$opt_trace_structs' is not a list of NAME or NAME@SYMBOL" ;; esac
	fi
	# --perf VERSION: Debian's perf of that version with its own loader and
	# libraries (perf-runtime.sh), first on the guest's PATH as "perf".
	perf_dir=""
	if [ -n "$opt_perf" ]; then
		w=$("$here/perf-runtime.sh" "$opt_perf" 2>"$opt_out/perf-runtime.log") ||
			die "--perf $opt_perf: $(sed 's/^memcg-lab-perf-runtime: //' "$opt_out/perf-runtime.log" | tail -n1)"
		perf_dir=$(dirname "$(dirname "$w")")
		envs="$envs
export PATH='$perf_dir/bin':\$PATH"
	fi

	# The caller may have resolved the kernel already (memcg-lab vm does).
	if [ -n "$opt_kdir" ]; then
		[ -f "$opt_kdir/vmlinux" ] || die "run: --kernel-dir $opt_kdir holds no vmlinux"
		kd=$opt_kdir
	else
		kd=$(kernel_dir "$opt_kernel")
	fi
	# memcg-lab vm made it (memcg-lab-<pid>-<start time>.XXXXXX, 0700,
	# marked), so that `memcg-lab cleanup` knows it for the lab's when
	# this script was SIGKILLed.
	st=$opt_tmp
	cleanup_paths="$cleanup_paths $st"
	img=$(build_initramfs "$st/root")

	# The per-run part: the command and its environment, appended as a
	# second cpio member set (the kernel unpacks concatenated archives).
	mkdir -p "$st/run/lab/vm" "$st/run/boot"
	# The kernel's config where the lab looks for it (/init links it to
	# /boot/config-$(uname -r)).
	[ -f "$kd/config" ] && cp "$kd/config" "$st/run/boot/config"
	# /var/tmp's RAM disk: half the guest's memory at most (brd allocates
	# only what is written), its modules where the kernel needs them;
	# brd.* on the command line sizes a built-in brd.
	ramdisk_kib=$((opt_mem * 512))
	echo "$ramdisk_kib" > "$st/run/lab/vm/ramdisk-kib"
	kmods=$(disk_modules "$kd")
	if [ -n "$kmods" ]; then
		mkdir -p "$st/run/lab/vm/kmods"
		cp "$kmods"/*.ko "$kmods/order" "$st/run/lab/vm/kmods/"
	fi
	# The lab's module, where the lab in the guest looks for it.
	if [ -n "$opt_kmod" ]; then
		kmd=$st/run/lab/build/kmod/$(cat "$(dirname "$opt_kmod")/release")
		mkdir -p "$kmd"
		cp "$opt_kmod" "$kmd/kmem_bench.ko"
		[ ! -f "$(dirname "$opt_kmod")/built.txt" ] || cp "$(dirname "$opt_kmod")/built.txt" "$kmd/"
	fi
	if [ -n "$opt_shell" ] && [ "$opt_lines_window" = command ]; then
		# The plugin's window open around the user's command, by the lab
		# in the guest (c2c window: opened, CMD run, closed, its status).
		printf '%s\n' "$opt_shell" > "$st/run/lab/vm/cmd-user"
		echo "exec /lab/bin/memcg-lab c2c window -- sh /lab/vm/cmd-user" > "$st/run/lab/vm/cmd"
	elif [ -n "$opt_shell" ]; then
		printf '%s\n' "$opt_shell" > "$st/run/lab/vm/cmd"
	else
		line="exec /lab/bin/memcg-lab"
		for a in "$@"; do
			line="$line '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
		done
		printf '%s\n' "$line" > "$st/run/lab/vm/cmd"
	fi
	# --lines: the kernel's BTF from the vmlinux it boots, where that has
	# a .BTF section (Debian's and the lab's do), beside the plugin's
	# file (memcg-lab vm moves it to lines/vmlinux.btf): the guest then
	# sends none of its 5 MB through the serial port.
	if [ -n "$opt_lines" ] && command -v objcopy >/dev/null &&
		objcopy -O binary --only-section=.BTF "$kd/vmlinux" "$opt_out/plugin-vmlinux.btf" 2>/dev/null &&
		[ -s "$opt_out/plugin-vmlinux.btf" ]; then
		envs="$envs
export MEMCG_LAB_LINES_BTF=host"
	else
		rm -f "$opt_out/plugin-vmlinux.btf"
	fi
	{
		echo "export MEMCG_LAB_ROOT=/lab MEMCG_LAB_RESULTS=/out/results HOME=/root"
		# What the guest runs under, for the verdicts its runs print
		# (util/results.h RESULTS_ENV_VM_*).
		echo "export MEMCG_LAB_VM_ACCEL=$accel"
		# The lab's revision, which the guest's tree (no .git) cannot tell.
		lab_rev=$(git -C "$here/../.." describe --always --dirty 2>/dev/null | tr -cd '0-9a-zA-Z.+_-') || lab_rev=""
		lab_commit=$(git -C "$here/../.." rev-parse --verify 'HEAD^{commit}' 2>/dev/null | tr -cd '0-9a-f') || lab_commit=""
		[ -z "$lab_rev" ] || echo "export MEMCG_LAB_VM_REVISION=$lab_rev MEMCG_LAB_VM_COMMIT=$lab_commit"
		[ -z "$opt_icount" ] || echo "export MEMCG_LAB_VM_ICOUNT='shift=0 (1 ns of guest time = 1 instruction)'"
		printf '%s\n' "$envs"
	} > "$st/run/lab/vm/env"
	(cd "$st/run" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$st/run.cpio.gz"
	cat "$img" "$st/run.cpio.gz" > "$st/initrd.gz"

	attempts=0
	while :; do
		attempts=$((attempts + 1))
		st_rc=0
		boot_once "$kd/vmlinux" "$st/initrd.gz" "$opt_out" || st_rc=$?
		[ "$attempts" = 1 ] || break
		if [ "$st_rc" = 10 ]; then
			note "no end marker from the guest (console: $(wc -l < "$opt_out/console.log") lines); booting once more"
		elif [ "$st_rc" = 11 ] && [ "$accel" = mttcg ] && ! grep -q '@@MEMCG-LAB-BEGIN' "$opt_out/console.log"; then
			# MTTCG's stale int3 (accel_args): the panic came before
			# /init, so nothing of the user's ran; a second panic is
			# reported as the guest's.
			note "the guest kernel panicked at boot, before /init, under MTTCG ($(grep -m1 -E 'Oops|BUG:|Kernel panic' "$opt_out/console.log" | cut -c1-80)); booting once more"
		else
			break
		fi
		mv "$opt_out/console.log" "$opt_out/console.attempt1.log"
	done
	[ -n "$opt_console" ] && cat "$opt_out/console.log" >&2
	{
		echo "kernel_spec=$opt_kernel"
		if [ -f "$kd/package" ]; then
			echo "kernel_package=$(cat "$kd/package")"
		elif [ -f "$kd/source" ]; then
			echo "kernel_package=lab kernel: $(cat "$kd/source") + lab/kernel-patches"
		fi
		echo "kernel_dir=$kd"
		echo "initramfs=$img"
		echo "accel=$accel"
		[ -z "$opt_icount" ] || echo "icount=shift=0 (1 ns of guest time = 1 instruction)"
		[ -z "$opt_kmod" ] || echo "kmod=$(head -n1 "$(dirname "$opt_kmod")/built.txt" 2>/dev/null || echo "$opt_kmod")"
		echo "cpus=$opt_cpus"
		if [ "$opt_sockets" != 0 ]; then
			echo "sockets=$opt_sockets"
			echo "threads_per_core=$opt_threads"
		fi
		[ "$opt_nodes" = 0 ] || echo "nodes=$opt_nodes"
		echo "mem_mb=$opt_mem"
		echo "attempts=$attempts"
		echo "qemu_seconds=$boot_seconds"
		[ -z "$opt_icount" ] || echo "guest_clock=instructions (-icount shift=0,sleep=off)"
		echo "qemu_exit=$qrc"
		if [ -n "$opt_lines" ]; then
			if [ -f "$opt_out/plugin-lines.tsv" ]; then
				echo "lines=lines/lines.tsv"
				echo "lines_status=$(sed -n 's/^# status\t//p' "$opt_out/plugin-lines.tsv")"
			else
				echo "lines_status=missing"
			fi
		fi
	} > "$opt_out/vm.env"
	case $st_rc in
	11) echo "guest_status=panic" >> "$opt_out/vm.env"
	    echo "$me: the guest kernel panicked ($opt_kernel); what it said:" >&2
	    crash_lines "$opt_out/console.log" >&2; exit 2 ;;
	13) echo "guest_status=qemu-error" >> "$opt_out/vm.env"
	    if [ -s "$opt_out/console.log" ]; then
		    die "qemu stopped the guest ($opt_cpus vCPUs, $opt_kernel; exit $qrc after $boot_seconds s): $qemu_msg"
	    fi
	    die "qemu did not run the guest ($opt_cpus vCPUs, $accel; exit $qrc after $boot_seconds s): $qemu_msg" ;;
	12) echo "guest_status=timeout" >> "$opt_out/vm.env"
	    echo "$me: the guest did not finish within $opt_timeout s ($opt_kernel); its last lines:" >&2
	    last_lines "$opt_out/console.log" >&2; exit 2 ;;
	10) echo "guest_status=no-marker" >> "$opt_out/vm.env"
	    echo "$me: the guest ended twice without its end marker ($opt_kernel); its last lines:" >&2
	    last_lines "$opt_out/console.log" >&2
	    [ -s "$opt_out/qemu.log" ] && { echo "$me: qemu said:" >&2; last_lines "$opt_out/qemu.log" 5 >&2; }
	    exit 2 ;;
	esac
	decode_payload "$opt_out" ||
		die "the guest finished (exit $guest_rc) but its results did not come back intact on the second serial port ($opt_out/payload.b64)"
	# memcg-lab vm extracts payload.tgz, adds guest.txt's facts and prints
	# output.txt.
	echo "guest_status=exited" >> "$opt_out/vm.env"
	echo "guest_exit=$guest_rc" >> "$opt_out/vm.env"
	finished=1
	exit "$guest_rc"
}

case ${1:-} in
kernel)
	shift
	opt_suite=""
	if [ "${1:-}" = --suite ]; then opt_suite=$2; shift 2; fi
	[ $# = 1 ] || die "usage: vm.sh kernel [--suite S] SPEC"
	kernel_dir "$1" ;;
list) shift; opt_suite=""; cmd_list ;;
run) shift; cmd_run "$@" ;;
*) die "usage: vm.sh kernel SPEC | vm.sh list | vm.sh run --out DIR --binary BIN ... (see the header)" ;;
esac
