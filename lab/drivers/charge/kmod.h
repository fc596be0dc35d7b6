/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kmem mode's module (lab/kmod/kmem_bench.c: the seed's loop of
 * kmem_cache_alloc()/kmem_cache_free() on a SLAB_ACCOUNT cache and on a
 * plain one): where the lab keeps it for a kernel, loading and unloading
 * it, its counters, and the worker loop that drives it.
 *
 * The module is built for one kernel release by lab/scripts/kmod.sh (make
 * kmod on a host with /lib/modules/$(uname -r)/build, vm --kmod for a
 * guest) into <lab root>/build/kmod/<release>/kmem_bench.ko, with
 * built.txt beside it saying what it was built against.  Where there is
 * none, the kmem mode runs its close()/open() stand-in (kmem.c) and says
 * so (kmod_resolve's why).
 */
#ifndef LAB_DRIVERS_CHARGE_KMOD_H
#define LAB_DRIVERS_CHARGE_KMOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "drivers/harness.h"

#define KMOD_NAME "kmem_bench"
#define KMOD_FILE KMOD_NAME ".ko"
#define KMOD_PROC "/proc/" KMOD_NAME
#define KMOD_DEFAULT_SIZE 64		/* the seed's object */
#define KMOD_DEFAULT_BATCH 10000	/* loops a write() runs */
#define KMOD_STANDIN "close()/open() of /dev/null: a stand-in for the seed's module"

/*
 * The module a --module value names (NULL or "auto": the one the lab built
 * for the running kernel, if any; "none": the stand-in; else a path) into
 * path, with the first line of its built.txt (what it was built against)
 * in built ("" when none).  1: a module; 0: none, with why the stand-in
 * runs in why; -1: a path given that cannot be read (why holds the reason).
 */
int kmod_resolve(const char *opt, char *path, size_t pathlen, char *built, size_t builtlen, char *why,
		 size_t whylen);

/* The kernel release a module was built for (its vermagic's first word), or -1. */
int kmod_vermagic_release(const char *path, char *rel, size_t n);

/* A cache's counters (a read of /proc/kmem_bench/<cache>): every write's
 * loops and nanoseconds so far, and the object size. */
struct kmod_counts {
	uint64_t loops, ns;
	unsigned int size;
	bool ok;
};
int kmod_read(const char *cache, struct kmod_counts *c);

/*
 * Loads the module at path with size= (finit_module), unless it is loaded
 * already with that size; *loaded_here says whether this call loaded it
 * (and registered its unload as an undo step).  0, or -1 with one line in
 * err (the kernel's refusal, with the module's release against this one).
 */
int kmod_load(const char *path, unsigned int size, bool *loaded_here, char *err, size_t errlen);
/* Unloads what kmod_load loaded (nothing otherwise). */
void kmod_unload(void);

/* The worker loop: write(batch) to /proc/kmem_bench/<cache>, each runs
 * batch alloc/free pairs in the kernel; the counter counts the pairs. */
extern const struct hloop loop_kmod;

#endif
