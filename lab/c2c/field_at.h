/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which member of a struct holds a given byte, from BTF (the kernel under
 * test's own layout; never a table in the code).
 *
 * Names are nested and indexed the way a kernel developer writes them:
 * "memory.usage", "cached[3]", "css.refcnt.percpu_count_ptr".  Descent stops
 * at typedef'd members (atomic_long_t, spinlock_t, local_trylock_t), which
 * are named as a whole; anonymous structs and unions are transparent, and
 * of overlapping union members the first declared is named.  Bytes between
 * members are "(hole after X)", bytes after the last one "(padding after X)".
 */
#ifndef LAB_C2C_FIELD_AT_H
#define LAB_C2C_FIELD_AT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/btf.h"

struct field_hit {
	char name[256];		/* nested name, without the struct's own name */
	uint64_t offset;	/* first byte of the named member (or hole) in the struct */
	uint64_t size;		/* its size in bytes */
	bool hole;		/* a hole or the trailing padding */
};

/*
 * Names the member of struct type_id at byte off.  Returns 0, or -1 when off
 * is beyond the struct's size or type_id is not a struct/union.
 */
int field_at(const struct kbtf *k, int type_id, uint64_t off, struct field_hit *out);

#endif
