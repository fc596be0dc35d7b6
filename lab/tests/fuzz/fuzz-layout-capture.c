// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a layout capture as `layout --against DIR` reads it
 * (meta.tsv, structs.tsv and fields.tsv, one input with the three texts
 * separated by form feeds), then everything a capture feeds: the
 * cacheline map, the diff against a committed capture both ways, and the
 * shipped rules.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout/layout_eval.h"
#include "layout/layout_rules.h"
#include "layout/layout.h"

static struct layout ref;
static struct rules rs;
static int ready = -1;

static void setup(void)
{
	char err[512];

	ready = !layout_load_capture(&ref, "layouts/6.18.44", err, sizeof(err)) &&
		!rules_parse(&rs, "layouts/rules.conf", err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *part[3] = { "", "", "" };
	struct rule_result res;
	struct layout lay;
	char err[1024];
	FILE *sink;

	if (ready < 0)
		setup();
	memcpy(buf, data, size);
	buf[size] = '\0';
	part[0] = buf;
	for (int i = 1; i < 3; i++) {
		char *ff = strchr(part[i - 1], '\f');

		if (!ff)
			break;
		*ff = '\0';
		part[i] = ff + 1;
	}
	if (!layout_parse_capture(&lay, "fuzz", part[0], part[1], part[2], err, sizeof(err))) {
		sink = fopen("/dev/null", "w");
		for (int i = 0; i < LAYOUT_NSTRUCTS; i++)
			layout_print_map(sink, &lay, &lay.s[i], ready ? &rs.tags : NULL);
		if (ready) {
			layout_diff(sink, &ref, &lay, &rs, 80, NULL);
			layout_diff(sink, &lay, &ref, &rs, 0, NULL);
			for (int i = 0; i < rs.n; i++)
				rule_eval(&rs.r[i], &lay, &rs.tags, &res);
		}
		fclose(sink);
	}
	layout_free(&lay);
	free(buf);
	return 0;
}
