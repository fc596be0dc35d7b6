/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the lock tracer (lock/lock_tracer*.c) only: its state, and the
 * half that gives the records their meaning (lock_tracer_records.c:
 * decoding a ring-buffer page, handling the records in time order, naming
 * the locks).  lock_tracer.c drives the tracefs instance and calls these
 * from its reader thread.
 */
#ifndef LAB_LOCK_LOCK_TRACER_RECORDS_H
#define LAB_LOCK_LOCK_TRACER_RECORDS_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "kernel/kallsyms.h"
#include "lock/flush_count.h"
#include "lock/lock_tracer_types.h"
#include "lock/lockcon.h"
#include "perf/tp_field.h"
#include "util/u64map.h"

struct tracefs_instance;
struct tep_handle;
struct kbuffer;


enum kind { K_CB = 1, K_CE, K_RC, K_RL, K_RU, K_FS, K_KS, K_NKINDS };

/* A decoded record. */
struct tev {
	uint64_t ts;
	uint64_t a;		/* lock address, cgroup id, memcg id */
	uint64_t seq;		/* decode order, for a stable sort */
	int32_t pid;
	uint32_t b;		/* flags, root, force */
	int32_t c, d;		/* level/contended, needs_flush */
	uint8_t kind;
	uint64_t caller;	/* K_KS: the caller frame; else 0 */
	uint64_t holder;	/* K_KS: a frame inside the learn function, 0 if none */
};

enum rphase { R_NONE, R_CONTENDED, R_LOCKED };

struct rstate {
	uint8_t phase;
	int root, level;
	uint64_t ts;
};

struct lock_tracer {
	struct tracefs_instance *inst;
	char name[64];
	char dir[PATH_MAX];		/* the instance directory (rmdir on undo) */
	int ncpus;
	int *fds;			/* per-CPU trace_pipe_raw, -1 when closed */
	int cleanup_handle;
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	size_t page;
	uint8_t *pagebuf;

	int ids[K_NKINDS];		/* event id per kind, -1 when not traced */
	struct tp_field f_addr_b, f_flags, f_addr_e, f_root, f_level, f_id, f_contended;
	struct tp_field f_fid, f_force, f_needs, f_ks_size, f_ks_caller;
	char missing[512];
	int caller_stacks;
	int stack_rounds;		/* times the trigger was armed */
	bool flush_events;

	pthread_t thread;
	atomic_bool stop;
	bool enabled;			/* the window opened (lock_tracer_enable) */
	bool running;			/* ... and has not closed yet */
	bool stopped;
	int poll_ms;
	uint64_t seq;

	struct tev *batch;
	size_t nbatch, capbatch;

	/* aggregation, owned by the reader thread until stop */
	struct lockcon lc;
	struct u64map infos;		/* addr -> struct lock_info */
	struct u64map rstat;		/* root << 32 | level -> struct rstat_stat */
	struct u64map rstates;		/* pid -> struct rstate */
	struct u64map last_begin;	/* pid -> lock addr + 1 of its last contention */
	struct flush_counts fc;
	struct flush_count *fcount;	/* in-kernel flush counting, or NULL */
	struct lock_tracer_stats st;

	/* names */
	const struct ksyms *ks;
	struct ksyms own_ks;
	uint64_t text_lo, text_hi;	/* _text .. _end/_etext: static data lies between */
	bool per_ss_rstat;		/* 6.16+: one rstat lock per subsystem */
	char roots[16][96];		/* controllers per hierarchy id, from /proc/cgroups */
	char rstat_names[16][160];
	uint64_t learn_lo, learn_hi;	/* holder function, for naming its lock */
	char learn_name[128];
	char learn_func[128];
};

/* The aggregates' maps and lockcon, and the names: the kernel's symbols
 * (o->ksyms, else /proc/kallsyms), the cgroup hierarchies and their rstat
 * locks, the learn function of o. */
void lock_records_init(struct lock_tracer *t, const struct lock_tracer_opts *o);
void lock_records_free(struct lock_tracer *t);
/* The records of the page in t->pagebuf into t->batch (lost pages counted). */
void lock_records_decode_page(struct lock_tracer *t);
/* Handles the batch's records stamped at mark or before, in time order;
 * the younger ones wait in the batch. */
void lock_records_handle_until(struct lock_tracer *t, uint64_t mark);
/* Name of the lock the rstat tracepoints of root report on. */
const char *lock_records_rstat_lock_name(const struct lock_tracer *t, int root);

#endif
