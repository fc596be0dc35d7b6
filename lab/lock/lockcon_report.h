/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_LOCK_LOCKCON_REPORT_H
#define LAB_LOCK_LOCKCON_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "lock/lockcon.h"

/* What `lock report -i perf.data` was asked. */
struct lockcon_report_opts {
	const char *input;	/* the perf.data */
	const char *kallsyms;	/* NULL: /proc/kallsyms */
	enum lockcon_by by;
	int max_stack;		/* frames of each call chain used */
	int stack_skip;		/* < 0: that of the perf which recorded the file */
	bool tsv;
};

/*
 * Writes the perf lock contention view of o->input to out; 0.  A file
 * that cannot be read is one line and exit 2; what the counts may miss
 * (dropped samples, user-space callers, another kernel's symbols) is a
 * warning each.
 */
int lockcon_report_perfdata(const struct lockcon_report_opts *o, FILE *out);

/* A captured `perf lock contention` output (text or CSV) as the lab's table; 0. */
int lockcon_report_perf_text(const char *path, bool tsv, FILE *out);

#endif
