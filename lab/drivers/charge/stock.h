/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stock experiment's measurement of precharge holders.  After a
 * throughput window of K workers taking turns on one CPU (loop_stock), the
 * parent parks them, moves each into a fresh memcg and lets them charge one
 * page each, in turn, on that CPU; then it reads every fresh memcg's usage
 * and counts, with the runtime probe's rule (kernel/runtime_probe.h:
 * runtime_count_precharged), the memcgs still holding a precharge in that
 * CPU's stock.  It is min(K, slots) on a quiet CPU: the cliff where K
 * passes the stock's size.  Parked workers run SCHED_FIFO (when allowed) so
 * no other task slips in between their charges, and the last one spins
 * until the parent has read (as the runtime probe does).  Other tasks can
 * still only evict, so several rounds are read and the largest count kept.
 *
 * The obj stock variant (loop_objstock, ctl->obj): a turn is one open() and
 * close() of /dev/null, a struct file allocated and freed through the
 * per-CPU obj stock in bytes.  A memcg whose objcg the stock holds keeps
 * the page its first charge took (the freed bytes go back to its slot: one
 * page); an evicted one has it uncharged when its slot is drained.  On
 * cgroup v1 memory.kmem.usage_in_bytes changes only at those page-level
 * charges and drains, so the holders after a round are read exactly there:
 * min(K, obj stock slots).  Cgroup v2 has no kmem counter; memory.stat's
 * "kernel" counts the same page charges but is flushed lazily, so there a
 * round is read once the periodic flush (every 2 s) shows the round's last
 * charge, which the stock holds by construction.  holders[r] is -1 for a
 * round that could not be read that way.
 */
#ifndef LAB_DRIVERS_STOCK_H
#define LAB_DRIVERS_STOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "kernel/cgroup.h"

#define STOCK_MAX_K 64
#define STOCK_MAX_ROUNDS 16

struct stock_worker_ctl {
	int cmd;		/* parent/previous worker: rounds to have charged */
	int done;		/* worker: rounds charged */
	pid_t pid;
} __attribute__((aligned(64)));

/* Shared (MAP_SHARED) between the parent and the stock workers. */
struct stock_ctl {
	int park __attribute__((aligned(64)));	/* parent: stop turning, wait */
	int parked __attribute__((aligned(64)));	/* workers parked so far */
	int round_done __attribute__((aligned(64)));	/* last worker: rounds finished */
	int read_done __attribute__((aligned(64)));	/* parent: rounds read */
	int k;
	bool obj;		/* obj stock: a turn is an open()+close() of /dev/null */
	bool hold;		/* the parent has a CPU of its own: the last worker
				 * keeps the probed CPU (SCHED_FIFO) until it has read */
	struct stock_worker_ctl w[STOCK_MAX_K];
};

struct stock_ctl *stock_ctl_new(int k, bool hold, bool obj);
void stock_ctl_free(struct stock_ctl *c);

struct stock_holders {
	int rounds;
	int holders[STOCK_MAX_ROUNDS];	/* per round */
	int best;			/* the largest: noise only evicts */
	char err[256];			/* set when the measurement failed */
};

/* The counter the holders are read from: usage, or (obj stock) v1's kmem usage. */
const char *stock_holders_file(const struct stock_ctl *ctl, const struct cg_env *env);

/*
 * The parent's side, while the K workers of ctl are still running (the
 * harness's window_end hook).  Fresh memcgs are made below root and
 * removed again by stock_holders_cleanup() once the workers are gone.
 * 0, or -1 with h->err.
 */
int stock_holders_measure(struct stock_ctl *ctl, const struct cg_env *env, const char *root, int rounds,
			  long page, struct stock_holders *h);
/* Removes them; 0, or -1 with err naming the first that stays. */
int stock_holders_cleanup(const char *root, int k, int rounds, char *err, size_t errlen);

#endif
