/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which member of a struct holds a given byte, from BTF (the kernel under
 * test's own layout; never a table of offsets in the code).
 *
 * Names are nested and indexed the way a kernel developer writes them:
 * "memory.usage", "cached[3]", "css.refcnt.percpu_count_ptr".  Descent stops
 * at typedef'd members (atomic_long_t, spinlock_t, local_trylock_t), which
 * are named as a whole; anonymous structs and unions are transparent.  Bytes
 * between members are "(hole after X)", bytes after the last one "(padding
 * after X)".
 *
 * Union members overlap: a byte of one is a byte of all.  Where the kernel
 * uses one member on cgroup v1 and another on v2 (mem_cgroup's
 * swap/memsw), the member live on the objects' cgroup version names it
 * (the table in field_at.c says which); a union the table does not know,
 * or an unknown cgroup version, names every member, '|'-joined as the
 * layout maps do: "swap|memsw.usage".
 */
#ifndef LAB_C2C_FIELD_AT_H
#define LAB_C2C_FIELD_AT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/btf.h"

struct cg_env;

/* The cgroup version the memory controller of the objects' kernel ran on. */
enum field_cgroup {
	FIELD_CG_UNKNOWN = 0,	/* union members named all together: "swap|memsw" */
	FIELD_CG_V1,
	FIELD_CG_V2,
};

struct field_hit {
	char name[256];		/* nested name, without the struct's own name */
	uint64_t offset;	/* first byte of the named member (or hole) in the struct */
	uint64_t size;		/* its size in bytes */
	bool hole;		/* a hole or the trailing padding */
};

/*
 * Names the member of struct type_id at byte off, union members by cgroup
 * version cg.  Returns 0, or -1 when off is beyond the struct's size or
 * type_id is not a struct/union.
 */
int field_at(const struct kbtf *k, int type_id, uint64_t off, enum field_cgroup cg, struct field_hit *out);

/* "v1", "v2", or "" (unknown): as objects TSVs and guest.txt write it. */
const char *field_cgroup_name(enum field_cgroup cg);
/* "v1" / "v2" / "" into *cg: 0, or -1 for anything else. */
int field_cgroup_parse(const char *s, enum field_cgroup *cg);
/* The version of a detected cgroup setup (kernel/cgroup.h); unknown when
 * env is NULL or there is no memory controller. */
enum field_cgroup field_cgroup_of(const struct cg_env *env);

#endif
