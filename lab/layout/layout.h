/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cacheline layout of the memcg structs, as one model that three
 * sources fill: a kernel's BTF (through kernel/btf.h), or a capture
 * directory written earlier (fields.tsv, structs.tsv, meta.tsv).  The
 * checker (layout_eval.h) and the diff work on this model only, so a
 * capture can be diffed against a BTF and vice versa.
 *
 * Fields are the members of a struct, as pahole lists them, plus the
 * members of the captured structs it embeds, with nested names
 * ("memory.usage": mem_cgroup's page_counters).  Other embedded structs
 * (css, work, atomic_long_t) stay one field each.  Anonymous structs and
 * unions are not a level (their members belong to the enclosing one);
 * zero-size members (CACHELINE_PADDING's _pad1_/_pad2_) are markers that
 * never share a cacheline with anything.
 */
#ifndef LAB_LAYOUT_LAYOUT_H
#define LAB_LAYOUT_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct kbtf;

/* The structs the lab captures, in capture order. */
#define LAYOUT_NSTRUCTS 5
extern const char *const layout_struct_names[LAYOUT_NSTRUCTS];
/* The nesting depth of field names (1: "memory.usage"). */
#define LAYOUT_DEPTH 1

struct lay_field {
	char name[256];		/* nested name: "memory.usage" */
	char owner[128];	/* struct type the member is declared in: "page_counter" */
	char type[128];		/* declared type, pahole-style: "atomic_long_t", "uint8_t[7]" */
	uint64_t offset;	/* bytes from the start of the captured struct */
	uint64_t size;		/* bytes; 0 for padding markers */
	uint32_t bit_offset;	/* bitfields only */
	uint32_t bit_size;
	uint32_t nelems;	/* array length; 0 for a scalar */
	uint64_t elem_size;	/* array element size; 0 for a scalar */
	int depth;		/* 0 for direct members */
	bool expanded;		/* an aggregate whose members follow it */
};

struct lay_struct {
	const char *name;
	bool present;
	uint64_t size;
	int nfields;
	struct lay_field *fields;
	char percpu_var[64];	/* the .data..percpu VAR of this type ("memcg_stock"), or "" */
	int64_t percpu_offset;	/* its offset in .data..percpu, -1 when none */
};

#define LAY_EVIDENCE 320	/* KF_EVIDENCE: it holds kernel/features.h evidence */

struct layout {
	char *origin;		/* "raw BTF file x.btf", "capture layouts/6.1.192" */
	char *release;		/* kernel release, NULL when unknown */
	int cacheline;		/* L in bytes */
	char cacheline_evidence[LAY_EVIDENCE];
	bool lock_debug;	/* lockdep-sized locks in the per-cpu stocks */
	bool lock_rt;		/* PREEMPT_RT: the stock's lock is a 32-byte spinlock_t */
	int lock_size;		/* bytes of the stock's lock, -1 when none or unknown */
	char lock_debug_evidence[LAY_EVIDENCE];
	bool percpu_datasec;	/* BTF carries the .data..percpu DATASEC */
	struct lay_struct s[LAYOUT_NSTRUCTS];
};

/* Fills lay from BTF (cacheline size and lock debugging detected there). */
void layout_from_btf(struct layout *lay, const struct kbtf *k);
/* Reads a capture directory; 0, or -1 with a one-line reason in err
 * (file:line: column and value).  Either way lay is then freeable. */
int layout_load_capture(struct layout *lay, const char *dir, char *err, size_t errlen);
/* The same from the three files' texts (dir names them in messages). */
int layout_parse_capture(struct layout *lay, const char *dir, const char *meta, const char *structs,
			 const char *fields, char *err, size_t errlen);
void layout_free(struct layout *lay);

/* The struct by name (NULL when it is not one of the captured structs). */
const struct lay_struct *layout_struct(const struct layout *lay, const char *name);
/* A field by nested name, or NULL. */
const struct lay_field *lay_find(const struct lay_struct *s, const char *name);
/* Last component of a nested name ("usage" of "memory.usage"). */
const char *lay_leaf(const char *name);
/* True for the fields a cacheline map lists: not expanded, not a marker. */
bool lay_is_leaf(const struct lay_field *f);
/*
 * The first field before f that is f under another name: same offset,
 * size and type in a union (mem_cgroup's memsw is swap, memsw.usage is
 * swap.usage), or NULL.
 */
const struct lay_field *lay_alias_of(const struct lay_struct *s, const struct lay_field *f);
/* True when f is name itself or nested below it (or an aggregate above it). */
bool lay_related(const struct lay_field *f, const char *name);

/*
 * Cachelines of a field.  base is where the struct starts inside a
 * cacheline (its per-cpu offset mod L when that is known, else 0): with a
 * base of 32, struct bytes 0..31 are on line 0 and 32..95 on line 1.
 * Returns false for zero-size members, which are on no line.
 */
bool lay_lines(const struct lay_field *f, uint64_t base, int L, uint64_t *first, uint64_t *last);
/* Number of cachelines a struct of this size covers from offset 0. */
uint64_t lay_ncachelines(uint64_t size, int L);

/* Field tags of the rules file: hot-written or read-mostly. */
enum lay_tag { LAY_TAG_NONE, LAY_TAG_HOT, LAY_TAG_READ };

struct lay_tag_entry {
	char strukt[64];	/* the struct type the field is declared in */
	char field[192];	/* member name within it (may be nested) */
	enum lay_tag tag;
	int line;		/* rules file line, for error messages */
};

struct lay_tags {
	int n;
	struct lay_tag_entry *e;
};

/*
 * The tag of field f of struct s.  A tag on page_counter.usage applies to
 * page_counter's own usage and to every embedded one (mem_cgroup's
 * memory.usage, swap.usage, ...); mem_cgroup.memory.usage names one.
 */
enum lay_tag lay_tag_of(const struct lay_tags *tags, const struct lay_struct *s, const struct lay_field *f);
const char *lay_tag_name(enum lay_tag t);

/*
 * Writes a capture into dir (created): fields.tsv, structs.tsv, meta.tsv,
 * and cachelines.txt, the compact per-cacheline map.  0, or -1 with err.
 */
int layout_write_capture(const struct layout *lay, const struct lay_tags *tags, const char *dir,
			 char *err, size_t errlen);
/* The per-cacheline map of one struct, as written to cachelines.txt. */
void layout_print_map(FILE *out, const struct layout *lay, const struct lay_struct *s,
		      const struct lay_tags *tags);

/*
 * The cacheline-aware diff from old to new: structs that appeared or
 * went, size and cacheline-count changes, fields added, removed, moved,
 * retyped or changed cacheline, and first of all new or ended sharing
 * between a hot-written field and anything else (the tags of rs), marked
 * '!' unless a rule of rs allows the new sharer (rules_allowing()).
 * Wrapped at width columns (0: one line per item).  Returns the number of
 * differences printed; *new_sharing (when not NULL) gets the number of
 * hot-written fields that gained a sharer no rule allows.
 */
struct rules;
int layout_diff(FILE *out, const struct layout *old, const struct layout *new, const struct rules *rs, int width,
		int *new_sharing);

#endif
