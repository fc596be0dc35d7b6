// SPDX-License-Identifier: GPL-2.0
/*
 * stock: the multi-memcg per-CPU stock under rotation.  K workers, each in
 * its own memcg and all pinned to one CPU, take turns: fault one page,
 * sched_yield() to the next.  Each fault charges a different memcg than the
 * one before, so while K <= the stock's slots every charge is served from a
 * precharged slot, and beyond it every charge drains a victim slot and
 * refills from the page_counters.  A pass is one charge batch of pages,
 * uncharged together by MADV_DONTNEED (one page_counter walk per batch).
 */
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include "drivers/loops.h"

static int stock_setup(struct hworker *w, void **state)
{
	const struct charge_opts *o = w->cfg;

	return anon_region_setup(w, (size_t)o->stock_pages * o->page, state);
}

static int stock_loop(void *state, uint64_t *count, const int *stop)
{
	struct anon_region *a = state;

	while (!hstop(stop)) {
		for (size_t off = 0; off < a->size; off += a->page) {
			a->p[off] = 1;
			hcount_add(count, 1);
			/* Hand the CPU to the next memcg's worker. */
			sched_yield();
		}
		if (madvise(a->p, a->size, MADV_DONTNEED) < 0)
			return -errno;
	}
	return 0;
}

const struct hloop loop_stock = {
	.name = "stock",
	.what = "page faults taking turns on one CPU, one memcg per worker "
		"(each: one page charged from a stock slot, or a slot drained and refilled)",
	.unit = "charges",
	.rate_unit = "ops/s",
	.rate_scale = 1,
	.setup = stock_setup,
	.loop = stock_loop,
	.teardown = anon_region_teardown,
};
