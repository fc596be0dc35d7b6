/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock contention aggregation with the semantics of `perf lock contention`
 * in tracepoint mode (tools/perf/builtin-lock.c), so that the lab's numbers
 * agree with perf's exactly on the same events:
 *
 *  - a wait is lock:contention_begin -> lock:contention_end of one thread on
 *    one lock address; a second begin while waiting (mutex spinning, then
 *    sleeping) is ignored, an end without a begin marks the entry "broken";
 *  - per caller, the key is a hash of the call chain (lock functions and the
 *    first stack_skip frames left out), so one caller name can head several
 *    rows, and the wait is credited to the key of the END event;
 *  - the caller is the first frame after the skipped ones that has a symbol
 *    and is not a lock function ("Unknown" when none);
 *  - frames are perf's callchain cursor nodes, limited to max_stack: one per
 *    address, or (perf 7.x) one per function of a user address's inline
 *    chain (user_nodes);
 *  - avg wait = total wait / acquisitions.
 *
 * Memory is bounded by the number of keys, threads and locks in flight,
 * never by the number of events.  Per-key wait histograms (util/hist.h)
 * are kept for the first max_hist keys.
 */
#ifndef LAB_LOCK_LOCKCON_H
#define LAB_LOCK_LOCKCON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/hist.h"
#include "perf/perf_symbols.h"
#include "util/u64map.h"

enum lockcon_by {
	LOCKCON_BY_CALLER,
	LOCKCON_BY_THREAD,
	LOCKCON_BY_LOCK,
};

#define LOCKCON_NAME 128	/* perf's caller buffer: names are cut at 127 chars */

struct lockcon_entry {
	uint64_t key;		/* call chain hash, tid, or lock address */
	uint64_t addr;		/* lock address of the first contention */
	unsigned int flags;	/* LCB_F_* of the first contention */
	char name[LOCKCON_NAME];
	uint64_t contended, acquired;
	uint64_t wait_total, wait_max, wait_min;
	bool broken;
	struct hist *hist;	/* waits, or NULL beyond max_hist keys */
};

enum { LOCKCON_BAD_ACQUIRE, LOCKCON_BAD_ACQUIRED, LOCKCON_BAD_CONTENDED, LOCKCON_BAD_RELEASE,
       LOCKCON_BAD_MAX };

struct lockcon {
	enum lockcon_by by;
	int max_stack;		/* perf's --max-stack (8) */
	int stack_skip;		/* perf's --stack-skip (3 before perf 6.2, then 4) */
	const struct psyms *syms;
	/* Keep finished (tid, lock) pairs as perf does, so that an end after
	 * an end counts as "bad"; a live tracer drops them to bound memory. */
	bool keep_acquired;
	/* A spinning lock cannot be waited for twice at once by one task: a
	 * second begin means the first wait's end was lost, so restart it
	 * (perf ignores it and the next end adds both waits together). */
	bool restart_spin;
	size_t max_hist;
	/*
	 * Cursor nodes of a user address (perf 7.x adds its inline frames,
	 * perf/user_inlines.h), looked up in process pid of the chain being
	 * fed; NULL: one node per address, as perf 6.1.
	 */
	int (*user_nodes)(void *arg, uint32_t pid, uint64_t ip);
	void *user_arg;
	uint32_t pid;

	struct u64map entries;	/* key -> struct lockcon_entry */
	struct u64map threads;	/* tid -> per-thread lock states */
	size_t nhist;

	uint64_t begins, ends, nested, restarted;
	uint64_t bad[LOCKCON_BAD_MAX];
	uint64_t ends_unkeyed;	/* end whose key had no entry (perf drops them) */
	uint64_t user_callers;	/* caller search ran into user frames (not resolved) */
};

void lockcon_init(struct lockcon *lc, enum lockcon_by by, const struct psyms *syms);
void lockcon_free(struct lockcon *lc);

/* ips: the raw callchain (context markers included), or NULL. */
void lockcon_begin(struct lockcon *lc, uint32_t tid, uint64_t time, uint64_t addr,
		   unsigned int flags, const uint64_t *ips, uint64_t nr);
void lockcon_end(struct lockcon *lc, uint32_t tid, uint64_t time, uint64_t addr,
		 const uint64_t *ips, uint64_t nr);

/* Moves the start of tid's wait on addr to t0 (when a probe inside the
 * wait, such as a stack capture, took time that is not lock waiting). */
void lockcon_rebase(struct lockcon *lc, uint32_t tid, uint64_t addr, uint64_t t0);

/* perf's call chain key and caller name of a callchain. */
uint64_t lockcon_chain_id(const struct lockcon *lc, const uint64_t *ips, uint64_t nr);
bool lockcon_caller(struct lockcon *lc, const uint64_t *ips, uint64_t nr, char *buf, size_t n);

/* Entries perf would print (total wait > 0 unless all is set), sorted by
 * total wait, then count, then key.  Caller frees the array. */
struct lockcon_entry **lockcon_sorted(const struct lockcon *lc, bool all, size_t *n);
uint64_t lockcon_avg(const struct lockcon_entry *e);
uint64_t lockcon_bad_total(const struct lockcon *lc);

#endif
