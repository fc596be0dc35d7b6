#!/bin/sh
# TAP: lab/scripts/deps.sh while another apt or dpkg holds apt's locks (as
# unattended-upgrades does on a fresh box): it waits up to APT_LOCK_WAIT
# seconds saying so in one line, then installs; past the bound, one line
# names the lock and its holder, exit 2.  The locks are held by a real
# apt-get, and by the fcntl write lock apt and dpkg themselves take.
#
# It removes and reinstalls a package (busybox-static, which nothing
# depends on), so it runs only in a throwaway system: make distcheck's
# chroots (MEMCG_LAB_DISTCHECK=1), against each suite's own apt.
# shellcheck disable=SC2016 # ok() evals its condition
. "$(dirname "$0")/lib/tap.sh"

[ -n "${MEMCG_LAB_DISTCHECK:-}" ] ||
	skip_all "removes and reinstalls a package: runs in make distcheck's chroots (MEMCG_LAB_DISTCHECK=1)"
[ "$(id -u)" = 0 ] || skip_all "needs root (apt-get install)"
deps=lab/scripts/deps.sh
pkg=busybox-static
frontend=/var/lib/dpkg/lock-frontend

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' $pkg 2>/dev/null)" = installed ]; }

# hold PATH SECONDS: a write lock on PATH by fcntl(F_SETLKW), the call apt
# and dpkg make; $holder is its pid once it holds the lock.
hold() {
	rm -f "$T/held"
	perl -e 'use Fcntl; open(my $f, ">>", $ARGV[0]) or die "$ARGV[0]: $!";
		my $l = pack("s s x4 q q i x4", F_WRLCK, 0, 0, 0, 0);
		fcntl($f, F_SETLKW, $l) or die "lock: $!";
		open(my $h, ">", $ARGV[2]); close($h); sleep $ARGV[1]' "$1" "$2" "$T/held" &
	holder=$!
	i=0
	while [ ! -e "$T/held" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$T/held" ]
}

# held_by PATH: the pid of the process holding a write lock on PATH, if any.
held_by() {
	perl -e 'use Fcntl; open(my $f, "<", $ARGV[0]) or exit 0;
		my $l = pack("s s x4 q q i x4", F_WRLCK, 0, 0, 0, 0);
		fcntl($f, F_GETLK, $l) or die "F_GETLK: $!";
		my ($type, $w, $s, $n, $pid) = unpack("s s x4 q q i x4", $l);
		print "$pid\n" if $type != F_UNLCK' "$1"
}

# deps WAIT: deps.sh ensure test with APT_LOCK_WAIT=WAIT; its status in rc,
# its seconds in secs, its stderr in $T/err.
deps() {
	s=$(date +%s)
	rc=0
	APT_LOCK_WAIT=$1 $deps ensure test 2>"$T/err" || rc=$?
	secs=$(($(date +%s) - s))
	diag < "$T/err"
}

waits() { grep -c "waiting up to $1 s for apt's lock $2, held by process $3 ($4)" "$T/err"; }

installed || $deps ensure test >/dev/null 2>&1
ok installed "$pkg is installed to begin with"

# Nothing missing: no apt, no wait.
hold $frontend 30 || check 1 "took the lock $frontend (perl fcntl)"
deps 5
ok '[ $rc = 0 ] && [ $secs -lt 5 ] && [ ! -s "$T/err" ]' "nothing missing: no apt, so no wait on the held lock (${secs}s)"
kill $holder; wait $holder 2>/dev/null

dpkg -r $pkg >/dev/null 2>&1
hold $frontend 6 || check 1 "took the lock $frontend (perl fcntl)"
deps 60
ok '[ $rc = 0 ] && installed && [ $secs -ge 5 ]' "dpkg frontend lock held 6 s: waits, then installs $pkg (exit $rc, ${secs}s)"
ok '[ "$(waits 60 $frontend $holder perl)" = 1 ] && [ "$(wc -l < "$T/err")" = 2 ]' \
	"it said so in one line, naming the lock and its holder (and one line for the install)"
wait $holder 2>/dev/null

dpkg -r $pkg >/dev/null 2>&1
hold $frontend 60 || check 1 "took the lock $frontend (perl fcntl)"
deps 3
ok '[ $rc = 2 ] && ! installed && [ $secs -ge 3 ] && [ $secs -le 15 ]' "held past APT_LOCK_WAIT=3: gives up, exit 2 (exit $rc, ${secs}s)"
ok 'tail -n1 "$T/err" | grep -q "apt'"'"'s lock $frontend is still held by process $holder (perl) after 3 s (APT_LOCK_WAIT)"' \
	"one line names the lock, its holder and the bound"
kill $holder; wait $holder 2>/dev/null

# apt does not wait for its archives lock itself: deps.sh does.
hold /var/cache/apt/archives/lock 5 || check 1 "took the lock /var/cache/apt/archives/lock (perl fcntl)"
deps 60
ok '[ $rc = 0 ] && installed && [ $secs -ge 4 ] && [ "$(waits 60 /var/cache/apt/archives/lock $holder perl)" = 1 ]' \
	"the archives lock held 5 s: waits, says so once, installs (exit $rc, ${secs}s)"
wait $holder 2>/dev/null

# A real apt-get at work: an install whose dpkg run starts 8 s late.
dpkg -r $pkg >/dev/null 2>&1
DEBIAN_FRONTEND=noninteractive apt-get install -y --reinstall -o 'DPkg::Pre-Invoke::=sleep 8' make \
	>"$T/other.log" 2>&1 &
other=$!
i=0
until [ "$(held_by $frontend)" = $other ] || [ $i -ge 150 ]; do sleep 0.2; i=$((i + 1)); done
deps 120
wait $other
orc=$?
ok '[ $rc = 0 ] && installed && [ $orc = 0 ] && [ "$(grep -c "waiting up to 120 s for apt.s lock .*held by process $other (apt-get)" "$T/err")" = 1 ]' \
	"a concurrent apt-get install: waits for it, says so once naming it, installs (exit $rc, ${secs}s; the other apt-get: $orc)"

done_testing
