/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results directory whose own plots/ plot rewrites is "incomplete"
 * while it does: a plot cut short by a full disk, or killed, leaves no
 * "complete" run behind it.
 */
#ifndef LAB_PLOT_GUARD_H
#define LAB_PLOT_GUARD_H

/* Marks dir's meta.json incomplete (its status before is kept in
 * "status_before_plot"); exits 2 if it cannot. */
void plot_guard_begin(const char *dir);
/* Every plot was written in full: the status before comes back. */
void plot_guard_end(void);
/*
 * A file of the plots could not be written; its one line is printed
 * (util/outfile.h).  The file cut short (partial, or NULL) is removed, the
 * run stays "incomplete" with the line in "unwritten", and plot exits 2:
 * the plots after it would go to the same full disk.
 */
void plot_guard_unwritten(const char *partial) __attribute__((noreturn));
/* gnuplot_render's err: a plot it could not write is a file unwritten. */
void plot_guard_render_failed(const char *err) __attribute__((noreturn));

#endif
