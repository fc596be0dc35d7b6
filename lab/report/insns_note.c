// SPDX-License-Identifier: GPL-2.0
/* What a guest-instructions metric is, said where it is shown (report/insns_note.h). */
#include <stdio.h>
#include <string.h>
#include "report/insns_note.h"
#include "util/wrap.h"

bool insns_metric(const char *metric)
{
	size_t n = strlen(metric), k = strlen(INSNS_METRIC_SUFFIX);

	return n > k && !strcmp(metric + n - k, INSNS_METRIC_SUFFIX);
}

void insns_note(FILE *out, bool shown)
{
	/* 72 columns: compare's block goes into report --mail as it stands */
	if (shown) {
		fputc('\n', out);
		wrap_printf(out, 0, 2, 72, "*%s: %s (the lines plugin's count over the operations of its windows)",
			    INSNS_METRIC_SUFFIX, INSNS_WORDS);
		fputc('\n', out);
	}
}
