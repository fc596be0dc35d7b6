// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: captured `perf lock contention` output (text or CSV). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/lockcon_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct lct_table *t;
	size_t nt;

	memcpy(text, data, size);
	text[size] = '\0';
	if (!lct_parse(text, "fuzz", &t, &nt, err, sizeof(err)))
		lct_free(t, nt);
	free(text);
	return 0;
}
