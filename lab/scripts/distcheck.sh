#!/bin/sh
# make distcheck: the lab on the Debian suites users run besides this one.
#
#   distcheck.sh [SUITE...]      (default: trixie sid; as root)
#
# Per suite, a minimal chroot (debootstrap --variant=minbase, from the
# Debian mirror this machine's apt uses) is cached under
# $MEMCG_LAB_CACHE/distcheck/ (default /var/cache/memcg-lab/distcheck/):
#   SUITE/        the chroot: made in SUITE.tmp, renamed once complete; a
#                 later run refreshes it (apt-get update, dist-upgrade)
#                 instead of making it again
#   SUITE.lock    one run per suite at a time (flock)
#   SUITE.log     everything the last run did in it
# In it, as CI does on a fresh machine, a clone of this checkout's HEAD
# (uncommitted changes are not part of it) goes through `make deps`,
# `make build` (the suite's gcc, -Werror), `make unit` (the unit tests, and
# their ASan+UBSan build by the suite's clang) and lab/tests/deps-lock.sh
# (deps.sh against the suite's apt while another holds its lock).
#
# The chroot is a mount of its own (bound on itself, so that a private
# mount namespace can be made in it, as on a machine), with /proc, a
# read-only /sys holding the host's cgroup hierarchies (mounted anew: the
# BPF memcg reader's test makes memcgs) and its own /dev (a tmpfs with the
# usual nodes and a private devpts).  The whole script runs in a mount
# namespace of its own (unshare -m): the host never sees those mounts, and
# they go with the script's last process.  SIGINT, SIGTERM and SIGHUP stop
# the running step's session, and the mounts are unmounted; should the
# script be SIGKILLed, a watcher stops the step within a second.  Like
# make test, the unit tests share the host's kernel: its cgroups and
# sysctls (perf_event_max_sample_rate), which a concurrent lab run on the
# same box also changes.
#
# Output: a line per step with its time, then "distcheck: N passed, N
# failed".  Exit status 0 when every suite passed, 1 when the lab failed in
# one (make deps, build or a test: the log's last lines are shown), 2 on an
# error setting a chroot up (one line naming it).
set -eu

me=distcheck
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

die() { echo "$me: $*" >&2; exit 2; }
say() { echo "$me: $*"; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts): run make distcheck as root"
[ $# -gt 0 ] || set -- trixie sid
for s in "$@"; do
	case $s in
	'' | *[!a-z0-9-]* | -*) die "'$s' is not a Debian suite name (e.g. trixie, sid)" ;;
	esac
done
for t in debootstrap unshare flock git chroot setsid; do
	command -v $t >/dev/null || die "$t is missing (make distcheck installs it: lab/scripts/deps.sh ensure distcheck)"
done

# Into a mount namespace of our own, once (unshare execs: the same pid).
ns=$(readlink /proc/self/ns/mnt)
if [ "${MEMCG_LAB_DISTCHECK_NS:-}" != "$$ $ns" ]; then
	case ${MEMCG_LAB_DISTCHECK_NS:-} in
	"$$ "*) ;;
	*)	unshare -m --propagation private true 2>/dev/null ||
			die "cannot make a private mount namespace (unshare -m refused)"
		MEMCG_LAB_DISTCHECK_NS="$$ $ns" exec unshare -m --propagation private -- "$0" "$@" ;;
	esac
else
	die "internal error: not in a private mount namespace"
fi

cache=${MEMCG_LAB_CACHE:-/var/cache/memcg-lab}
base=$cache/distcheck
mkdir -p "$base" || die "cannot create $base"
case $base in *[[:space:]]*) die "the cache path '$base' has a space in it (MEMCG_LAB_CACHE)" ;; esac

# The Debian mirror this machine's apt uses: the first package index whose
# Release says o=Debian and l=Debian (not the security archive).
mirror=$(apt-cache policy 2>/dev/null | awk '
	$1 ~ /^[0-9]+$/ && $2 ~ /^[a-z]+:\/\// { url = $2; next }
	$1 == "release" && url != "" {
		n = split($2, f, ","); o = l = 0
		for (i = 1; i <= n; i++) { o += f[i] == "o=Debian"; l += f[i] == "l=Debian" }
		if (o && l) { print url; exit }
		url = ""
	}')
[ -n "$mirror" ] ||
	die "this machine's apt has no Debian mirror (apt-cache policy names no o=Debian,l=Debian index: apt-get update first)"
include="make"
case $mirror in https:*) include="make,ca-certificates" ;; esac

sha=$(git -C "$top" rev-parse HEAD) || die "$top is not a git checkout"
short=$(git -C "$top" rev-parse --short HEAD)
dirty=""
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
	dirty=" (the work tree's uncommitted changes are not part of it: commit them to check them)"

# ---- what this run has started and mounted: undone on every exit ----

root=""		# the chroot being worked in (SUITE or SUITE.tmp)
job=""		# the running step's process group (setsid)
mounted=""	# our mounts, innermost first, one per line

# mount_at TARGET MOUNT-ARGS...: mounts, and remembers it.
mount_at() {
	t=$1
	shift
	mount "$@" "$t"
	mounted="$t
$mounted"
}

mount_chroot() {
	# The chroot a mount of its own, as a container's root is: a private
	# mount namespace inside (unshare -m --propagation private, as the
	# tests that mount tracefs make) needs "/" to be a mount point.
	mount_at "$root" --bind "$root"
	mount_at "$root/proc" -t proc -o nosuid,nodev,noexec proc
	mount_at "$root/sys" -t sysfs -o ro,nosuid,nodev,noexec sysfs
	# The host's cgroup hierarchies, as the host has them (the BPF memcg
	# reader's test makes memcgs in the memory controller's).
	while read -r mp type opts; do
		[ -n "$mp" ] || continue
		[ "$type" = tmpfs ] && opts=nosuid,nodev,noexec,mode=755
		[ -d "$root$mp" ] || mkdir "$root$mp"
		mount_at "$root$mp" -t "$type" -o "$opts" "$type"
	done <<-EOF
	$(awk '($3 == "cgroup" || $3 == "cgroup2" || $3 == "tmpfs") && $2 !~ /[\\]/ &&
		($2 == "/sys/fs/cgroup" || index($2, "/sys/fs/cgroup/") == 1) { print $2, $3, $4 }' /proc/self/mounts)
	EOF
	mount_at "$root/dev" -t tmpfs -o nosuid,mode=755,size=65536k distcheck-dev
	for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
		IFS=: read -r name ma mi <<-EOF
		$n
		EOF
		mknod -m 666 "$root/dev/$name" c "$ma" "$mi"
	done
	ln -s /proc/self/fd "$root/dev/fd"
	ln -s /proc/self/fd/0 "$root/dev/stdin"
	ln -s /proc/self/fd/1 "$root/dev/stdout"
	ln -s /proc/self/fd/2 "$root/dev/stderr"
	mkdir -m 1777 "$root/dev/shm"
	mkdir "$root/dev/pts"
	mount_at "$root/dev/pts" -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts
	ln -s pts/ptmx "$root/dev/ptmx"
}

# Every process whose root is the chroot (those that left the step's
# process group too): SIGKILL.
kill_chroot_procs() {
	[ -n "$root" ] || return 0
	r=$(cd "$root" && pwd -P)
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$r" ] && kill -KILL "${p#/proc/}" 2>/dev/null
	done
	return 0
}

unmount_all() {
	[ -n "$mounted" ] || return 0
	left=""
	while IFS= read -r m; do
		[ -n "$m" ] || continue
		umount "$m" 2>/dev/null || { kill_chroot_procs; sleep 1; umount "$m" 2>/dev/null; } ||
			umount -l "$m" 2>/dev/null || left="$left $m"
	done <<-EOF
	$mounted
	EOF
	mounted=""
	[ -z "$left" ] || echo "$me: could not unmount$left (only this run's namespace had them: they are gone with it)" >&2
}

stop_job() {
	[ -n "$job" ] || return 0
	kill -TERM "-$job" 2>/dev/null || true
	i=0
	while kill -0 "-$job" 2>/dev/null && [ $i -lt 20 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	kill -KILL "-$job" 2>/dev/null || true
	wait "$job" 2>/dev/null || true
	job=""
}

on_exit() {
	rc=$?
	trap - EXIT INT TERM HUP
	stop_job
	kill_chroot_procs
	unmount_all
	exit "$rc"
}
trap on_exit EXIT
trap 'echo "$me: interrupted (SIGINT): stopping" >&2; exit 130' INT
trap 'echo "$me: stopped (SIGTERM)" >&2; exit 143' TERM
trap 'echo "$me: hung up (SIGHUP): stopping" >&2; exit 129' HUP

# run LOG CMD...: CMD (in a session of its own, so that all of it can be
# stopped) with its output appended to LOG; its exit status.  Waited for in
# the background so that a signal to this script is handled at once; and
# should this script be SIGKILLed, a watcher stops CMD within a second.
run() {
	l=$1
	shift
	setsid -w "$@" >>"$l" 2>&1 </dev/null &
	job=$!
	(
		while sleep 1; do
			kill -0 "$job" 2>/dev/null || exit 0
			kill -0 $$ 2>/dev/null || break
		done
		kill -KILL "-$job" 2>/dev/null
	) </dev/null >/dev/null 2>&1 &
	st=0
	wait "$job" || st=$?
	job=""
	return "$st"
}

# in_chroot CMD...: CMD in the chroot, as root with a clean environment.
in_chroot() {
	run "$log" chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

# Removes a directory of ours, unless something is mounted in it.
remove_dir() {
	[ -e "$1" ] || return 0
	m=$(awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo)
	[ -z "$m" ] || die "not removing $1: mounted in it: $(echo "$m" | tr "\n" " ")"
	rm -rf --one-file-system "$1"
}

secs() {
	s=$(($(date +%s) - $1))
	if [ $s -ge 60 ]; then echo "$((s / 60))m$((s % 60))s"; else echo "${s}s"; fi
}

# step NAME CMD...: one step in the chroot, timed; its status.
step() {
	name=$1
	shift
	t=$(date +%s)
	echo "## $name" >>"$log"
	st=0
	in_chroot "$@" || st=$?
	if [ $st = 0 ]; then
		say "$suite: $name: ok ($(secs "$t"))"
	else
		say "$suite: $name: FAILED, exit $st ($(secs "$t"))"
	fi
	return $st
}

# The chroot of $suite at $base/$suite: made when missing, else refreshed.
prepare() {
	if [ ! -d "$base/$suite" ]; then
		root=$base/$suite.tmp
		remove_dir "$root"
		t=$(date +%s)
		say "$suite: debootstrap --variant=minbase from $mirror (the first run only)"
		run "$log" debootstrap --variant=minbase --include=$include "$suite" "$root" "$mirror" ||
			die "$suite: debootstrap failed: $(grep -m1 '^E: ' "$log" || tail -n1 "$log") (see $log)"
		# sid's Release can be past its Valid-Until; no daemons start.
		echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99memcg-lab-distcheck"
		printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
		chmod 755 "$root/usr/sbin/policy-rc.d"
		mv -T "$root" "$base/$suite"
		say "$suite: debootstrap: ok ($(secs "$t"))"
	fi
	root=$base/$suite
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	mount_chroot
	if [ -n "${cold:-}" ]; then return 0; fi
	step "refresh (apt-get update, dist-upgrade)" sh -c 'apt-get update &&
		DEBIAN_FRONTEND=noninteractive apt-get -y -o Dpkg::Options::=--force-confold dist-upgrade' ||
		die "$suite: refreshing the chroot failed: $(grep -m1 '^E: ' "$log" || tail -n1 "$log") (see $log)"
}

check_suite() {
	suite=$1
	log=$base/$suite.log
	t0=$(date +%s)
	exec 9>"$base/$suite.lock"
	flock -n 9 || { say "$suite: waiting for another distcheck of $suite"; flock 9; }
	: >"$log"
	cold=""
	[ -d "$base/$suite" ] || cold=1
	prepare

	src=$root/root/distcheck
	remove_dir "$src"
	mkdir -p "$src"
	run "$log" git clone -q --depth 1 "file://$top" "$src/memcg-lab" ||
		die "$suite: git clone of $top failed: $(tail -n1 "$log")"
	[ "$(git -C "$src/memcg-lab" rev-parse HEAD)" = "$sha" ] ||
		die "$suite: the clone of $top is not at HEAD $short (is HEAD a branch's tip?)"
	say "$suite: a clone of $short$dirty"

	ok=1
	w=/root/distcheck/memcg-lab
	step "make deps" sh -c "cd $w && make deps" || ok=""
	if [ -n "$ok" ]; then
		gccv=$(chroot "$root" gcc -dumpfullversion 2>/dev/null || echo '?')
		clangv=$(chroot "$root" clang -dumpversion 2>/dev/null || echo '?')
		libcv=$(chroot "$root" /usr/bin/env LANG=C ldd --version 2>/dev/null | sed -n '1s/.* //p')
		say "$suite: gcc $gccv, clang $clangv, glibc ${libcv:-?}"
		step "make build (gcc)" sh -c "cd $w && make -j$(nproc) build" || ok=""
	fi
	[ -z "$ok" ] || step "make unit (gcc; clang ASan+UBSan)" sh -c "cd $w && make -j$(nproc) unit" || ok=""
	[ -z "$ok" ] || step "deps-lock.sh (apt's lock)" sh -c "cd $w && MEMCG_LAB_DISTCHECK=1 prove -v lab/tests/deps-lock.sh" ||
		ok=""
	if [ -n "$ok" ]; then
		# prove's "Files=N, Tests=M, ..." of make unit: gcc's, then ASan's.
		counts=$(awk '/^## / { u = $0 ~ /make unit/ }
			u && /^Files=/ {
				f = $1; t = $2; gsub(/[^0-9]/, "", f); gsub(/[^0-9]/, "", t)
				printf "%s%s programs, %s tests", n++ ? "; ASan+UBSan: " : "gcc: ", f, t
			}' "$log")
		say "$suite: passed ($counts; $([ -n "$cold" ] && echo cold || echo warm) run $(secs "$t0"))"
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "$me: $suite: the last lines of $log:"
		tail -n 40 "$log" | sed 's/^/  | /'
	fi
	stop_job
	unmount_all
	root=""
	exec 9>&-
}

passed=0 failed=0
for suite in "$@"; do
	check_suite "$suite"
done
say "$passed passed, $failed failed"
[ "$failed" = 0 ] || exit 1
