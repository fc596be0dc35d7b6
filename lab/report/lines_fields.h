/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lines/fields.tsv: the exact cacheline counts per struct field that the
 * lab's qemu TCG plugin writes for a guest run (one window, or
 * lines/<step>/fields.tsv per step), read for the claims that count
 * cacheline transfers (report/claim.h: lines:, lines-cliff:).  Columns,
 * found by the header's names:
 *
 *   struct field offset size loads stores hitm_loads hitm_stores
 *   false_hitm true_hitm other_field
 *
 * A page_counter inside a memcg is named either way: struct mem_cgroup
 * field memory.usage, or struct page_counter field usage.  other_field is
 * the other side's field, several joined by '+' ("memory.usage+memory.parent"),
 * "-" when the field had no event (written by c2c/lines_out.h).  So a claim's
 * page_counter.F sums both (every page_counter of mem_cgroup: memory,
 * swap, memsw, kmem, tcpmem), and mem_cgroup.memory.F names one.
 */
#ifndef LAB_REPORT_LINES_FIELDS_H
#define LAB_REPORT_LINES_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "report/claim.h"

#define LINES_FIELDS_FILE "fields.tsv"
#define LINES_OPS_TSV "ops.tsv"

struct lines_row {
	char st[64], field[128], other[128];
	double loads, stores, hitm_loads, hitm_stores, false_hitm, true_hitm;
	long offset, size;	/* within the struct; -1 where the file has no such column */
};

struct lines_fields {
	struct lines_row *r;
	size_t n;
};

/*
 * Two sides' fields.tsv rows set beside each other, one per struct field
 * (compare's A and B, predict's predicted and measured): per side its
 * HITMs, false and true; a field named twice on a side (two windows'
 * objects) adds up.
 */
struct lines_field_pair {
	const char *st, *field;	/* the rows' own strings: keep them loaded */
	long offset;
	double a[3], b[3];	/* HITMs, false, true: side a, side b */
};

void lines_field_pair_add(struct lines_field_pair **rows, size_t *n, const struct lines_row *r, bool side_b);
/* By struct, then offset (a row without one last), then field name. */
void lines_field_pair_sort(struct lines_field_pair *rows, size_t n);

/* Loads path; 0, or -1 with "path:line: what" in err (lf freeable either way). */
int lines_fields_load(const char *path, struct lines_fields *lf, char *err, size_t errlen);
/* The same from an open file; path names it in errors. */
int lines_fields_parse_stream(FILE *f, const char *path, struct lines_fields *lf, char *err, size_t errlen);
void lines_fields_free(struct lines_fields *lf);
/* The sum of q's column over the rows that name one of its fields (and,
 * with q->vs, whose other_field is that field); the rows naming its
 * fields in *nrows (0: the counts have none of them). */
double lines_fields_sum(const struct lines_fields *lf, const struct claim_lines *q, int *nrows);

/*
 * ops.tsv beside a fields.tsv (c2c/lines_out.h writes it): the windows of
 * the set, how many of them counted the driver's operations, their sum
 * and unit.
 */
struct lines_ops {
	long windows, counted;
	double ops;		/* -1: none counted */
	char unit[32];
};
int lines_ops_load(const char *path, struct lines_ops *o, char *err, size_t errlen);
/* The operations of the fields.tsv at fields_path (its directory's
 * ops.tsv): true with *ops, or false with why (none counted, only some of
 * the windows, mixed units, a file from before the counts). */
bool lines_ops_of(const char *fields_path, double *ops, char *unit, size_t unitlen, char *why, size_t n);

/*
 * A results directory's cacheline counts: DIR/lines/, or for a run made in
 * a guest (in_vm: its meta.json has "vm") the guest run's, DIR/../../lines/.
 * The directory (malloc'd) where SUB/fields.tsv is (sub NULL: the windows
 * added up), else NULL.
 */
char *lines_dir_of(const char *dir, bool in_vm, const char *sub);

#endif
