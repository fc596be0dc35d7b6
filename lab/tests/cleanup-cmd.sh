#!/bin/sh
# `memcg-lab cleanup` command line: help, bad input (one line, exit 2),
# not root (one line, exit 2; --dry-run still works), nothing to do.
# What it removes is tested with real leftovers in int-cgroup.
set -u
. "$(dirname "$0")/lib/tap.sh"
bin=bin/memcg-lab

out=$($bin cleanup --help 2>&1); rc=$?
echo "$out" | grep -q '^usage: memcg-lab cleanup \[--force\] \[--dry-run\]'
check $(( rc != 0 || $? != 0 )) "cleanup --help prints the usage, exit 0"

out=$($bin cleanup --bogus 2>&1 >/dev/null); rc=$?
[ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "bad option or missing value: '--bogus'"
check $(( rc != 2 || $? != 0 )) "an unknown option: one line naming it, exit 2"

out=$($bin cleanup extra 2>&1 >/dev/null); rc=$?
echo "$out" | head -1 | grep -q "unexpected argument 'extra'"
check $(( rc != 2 || $? != 0 )) "a stray argument names it, exit 2"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"
	out=$($asuser $bin cleanup 2>&1); rc=$?
	lines=$(printf '%s\n' "$out" | wc -l)
	echo "$out" | grep -q 'needs root (running as uid 65534)'
	check $(( rc != 2 || lines != 1 || $? != 0 )) "not root: one line, exit 2 ($out)"
	out=$($asuser $bin cleanup --dry-run 2>&1); rc=$?
	check $(( rc != 0 )) "not root: --dry-run still reports ($out)"
else
	skip "not root: one line, exit 2" "needs root and setpriv to drop to another user"
	skip "not root: --dry-run still reports" "needs root and setpriv"
fi

# With an empty journal directory and no dead runs of ours, a dry run says
# there is nothing (other helpers' dead runs may exist: accept their lines,
# and the lines of what is named like theirs but stays; where tracefs is
# not mounted, as on a fresh machine, a dry run says it did not look).
state=$(mktemp -d)
out=$(MEMCG_LAB_STATE_DIR=$state $bin cleanup --dry-run 2>&1); rc=$?
echo "$out" | grep -Evq '^(nothing left by lab runs that are gone|would (remove|restore) .*|not (removing|restoring) .*: .*|tracefs is not mounted: tracefs instances not looked for \(a cleanup without --dry-run mounts it to look\))$'
[ $? = 1 ]
check $(( rc != 0 || $? != 0 )) "cleanup --dry-run: one line per thing, or that nothing is left" || diag "$out"
rmdir "$state"

# A temporary directory a killed vm left (made the lab's way by a process
# that is gone: lab-tmpdir) goes, with its contents but not what a link in
# it points to; a live run's stays.
if [ "$(id -u)" = 0 ] && [ -x build/tests/tools/lab-tmpdir ]; then
	tmpd=$(mktemp -d)
	dead=$(TMPDIR=$tmpd build/tests/tools/lab-tmpdir)
	owner=$(basename "$dead" | sed 's/^memcg-lab-//; s/-.*//')
	live=$tmpd/memcg-lab-$$-$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)
	mkdir -p "$dead/root" "$live" && echo x > "$dead/root/f" && echo y > "$tmpd/target" && ln -s "$tmpd/target" "$dead/link"
	mkdir -m 700 "$tmpd/state"
	out=$(TMPDIR=$tmpd MEMCG_LAB_STATE_DIR=$tmpd/state $bin cleanup 2>&1); rc=$?
	[ ! -e "$dead" ] && [ -d "$live" ] && [ -s "$tmpd/target" ] &&
		echo "$out" | grep -q "removed temporary directory $dead (owner pid $owner gone)"
	check $(( rc != 0 || $? != 0 )) "a dead run's temporary directory is removed, a live run's kept ($(echo "$out" | grep temporary))"
	rm -rf "$tmpd"
else
	skip "a dead run's temporary directory is removed" "needs root and build/tests/tools/lab-tmpdir (make)"
fi
# A dead run's tracefs instance that a process still holds open (a killed
# run's worker exiting with the tracer's trace_pipe_raw): cleanup waits for
# a holder that goes, and names one that stays.  In a mount namespace of
# the test's own, so no other run sees the instance.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	tmpd=$(mktemp -d)
	mkdir -m 700 "$tmpd/state"
	# Each made as the tracer makes its own: mode 0700, its mark on tracefs.
	out=$(TMPDIR=$tmpd MEMCG_LAB_STATE_DIR=$tmpd/state unshare -m --propagation private sh -c '
		tr=/sys/kernel/tracing
		grep -q " $tr tracefs " /proc/mounts || mount -t tracefs nodev $tr || exit 3
		go=$tr/instances/memcg-lab-999998-12345 stay=$tr/instances/memcg-lab-999997-12345
		mkdir $go $stay && chmod 700 $go $stay || exit 3
		sleep 1 <$go/trace & sleep 30 <$stay/trace & holder=$!
		"$1" cleanup; echo "rc=$? holder=$holder"
		[ -d $go ] && echo "left: go"; [ -d $stay ] && echo "left: stay"
		kill $holder; wait $holder; rmdir $stay 2>/dev/null; rmdir $go 2>/dev/null; true' sh "$bin" 2>&1)
	holder=$(echo "$out" | sed -n 's/.* holder=//p')
	echo "$out" | grep -q "removed tracefs instance .*/memcg-lab-999998-12345 (owner pid 999998 gone)" &&
		echo "$out" | grep -q "could not remove tracefs instance .*/memcg-lab-999997-12345: Device or resource busy: held open by pid $holder (sleep)" &&
		echo "$out" | grep -q "^rc=2 " && ! echo "$out" | grep -q "left: go"
	check $? "a busy instance of a dead run: removed once its holder exits, else its holder named, exit 2 ($(echo "$out" | grep -c 'tracefs instance') lines)"
	rm -rf "$tmpd"
else
	skip "a busy instance of a dead run" "needs root and unshare"
fi
done_testing
