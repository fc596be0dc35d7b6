// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the [claim] sections of experiment files (report/claim.h),
 * and the words of each claim parsed. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "report/claim.h"
#include "util/expfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	const struct exp_entry *bad;
	struct expfile x;
	struct claims cl;
	char err[512], buf[1024];

	if (!f)
		return 0;
	if (!expfile_parse_stream(f, "fuzz.exp", &x, err, sizeof(err))) {
		if (!claims_parse(&x, &cl, &bad, err, sizeof(err)))
			for (int i = 0; i < cl.n; i++)
				for (int k = 0; k < cl.c[i].npoints; k++) {
					claim_rule_text(&cl.c[i], k, buf, sizeof(buf));
					claim_published_text(&cl.c[i], k, buf, sizeof(buf));
					claim_point_label(&cl.c[i], k);
				}
		claims_free(&cl);
	}
	expfile_free(&x);
	fclose(f);
	return 0;
}
