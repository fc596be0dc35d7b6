// SPDX-License-Identifier: GPL-2.0
/*
 * TAP: lines_prio_raise / lines_prio_restore (c2c/lines_session.h): the
 * opener of a lines window at real-time priority while it opens, times
 * and closes it (in a guest, the measured workers hold every vCPU: at
 * normal priority the opener waited seconds between a window's edge and
 * its read of the operation counters), and back to what it was after, so
 * that a driver forked after the restore runs at normal priority.  Needs
 * the right to set SCHED_FIFO (root, or RLIMIT_RTPRIO): without it,
 * skipped, and the calls must change nothing.
 */
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include "c2c/lines_session.h"
#include "tests/tap.h"

static bool can_fifo(void)
{
	struct sched_param p = { .sched_priority = 1 }, old;
	int pol = sched_getscheduler(0);

	if (pol < 0 || sched_getparam(0, &old) || sched_setscheduler(0, SCHED_FIFO, &p))
		return false;
	sched_setscheduler(0, pol, &old);
	return true;
}

TEST(raise_restore)
{
	struct lines_prio p;
	int before = sched_getscheduler(0);

	if (!can_fifo()) {
		lines_prio_raise(&p);
		ok(!p.raised && sched_getscheduler(0) == before,
		   "without the right to SCHED_FIFO: not raised, the policy unchanged");
		lines_prio_restore(&p);
		tap_skip("raise and restore", "no right to set SCHED_FIFO here (root or RLIMIT_RTPRIO)");
		return;
	}
	ok(before != SCHED_FIFO, "a test process starts at normal priority (policy %d)", before);
	lines_prio_raise(&p);
	ok(p.raised && sched_getscheduler(0) == SCHED_FIFO, "raised: SCHED_FIFO");
	{
		struct sched_param now;

		ok(!sched_getparam(0, &now) && now.sched_priority == 1, "at priority 1 (%d)", now.sched_priority);
	}
	lines_prio_restore(&p);
	ok(sched_getscheduler(0) == before, "restored: the policy it had (%d)", sched_getscheduler(0));
}

/* A child forked while raised inherits it; one forked after the restore does not. */
TEST(children)
{
	struct lines_prio p;
	pid_t pid;
	int st;

	if (!can_fifo()) {
		tap_skip("children", "no right to set SCHED_FIFO here");
		return;
	}
	lines_prio_raise(&p);
	lines_prio_restore(&p);
	pid = fork();
	if (pid == 0)
		_exit(sched_getscheduler(0) == SCHED_FIFO ? 1 : 0);
	ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "a driver forked after the restore runs at normal priority");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
