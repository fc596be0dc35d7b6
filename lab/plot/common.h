/* SPDX-License-Identifier: GPL-2.0 */
/* What the plot kinds of lab/plot/ share (plot/common.c): the directories,
 * where to draw, and the helpers every kind renders with. */
#ifndef LAB_PLOT_COMMON_H
#define LAB_PLOT_COMMON_H

#include <stdbool.h>
#include "util/metrics.h"

struct plot_dir {
	const char *dir;
	char label[160];	/* "A: 6.18.44 (incomplete)" */
	struct metrics m;
	bool have_metrics;
	bool in_vm;		/* made in a guest (meta.json's "vm"): its counts are its guest run's */
};

struct plot_target {
	const char *out;	/* the directory the plots go to */
	int w, h;
	/* The experiment's headline plots ([plot] headline): they go to out,
	 * every other plot to rest (out/all).  None named: all go to out. */
	char **headlines;
	int nheadlines;
	const char *rest;
};

/* The directory the plot name ("series-stock.holders") goes to. */
const char *plot_out(const struct plot_target *t, const char *name);

/* file<i>=PATH and label<i>=LABEL for the templates' loops over series. */
void plot_add_file(char **vars, int i, const char *path, const char *label);
/* A metric name as a file name: [A-Za-z0-9._-], the rest '_'. malloc'd. */
char *plot_safe_name(const char *s);
/* A metric's plot <out>/<kind>-<name>.*: sets nfiles, title, title_txt
 * (the ASCII rendering's, which has no y label: the unit said there) and
 * ylabel among vars (then freed) and renders plots/<kind>.gp; what: one
 * line on what it shows, after title_txt in plots/index.txt. */
void plot_metric(const char *kind, const char *name, char *vars, int nfiles, const char *title,
		 const char *title_txt, const char *ylabel, const char *what, const struct plot_target *t);
/* With quiet, plot_render says nothing on stdout (report --mail draws
 * plots for a mail it prints there). */
void plot_set_quiet(bool quiet);
/* Renders template into <base>.{png,svg,txt} (text_rows 0: the usual
 * 24) and says so on stdout; a failure ends plot (plot_guard_render_failed).
 * what: one line on what the plot shows, for plots/index.txt. */
void plot_render(const char *tmpl, const char *vars, const char *base, int w, int h, int text_rows,
		 const char *what);

#endif
