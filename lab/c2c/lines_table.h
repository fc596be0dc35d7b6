/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plugin's counts per struct field (fields.tsv, format in
 * lab/c2c/README; report/lines_fields.h reads it): each shape (offset,
 * size) of a line is named by the field its first byte lies in, in the
 * objects and ranges of its window (c2c/lines_guest.h); its counts add up
 * per (struct, field) over every instance (each memcg, each CPU's stock)
 * and every window given.  The other field is the one under the other
 * side's bytes (other_mask), several joined by '+'.  Every field on a line
 * the plugin followed has its row, zeros included: a field with no event
 * had none (every access to an announced object is followed).
 */
#ifndef LAB_C2C_LINES_TABLE_H
#define LAB_C2C_LINES_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "c2c/lines_guest.h"
#include "c2c/lines_parse.h"

/* fields.tsv's columns, as lines_table_write and lines predict write them
 * (util/tsv.h's header; report/lines_fields.h reads them by name). */
extern const char *const lines_table_cols[];

struct lines_frow {
	char *st, *field;
	uint64_t off, size;
	struct lines_counts c;
	char **other;		/* the other side's fields, by offset */
	uint64_t *other_off;
	size_t nother;
};

struct lines_ftable {
	struct lines_frow *r;
	size_t n, cap;
	uint64_t lines, unnamed_events;	/* lines added; events on bytes no object holds */
};

/* Adds one line of window (its shapes) to t. */
void lines_table_add(struct lines_ftable *t, const struct lines_guest *g, const struct lines_pline *l);
/* Writes t as fields.tsv (through util/outfile.h); 0, or -1 with err. */
int lines_table_write(const struct lines_ftable *t, const char *path, char *err, size_t errlen);
/* The row of st.field, or NULL. */
const struct lines_frow *lines_table_row(const struct lines_ftable *t, const char *st, const char *field);
void lines_table_free(struct lines_ftable *t);
/* b's counts added into a's. */
void lines_counts_add(struct lines_counts *a, const struct lines_counts *b);

#endif
