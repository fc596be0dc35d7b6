/* SPDX-License-Identifier: GPL-2.0 */
/* `memcg-lab compare`: results directories set against the first, for a mail. */
#ifndef LAB_REPORT_COMPARE_H
#define LAB_REPORT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct labels;

struct compare_opts {
	const struct labels *labels;	/* --label A=..., B=...; NULL: none given */
	const char *metric_re;	/* only metrics matching this ERE; NULL: all */
	const char *series;	/* the scaling layout's metric; NULL: A's first stepped one */
	bool common;		/* different experiments: compare what they share */
	bool tsv;		/* machine-readable rows instead of the table */
};

/*
 * Prints dirs[1..] each against dirs[0] (ndirs >= 2) on stdout; 0.  A bad
 * directory, regular expression or experiment mismatch: one line, exit 2.
 */
int compare_dirs(char **dirs, int ndirs, const struct compare_opts *o);
/*
 * compare's %change block of b against a within width columns, for
 * report --mail: the run counts, mean ±stddev% of A, %change, of B per
 * metric, and the scaling layout with report/stats.h's words.  A bad
 * directory: one line, exit 2.
 */
void compare_changes_of(FILE *out, const char *a, const char *b, int width);
/* The most repeats of any row of dir's data/metrics.tsv; 0 with none. */
size_t compare_runs_of(const char *dir);

#endif
