// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: lines/fields.tsv, the lines plugin's counts per field
 * (report/lines_fields.h), summed as the cacheline claims sum them. */
#include <stdint.h>
#include <stdio.h>
#include "report/lines_fields.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct claim_lines q = { .st = "page_counter", .field = { "usage", "max" }, .nfields = 2, .column = "hitm",
				 .vs = "usage" };
	struct lines_fields lf;
	char err[512];
	int rows;

	if (!f)
		return 0;
	if (!lines_fields_parse_stream(f, "fuzz.tsv", &lf, err, sizeof(err)))
		lines_fields_sum(&lf, &q, &rows);
	lines_fields_free(&lf);
	fclose(f);
	return 0;
}
