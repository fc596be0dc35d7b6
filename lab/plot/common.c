// SPDX-License-Identifier: GPL-2.0
/* What the plot kinds share (plot/common.h): file names, series, rendering. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plot/common.h"
#include "plot/guard.h"
#include "plot/index.h"
#include "util/err.h"
#include "util/gnuplot.h"

char *plot_safe_name(const char *s)
{
	char *o = xstrdup(s);

	for (char *p = o; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '_' || *p == '-'))
			*p = '_';
	return o;
}

void plot_add_file(char **vars, int i, const char *path, const char *label)
{
	char name[32];

	snprintf(name, sizeof(name), "file%d", i);
	gnuplot_var(vars, name, path);
	snprintf(name, sizeof(name), "label%d", i);
	gnuplot_var(vars, name, label);
}

const char *plot_out(const struct plot_target *t, const char *name)
{
	if (!t->nheadlines)
		return t->out;
	for (int i = 0; i < t->nheadlines; i++)
		if (!strcmp(t->headlines[i], name))
			return t->out;
	return t->rest;
}

static bool render_quiet;

void plot_set_quiet(bool quiet)
{
	render_quiet = quiet;
}

void plot_render(const char *tmpl, const char *vars, const char *base, int w, int h, int text_rows,
		 const char *what)
{
	char err[512];

	if (gnuplot_render(tmpl, vars, base, w, h, text_rows, err, sizeof(err)))
		plot_guard_render_failed(err);
	plot_index_note(base, what);
	if (!render_quiet)
		printf("plot: %s.{png,svg,txt}\n", base);
}

void plot_metric(const char *kind, const char *name, char *vars, int nfiles, const char *title,
		 const char *title_txt, const char *ylabel, const char *what, const struct plot_target *t)
{
	char *full = xasprintf("%s-%s", kind, name), *base = xasprintf("%s/%s", plot_out(t, full), full);
	char *line = xasprintf("%s: %s", title_txt, what);

	gnuplot_var_int(&vars, "nfiles", nfiles);
	gnuplot_var(&vars, "title", title);
	gnuplot_var(&vars, "title_txt", title_txt);
	gnuplot_var(&vars, "ylabel", ylabel);
	plot_render(kind, vars, base, t->w, t->h, 0, line);
	free(line);
	free(full);
	free(base);
	free(vars);
}
