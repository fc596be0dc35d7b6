// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: util/tsv.h, the format every lab TSV is read in.  The
 * first byte picks how the rest is read: by a header (with comments
 * returned or not), without one, or as a multi-kind file of #fields
 * lines; every row's cells go through every getter.  Each row read is
 * written back through the writer and must read back as the same cells,
 * but for a control byte the writer turns into a space.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/tsv.h"

static const char *const cols[] = { "name", "count", "?note", "?size", NULL };
static const char *const a_cols[] = { "x", "?y", NULL }, *const b_cols[] = { "z", "w", NULL };
static const struct tsv_kind kinds[] = { { "a", a_cols }, { "b", b_cols }, { NULL, NULL } };

/* The row's cells written by the writer read back as themselves. */
static void round_trip(const struct tsv *t)
{
	int n = tsv_ncells(t);
	const char **cells = malloc((n + 1) * sizeof(*cells));
	char **names = malloc((n + 1) * sizeof(*names)), *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct tsv back;

	if (!cells || !names || !f)
		abort();
	for (int j = 0; j < n; j++) {
		cells[j] = tsv_cell(t, j);
		names[j] = malloc(16);
		snprintf(names[j], 16, "c%d", j);
	}
	names[n] = NULL;
	tsv_write_header(f, (const char *const *)names);
	tsv_write_cells(f, cells, n);
	fclose(f);
	if (tsv_open_text(&back, "back", buf, len, (const char *const *)names, 0, err, sizeof(err)) ||
	    tsv_next(&back) != TSV_ROW)
		abort();
	for (int j = 0; j < n; j++) {
		const char *got = tsv_get(&back, j), *want = cells[j];

		/* The writer's one change: a control byte (not a tab or a
		 * newline: the reader split at those) becomes a space. */
		if (strlen(got) != strlen(want))
			abort();
		for (size_t k = 0; want[k]; k++)
			if (got[k] != ((unsigned char)want[k] < ' ' || want[k] == 0x7f ? ' ' : want[k]))
				abort();
	}
	tsv_close(&back);
	for (int j = 0; j < n; j++)
		free(names[j]);
	free(names);
	free(cells);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned flags[] = { 0, TSV_COMMENTS, TSV_NO_HEADER, TSV_NO_HEADER | TSV_COMMENTS };
	struct tsv t;
	char err[256];
	int mode, r, rows = 0;

	if (!size)
		return 0;
	mode = data[0] % 5;
	data++, size--;
	if (mode == 4)
		r = tsv_open_kinds(&t, "fuzz", (const char *)data, size, kinds, 0, err, sizeof(err));
	else
		r = tsv_open_text(&t, "fuzz", (const char *)data, size, cols, flags[mode], err, sizeof(err));
	tsv_format(&t, "lines");
	while (!r && (r = tsv_next(&t)) > 0 && rows++ < 4096) {
		uint64_t u;
		long l;
		double d;

		int kind = r;

		r = 0;
		for (int i = 0; i < 4; i++) {
			(void)tsv_has(&t, i);
			(void)tsv_u64(&t, i, &u);
			(void)tsv_long(&t, i, &l);
			(void)tsv_double(&t, i, &d);
		}
		if (tsv_ncells(&t) > 0 && strlen(tsv_cell(&t, 0)) < 64)
			tsv_fail(&t, 0, "'%s'", tsv_cell(&t, 0));
		if (kind == TSV_ROW && tsv_ncells(&t) < 64)
			round_trip(&t);
	}
	tsv_close(&t);
	return 0;
}
