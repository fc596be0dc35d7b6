/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memcg-lab plot: gnuplot renderings of one or more results directories,
 * each as PNG, SVG and an ASCII (dumb terminal) text to paste into a mail.
 * cmd/plot.c parses the options and calls plot_dirs(); the plots
 * themselves are drawn by the files of this folder, one kind each:
 *
 *  - series.c  series-<metric>: every metric measured at numeric schedule
 *              steps, one line per directory (A vs B), stddev bars;
 *  - bars.c    bars-<metric>: every metric measured at no numeric step
 *              (phases, A/B runs), a bar per step and directory, min..max;
 *  - cdf.c     cdf-<group>: the latency histograms as CDFs;
 *  - maps.c    cachelines-<struct> and falsesharing-<struct>: the layout
 *              captures' cacheline maps and c2c's HITMs per field.
 */
#ifndef LAB_PLOT_PLOT_H
#define LAB_PLOT_PLOT_H

#include <stdbool.h>

struct labels;

struct plot_request {
	const char *out;	/* NULL: plot_default_out() */
	const char *status_as;	/* the first directory's status, as run passes it; or NULL */
	int width, height;	/* PNG/SVG pixels */
	const struct labels *labels;	/* --label; NULL: none given */
	bool quiet;		/* no "plot: FILE" line per plot (report --mail draws its own) */
};

/*
 * Where plots of dirs go by default (malloc'd): one run's own plots/; an
 * A/B's beside A, never into it: <A's parent>/compare-<A>-vs-<B>/plots.
 */
char *plot_default_out(const char *const *dirs, int ndirs);
/* Plots dirs[0..ndirs) (A, B, ...); dies with one line on bad input.
 * Returns the number of plots written. */
int plot_dirs(const char *const *dirs, int ndirs, const struct plot_request *req);

/*
 * The cacheline map of struct st coloured by the counts of fields_tsv (a
 * lines run's fields.tsv, or the predicted-fields.tsv of `lines
 * predict`), linesize bytes a row, into out/name.{png,svg,txt} (out
 * exists), titled title; quiet: no "plot:" line; its text rendering
 * (out/name.txt) also printed to text_out after a blank line, where not
 * NULL.  1, 0 when st has no row there, -1 with err.
 */
int plot_lines_file_map(const char *fields_tsv, const char *st, int linesize, const char *name, const char *title,
			const char *out, bool quiet, FILE *text_out, char *err, size_t errlen);

#endif
