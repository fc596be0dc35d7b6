/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Did the charges land where the driver put the workers?  Kernel counters
 * of each worker cgroup, read right before the start barrier and right after
 * the measured window (never inside it): a cumulative counter's change
 * (memory.stat pgpgin on v1, pgfault on v2) or a value such as the peak
 * usage, the kmem or the tcp counter.  Also the cgroups' OOM kill counts,
 * which tell an OOM kill from any other SIGKILL.
 */
#ifndef LAB_DRIVERS_EVIDENCE_H
#define LAB_DRIVERS_EVIDENCE_H

#include <stdbool.h>
#include <stdio.h>
#include "kernel/cgroup.h"

#define EV_MAX_KEYS 3
#define EV_MAX_CGROUPS 256	/* cgroups read; a bigger run reads the first ones */

struct ev_key {
	const char *file;	/* control file */
	const char *key;	/* line of a flat-keyed file, NULL: the file's number */
	bool cumulative;	/* report the change, not the value after */
	const char *unit;	/* "pages", "bytes", "faults" */
};

struct evidence {
	const struct cg_env *env;
	int ncg;		/* cgroups read (at most EV_MAX_CGROUPS) */
	char *const *cg;
	char *const *label;
	int nkeys;
	struct ev_key keys[EV_MAX_KEYS];
	long long *before, *after;	/* [ncg * nkeys]; -1 when unreadable */
	long long *oom0;		/* [ncg] OOM kills when the cgroups were made */
};

/* The counters that show a mode's charges on this cgroup version. */
void evidence_init(struct evidence *e, const struct cg_env *env, const char *mode, int ncg,
		   char *const *cg, char *const *label);
void evidence_free(struct evidence *e);
void evidence_before(struct evidence *e);
void evidence_after(struct evidence *e);
/* The change (cumulative keys) or the value after; -1 when unreadable. */
long long evidence_value(const struct evidence *e, int cg, int key);
/* oom_kill of memory.oom_control (v1) or memory.events (v2); -1 unreadable. */
long long oom_kills(const struct cg_env *env, const char *cg);
/* The harness's death_cause hook (arg: struct evidence). */
bool evidence_death_cause(void *arg, int idx, int wstatus, char *buf, size_t n);
/* TSV: one row per cgroup and key; the header when prefix_hdr is not NULL. */
void evidence_write_tsv(const struct evidence *e, const unsigned long long *driver_ops, FILE *f,
			const char *prefix_hdr, const char *prefix);

#endif
