// SPDX-License-Identifier: GPL-2.0
/*
 * kmem: churn of one accounted kernel object from user space.  Each worker
 * keeps a ring of open descriptors of /dev/null and replaces the oldest:
 * close() frees a struct file and open() allocates one, both from the
 * "filp" slab cache, which is SLAB_ACCOUNT: the object is charged to the
 * opener's memcg through the per-CPU obj stock (bytes), which charges the
 * page_counters a page at a time.  /dev/null's dentry and inode exist
 * already, so a struct file is the only accounted allocation (measured on
 * 6.18: 208 bytes of kmem per open descriptor, filp objects are 192 B).
 * The ring keeps the charge visible in memory.kmem.usage_in_bytes (v1) or
 * memory.stat slab_unreclaimable (v2) while the run goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "drivers/charge/loops.h"

struct kmem {
	int dev;		/* /dev, so each open walks one component */
	int n, next;
	int fd[];
};

static void kmem_teardown(void *state)
{
	struct kmem *k = state;

	for (int i = 0; i < k->n; i++)
		if (k->fd[i] >= 0)
			close(k->fd[i]);
	close(k->dev);
	free(k);
}

static int kmem_setup(struct hworker *w, void **state)
{
	const struct charge_opts *o = w->cfg;
	struct kmem *k = calloc(1, sizeof(*k) + o->objects * sizeof(int));
	int e;

	if (!k)
		return -ENOMEM;
	k->n = o->objects;
	memset(k->fd, -1, k->n * sizeof(int));
	k->dev = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (k->dev < 0) {
		e = errno;
		snprintf(w->err, sizeof(w->err), "/dev: %s", strerror(e));
		free(k);
		return -e;
	}
	for (int i = 0; i < k->n; i++) {
		k->fd[i] = openat(k->dev, "null", O_RDONLY | O_CLOEXEC);
		if (k->fd[i] < 0) {
			e = errno;
			snprintf(w->err, sizeof(w->err), "/dev/null: open %d of %d: %s", i + 1, k->n, strerror(e));
			kmem_teardown(k);
			return -e;
		}
	}
	*state = k;
	return 0;
}

static int kmem_loop(void *state, uint64_t *count, const int *stop)
{
	struct kmem *k = state;

	while (!hstop(stop)) {
		close(k->fd[k->next]);
		k->fd[k->next] = openat(k->dev, "null", O_RDONLY | O_CLOEXEC);
		if (k->fd[k->next] < 0)
			return -errno;
		hcount_add(count, 1);
		if (++k->next == k->n)
			k->next = 0;
	}
	return 0;
}

const struct hloop loop_kmem = {
	.name = "kmem",
	.what = "close()+open() of /dev/null (each: one struct file from the '" KMEM_SLAB_CACHE
		"' slab cache uncharged and charged through the obj stock)",
	.unit = "opens",
	.rate_unit = "ops/s",
	.rate_scale = 1,
	.setup = kmem_setup,
	.loop = kmem_loop,
	.teardown = kmem_teardown,
};
