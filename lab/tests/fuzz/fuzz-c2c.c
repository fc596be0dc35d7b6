// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: perf c2c report --stdio text, parsed and attributed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "c2c/c2c_attr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct c2c_report r;
	struct c2c_objects none = { 0 };
	struct c2c_attr_row *rows;
	FILE *f, *out;
	size_t n;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	c2c_parse_file(&r, f, "fuzz", NULL, NULL);
	fclose(f);
	rows = c2c_attribute(&r, NULL, &none, &n);
	out = fopen("/dev/null", "w");
	if (out) {
		c2c_write_stats_tsv(&r, out);
		c2c_write_cachelines_tsv(&r, out);
		c2c_write_warnings_tsv(&r, out);
		c2c_write_symbols_tsv(rows, n, out);
		c2c_print_attribution(&r, rows, n, &none, out);
		fclose(out);
	}
	free(rows);
	c2c_report_free(&r);
	return 0;
}
