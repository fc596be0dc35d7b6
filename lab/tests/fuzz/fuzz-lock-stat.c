// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: /proc/lock_stat text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lock/lock_stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct lockstat ls;

	memcpy(text, data, size);
	text[size] = '\0';
	if (!lockstat_parse(text, "fuzz", &ls, err, sizeof(err))) {
		if (ls.n) {
			struct lockstat_class d;

			lockstat_delta(&ls.c[0], &ls.c[ls.n - 1], &d);
			lockstat_find(&ls, ls.c[0].name);
		}
		lockstat_free(&ls);
	}
	free(text);
	return 0;
}
