/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock collector as a stat-read hook (drivers/statread/driver.h): prepared
 * before the warm-up (lock_collector_prepare: what takes seconds), enabled
 * at the measured phase's first moment, so it runs around the measured
 * phase only and all of it; afterwards it takes the readers' read()
 * latency as the hold-time upper bound, prints the flush counts and the
 * rstat lock's holds, and writes data/lock-*.tsv into the run's results.
 *
 *   struct lock_statread ls;
 *   lock_statread_hook(&hooks[nhooks++], &ls);
 *   statread_run(&plan, hooks, nhooks, &res);
 *   lock_statread_finish(&ls, &res, r, stdout);
 */
#ifndef LAB_DRIVERS_STATREAD_LOCK_STATREAD_H
#define LAB_DRIVERS_STATREAD_LOCK_STATREAD_H

#include <stdio.h>
#include "lock/lock_collector.h"
#include "drivers/statread/driver.h"
#include "util/results.h"

struct lock_statread {
	struct lock_collector_opts opts;
	struct lock_collector *c;
	char err[512];
};

/* Fills h; ls must live until lock_statread_finish(). */
void lock_statread_hook(struct statread_hook *h, struct lock_statread *ls);
/* After the run: the read bound, the summary on out, the files in r (may
 * be NULL); frees the collector.  False when the hook never ran. */
bool lock_statread_finish(struct lock_statread *ls, const struct statread_result *res,
			  struct results *r, FILE *out);

#endif
