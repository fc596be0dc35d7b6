// SPDX-License-Identifier: GPL-2.0
/*
 * anon: fault in private anonymous pages, drop them with MADV_DONTNEED,
 * fault them in again.  Every fault charges one page to the memcg of the
 * mm's owner (through the per-CPU stock); MADV_DONTNEED uncharges them.
 * THP is off for the range so that a fault is one 4 KiB page.
 *
 * With populate set, MADV_POPULATE_WRITE faults the range in from inside the
 * kernel (Linux 5.14+): the same fault handler and charge per page, without
 * the user-mode exception and the retried store, whose cost shows up as
 * user time (about 7% of the worker's CPU on a VM).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "drivers/charge/loops.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

int anon_region_setup(struct hworker *w, size_t size, void **state)
{
	const struct charge_opts *o = w->cfg;
	struct anon_region *a = calloc(1, sizeof(*a));
	int e;

	if (!a)
		return -ENOMEM;
	a->size = size;
	a->page = o->page;
	a->p = mmap(NULL, a->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a->p == MAP_FAILED) {
		e = errno;
		snprintf(w->err, sizeof(w->err), "mmap of %zu bytes: %s", a->size, strerror(e));
		free(a);
		return -e;
	}
	/* EINVAL: a kernel without THP, where every fault is a small page anyway. */
	if (madvise(a->p, a->size, MADV_NOHUGEPAGE) < 0 && errno != EINVAL) {
		e = errno;
		snprintf(w->err, sizeof(w->err), "madvise(MADV_NOHUGEPAGE): %s", strerror(e));
		anon_region_teardown(a);
		return -e;
	}
	*state = a;
	return 0;
}

void anon_region_teardown(void *state)
{
	struct anon_region *a = state;

	munmap(a->p, a->size);
	free(a);
}

static int anon_setup(struct hworker *w, void **state)
{
	const struct charge_opts *o = w->cfg;
	int e = anon_region_setup(w, o->size, state);
	struct anon_region *a;

	if (e < 0 || !o->populate)
		return e;
	/* Try it once, so an old kernel fails in setup and not in the loop. */
	a = *state;
	if (madvise(a->p, a->page, MADV_POPULATE_WRITE) < 0 || madvise(a->p, a->page, MADV_DONTNEED) < 0) {
		e = errno;
		snprintf(w->err, sizeof(w->err), "madvise(MADV_POPULATE_WRITE): %s%s", strerror(e),
			 e == EINVAL ? " (needs Linux 5.14)" : "");
		anon_region_teardown(a);
		return -e;
	}
	a->populate = true;
	return 0;
}

static int anon_loop(void *state, uint64_t *count, const int *stop)
{
	struct anon_region *a = state;
	uint64_t pages = a->size / a->page;

	while (a->populate && !hstop(stop)) {
		if (madvise(a->p, a->size, MADV_POPULATE_WRITE) < 0)
			return -errno;
		hcount_add(count, pages);
		if (madvise(a->p, a->size, MADV_DONTNEED) < 0)
			return -errno;
	}
	while (!hstop(stop)) {
		for (size_t off = 0; off < a->size; off += a->page) {
			a->p[off] = 1;
			hcount_add(count, 1);
		}
		if (madvise(a->p, a->size, MADV_DONTNEED) < 0)
			return -errno;
	}
	return 0;
}

const struct hloop loop_anon = {
	.name = "anon",
	.what = "page faults on private anonymous memory dropped with MADV_DONTNEED "
		"(each: one 4 KiB page charged, later uncharged)",
	.unit = "faults",
	.rate_unit = "ops/s",
	.rate_scale = 1,
	.setup = anon_setup,
	.loop = anon_loop,
	.teardown = anon_region_teardown,
};
