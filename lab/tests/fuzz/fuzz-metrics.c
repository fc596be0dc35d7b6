// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: data/metrics.tsv, as compare, plot and report read it. */
#include <stdint.h>
#include <stdio.h>
#include "util/metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct metrics m;
	char err[512], name[64];
	double v;

	if (!f)
		return 0;
	if (!metrics_parse_stream(f, "fuzz", &m, err, sizeof(err))) {
		for (size_t i = 0; i < m.n; i++)
			metrics_step_value(m.rows[i].step, name, sizeof(name), &v);
		metrics_free(&m);
	}
	fclose(f);
	return 0;
}
