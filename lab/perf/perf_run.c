// SPDX-License-Identifier: GPL-2.0
/* The perf binary: version and build options (perf/perf_run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perf_run.h"
#include "util/run.h"

/* "                 name: [ on  ]  # HAVE_..." in perf version --build-options
 * (perf 6.1 has no bpf_skeletons line; 7.x says OFF in Debian's build). */
static bool build_option_on(const char *out, const char *name)
{
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");
		const char *colon = memchr(l, ':', n);
		const char *s = l;

		while (s < l + n && *s == ' ')
			s++;
		if (colon && (size_t)(colon - s) == strlen(name) && !strncmp(s, name, colon - s))
			return strncmp(colon + 1, " [ on", 5) == 0;
	}
	return false;
}

void perf_info_probe(struct perf_info *pi)
{
	struct run_result r;
	char *out;

	memset(pi, 0, sizeof(*pi));
	out = run_capture_argv((const char *const[]){ "perf", "version", NULL }, RUN_STDERR_DISCARD, &r);
	if (r.status || sscanf(out, "perf version %d.%d", &pi->major, &pi->minor) != 2) {
		free(out);
		return;
	}
	pi->found = true;
	snprintf(pi->version, sizeof(pi->version), "%.*s", (int)strcspn(out + 13, "\n"), out + 13);
	free(out);
	out = run_capture_argv((const char *const[]){ "perf", "version", "--build-options", NULL }, RUN_STDERR_DISCARD,
			       NULL);
	pi->bpf_skel = build_option_on(out, "bpf_skeletons");
	free(out);
}

bool perf_has_contention(const struct perf_info *pi)
{
	return pi->major > 5 || (pi->major == 5 && pi->minor >= 19);
}

bool perf_has_csv(const struct perf_info *pi)
{
	return pi->major > 6 || (pi->major == 6 && pi->minor >= 5);
}
