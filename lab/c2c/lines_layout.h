/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A struct's layout as the trace replay needs it (`memcg-lab lines
 * predict`, `lines suggest`): its members and, in each, the fields the
 * lab names (c2c/field_at.h: nested and indexed, "memory.usage",
 * "vmstats[3]", mem_cgroup's union by the run's cgroup version), with
 * their offsets; read from BTF, then rewritten by edits.
 *
 * Units are the struct's direct members (a union's members together, a
 * zero-size CACHELINE_PADDING member a marker): what a C definition
 * orders and what the edits move.  Fields are the units' leaves, at
 * offsets relative to their unit, so that moving a unit moves its fields.
 *
 * Edits (each checked: an unknown name, an overlap, a misaligned offset is
 * an error naming the member):
 *   --move U=OFF   U (or a block "A..B": A through B in offset order) to
 *                  byte OFF; the other members stay; consecutive moves
 *                  are one edit (a swap of two blocks).
 *   --align U=N    U on an N-byte boundary: the members from U on are
 *                  laid out again as the compiler would (below).
 *   --pad-after U  the member after U starts a new line (the kernel's
 *                  CACHELINE_PADDING after U).
 * Laying out again: from the edited member on, each member at the first
 * offset its alignment allows after the one before, as C does.  A
 * member's alignment is its natural one (its fields' sizes, up to 8),
 * raised to what explains where it sits: the smallest power of two that
 * puts it at its offset after the member before (an __aligned(64) member,
 * a member after a cacheline marker); markers are 64-byte aligned.  So an
 * unedited layout lays out to itself.
 *
 * An embedded struct edited on its own (page_counter inside mem_cgroup:
 * memory, swap|memsw, kmem, tcpmem) is put into its container with
 * lines_layout_embed(): each member of that type takes the new layout,
 * and the container's members after it are laid out again.
 */
#ifndef LAB_C2C_LINES_LAYOUT_H
#define LAB_C2C_LINES_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "c2c/field_at.h"
#include "kernel/btf.h"

/* The line a marker or --pad-after aligns to: the kernel's L1 (x86). */
#define LL_MARKER_ALIGN 64

struct ll_field {
	char *name;		/* as field_at names it in the struct: "memory.usage" */
	uint64_t rel, size;	/* offset within its unit, bytes */
	size_t unit;		/* its unit's index */
};

struct ll_unit {
	char *name;		/* member name; a union's members '|'-joined: "swap|memsw" */
	char *type;		/* the member's struct type ("page_counter"), or "" */
	char *decl;		/* as a C definition writes it: "struct page_counter memory;" */
	uint64_t off, size;
	unsigned align;		/* natural (from its fields' sizes, at most 8; markers 64) */
	unsigned xalign;	/* the alignment that explains its offset (0: natural) */
	uint64_t gap;		/* a hole before it no alignment explains, kept as it is */
	unsigned ord;		/* declaration order (breaks ties at one offset) */
	bool marker;		/* zero-size padding member (_pad1_) */
	bool brk;		/* a proposal's: a new line starts before it (CACHELINE_PADDING) */
	size_t first, n;	/* its fields: f[first .. first + n) */
};

struct ll_layout {
	char *st;		/* "page_counter" */
	char *origin;		/* "BTF build/btf/vmlinux-5.10.262.btf", "... + --move usage=64" */
	uint64_t size;
	unsigned align;		/* the struct's alignment (what explains its size; markers and edits raise it) */
	uint64_t tail;		/* padding at the end no alignment explains */
	struct ll_unit *u;	/* by offset */
	size_t nu;
	struct ll_field *f;
	size_t nf;
	int32_t *at;		/* byte -> field index, -1 in holes (lines_layout_index) */
};

/* Struct st from k, fields named by cgroup version cg; 0, or -1 with
 * "PATH has no struct ST" (the caller's exit 2). */
int lines_layout_from_btf(struct ll_layout *l, const struct kbtf *k, const char *st, enum field_cgroup cg,
			  char *err, size_t errlen);
/* A layout by hand (tests; structs without BTF): field i named names[i]
 * at offs[i], sizes[i] bytes, each a member of its own; size bytes. */
void lines_layout_simple(struct ll_layout *l, const char *st, const char *const *names, const uint64_t *offs,
			 const uint64_t *sizes, size_t n, uint64_t size);
void lines_layout_copy(struct ll_layout *dst, const struct ll_layout *src);
void lines_layout_free(struct ll_layout *l);

/* The absolute offset of field i. */
static inline uint64_t lines_layout_off(const struct ll_layout *l, size_t i)
{
	return l->u[l->f[i].unit].off + l->f[i].rel;
}

/* Builds l->at (byte -> field); call again after an edit. */
void lines_layout_index(struct ll_layout *l);
/* The field holding byte off (-1: a hole, or past the end). */
static inline int32_t lines_layout_field_at(const struct ll_layout *l, uint64_t off)
{
	return off < l->size ? l->at[off] : -1;
}
/* The field named name, or -1. */
int lines_layout_find_field(const struct ll_layout *l, const char *name);

/*
 * The units name names: a member ("memory"; a union member names its
 * union: "swap" or "memsw"), or "A..B", A through B.  0 with [*lo, *hi],
 * or -1 with err: no such member, or one inside a member (naming it and
 * its struct type, which --struct edits).
 */
int lines_layout_units(const struct ll_layout *l, const char *name, size_t *lo, size_t *hi, char *err,
		       size_t errlen);

/* The edits, in the order given (consecutive moves as one). */
enum ll_edit_kind { LL_MOVE, LL_ALIGN, LL_PAD_AFTER };
struct ll_edit {
	enum ll_edit_kind kind;
	const char *name;	/* the member (or "A..B" for moves) */
	uint64_t value;		/* OFF, N; unused for pad-after */
	const char *arg;	/* as given, for messages ("usage=64") */
};
/* Applies the edits (line: the line size --pad-after pads to); 0, or -1
 * with err naming the edit and the member at fault. */
int lines_layout_edit(struct ll_layout *l, const struct ll_edit *e, size_t n, unsigned line, char *err,
		      size_t errlen);

/*
 * Container c with every unit of struct type inner->st (directly, or all
 * members of a union) replaced by new_inner (old_inner: the type as c
 * holds it, for the fields' names), the units after it laid out again;
 * into out.  *count: how many units were replaced (0: c does not embed
 * it; out is then a copy).
 */
void lines_layout_embed(const struct ll_layout *c, const struct ll_layout *old_inner,
			const struct ll_layout *new_inner, struct ll_layout *out, int *count);

/*
 * A new layout of l's units in order[0..n) (every unit once, markers left
 * out), a new line (line bytes) starting before each unit i with
 * brk[i]; each unit at its natural alignment.  For `lines suggest`.
 */
void lines_layout_arrange(const struct ll_layout *l, const size_t *order, const bool *brk, size_t n, unsigned line,
			  struct ll_layout *out);

/* The C definition, one line per unit with its offset and size in a
 * comment (malloc'd; markers as CACHELINE_PADDING(_padN_)). */
char *lines_layout_definition(const struct ll_layout *l);
/* Lines of line bytes the struct spans from offset 0. */
uint64_t lines_layout_lines(const struct ll_layout *l, unsigned line);

#endif
