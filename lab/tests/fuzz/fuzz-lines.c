// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the lines plugin's output (c2c/lines_parse.h), read and looked up. */
#include <stdint.h>
#include <stdlib.h>
#include "c2c/lines_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lines_file f;
	char err[256];
	uint64_t v;

	if (lines_parse_text("fuzz", (const char *)data, size, &f, err, sizeof(err)) == 0) {
		lines_meta_u64(&f, "accesses", &v);
		for (size_t i = 0; i < f.nlines; i++)
			(void)lines_file_line_at_vaddr(&f, f.lines[i].vaddr + 63);
		lines_file_free(&f);
	}
	return 0;
}
