/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The access trace replayed through the lines model (c2c/lines_model.h)
 * with every access remapped to another layout: the engine of `memcg-lab
 * lines predict` and `lines suggest`.
 *
 * Each record of the trace (c2c/lines_trace_read.h) is found in its
 * window's objects; its bytes are named by the recorded layout's fields
 * (c2c/lines_layout.h) and each field's bytes moved to where the
 * replayed layout puts the field of that name.  Each object (a struct at
 * an address, whatever the window) gets a region of its own, 16 MiB
 * apart, at its recorded offset within a page rounded up to the replayed
 * struct's alignment: no two objects share a line in the replay.  The
 * model follows lines of 64 bytes; with line 128 each 128-byte pair is
 * folded into one model line at half the byte resolution (below).
 *
 * What is not replayed is counted and named, never dropped silently:
 *   outside    records in no object: the objects' neighbours on their
 *              lines (the plugin traces whole lines), and where objects
 *              meet (lines holding bytes of an object and of something
 *              else), listed per line;
 *   ranges     records in the lab's own ranges (hslot), not structs;
 *   holes      bytes of a record in no field (padding), per hole;
 *   missing    fields the replayed layout has no field of that name for,
 *              per field (and objects whose struct it lacks, per struct);
 *   truncated  bytes past the end of a field that shrank, per field;
 * and the objects whose replayed extent starts or ends inside a line (at
 * their recorded place they would share it with whatever lies beside).
 * An access whose fields the new layout takes apart (a 16-byte load of
 * two fields no longer side by side) is replayed as its parts, and named.
 *
 * Per access the model's counts of its line are read before and after
 * (lines_model_ext), so each event is the field's whose bytes the access
 * touched first (as fields.tsv names a shape by its first byte), with no
 * limit of shapes per line.  The other side of a field's events (the
 * fields under the other bytes) comes from the line's shapes' other_mask
 * once the replay is over; a line whose shapes overflowed says so.
 *
 * Line 128 (adjacent-line prefetch, perf c2c --double-cl): the events of
 * a 128-byte unit are the model's with two bytes to a model byte.  The
 * transfers (load HITM, store HITM, invalidations) are exact: the model
 * decides them per line from holders and writers only.  True or false
 * sharing is then decided on 2-byte granules: two fields that share a
 * granule (a 1-byte field beside another) are one for that decision;
 * lines_replay_granules() names them in a layout.
 */
#ifndef LAB_C2C_LINES_REPLAY_H
#define LAB_C2C_LINES_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "c2c/lines_layout.h"
#include "c2c/lines_model.h"
#include "c2c/lines_trace_read.h"

/* A struct type of the objects: its layout as recorded and the one replayed. */
struct lr_type {
	const char *st;
	const struct ll_layout *old;	/* the recorded kernel's (the guest's BTF) */
	const struct ll_layout *new;	/* the replayed one; NULL: the struct is not in it */
};

/* What one replay counted per field of a type's replayed layout. */
struct lr_counts {
	struct lines_counts *c;		/* per field */
	uint64_t *other;		/* per field, a bitset over the fields: the other side */
	bool *on_line;			/* per field: on a line the replay touched */
	size_t nf, words;		/* fields, words of each bitset */
};

struct lr_named {
	char *name;
	uint64_t n;
	uint64_t pc;			/* an instruction that did it (0: none) */
};

struct lr_list {
	struct lr_named *v;
	size_t n;
};

/* A line where an object meets something else (at the replay's line size). */
struct lr_meet {
	uint64_t line;			/* its first byte (recorded address) */
	char *what;			/* "mem_cgroup (memcg cg-0) bytes 0..39" and what else */
	uint64_t outside;		/* accesses to its bytes outside every object */
};

struct lr_result {
	uint64_t records;		/* in the trace */
	uint64_t replayed;		/* records replayed, whole or in parts */
	uint64_t outside, ranges, holes, missing, truncated, split_remap;
	uint64_t skipped;		/* records of structs lr_input.only leaves out */
	uint64_t regions;		/* objects given a region */
	uint64_t other_unnamed;		/* events on lines whose shapes overflowed */
	struct lr_list missing_fields, missing_structs, hole_fields, truncated_fields, split_accesses;
	/* Objects whose replayed extent starts or ends inside a line: at
	 * their recorded place they would share it with their neighbours. */
	struct lr_list edges;
	struct lr_meet *meet;
	size_t nmeet;
	struct lines_totals totals;	/* the model's */
	struct lr_counts *counts;	/* per type (lr_input.types order) */
	size_t ntypes;
};

struct lr_input {
	struct lines_trace *trace;		/* rewound by the replay */
	const struct lines_trace_objs *objs;
	const struct lr_type *types;
	size_t ntypes;
	unsigned line;				/* 64 or 128 */
	bool recorded;				/* replay the recorded layouts (old -> old) */
	/* Only the objects of these types are replayed (NULL: all): a
	 * suggestion's candidates need only the structs that hold S. */
	const bool *only;
};

/* 0, or -1 with err (the model's memory, a full detail pool). */
int lines_replay(const struct lr_input *in, struct lr_result *out, char *err, size_t errlen);
void lines_replay_free(struct lr_result *r);

/* The type index of st in in->types, or -1. */
int lines_replay_type(const struct lr_input *in, const char *st);
/* Events (load HITM + store HITM + invalidations) of counts. */
static inline uint64_t lines_replay_events(const struct lines_counts *c)
{
	return c->load_hitm + c->store_hitm + c->store_inval;
}
/* Pairs of fields of l that share a 2-byte granule (line 128's
 * classification), "a+b, c+d" (malloc'd), or NULL when none do. */
char *lines_replay_granules(const struct ll_layout *l);

#endif
