/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Summary statistics for repeated runs and Welch's t-test (unequal
 * variances), the significance test mmtests marks its comparisons with.
 */
#ifndef LAB_REPORT_STATS_H
#define LAB_REPORT_STATS_H

#include <stddef.h>

struct sample_stats {
	size_t n;
	double mean;
	double stddev;		/* sample standard deviation (n - 1) */
	double min, max;
};

void sample_stats(const double *v, size_t n, struct sample_stats *out);
/* Harmonic mean (mmtests uses it for rates); 0 if any value <= 0. */
double hmean(const double *v, size_t n);

struct welch {
	double t;		/* (mean_b - mean_a) / sqrt(va/na + vb/nb) */
	double df;		/* Welch-Satterthwaite degrees of freedom */
	double p;		/* two-sided p-value; 1 when undefined */
	int valid;		/* both sides have n >= 2 and some variance */
};

void welch_test(const struct sample_stats *a, const struct sample_stats *b, struct welch *out);
/* Two-sided p-value of Student's t with df degrees of freedom. */
double student_t_p2(double t, double df);

#endif
