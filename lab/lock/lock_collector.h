/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock collector an experiment runner switches on around a driver run:
 *
 *   c = lock_collector_prepare(&opts, err, sizeof(err));  (before the measured phase)
 *   lock_collector_enable(c, err, sizeof(err));          (at its start)
 *   ... run the driver ...
 *   lock_collector_read_latency(c, &driver_read_hist);   (stat-read driver)
 *   lock_collector_stop(c, err, sizeof(err));
 *   flushes = lock_collector_flushes(c);                 (memcg_flush_stats counts)
 *   lock_collector_write(c, results);                    (data/lock-*.tsv, histograms)
 *   lock_collector_free(c);
 *
 * It runs the tracefs tracer (lock/lock_tracer.h), measures the hold
 * time of the target lock by the best method the kernel allows
 * (lock/lock_hold.h), and optionally records `perf lock record` over the
 * same window (lock/perf_lock.h).  Every part that cannot run says so in
 * one line (lock_collector_notes) and the rest runs.
 */
#ifndef LAB_LOCK_LOCK_COLLECTOR_H
#define LAB_LOCK_LOCK_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "util/hist.h"
#include "lock/lock_hold.h"
#include "lock/lock_tracer.h"
#include "util/results.h"

struct lock_collector_opts {
	bool no_tracer;			/* skip the tracefs tracer */
	bool perf;			/* perf lock record alongside */
	const char *perf_dir;		/* where perf.data and perf's outputs go */
	const char *hold;		/* --hold SYMBOL; NULL: the default target */
	const char *tracefs_dir;
	size_t buffer_kb;
	int caller_stacks;		/* <0: default */
	bool flush_events;		/* flush counts from tracefs events, not BPF */
	const char *hide_events;	/* tests: events to treat as absent */
};

/* Summary of the hold measurement of the target lock. */
struct lock_hold_result {
	struct hold_plan plan;
	bool measured;			/* the method produced a hold histogram or totals */
	struct hist hold, wait;		/* rstat or BPF; empty for lock_stat */
	uint64_t count, total_ns, max_ns;	/* lock_stat (and copies for the others) */
	bool have_read_bound;
	struct hist read_latency;	/* the readers' read() latency: an upper bound */
	char lock_name[160];		/* as measured ("memory_cgrp_subsys.rstat_ss_lock") */
};

struct lock_collector;

/*
 * Two steps, so that a measured phase is traced from its first moment:
 * prepare does what takes long (kernel symbols, the tracer's instance,
 * event formats, the BPF flush counter and hold programs loaded: seconds on
 * a loaded machine) and records nothing; enable opens the window (the
 * tracer's few writes, the BPF attach, lock_stat's first snapshot, and
 * perf lock record when asked for, which starts only here since it records
 * from its start and takes that long itself).  start is both at once.  NULL / -1 with one line in err; a
 * collector only prepared is stopped and freed as any other.
 */
struct lock_collector *lock_collector_prepare(const struct lock_collector_opts *o, char *err, size_t errlen);
int lock_collector_enable(struct lock_collector *c, char *err, size_t errlen);
struct lock_collector *lock_collector_start(const struct lock_collector_opts *o, char *err, size_t errlen);
/* The stat-read driver's read() latency histogram (merged in). */
void lock_collector_read_latency(struct lock_collector *c, const struct hist *h);
int lock_collector_stop(struct lock_collector *c, char *err, size_t errlen);
void lock_collector_free(struct lock_collector *c);

/* After stop. */
const struct flush_counts *lock_collector_flushes(const struct lock_collector *c);
const struct lock_hold_result *lock_collector_hold(const struct lock_collector *c);
const struct lock_tracer *lock_collector_tracer(const struct lock_collector *c);
/* One line per thing that did not run or lost data; "" when none. */
const char *lock_collector_notes(const struct lock_collector *c);
const char *lock_collector_perf_data(const struct lock_collector *c);

/* data/lock-report.txt (what lock_collector_print shows), lock-locks.tsv,
 * lock-rstat.tsv, lock-hold.tsv, lock-flush.tsv,
 * hist-lock-{wait,hold}.NAME.tsv (for the plots), perf outputs; "lock" in meta.json.  0 or -1. */
int lock_collector_write(struct lock_collector *c, struct results *r);
/* The tables a terminal user reads. */
void lock_collector_print(const struct lock_collector *c, FILE *f);

#endif
