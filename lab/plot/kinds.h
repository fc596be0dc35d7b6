/* SPDX-License-Identifier: GPL-2.0 */
/* The plot kinds, one file each, that plot.c dispatches to (plot/plot.h). */
#ifndef LAB_PLOT_KINDS_H
#define LAB_PLOT_KINDS_H

#include "plot/common.h"
#include "plot/plotmaps.h"

/* Each returns the number of plots it wrote. */
int plot_series(struct plot_dir *dirs, int ndirs, const struct plot_target *t);
int plot_bars(struct plot_dir *dirs, int ndirs, const struct plot_target *t);
int plot_cdfs(struct plot_dir *dirs, int ndirs, const struct plot_target *t);
int plot_layout_maps(struct plot_dir *d, const struct plot_target *t);
int plot_fieldmaps(struct plot_dir *d, const struct plot_target *t);
/* The lines plugin's counts (plot/lines.c): the coloured maps of each run,
 * the bars and the per-label lines of all runs. */
int plot_linesmaps(struct plot_dir *dirs, int ndirs, const struct plot_target *t);
int plot_linesbars(struct plot_dir *dirs, int ndirs, const struct plot_target *t);

/* A map plot (maps.c): its template, name, title and what it shows;
 * notes: lines listed under the map after the keys (NULL: none). */
struct map_spec {
	const char *tmpl, *name, *title, *what, *notes;
};
/* Draws s as the template draws a cacheline map (plots/cachelines.gp,
 * plots/linesmap.gp), its box labels fitted to their boxes. */
void plot_map(const struct cl_struct *s, const struct map_spec *m, const struct plot_target *t);
/* Rows of a map's ASCII rendering for nlines cachelines and list_rows of
 * key list: two per cacheline, so that each has a row of its own. */
int map_text_rows(int nlines, int list_rows);

#endif
