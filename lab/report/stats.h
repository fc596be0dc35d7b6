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
	double p;		/* two-sided p-value */
	int valid;		/* both sides have n >= 2 and some variance; else t, df, p are NAN */
};

void welch_test(const struct sample_stats *a, const struct sample_stats *b, struct welch *out);
/* Two-sided p-value of Student's t with df degrees of freedom. */
double student_t_p2(double t, double df);

/* The lab's significance threshold: a change is one where Welch's t gives p below it. */
#define STATS_ALPHA 0.05

/*
 * A change of B against A, and what may be said of it.  This is the one
 * place that decides whether a direction may be given: compare, report
 * --mail, the verdicts and the plots' titles all take their words from
 * change_words().
 */
enum change_kind {
	CHANGE_UNDEFINED,	/* A's mean is 0: no relative change */
	CHANGE_UNTESTED,	/* fewer than 2 runs on a side, or no spread on either */
	CHANGE_NOT_SIGNIFICANT,	/* Welch's p >= alpha */
	CHANGE_SIGNIFICANT,	/* Welch's p < alpha */
};

struct change {
	enum change_kind kind;
	double pct;		/* 100 (B - A) / |A|; NAN when A's mean is 0 */
	struct welch w;		/* NAN t, df, p where untested */
	size_t na, nb;
};

void change_of(const struct sample_stats *a, const struct sample_stats *b, double alpha, struct change *c);
/*
 * Its words, in parentheses: "(33.4% regression)" or "(33.4% improvement)"
 * only for a significant change of a metric whose better side is known
 * (better 'h' higher, 'l' lower); "(+33.4%, p = 0.003)" for one that is
 * not; "(no significant change, p = 0.41)"; "(1 run a side: not tested)",
 * "(1 run in A, 3 in B: not tested)", "(no spread on either side: not
 * tested)"; "(A is 0: no relative change)".  Returns buf.
 */
const char *change_words(const struct change *c, char better, char *buf, size_t n);
/*
 * Why n_a and n_b runs cannot be tested ("1 run a side", "1 run in A, 3
 * in B"), into buf; NULL when both have 2 or more.
 */
const char *change_untested_why(size_t na, size_t nb, char *buf, size_t n);
/* A stddev as a percentage of the mean ("12.3%"), or "-" where the data
 * give none (fewer than 2 runs, a mean of 0).  Returns buf. */
const char *stats_sd_pct(const struct sample_stats *s, char *buf, size_t n);

#endif
