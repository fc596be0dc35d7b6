/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The charging workloads of `memcg-lab charge`, one loop body per file
 * (anon.c, file.c, kmem.c, sock.c, stock.c with objstock), all run by the harness.
 */
#ifndef LAB_DRIVERS_LOOPS_H
#define LAB_DRIVERS_LOOPS_H

#include <stdbool.h>
#include <stddef.h>
#include "drivers/harness.h"

struct stock_ctl;

/* The loops' configuration: shared by every worker, read-only. */
struct charge_opts {
	size_t page;		/* the page size */
	size_t size;		/* anon, file: bytes each worker charges per pass */
	bool populate;		/* anon: MADV_POPULATE_WRITE instead of touching */
	int objects;		/* kmem: objects each worker keeps allocated */
	bool kmod_accounted;	/* kmem with the module: its SLAB_ACCOUNT cache, else the plain one */
	long kmod_batch;	/* kmem with the module: alloc/free pairs per write() */
	size_t msg;		/* sock: bytes per sendfile() */
	const char *tmpfs;	/* file: a directory on tmpfs */
	int stock_pages;	/* stock: pages per pass (one charge batch) */
	struct stock_ctl *stock_ctl;	/* stock: shared with the parent (stock.h) */
};

/* A private anonymous range without THP (anon.c; the stock loop shares it). */
struct anon_region {
	char *p;
	size_t size, page;
	bool populate;
};

int anon_region_setup(struct hworker *w, size_t size, void **state);
void anon_region_teardown(void *state);

extern const struct hloop loop_anon, loop_file, loop_kmem, loop_sock, loop_stock, loop_objstock;

/* The loop of a mode name, or NULL. */
const struct hloop *loop_by_name(const char *name);
/* "anon, file, kmem, sock, stock, objstock" */
extern const char loop_names[];

/* The slab cache the kmem loop charges (its object is struct file). */
#define KMEM_SLAB_CACHE "filp"

#endif
