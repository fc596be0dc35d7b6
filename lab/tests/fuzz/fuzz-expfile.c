// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: experiment files (INI through libinih) and -s overrides. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "util/expfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct expfile x;
	char err[512];
	long list[64];
	unsigned long long u;
	bool b;

	if (!f)
		return 0;
	if (!expfile_parse_stream(f, "fuzz.exp", &x, err, sizeof(err))) {
		for (size_t i = 0; i < x.n; i++) {
			parse_int_list(x.e[i].value, list, 64);
			parse_duration_ns(x.e[i].value, &u);
			parse_bytes(x.e[i].value, &u);
			parse_bool(x.e[i].value, &b);
		}
		if (x.n)
			expfile_override(&x, x.e[0].value, err, sizeof(err));
	}
	expfile_free(&x);
	fclose(f);
	return 0;
}
