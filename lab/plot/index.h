/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plots a reviewer opens first, and the index of all of them.
 *
 * An experiment names its headline plots ([plot] headline = series-stock.holders,
 * cdf-lock-hold, ...): they stay in plots/, every other plot goes to
 * plots/all/.  plots/index.txt lists every plot with one line on what it
 * shows (the headline plots first), and plots/index.html shows the
 * verdicts (report/verdict.h) above the headline plots, then links the rest.
 * A run whose experiment names none keeps every plot in plots/.
 */
#ifndef LAB_PLOT_INDEX_H
#define LAB_PLOT_INDEX_H

#include <stddef.h>
#include "plot/common.h"

#define PLOT_REST_DIR "all"
#define PLOT_INDEX_TXT "index.txt"
#define PLOT_INDEX_HTML "index.html"

/* A [plot] headline list ("series-x, cdf-y"): 0, or -1 with why (a name
 * of no plot kind, a character no plot file has). */
int plot_names_check(const char *list, char *why, size_t n);
/* The headline plots dir's experiment.exp names; their count, *names
 * malloc'd (plot_headlines_free). */
int plot_headlines_of(const char *dir, char ***names);
void plot_headlines_free(char **names, int n);
/* Records a plot written: its path without extension and what it shows. */
void plot_index_note(const char *base, const char *what);
/* Writes t->out/index.txt from the plots recorded, then index.html. */
void plot_index_write(const struct plot_target *t, const char *const *dirs, int ndirs);
/*
 * index.html of a plots directory from its index.txt, with the verdicts of
 * dirs (one run, or an A/B pair); again after the verdicts changed (vm marks
 * a guest's run as TCG).  0, or -1 (reported: util/outfile.h).
 */
int plot_index_html(const char *plotdir, const char *const *dirs, int ndirs);

#endif
