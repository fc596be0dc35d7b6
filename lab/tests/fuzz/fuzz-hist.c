// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: histogram TSV files (data/hist-*.tsv as plot reads them). */
#include <stdint.h>
#include <stdio.h>
#include "util/hist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hist h;
	FILE *f = fmemopen((void *)data, size, "r");
	char err[256];

	if (!f)
		return 0;
	hist_init(&h);
	if (!hist_read_tsv(&h, f, "fuzz", err, sizeof(err))) {
		hist_quantile(&h, 0.99);
		hist_count_above(&h, 1000000);
	}
	fclose(f);
	return 0;
}
