// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics for compare: mean/stddev, and Welch's t-test checked against
 * values computed by hand (the p-value by integrating the t density).
 */
#include <math.h>
#include "report/stats.h"
#include "tests/tap.h"

static int close_to(double got, double want, double tol)
{
	return fabs(got - want) <= tol;
}

int main(void)
{
	/* A: mean 10, sample variance 1; B: mean 12, sample variance 4. */
	const double a[] = { 9, 10, 11 };
	const double b[] = { 10, 12, 14 };
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

	/* Student t tails: t=2.228 with df=10 is the 5%% two-sided critical value. */
	ok(close_to(student_t_p2(2.228138852, 10), 0.05, 1e-6), "t(10) critical value gives p = 0.05");
	ok(close_to(student_t_p2(0, 5), 1, 1e-12), "t = 0 gives p = 1");
	ok(close_to(student_t_p2(-3.182446305, 3), 0.05, 1e-6), "negative t: t(3) critical value gives p = 0.05");

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
		ok(!w.valid && w.p == 1, "one run: no test (not significant)");
	}
	ok(close_to(hmean(b, 3), 3 / (1.0 / 10 + 1.0 / 12 + 1.0 / 14), 1e-12), "harmonic mean");
	return tap_done();
}
