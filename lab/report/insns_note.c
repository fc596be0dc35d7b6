// SPDX-License-Identifier: GPL-2.0
/* What a guest-instructions metric is, said where it is shown (report/insns_note.h). */
#include <string.h>
#include "report/insns_note.h"

bool insns_metric(const char *metric)
{
	size_t n = strlen(metric), k = strlen(INSNS_METRIC_SUFFIX);

	return n > k && !strcmp(metric + n - k, INSNS_METRIC_SUFFIX);
}

void insns_note(FILE *out, bool shown)
{
	if (shown)
		fprintf(out, "\n*%s: %s (the lines plugin's count over the operations of its windows)\n",
			INSNS_METRIC_SUFFIX, INSNS_WORDS);
}
