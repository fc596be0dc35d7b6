// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: captured `perf lock contention` output (text or CSV). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lock/lockcon_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct lockcon_text_table *t;
	size_t nt;

	memcpy(text, data, size);
	text[size] = '\0';
	if (!lockcon_text_parse(text, "fuzz", &t, &nt, err, sizeof(err)))
		lockcon_text_free(t, nt);
	free(text);
	return 0;
}
