// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: layout rules files, parsed, validated and checked
 * against two committed captures (pre-split 5.10 and 6.18).
 */
#include <stdint.h>
#include <stdlib.h>
#include "layout/layout_eval.h"
#include "layout/layout_rules.h"
#include "layout/layout.h"

static struct layout lay[2];
static int nlay = -1;

static void load_layouts(void)
{
	static const char *const dirs[] = { "layouts/5.10.262", "layouts/6.18.44" };
	char err[512];

	nlay = 0;
	for (int i = 0; i < 2; i++)
		if (!layout_load_capture(&lay[nlay], dirs[i], err, sizeof(err)))
			nlay++;
		else
			layout_free(&lay[nlay]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct layout *known[2];
	struct rule_result res;
	struct rules rs;
	char err[1024];

	if (nlay < 0)
		load_layouts();
	for (int i = 0; i < nlay; i++)
		known[i] = &lay[i];
	if (!rules_parse_text(&rs, "fuzz.conf", (const char *)data, size, err, sizeof(err)) &&
	    !rules_validate(&rs, known, nlay, err, sizeof(err)))
		for (int i = 0; i < rs.n; i++)
			for (int j = 0; j < nlay; j++)
				rule_eval(&rs.r[i], &lay[j], &rs.tags, &res);
	rules_free(&rs);
	return 0;
}
