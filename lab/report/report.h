/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_REPORT_REPORT_H
#define LAB_REPORT_REPORT_H

#include <stdio.h>

/* Writes the report of a results directory; 0, or -1 with err. */
int report_write(const char *dir, FILE *out, char *err, size_t errlen);
struct mail_opts {
	const char *labels[2];	/* what A and B are called (report/labels.h) */
	const char *plots;	/* the plots directory to show the headline plots of; NULL: none */
	const char *no_plots;	/* why there are none (no gnuplot) */
};

/*
 * The text for a mail (`report --mail`), plain text in 72 columns, no
 * control character but the newline: one context line per side (kernel,
 * CPUs, repeats, shape, cgroup version, lab revision), the verdicts of dir
 * (against b: an A/B, b may be NULL) and the seeds' tables with the
 * measured figures, compare's %change block of b against dir, the layout
 * verdicts of the runs that checked them, and the ASCII renderings of the
 * headline plots in o->plots.  0, or -1 with err.
 */
/* Whether A and B make one mail: both results directories of one
 * experiment; 0, or -1 with one line in err.  report_mail expects a pair
 * this passed (the command checks before it draws the pair's plots). */
int report_mail_check(const char *a, const char *b, char *err, size_t errlen);
int report_mail(const char *dir, const char *b, const struct mail_opts *o, FILE *out, char *err, size_t errlen);

struct results;
/*
 * Ends a run: report.txt first (written as the run will stand, through a
 * temporary file), then meta.json's status.  So a status of "complete" always
 * comes with its report, and a run killed before the end stays incomplete.
 * Under the runner (attached) only logs; the runner ends the directory.
 */
void report_finish(struct results *r, const char *status);
/*
 * Writes <dir>/report.txt again, where there is one, from the directory as
 * it stands: after meta.json learnt what the run itself could not know
 * (vm marks a guest's results as made under TCG).  0, or -1 (reported as a
 * write failure, util/outfile.h).
 */
int report_rewrite(const char *dir);

#endif
