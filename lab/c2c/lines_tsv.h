/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TSV files the guest's lab writes beside the plugin's output
 * (windows.tsv, window-objects.tsv, window-ranges.tsv, window-ops.tsv:
 * c2c/lines_session.h), read by column name: a header row after any '#'
 * lines, then data rows.  Shared by c2c/lines_guest.c and
 * c2c/lines_trace_read.c.
 */
#ifndef LAB_C2C_LINES_TSV_H
#define LAB_C2C_LINES_TSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lines_tsv {
	const char *path;
	char *text, *pos;
	int lineno;
	char *hdr[32], *f[32];
	int nhdr, nf;
	int col[16];		/* want[i]'s column */
};

/* Opens path (absent: 0 and t->text NULL); the columns want[] (NULL-ended,
 * at most 16) found in the header; -1 with one line in err. */
int lines_tsv_open(struct lines_tsv *t, const char *path, const char *const *want, char *err, size_t errlen);
/* The next data row (false at the end, or with *rc -1 and err on a row
 * short of a wanted column). */
bool lines_tsv_next(struct lines_tsv *t, const char *const *want, int *rc, char *err, size_t errlen);
/* want[i]'s field of the row. */
const char *lines_tsv_get(const struct lines_tsv *t, int i);
/* want[i]'s field as a number (0x for hex); -1 with "file:line: field F: ... is not a number". */
int lines_tsv_u64(const struct lines_tsv *t, const char *const *want, int i, uint64_t *v, char *err, size_t errlen);
void lines_tsv_close(struct lines_tsv *t);

#endif
