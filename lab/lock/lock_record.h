/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_LOCK_LOCK_RECORD_H
#define LAB_LOCK_LOCK_RECORD_H

struct lock_collector_opts;

/*
 * Checks root and the tracefs mount, starts the lock collector, runs argv[cmd..]
 * (cmd < argc) or waits duration seconds (Ctrl-C ends either early), stops
 * it and writes results/<date>-name/ under base (NULL: results/), printing
 * the summary.  Returns 0 whatever the command's status (it is logged);
 * what prevents the recording (not root, no tracefs, an old perf, a
 * collector that cannot start) is one line and exit 2.
 */
int lock_record(struct lock_collector_opts *co, const char *name, const char *base, double duration,
		int argc, char **argv, int cmd);

#endif
