// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics for compare: mean/stddev, and Welch's t-test checked against
 * values computed by hand (the p-value by integrating the t density).
 */
#include <math.h>
#include <string.h>
#include "report/stats.h"
#include "tests/tap.h"

static int close_to(double got, double want, double tol)
{
	return fabs(got - want) <= tol;
}

/* change_words() of samples a and b with better side better. */
static const char *words_of(const double *a, size_t na, const double *b, size_t nb, char better, char *buf,
			    size_t n)
{
	struct sample_stats sa, sb;
	struct change c;

	sample_stats(a, na, &sa);
	sample_stats(b, nb, &sb);
	change_of(&sa, &sb, STATS_ALPHA, &c);
	return change_words(&c, better, buf, n);
}

/*
 * The one place a direction is given (issue 31): never without a test.
 * Two runs of one kernel, one repeat each, 33.4% apart (the K=14
 * row: 175410 and 116869); three repeats each with no real change; and a
 * change Welch's t finds (the 20% shift above: p < 0.001).
 */
TEST(change_words_only_with_a_test)
{
	const double a1[] = { 175410 }, b1[] = { 116869 };
	const double a3[] = { 175410, 121000, 150200 }, b3[] = { 116869, 168000, 149100 };
	const double x[] = { 100, 101, 99, 100 }, y[] = { 120, 121, 119, 120 };
	const double flat_a[] = { 7, 7, 7 }, flat_b[] = { 1, 1, 1 }, zero[] = { 0, 0 };
	struct sample_stats s1, s3;
	char buf[96], sd[16];

	ok(!strcmp(words_of(a1, 1, b1, 1, 'h', buf, sizeof(buf)), "(1 run a side: not tested)"),
	   "n=1 a side, 33.4%% apart: not tested, no direction (%s)", buf);
	ok(!strcmp(words_of(a1, 1, b3, 3, 'h', buf, sizeof(buf)), "(1 run in A, 3 in B: not tested)"),
	   "1 run against 3: not tested (%s)", buf);
	words_of(a3, 3, b3, 3, 'h', buf, sizeof(buf));
	ok(!strncmp(buf, "(no significant change, p = 0.", 30) && !strstr(buf, "regression") && !strstr(buf, "improvement"),
	   "n=3 a side, no real change: no significant change and its p (%s)", buf);
	ok(!strcmp(words_of(x, 4, y, 4, 'h', buf, sizeof(buf)), "(20.0% improvement)"),
	   "a change the test finds, higher better: improvement (%s)", buf);
	ok(!strcmp(words_of(x, 4, y, 4, 'l', buf, sizeof(buf)), "(20.0% regression)"),
	   "the same, lower better: regression (%s)", buf);
	words_of(x, 4, y, 4, '-', buf, sizeof(buf));
	ok(!strncmp(buf, "(+20.0%, p = ", 13), "no better side: the signed change and its p (%s)", buf);
	ok(!strcmp(words_of(flat_a, 3, flat_b, 3, 'h', buf, sizeof(buf)), "(no spread on either side: not tested)"),
	   "counts with no spread: not tested (%s)", buf);
	ok(!strcmp(words_of(zero, 2, flat_b, 3, 'h', buf, sizeof(buf)), "(A is 0: no relative change)"),
	   "A's mean 0: no relative change (%s)", buf);
	sample_stats(a1, 1, &s1);
	sample_stats(a3, 3, &s3);
	ok(!strcmp(stats_sd_pct(&s1, sd, sizeof(sd)), "-"), "one run's sd%% is -, not 0.0%% (%s)", sd);
	ok(!strcmp(stats_sd_pct(&s3, sd, sizeof(sd)), "18.3%"), "three runs' sd%% (%s)", sd);
}

/* A: mean 10, sample variance 1; B: mean 12, sample variance 4. */
static const double a[] = { 9, 10, 11 };
static const double b[] = { 10, 12, 14 };

TEST(mean_stddev_and_welch_by_hand)
{
	struct sample_stats sa, sb;
	struct welch w;

	sample_stats(a, 3, &sa);
	sample_stats(b, 3, &sb);
	ok(close_to(sa.mean, 10, 1e-12) && close_to(sa.stddev, 1, 1e-12), "A: mean 10, stddev 1");
	ok(close_to(sb.mean, 12, 1e-12) && close_to(sb.stddev, 2, 1e-12), "B: mean 12, stddev 2");
	welch_test(&sa, &sb, &w);
	/*
	 * By hand: se^2 = 1/3 + 4/3 = 5/3, t = 2 / sqrt(5/3) = 1.549193;
	 * df = (5/3)^2 / ((1/3)^2/2 + (4/3)^2/2) = (25/9) / (17/18) = 2.941176.
	 * p = 2 * integral of the t(2.941176) density from t to infinity = 0.22088.
	 */
	ok(close_to(w.t, 1.549193338, 1e-8), "Welch t = 1.549193 (got %.9f)", w.t);
	ok(close_to(w.df, 2.941176471, 1e-8), "Welch df = 2.941176 (got %.9f)", w.df);
	ok(close_to(w.p, 0.22088, 2e-4), "two-sided p = 0.2209 (got %.5f)", w.p);
}

/* Student t tails: t=2.228 with df=10 is the 5% two-sided critical value. */
TEST(student_t_tails)
{
	ok(close_to(student_t_p2(2.228138852, 10), 0.05, 1e-6), "t(10) critical value gives p = 0.05");
	ok(close_to(student_t_p2(0, 5), 1, 1e-12), "t = 0 gives p = 1");
	ok(close_to(student_t_p2(-3.182446305, 3), 0.05, 1e-6), "negative t: t(3) critical value gives p = 0.05");
}

TEST(welch_clear_shift_and_one_run)
{
	struct sample_stats sb;
	struct welch w;

	sample_stats(b, 3, &sb);
	{
		const double x[] = { 100, 101, 99, 100 }, y[] = { 120, 121, 119, 120 };
		struct sample_stats sx, sy;

		sample_stats(x, 4, &sx);
		sample_stats(y, 4, &sy);
		welch_test(&sx, &sy, &w);
		ok(w.valid && w.p < 0.001, "a clear 20%% shift is significant (p = %.2g)", w.p);
	}
	{
		const double one[] = { 5 };
		struct sample_stats s1;

		sample_stats(one, 1, &s1);
		welch_test(&s1, &sb, &w);
		ok(!w.valid && isnan(w.t) && isnan(w.df) && isnan(w.p), "one run: no test; t, df and p are NaN, not 0 and 1");
	}
}

TEST(harmonic_mean)
{
	ok(close_to(hmean(b, 3), 3 / (1.0 / 10 + 1.0 / 12 + 1.0 / 14), 1e-12), "harmonic mean");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
