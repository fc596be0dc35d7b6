/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lab's lock tracer: a private tracefs instance (libtracefs), named
 * with lab_owner_name() so that `memcg-lab cleanup` finds a dead run's, with
 * these events enabled in it only (the global instance is never touched):
 *
 *   lock:contention_begin/end             waits per lock address and type
 *   cgroup:cgroup_rstat_lock_contended    wait for the rstat flush lock,
 *   cgroup:cgroup_rstat_locked/unlock     and how long it is HELD, per
 *                                         hierarchy root and cgroup level
 *   memcg:memcg_flush_stats               flush calls: forced, needed, skipped,
 *                                         counted in the kernel by BPF where it
 *                                         can (lock/flush_count.h): it fires
 *                                         on every memory.stat read
 *   a stacktrace trigger (N contentions, re-armed a few times without the
 *   locks already named) to name unnamed locks by their caller
 *
 * A reader thread drains the per-CPU ring buffers, decodes the records with
 * libtraceevent's kbuffer and the event formats, and aggregates as it goes:
 * log histograms per lock and per (root, level), so memory does not grow
 * with the number of events.  The instance uses the "mono" trace clock; each
 * drain processes only records older than the moment the drain began (minus
 * a margin), so a wait that starts on one CPU and ends on another is paired
 * in time order.  Lost events (ring-buffer overruns and drops, per CPU) are
 * counted and reported, never hidden.  Events this kernel lacks are named in
 * t->missing and the rest are traced.
 */
#ifndef LAB_LOCK_LOCK_TRACER_H
#define LAB_LOCK_LOCK_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lock/lock_tracer_types.h"
#include "lock/lockcon.h"
#include "util/u64map.h"

struct lock_tracer;

/* Finds the tracefs the tracer will use (o->tracefs_dir, or the mounted
 * one, mounted for this run where it is not: kernel/tracefs_dir.h); 0, or
 * -1 with one line in err.  lock_tracer_prepare calls it; a
 * command calls it first too so a bad --tracefs fails before it creates
 * anything. */
int lock_tracer_find_tracefs(const struct lock_tracer_opts *o, char *err, size_t errlen);
/* The tracefs directory lock_tracer_find_tracefs() found (or mounted). */
const char *lock_tracer_tracefs_dir(void);
/*
 * Everything that takes long (kernel symbols, the instance and its buffers,
 * the event formats, the events enabled with tracing off, the BPF counter
 * loaded): NULL with one line in err.  Nothing is recorded until
 * lock_tracer_enable opens the window, which costs a few writes, so a
 * caller prepares before its measured phase and enables at its start.
 */
struct lock_tracer *lock_tracer_prepare(const struct lock_tracer_opts *o, char *err, size_t errlen);
/* Opens the window: the BPF counter attached, tracing on, the stack
 * trigger armed, the reader thread started.  0 or -1 with err. */
int lock_tracer_enable(struct lock_tracer *t, char *err, size_t errlen);
/* Both at once; NULL with one line in err. */
struct lock_tracer *lock_tracer_start(const struct lock_tracer_opts *o, char *err, size_t errlen);
/* Closes the window, drains everything, removes the instance (also of a
 * tracer only prepared). 0 or -1 with err. */
int lock_tracer_stop(struct lock_tracer *t, char *err, size_t errlen);
void lock_tracer_free(struct lock_tracer *t);

/* Results (valid after stop). */
const char *lock_tracer_instance(const struct lock_tracer *t);
const char *lock_tracer_missing(const struct lock_tracer *t);	/* "" or "a, b (why)" */
const struct lockcon *lock_tracer_waits(const struct lock_tracer *t);
const struct lock_info *lock_tracer_info(const struct lock_tracer *t, uint64_t addr);
/* The rstat rows sorted by root and level (malloc'd). */
struct rstat_stat *lock_tracer_rstat(const struct lock_tracer *t, size_t *count);
const struct flush_counts *lock_tracer_flushes(const struct lock_tracer *t);
const struct lock_tracer_stats *lock_tracer_stats(const struct lock_tracer *t);
/* Name of the lock the rstat tracepoints of root report on. */
const char *lock_tracer_rstat_lock_name(const struct lock_tracer *t, int root);
bool lock_tracer_has_rstat(const struct lock_tracer *t);
/* The hierarchy id the memory controller is on (/proc/cgroups), or -1. */
int lock_tracer_memory_root(const struct lock_tracer *t);

#endif
