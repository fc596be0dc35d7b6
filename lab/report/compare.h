/* SPDX-License-Identifier: GPL-2.0 */
/* `memcg-lab compare`: results directories set against the first, for a mail. */
#ifndef LAB_REPORT_COMPARE_H
#define LAB_REPORT_COMPARE_H

#include <stdbool.h>

struct compare_opts {
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

#endif
