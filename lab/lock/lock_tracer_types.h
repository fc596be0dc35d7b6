/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock tracer's options and what it gives back (lock/lock_tracer.h):
 * per (root, level) of the rstat flush lock, the flush counts, what it
 * knows of a lock address, its own counts.  Types alone: both halves of
 * the tracer (lock_tracer.c, lock_tracer_records.c) fill them.
 */
#ifndef LAB_LOCK_LOCK_TRACER_TYPES_H
#define LAB_LOCK_LOCK_TRACER_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/kallsyms.h"
#include "util/hist.h"


struct lock_tracer_opts {
	const char *tracefs_dir;	/* NULL: the mounted tracefs */
	size_t buffer_kb;		/* per CPU; 0: sized from memory and CPU count */
	int caller_stacks;		/* stacktrace trigger count; 0: off, <0: default (256) */
	int poll_ms;			/* drain period (default 50) */
	const struct ksyms *ksyms;	/* names; NULL: loaded from /proc/kallsyms */
	/* Name a lock learn_name when a stack shows it taken inside
	 * learn_func (the user-flush mutex inside mem_cgroup_user_flush_stats
	 * on kernels without data symbols in kallsyms). */
	const char *learn_func, *learn_name;
	bool flush_events;		/* count flushes from tracefs events, not BPF */
	/* "sys:event,..." to treat as absent: how tests walk the path of a
	 * kernel that lacks some events. */
	const char *hide_events;
};

/* Per (root, level) of the rstat flush lock. */
struct rstat_stat {
	int root, level;
	uint64_t acquired;		/* cgroup_rstat_locked */
	uint64_t contended;		/* ... with contended=1 */
	uint64_t wait_unpaired;		/* contended without its contended event */
	struct hist wait, hold;		/* ns */
};

struct flush_counts {
	bool available;			/* memcg:memcg_flush_stats was traced */
	uint64_t calls;			/* __mem_cgroup_flush_stats() entries */
	uint64_t forced;		/* force=1 */
	uint64_t needed;		/* needs_flush=1 */
	uint64_t flushed;		/* force || needs_flush: the flush ran */
	uint64_t skipped;		/* neither: returned early */
};

/* What the tracer knows about a lock address. */
struct lock_info {
	uint64_t addr;
	char name[128];			/* "" when unnamed */
	char how[64];			/* "kallsyms", "rstat tracepoints", ... */
	char caller[128];		/* first caller seen in a stack, "" if none */
};

struct lock_tracer_stats {
	uint64_t events;		/* records decoded */
	uint64_t lost;			/* overrun + dropped, from per-CPU stats */
	uint64_t lost_pages;		/* kbuffer_missed_events() */
	uint64_t stacks;		/* kernel stacks taken by the trigger */
	uint64_t unlock_unpaired;	/* rstat unlock without its locked */
	char flush_counting[32];	/* "BPF counter", "tracefs events" or "" */
	/* The window (CLOCK_MONOTONIC): tracing_on and the BPF counter
	 * attached from on_ns to off_ns; 0 while not opened or not closed. */
	uint64_t on_ns, off_ns;
	int ncpus;
	size_t buffer_kb;
};

#endif
