#!/bin/sh
# What `memcg-lab cleanup`, and the start of every `memcg-lab run`, remove
# is only what the lab made (util/owned.h).  Planted here, all named like
# leftovers of runs that are gone:
#   - temporary directories another user (nobody) made, one as the lab
#     would name it (mkdtemp's suffix, 0700), and one root made without
#     the lab's mark;
#   - cgroups at the top of the memory hierarchy: root's without the mark
#     (mode 0755, and 0700), and one handed to nobody;
#   - tracefs instances: root's as tracefs makes them (0750), and one
#     handed to nobody;
#   - journals of host settings: an owner's directory without the mark
#     whose entry would write a file, and a journal directory of mode 0755.
# Every one survives cleanup and a run's start, each named in one line
# ("not removing ...: owned by uid 65534, ..."), and no planted journal is
# written back.  Then a real leftover, a temporary directory the lab made
# (lab-tmpdir) whose subdirectory was swapped for a link to a directory
# holding a canary: cleanup removes the leftover and the link, never the
# canary; and one with a file system mounted inside: the walk stops there.
# In a mount namespace of its own (tracefs mounted there when it is not)
# and a TMPDIR and journal of its own.
. "$(dirname "$0")/lib/tap.sh"
in_private_mount_ns "$@"

[ "$(id -u)" = 0 ] || skip_all "needs root (cleanup, cgroups, tracefs instances)"
command -v setpriv >/dev/null || skip_all "no setpriv (util-linux) to act as another user"
[ -x build/tests/tools/lab-tmpdir ] || skip_all "build/tests/tools/lab-tmpdir is not built (make)"
memroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$memroot" ] || memroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$memroot" ] || skip_all "no memory controller mounted"
tr=$(awk '$3 == "tracefs" { print $2; exit }' /proc/self/mounts)
if [ -z "$tr" ]; then
	tr=/sys/kernel/tracing
	mount -t tracefs nodev "$tr" 2>/dev/null || skip_all "tracefs is not mounted and cannot be (in this mount namespace)"
fi

asnobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
export TMPDIR="$T/tmp" MEMCG_LAB_STATE_DIR="$T/state"
mkdir -m 1777 "$TMPDIR"
mkdir -m 700 "$MEMCG_LAB_STATE_DIR"
chmod 711 "$T"	# nobody must reach $TMPDIR
# Owners that are gone: pids no process has, and this test's pid as the
# start time (a run of another test plants other names).
dead() { echo "memcg-lab-99999$1-$$"; }

# Temporary directories.
t_nobody=$TMPDIR/memcg-lab-999999-12345
t_nobody2=$TMPDIR/$(dead 1).Ab12Cd
t_root=$TMPDIR/$(dead 2).Ef34Gh
$asnobody sh -c 'mkdir "$1" && echo mine > "$1/f" && mkdir -m 700 "$2" && echo mine > "$2/f"' sh \
	"$t_nobody" "$t_nobody2" || skip_all "nobody cannot make a directory in $TMPDIR"
mkdir -m 700 "$t_root" && echo mine > "$t_root/f"

# cgroups (only root can make one there; chown hands one to nobody).
c_root=$memroot/$(dead 3)
c_root700=$memroot/$(dead 4)
c_nobody=$memroot/$(dead 5)
mkdir "$c_root" && mkdir -m 700 "$c_root700" && mkdir -m 700 "$c_nobody" && chown 65534:65534 "$c_nobody" ||
	skip_all "cannot make cgroups under $memroot"

# tracefs instances (root only; tracefs makes them 0750).
i_root=$tr/instances/$(dead 6)
i_nobody=$tr/instances/$(dead 7)
mkdir "$i_root" && mkdir "$i_nobody" && chmod 700 "$i_nobody" && chown 65534:65534 "$i_nobody" ||
	skip_all "cannot make tracefs instances in $tr/instances"

# A journal of a dead owner, made by hand: no mark.  Restoring it would
# write "planted" into the stand-in setting.
setting=$T/setting
echo host > "$setting"
j_owner=$MEMCG_LAB_STATE_DIR/$(dead 8)
mkdir -m 700 "$j_owner"
printf '%s\nplanted\n' "$setting" > "$j_owner/$(echo "$setting" | tr / %)"
# A journal directory that is not the lab's (mode 0755): what it holds is
# not read at all.
j_state=$T/state755
mkdir -m 755 "$j_state"
mkdir -m 700 "$j_state/$(dead 9)"
printf '%s\nplanted\n' "$setting" > "$j_state/$(dead 9)/$(echo "$setting" | tr / %)"

cleanup_planted() {
	rmdir "$c_root" "$c_root700" "$c_nobody" "$i_root" "$i_nobody" 2>/dev/null
}
trap 'cleanup_planted; rm -rf "$T"' EXIT

# Each planted thing: there still, and named in exactly one line of $1.
survived() {	# output what
	f=0
	for p in "$t_nobody" "$t_nobody2" "$t_root" "$c_root" "$c_root700" "$c_nobody" "$i_root" "$i_nobody"; do
		if [ ! -d "$p" ]; then
			diag "$2: $p was removed"
			f=1
		elif [ "$(grep -c "not removing .* $p: " "$1")" != 1 ]; then
			diag "$2: $p is not named in one line"
			f=1
		fi
	done
	[ -s "$t_nobody/f" ] && [ -s "$t_root/f" ] || { diag "$2: a planted file is gone"; f=1; }
	[ "$(cat "$setting")" = host ] || { diag "$2: a planted journal was written back"; f=1; }
	[ -d "$j_owner" ] && [ "$(grep -c "not restoring the host settings journaled in $j_owner: " "$1")" = 1 ] ||
		{ diag "$2: the unmarked journal is not kept and named once"; f=1; }
	return $f
}

$LAB cleanup >"$T/out" 2>&1
rc=$?
survived "$T/out" cleanup
check $(( rc != 0 || $? != 0 )) "cleanup: every planted leftover survives, each named in one line (exit $rc)"
diag "$(grep -e 'not removing' -e 'not restoring' "$T/out" | sed "s|$T|\$T|g")"
for want in "not removing temporary directory $t_nobody: owned by uid 65534, not the lab's uid 0" \
	"not removing temporary directory $t_root: no lab marker (xattr trusted.memcg-lab)" \
	"not removing cgroup $c_root: mode 0755, not the lab's 0700" \
	"not removing cgroup $c_root700: no lab marker (xattr trusted.memcg-lab)" \
	"not removing cgroup $c_nobody: owned by uid 65534, not the lab's uid 0" \
	"not removing tracefs instance $i_root: mode 0750, not the lab's 0700" \
	"not removing tracefs instance $i_nobody: owned by uid 65534, not the lab's uid 0" \
	"not restoring the host settings journaled in $j_owner: no lab marker (xattr trusted.memcg-lab)"; do
	grep -qxF "$want" "$T/out" || { diag "missing: $want"; false; }
done
check $? "each line says why it stays: another uid, the mode, no mark"

MEMCG_LAB_STATE_DIR=$j_state $LAB cleanup >"$T/out" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(cat "$setting")" = host ] && grep -qxF "not restoring the host settings journaled in $j_state: mode 0755, not the lab's 0700" "$T/out"
check $? "a journal directory that is not the lab's is not read: one line, nothing written back"

# The start of a run does the same (the smallest run: one stat reader of a
# one-child tree for a second; an experiment needs a driver).
printf '[experiment]\nname = planted\n[driver]\ncommand = statread\ntop = 1\nchildren = 1\nallocators = 0\nduration = 1\n' \
	> "$T/p.exp"
$LAB run "$T/p.exp" >"$T/run.out" 2>&1
rc=$?
survived "$T/run.out" run
check $(( rc != 0 || $? != 0 )) "a run's start: every planted leftover survives, each named in one line (exit $rc)"
grep -q "left by an earlier run: not removing temporary directory $t_nobody: owned by uid 65534" "$T/run.out"
check $? "the run says so as what an earlier run left"

# A real leftover of the lab's, with a link swapped in for its subdirectory.
real=$(build/tests/tools/lab-tmpdir)
mkdir "$T/elsewhere"
echo canary > "$T/elsewhere/canary"
mkdir -p "$real/sub/deeper" && echo x > "$real/sub/deeper/f" && echo y > "$real/top"
mv "$real/sub" "$real/sub.moved" && ln -s "$T/elsewhere" "$real/sub" && rm -rf "$real/sub.moved"
ln -s "$T/elsewhere/canary" "$real/canary-link"
owner=$(basename "$real" | sed 's/\..*//; s/^memcg-lab-//; s/-.*//')
$LAB cleanup >"$T/out" 2>&1
rc=$?
[ $rc = 0 ] && [ ! -e "$real" ] && [ "$(cat "$T/elsewhere/canary" 2>/dev/null)" = canary ] &&
	grep -qxF "removed temporary directory $real (owner pid $owner gone)" "$T/out"
check $? "a real leftover goes, the links in it with it, never what they point to (canary kept)"
survived "$T/out" "cleanup after the real one" >/dev/null
check $? "and the planted ones are still there"

# A real leftover with a file system mounted inside it: the walk stops at
# the mount (one line, exit 2), and what the mount holds stays.
real=$(build/tests/tools/lab-tmpdir)
mkdir "$real/mnt" && echo y > "$real/top"
if mount -t tmpfs -o size=1m none "$real/mnt" 2>/dev/null; then
	echo canary > "$real/mnt/canary"
	$LAB cleanup >"$T/out" 2>&1
	rc=$?
	[ $rc = 2 ] && [ "$(cat "$real/mnt/canary" 2>/dev/null)" = canary ] &&
		grep -qxF "could not remove temporary directory $real: Invalid cross-device link" "$T/out"
	check $? "a mount inside a leftover: the walk does not cross it, one line, exit 2 (exit $rc)"
	umount "$real/mnt"
	$LAB cleanup >"$T/out" 2>&1
	[ ! -e "$real" ]
	check $? "once unmounted, the leftover goes"
else
	skip "a mount inside a leftover" "cannot mount a tmpfs here"
	skip "once unmounted, the leftover goes" "cannot mount a tmpfs here"
fi

done_testing
