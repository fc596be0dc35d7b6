/* SPDX-License-Identifier: GPL-2.0 */
/* The plot kinds, one file each, that plot.c dispatches to (plot/plot.h). */
#ifndef LAB_PLOT_KINDS_H
#define LAB_PLOT_KINDS_H

#include "plot/common.h"

/* Each returns the number of plots it wrote. */
int plot_series(struct plot_dir *dirs, int ndirs, const struct plot_target *t);
int plot_bars(struct plot_dir *dirs, int ndirs, const struct plot_target *t);
int plot_cdfs(struct plot_dir *dirs, int ndirs, const struct plot_target *t);
int plot_layout_maps(struct plot_dir *d, const struct plot_target *t);
int plot_fieldmaps(struct plot_dir *d, const struct plot_target *t);

#endif
