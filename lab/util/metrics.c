// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/err.h"
#include "util/metrics.h"
#include "util/outfile.h"

FILE *metrics_open(const char *dir)
{
	char *path = xasprintf("%s/" METRICS_FILE, dir);
	struct stat st;
	bool fresh = stat(path, &st) || st.st_size == 0;
	FILE *f = outfile_open(path, "a");

	if (fresh)
		fputs(METRICS_HEADER, f);
	free(path);
	return f;
}

void metrics_emit(FILE *f, const char *step, int repeat, const char *metric, double value,
		  const char *unit, const char *better)
{
	fprintf(f, "%s\t%d\t%s\t%.17g\t%s\t%s\n", step && step[0] ? step : "-", repeat, metric, value,
		unit && unit[0] ? unit : "-", better && better[0] ? better : "-");
	fflush(f);
}

int metrics_load(const char *dir, struct metrics *m, char *err, size_t errlen)
{
	char *path = xasprintf("%s/" METRICS_FILE, dir);
	FILE *f = fopen(path, "re");
	int r;

	memset(m, 0, sizeof(*m));
	if (!f) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	r = metrics_parse_stream(f, path, m, err, errlen);
	fclose(f);
	free(path);
	return r;
}

int metrics_parse_stream(FILE *f, const char *path, struct metrics *m, char *err, size_t errlen)
{
	char line[1024];
	size_t cap = 0;
	int lineno = 0;

	memset(m, 0, sizeof(*m));
	while (fgets(line, sizeof(line), f)) {
		char *fields[6], *save = NULL, *end;
		int nf = 0;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (lineno == 1) {
			/* Without its header a file is not known to be the lab's:
			 * its first row is not taken for data. */
			if (strncmp(line, "step\trepeat\tmetric\tvalue", 24)) {
				char got[48];

				snprintf(got, sizeof(got), "%.47s", line);
				for (char *c = got; *c; c++)
					if (*c == '\t')
						*c = ' ';
				snprintf(err, errlen, "%s:1: no header row: want 'step repeat metric value unit better' "
					 "(tab-separated), got '%s%s'", path, got, strlen(line) >= sizeof(got) ? "..." : "");
				goto fail;
			}
			continue;
		}
		if (!line[0])
			continue;
		for (char *t = strtok_r(line, "\t", &save); t && nf < 6; t = strtok_r(NULL, "\t", &save))
			fields[nf++] = t;
		if (nf != 6) {
			snprintf(err, errlen, "%s:%d: %d fields, expected 6 (step repeat metric value unit better)",
				 path, lineno, nf);
			goto fail;
		}
		if (m->n == cap) {
			cap = cap ? cap * 2 : 64;
			m->rows = xrealloc(m->rows, cap * sizeof(*m->rows));
		}
		struct metric_row *r = &m->rows[m->n];

		r->repeat = (int)strtol(fields[1], &end, 10);
		if (*end || end == fields[1]) {
			snprintf(err, errlen, "%s:%d: field repeat: '%s' is not an integer", path, lineno, fields[1]);
			goto fail;
		}
		r->value = strtod(fields[3], &end);
		if (*end || end == fields[3]) {
			snprintf(err, errlen, "%s:%d: field value: '%s' is not a number", path, lineno, fields[3]);
			goto fail;
		}
		r->better = !strcmp(fields[5], "higher") ? 'h' : !strcmp(fields[5], "lower") ? 'l' : '-';
		r->step = xstrdup(fields[0]);
		r->metric = xstrdup(fields[2]);
		r->unit = xstrdup(fields[4]);
		m->n++;
	}
	/* Zero bytes: not even the header every writer puts first (metrics_open). */
	if (lineno == 0 && !ferror(f)) {
		snprintf(err, errlen, "%s: empty: not even its header row (step repeat metric value unit better)", path);
		goto fail;
	}
	return 0;
fail:
	metrics_free(m);
	return -1;
}

void metrics_free(struct metrics *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->rows[i].step);
		free(m->rows[i].metric);
		free(m->rows[i].unit);
	}
	free(m->rows);
	memset(m, 0, sizeof(*m));
}

bool metrics_step_value(const char *step, char *name, size_t n, double *value)
{
	const char *eq = strchr(step, '=');
	char *end;

	if (!eq)
		return false;
	*value = strtod(eq + 1, &end);
	if (end == eq + 1 || *end)
		return false;
	snprintf(name, n, "%.*s", (int)(eq - step), step);
	return true;
}
