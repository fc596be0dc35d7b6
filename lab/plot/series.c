// SPDX-License-Identifier: GPL-2.0
/* series-<metric>: a metric against its numeric schedule step, one line per
 * directory, error bars one standard deviation over the repeats. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/stats.h"
#include "plot/guard.h"
#include "plot/kinds.h"
#include "plot/time_axis.h"
#include "util/err.h"
#include "util/gnuplot.h"
#include "util/outfile.h"

/* Writes "step_value mean stddev" rows of one metric, values times scale;
 * false if none. */
static bool write_series(const struct plot_dir *d, const char *metric, const char *path, double scale)
{
	FILE *f = outfile_open(path, "w");
	double steps[256];
	size_t nsteps = 0;
	char xname[64];

	fprintf(f, "step\tmean\tstddev\n");
	for (size_t i = 0; i < d->m.n && nsteps < 256; i++) {
		double x;
		bool seen = false;

		if (strcmp(d->m.rows[i].metric, metric) ||
		    !metrics_step_value(d->m.rows[i].step, xname, sizeof(xname), &x))
			continue;
		for (size_t s = 0; s < nsteps; s++)
			seen |= steps[s] == x;
		if (!seen)
			steps[nsteps++] = x;
	}
	for (size_t s = 0; s < nsteps; s++) {
		double v[1024];
		size_t n = 0;
		struct sample_stats st;
		double x;

		for (size_t i = 0; i < d->m.n && n < 1024; i++)
			if (!strcmp(d->m.rows[i].metric, metric) &&
			    metrics_step_value(d->m.rows[i].step, xname, sizeof(xname), &x) && x == steps[s])
				v[n++] = d->m.rows[i].value * scale;
		sample_stats(v, n, &st);
		fprintf(f, "%.17g\t%.17g\t%.17g\n", steps[s], st.mean, st.stddev);
	}
	if (outfile_close(f))
		plot_guard_unwritten(path);
	return nsteps > 0;
}

/* The most repeats of a metric at any of its numeric steps in d. */
static size_t metric_runs(const struct plot_dir *d, const char *metric)
{
	size_t most = 0;
	char xname[64];
	double x, y;

	for (size_t i = 0; i < d->m.n; i++) {
		size_t n = 0;

		if (strcmp(d->m.rows[i].metric, metric) || !metrics_step_value(d->m.rows[i].step, xname, sizeof(xname), &x))
			continue;
		for (size_t j = 0; j < d->m.n; j++)
			n += !strcmp(d->m.rows[j].metric, metric) &&
			     metrics_step_value(d->m.rows[j].step, xname, sizeof(xname), &y) && y == x;
		most = n > most ? n : most;
	}
	return most;
}

/* The largest magnitude of a metric at numeric steps in any directory. */
static double stepped_max(const struct plot_dir *dirs, int ndirs, const char *metric)
{
	double max = 0, x;
	char xname[64];

	for (int d = 0; d < ndirs; d++)
		for (size_t i = 0; i < dirs[d].m.n; i++)
			if (!strcmp(dirs[d].m.rows[i].metric, metric) &&
			    metrics_step_value(dirs[d].m.rows[i].step, xname, sizeof(xname), &x))
				max = fmax(max, fabs(dirs[d].m.rows[i].value));
	return max;
}

int plot_series(struct plot_dir *dirs, int ndirs, const struct plot_target *t)
{
	int nplots = 0;

	for (size_t i = 0; i < dirs[0].m.n; i++) {
		const struct metric_row *r = &dirs[0].m.rows[i];
		char xname[64], *vars, *sm, *title, *title_txt, *ylabel, *name;
		struct time_axis ax = { r->unit, 1 };
		double x;
		bool first = true, named;
		int nfiles = 0;

		/* Every stepped metric: counts such as the stock's holders show
		 * a cliff as well as rates do. */
		if (!metrics_step_value(r->step, xname, sizeof(xname), &x))
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(dirs[0].m.rows[j].metric, r->metric) ||
				!metrics_step_value(dirs[0].m.rows[j].step, xname, sizeof(xname), &x);
		if (!first)
			continue;
		named = time_axis_for_metric(r->metric, r->unit, stepped_max(dirs, ndirs, r->metric), &ax);
		sm = plot_safe_name(r->metric);
		vars = NULL;
		name = xasprintf("series-%s", sm);
		for (int d = 0; d < ndirs; d++) {
			char *path = xasprintf("%s/%s.%d.tsv", plot_out(t, name), name, d);

			if (!dirs[d].have_metrics || !write_series(&dirs[d], r->metric, path, ax.scale)) {
				unlink(path);
				free(path);
				continue;
			}
			plot_add_file(&vars, ++nfiles, path, dirs[d].label);
			free(path);
		}
		/* The unit said once: on the y axis, or in the ASCII rendering's
		 * title (the dumb terminal draws no ylabel); nowhere else where
		 * the metric's name says it (cpu_ns_per_charge, drawn in ns).
		 * A/B curves of too few runs say that no difference is tested
		 * (report/stats.h's words). */
		{
			size_t na = metric_runs(&dirs[0], r->metric), nb = 0;
			char why[64], untested[96] = "";

			for (int d = 1; d < ndirs; d++) {
				size_t n = metric_runs(&dirs[d], r->metric);

				nb = d == 1 || n < nb ? n : nb;
			}
			if (ndirs > 1 && change_untested_why(na, nb, why, sizeof(why)))
				snprintf(untested, sizeof(untested), " (%s: not tested)", why);
			title = xasprintf("%s vs %s%s", r->metric, xname, untested);
			title_txt = named ? xstrdup(title) : xasprintf("%s vs %s [%s]%s", r->metric, xname, ax.unit,
								     untested);
		}
		ylabel = named ? xstrdup(r->metric) : xasprintf("%s [%s]", r->metric, ax.unit);
		gnuplot_var(&vars, "xlabel", xname);
		plot_metric("series", sm, vars, nfiles, title, title_txt, ylabel, ndirs > 1 ?
			    "the mean over the repeats at each step, one line per run (A, B), error bars one stddev" :
			    "the mean over the repeats at each step, error bars one stddev", t);
		nplots++;
		free(name);
		free(title);
		free(title_txt);
		free(ylabel);
		free(sm);
	}
	return nplots;
}
