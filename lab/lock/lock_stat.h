/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/lock_stat (CONFIG_LOCK_STAT): per lock class, contention and
 * hold-time columns (Documentation/locking/lockstat.rst).  Version 0.4 has
 * twelve numeric columns (the *-avg ones included), 0.3 has ten.  Times are
 * printed in microseconds with two decimals; the parser keeps nanoseconds.
 * The file is cumulative since boot or the last clear, so a measurement
 * window is the difference of two snapshots (lockstat_delta).
 */
#ifndef LAB_LOCK_LOCK_STAT_H
#define LAB_LOCK_LOCK_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lockstat_class {
	char name[160];			/* "&rq->lock", "tasklist_lock-W", ... */
	uint64_t con_bounces, contentions, acq_bounces, acquisitions;
	uint64_t wait_min, wait_max, wait_total, wait_avg;	/* ns */
	uint64_t hold_min, hold_max, hold_total, hold_avg;	/* ns */
	int line;
};

struct lockstat {
	char version[16];		/* "0.4" */
	bool debug_disabled;		/* "*WARNING* lock debugging disabled" */
	struct lockstat_class *c;
	size_t n;
};

/* 0, or -1 with one line in err naming source:line and the field. */
int lockstat_parse(const char *text, const char *source, struct lockstat *ls, char *err, size_t errlen);
void lockstat_free(struct lockstat *ls);
const struct lockstat_class *lockstat_find(const struct lockstat *ls, const char *name);
/* after - before for one class: counts and totals subtract, min/max are
 * after's (lock_stat keeps no per-window extremes), avg recomputed. */
void lockstat_delta(const struct lockstat_class *before, const struct lockstat_class *after,
		    struct lockstat_class *out);

#endif
