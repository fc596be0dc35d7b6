// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/err.h"
#include "util/metrics.h"
#include "util/outfile.h"
#include "util/tsv.h"

/* The columns, in the order they are written (METRICS_HEADER). */
static const char *const metrics_cols[] = { "step", "repeat", "metric", "value", "unit", "better", NULL };

FILE *metrics_open(const char *dir)
{
	char *path = xasprintf("%s/" METRICS_FILE, dir);
	struct stat st;
	bool fresh = stat(path, &st) || st.st_size == 0;
	FILE *f = outfile_open(path, "a");

	if (fresh)
		tsv_write_header(f, metrics_cols);
	free(path);
	return f;
}

void metrics_emit(FILE *f, const char *step, int repeat, const char *metric, double value,
		  const char *unit, const char *better)
{
	tsv_write_row(f, "%s\t%d\t%s\t%.17g\t%s\t%s\n", step && step[0] ? step : "-", repeat, metric, value,
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
	enum { STEP, REPEAT, METRIC, VALUE, UNIT, BETTER };
	struct tsv t;
	size_t cap = 0;
	int r;

	memset(m, 0, sizeof(*m));
	/* Without its header a file is not known to be the lab's: its first
	 * row is not taken for data (util/tsv.h says what it has instead). */
	if (tsv_open_stream(&t, f, path, metrics_cols, 0, err, errlen))
		goto fail;
	while ((r = tsv_next(&t)) == TSV_ROW) {
		struct metric_row *row;
		long repeat;
		double value;

		if (tsv_long(&t, REPEAT, &repeat) || tsv_double(&t, VALUE, &value))
			goto fail;
		if (repeat < INT_MIN || repeat > INT_MAX) {
			tsv_fail(&t, REPEAT, "'%s' is not an integer", tsv_get(&t, REPEAT));
			goto fail;
		}
		if (m->n == cap) {
			cap = cap ? cap * 2 : 64;
			m->rows = xrealloc(m->rows, cap * sizeof(*m->rows));
		}
		row = &m->rows[m->n++];
		row->repeat = (int)repeat;
		row->value = value;
		row->better = !strcmp(tsv_get(&t, BETTER), "higher") ? 'h' : !strcmp(tsv_get(&t, BETTER), "lower") ? 'l' : '-';
		row->step = xstrdup(tsv_get(&t, STEP));
		row->metric = xstrdup(tsv_get(&t, METRIC));
		row->unit = xstrdup(tsv_get(&t, UNIT));
	}
	if (r < 0)
		goto fail;
	tsv_close(&t);
	return 0;
fail:
	tsv_close(&t);
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
