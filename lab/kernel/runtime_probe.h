/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runtime probes: what BTF cannot say, measured from user space
 * (lab/README section 1.1 and 1.2).
 *
 * - Charge batch: a fresh memcg's usage jumps by exactly MEMCG_CHARGE_BATCH
 *   pages when a task pinned to one CPU charges its first page (the rest is
 *   precharged into that CPU's stock): 64 on 6.1+, 32 before.
 * - Stock slots: K fresh memcgs, each with a worker pinned to the same CPU,
 *   charge one page in turn; afterwards only the memcgs still cached in that
 *   CPU's stock hold a precharge (usage well above what they use).  Their
 *   number is the length of memcg_stock_pcp.cached[] (7 on 6.16+, 1 before).
 * - Obj stock slots: the same rotation through the per-CPU obj stock, each
 *   turn an open()+close() of /dev/null (a struct file charged in bytes).
 *   A memcg whose objcg the stock still holds keeps the page its first
 *   charge took; an evicted one had it uncharged when its slot drained.
 *   That page shows in memory.kmem.usage_in_bytes (v1) at once, and in
 *   memory.stat's kernel (v2) after the periodic stats flush, which the
 *   round's last memcg (held by construction) tells.  5 on 7.2+, 1 before.
 *
 * Usage is always read by the parent, outside the probed cgroups and on
 * another CPU when there is one, through files opened and read once before
 * the charges (a re-read then allocates nothing that could disturb the stock).
 * Noise from other tasks on the probed CPU can only evict our memcgs, never
 * add one, so a noisy round reads fewer slots; several rounds give the value
 * seen most.
 */
#ifndef LAB_KERNEL_RUNTIME_PROBE_H
#define LAB_KERNEL_RUNTIME_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel/cgroup.h"

#define RP_MAX_ROUNDS 64
#define RP_MAX_K 64		/* most memcgs the slot probe charges in turn */

struct runtime_probe_stat {
	int mode;		/* the answer: the value seen most (ties: the larger), or
				 * the largest for evict_only probes; -1 if no round worked */
	int min, max;
	int nsamples;		/* rounds that gave a value */
	int samples[RP_MAX_ROUNDS];	/* per round, -1 where the round failed */
};

struct runtime_probe_result {
	int rounds;
	int cpu;		/* CPU the charging workers were pinned to */
	int orchestrator_cpu;	/* the parent's CPU, -1 when it had to share cpu */
	long page_size;

	struct runtime_probe_stat charge_batch;	/* pages */
	int batch_first_usage[RP_MAX_ROUNDS];	/* usage before the first touch (pages) */
	int batch_stable_rounds;	/* rounds where pages 2 and 3 left usage unchanged */

	struct runtime_probe_stat stock_slots;
	int stock_k;		/* memcgs charged in turn (the largest K used) */
	bool stock_saturated;	/* every one of K kept its precharge: slots >= K */

	struct runtime_probe_stat obj_stock_slots;
	int obj_stock_k;	/* memcgs allocating in turn (the largest K used) */
	bool obj_stock_saturated;
	char obj_method[256];	/* where the obj stock's holders were read */

	char method[384];	/* one line: how it was measured, for the evidence */
};

/*
 * Runs both probes rounds times (1..RP_MAX_ROUNDS) in cgroups below this
 * run's tree (cg_tree_create: shared with the caller's tree if it has one).
 * 0, or -1 with a one-line reason in err (not root, no memory controller,
 * a cgroup removed under our feet, a worker that died).
 */
int runtime_probe_run(const struct cg_env *env, int rounds, struct runtime_probe_result *out,
		      char *err, size_t errlen);

/*
 * How many of n memcgs hold a per-CPU precharge: usage[i] exceeds charged[i]
 * (what their tasks charged themselves, e.g. pages touched plus the usage
 * before) by at least min_excess bytes.  Sets holding[i] when not NULL.
 * The stock experiments of the charge driver use it the same way.
 */
int runtime_count_precharged(const long long *usage, const long long *charged, int n,
			     long long min_excess, bool *holding);
/* The min_excess for a batch of batch_pages: half a batch (a drained
 * memcg keeps none, a cached one keeps up to batch - 1 pages). */
long long runtime_precharge_threshold(int batch_pages, long page_size);

/*
 * The kmem page charges of a memcg, for the obj stock probes (here and the
 * charge driver's objstock mode): the file to open (memory.kmem.usage_in_bytes
 * on v1, memory.stat on v2), its value in bytes through an open fd (v2: the
 * "kernel" line), and, on v2, a wait until the lazily flushed value of fd
 * has reached before + page / 2 (at most RP_FLUSH_WAIT_S; false if not).
 */
#define RP_FLUSH_WAIT_S 5
const char *runtime_kmem_file(const struct cg_env *env);
int runtime_read_kmem(const struct cg_env *env, int fd, long long *out);
bool runtime_wait_kmem(const struct cg_env *env, int fd, long long before, long page);

/* Fills mode/min/max/nsamples from samples[0..n) (-1 entries skipped).
 * evict_only: the rounds can only undercount (another task on the CPU
 * evicts a slot, nothing adds a holder of ours), so the answer in mode is
 * the largest value seen, not the commonest: under qemu TCG 7-slot stocks
 * read 6 in up to 3 of 5 rounds. */
void runtime_stat_finish(struct runtime_probe_stat *s, int n, bool evict_only);

#endif
