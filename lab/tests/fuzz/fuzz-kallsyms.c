// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: kallsyms text (/proc/kallsyms or a saved copy). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[256], buf[128];
	struct ksyms s;

	memcpy(text, data, size);
	text[size] = '\0';
	if (!ksyms_parse(&s, text, "fuzz", err, sizeof(err))) {
		if (s.n) {
			ksyms_find(&s, s.by_addr[0].name);
			ksyms_format(&s, s.by_addr[s.n / 2].addr + 3, buf, sizeof(buf));
		}
		ksyms_lookup(&s, 0xffffffff81000000ull, NULL);
		ksyms_free(&s);
	}
	free(text);
	return 0;
}
