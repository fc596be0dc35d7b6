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

#include <stddef.h>
#include <stdio.h>
#include "report/claim.h"

#define LINES_FIELDS_FILE "fields.tsv"

struct lines_row {
	char st[64], field[128], other[128];
	double loads, stores, hitm_loads, hitm_stores, false_hitm, true_hitm;
};

struct lines_fields {
	struct lines_row *r;
	size_t n;
};

/* Loads path; 0, or -1 with "path:line: what" in err (lf freeable either way). */
int lines_fields_load(const char *path, struct lines_fields *lf, char *err, size_t errlen);
/* The same from an open file; path names it in errors. */
int lines_fields_parse_stream(FILE *f, const char *path, struct lines_fields *lf, char *err, size_t errlen);
void lines_fields_free(struct lines_fields *lf);
/* The sum of q's column over the rows that name one of its fields (and,
 * with q->vs, whose other_field is that field); the rows naming its
 * fields in *nrows (0: the counts have none of them). */
double lines_fields_sum(const struct lines_fields *lf, const struct claim_lines *q, int *nrows);

#endif
