/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocators that keep a memory cgroup in reclaim: each cycles through a
 * working set larger than its share of the limit, so every pass charges
 * pages the previous pass lost to reclaim.
 *
 *  - ALLOC_FILE: reads a sparse file on a disk filesystem.  Holes still fill
 *    the page cache with clean pages, so reclaim drops them without swap and
 *    without disk I/O, and the file costs no disk space.  The file is an
 *    O_TMPFILE (or unlinked at once): nothing is left behind, even after
 *    SIGKILL.
 *  - ALLOC_TMPFS: writes, reads back and truncates a memfd (shmem), as
 *    stress.sh does with dd on a tmpfs.  Reclaim must swap.
 *  - ALLOC_ANON: touches every page of an anonymous mapping.  Needs swap.
 */
#ifndef LAB_DRIVERS_RECLAIM_ALLOC_H
#define LAB_DRIVERS_RECLAIM_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

enum alloc_kind { ALLOC_FILE, ALLOC_TMPFS, ALLOC_ANON };

extern const char *const alloc_kind_names[];	/* "file", "tmpfs", "anon" */

/* Parses "file" | "tmpfs" | "anon"; -1 otherwise. */
int alloc_kind_parse(const char *s, enum alloc_kind *k);
/* Whether reclaim of this kind needs swap. */
bool alloc_kind_needs_swap(enum alloc_kind k);

/* One allocator's progress, alone on its cacheline in a shared mapping. */
struct alloc_slot {
	volatile uint64_t bytes;	/* bytes charged so far (written by the allocator only) */
	char pad[64 - sizeof(uint64_t)];
} __attribute__((aligned(64)));

struct reclaim_alloc {
	enum alloc_kind kind;
	int64_t bytes;			/* working set */
	int64_t work;			/* > 0: stop after this many bytes */
	const char *file_dir;		/* ALLOC_FILE: directory on a disk filesystem */
	/* The start barrier, in shared memory: 0 until the parent stores 1
	 * and wakes every allocator with one futex call.  (A pipe's EOF
	 * wakes its readers one by one through the pipe's mutex: 2500
	 * allocators took minutes in a 128-vCPU guest.) */
	int *go;
	struct alloc_slot *slot;
	const volatile int *stop;	/* set once by the parent at the end */
};

/*
 * The allocator's body (for cg_spawn): waits for the start, then cycles
 * until *stop or until work is done.  Returns 0, or an errno-derived exit
 * status (the parent reports it).
 */
int reclaim_alloc_main(void *arg);

/* Opens the ALLOC_FILE working set: a sparse temporary file of the given
 * size in dir (O_TMPFILE, else created and unlinked).  fd or -errno. */
int reclaim_alloc_open_file(const char *dir, int64_t bytes);

#endif
