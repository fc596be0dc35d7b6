// SPDX-License-Identifier: GPL-2.0
/*
 * bars-<metric>: a metric measured at no numeric step (the phases of one
 * run, such as accounted and unaccounted, or a whole run's derived ratio)
 * as bars, one per step and directory (A, B, ...) side by side: the mean
 * over the repeats, the error bar from the smallest to the largest repeat.
 * An A/B comparison of two kmem-overhead runs reads off these.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/stats.h"
#include "plot/guard.h"
#include "plot/kinds.h"
#include "plot/time_axis.h"
#include "util/err.h"
#include "util/gnuplot.h"
#include "util/outfile.h"
#include "util/tsv.h"

#define MAX_NAMES 256

/* Appends s to names (unless there) and returns its index; -1 when full. */
static int name_index(const char **names, int *n, const char *s)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(names[i], s))
			return i;
	if (*n == MAX_NAMES)
		return -1;
	names[*n] = s;
	return (*n)++;
}

/* A metric with a numeric step in any directory is a series, not bars. */
static bool stepped(const struct plot_dir *dirs, int ndirs, const char *metric)
{
	char xname[64];
	double x;

	for (int d = 0; d < ndirs; d++)
		for (size_t i = 0; i < dirs[d].m.n; i++)
			if (!strcmp(dirs[d].m.rows[i].metric, metric) &&
			    metrics_step_value(dirs[d].m.rows[i].step, xname, sizeof(xname), &x))
				return true;
	return false;
}

static void step_stats(const struct plot_dir *d, const char *metric, const char *step, double scale,
		       struct sample_stats *st)
{
	double v[1024];
	size_t n = 0;

	for (size_t i = 0; i < d->m.n && n < 1024; i++)
		if (!strcmp(d->m.rows[i].metric, metric) && !strcmp(d->m.rows[i].step, step))
			v[n++] = d->m.rows[i].value * scale;
	sample_stats(v, n, st);
}

/* The most repeats of a metric at any step in d. */
static size_t runs_of(const struct plot_dir *d, const char *metric)
{
	size_t most = 0;

	for (size_t i = 0; i < d->m.n; i++) {
		size_t n = 0;

		if (strcmp(d->m.rows[i].metric, metric))
			continue;
		for (size_t j = 0; j < d->m.n; j++)
			n += !strcmp(d->m.rows[j].metric, metric) && !strcmp(d->m.rows[j].step, d->m.rows[i].step);
		most = n > most ? n : most;
	}
	return most;
}

/*
 * Rows "step mean1 min1 max1 n1 mean2 ..." (NaN where a directory has no
 * value at that step), steps in the order first measured; the most
 * repeats of any bar in *max_repeats.
 */
static void write_bars(const struct plot_dir *dirs, int ndirs, const char *metric, const char *path,
		       double scale, size_t *max_repeats)
{
	const char *steps[MAX_NAMES];
	int nsteps = 0;
	FILE *f = outfile_open(path, "w");

	for (int d = 0; d < ndirs; d++)
		for (size_t i = 0; i < dirs[d].m.n; i++)
			if (!strcmp(dirs[d].m.rows[i].metric, metric))
				name_index(steps, &nsteps, dirs[d].m.rows[i].step);
	fprintf(f, "step");
	for (int d = 0; d < ndirs; d++)
		fprintf(f, "\tmean%d\tmin%d\tmax%d\tn%d", d + 1, d + 1, d + 1, d + 1);
	fputc('\n', f);
	*max_repeats = 0;
	for (int s = 0; s < nsteps; s++) {
		/* "-": a value of the whole run, such as a derived ratio. */
		tsv_field(f, strcmp(steps[s], "-") ? steps[s] : "whole run", 0);
		for (int d = 0; d < ndirs; d++) {
			struct sample_stats st;

			step_stats(&dirs[d], metric, steps[s], scale, &st);
			if (!st.n)
				fprintf(f, "\tNaN\tNaN\tNaN\t0");
			else
				fprintf(f, "\t%.17g\t%.17g\t%.17g\t%zu", st.mean, st.min, st.max, st.n);
			if (st.n > *max_repeats)
				*max_repeats = st.n;
		}
		fputc('\n', f);
	}
	if (outfile_close(f))
		plot_guard_unwritten(path);
}

int plot_bars(struct plot_dir *dirs, int ndirs, const struct plot_target *t)
{
	const char *metrics[MAX_NAMES], *units[MAX_NAMES];
	int nmetrics = 0, nplots = 0;

	for (int d = 0; d < ndirs; d++)
		for (size_t i = 0; i < dirs[d].m.n; i++) {
			const struct metric_row *r = &dirs[d].m.rows[i];
			int k;

			if (stepped(dirs, ndirs, r->metric))
				continue;
			k = name_index(metrics, &nmetrics, r->metric);
			if (k >= 0)
				units[k] = r->unit;
		}
	for (int k = 0; k < nmetrics; k++) {
		struct time_axis ax = { units[k], 1 };
		double max = 0;
		size_t repeats;
		char *sm = plot_safe_name(metrics[k]), *vars = NULL, *path, *title, *title_txt, *ylabel, *name;
		bool named;

		for (int d = 0; d < ndirs; d++)
			for (size_t i = 0; i < dirs[d].m.n; i++)
				if (!strcmp(dirs[d].m.rows[i].metric, metrics[k]))
					max = fmax(max, fabs(dirs[d].m.rows[i].value));
		named = time_axis_for_metric(metrics[k], units[k], max, &ax);
		name = xasprintf("bars-%s", sm);
		path = xasprintf("%s/%s.tsv", plot_out(t, name), name);
		write_bars(dirs, ndirs, metrics[k], path, ax.scale, &repeats);
		for (int d = 0; d < ndirs; d++)
			plot_add_file(&vars, d + 1, path, dirs[d].label);
		{
			/* The unit said once (series.c).  A/B bars of too few
			 * runs: no difference is tested (report/stats.h's words). */
			size_t na = runs_of(&dirs[0], metrics[k]), nb = 0;
			char why[64], tail[160];

			for (int d = 1; d < ndirs; d++) {
				size_t n = runs_of(&dirs[d], metrics[k]);

				nb = d == 1 || n < nb ? n : nb;
			}
			if (ndirs > 1 && change_untested_why(na, nb, why, sizeof(why)))
				snprintf(tail, sizeof(tail), "mean of %zu repeat%s (%s: not tested)", repeats,
					 repeats == 1 ? "" : "s", why);
			else
				snprintf(tail, sizeof(tail), "mean of %zu repeat%s, bars min..max", repeats,
					 repeats == 1 ? "" : "s");
			title = xasprintf("%s: %s", metrics[k], tail);
			title_txt = named ? xstrdup(title) : xasprintf("%s [%s]: %s", metrics[k], ax.unit, tail);
		}
		ylabel = named ? xstrdup(metrics[k]) : xasprintf("%s [%s]", metrics[k], ax.unit);
		plot_metric("bars", sm, vars, ndirs, title, title_txt, ylabel, ndirs > 1 ?
			    "a bar per step and run (A, B) side by side" : "a bar per step (phase) of the run", t);
		nplots++;
		free(name);
		free(sm);
		free(path);
		free(title);
		free(title_txt);
		free(ylabel);
	}
	return nplots;
}
