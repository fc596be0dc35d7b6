// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdio.h>
#include "report/stats.h"

void sample_stats(const double *v, size_t n, struct sample_stats *s)
{
	double sum = 0, sq = 0;

	s->n = n;
	s->mean = s->stddev = s->min = s->max = 0;
	if (!n)
		return;
	s->min = s->max = v[0];
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] < s->min)
			s->min = v[i];
		if (v[i] > s->max)
			s->max = v[i];
	}
	s->mean = sum / n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
}

double hmean(const double *v, size_t n)
{
	double inv = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i] <= 0)
			return 0;
		inv += 1 / v[i];
	}
	return n ? n / inv : 0;
}

#define BETACF_TINY 1e-300

/* One step of the modified Lentz method with the term aa: the factor it
 * puts on the fraction (c and d kept off zero). */
static double lentz_step(double aa, double *c, double *d)
{
	*d = 1 + aa * *d;
	if (fabs(*d) < BETACF_TINY)
		*d = BETACF_TINY;
	*c = 1 + aa / *c;
	if (fabs(*c) < BETACF_TINY)
		*c = BETACF_TINY;
	*d = 1 / *d;
	return *d * *c;
}

/* Continued fraction of the regularized incomplete beta (Numerical Recipes' betacf shape). */
static double betacf(double a, double b, double x)
{
	const double eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < BETACF_TINY)
		d = BETACF_TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, del;

		h *= lentz_step(m * (b - m) * x / ((a + m2 - 1) * (a + m2)), &c, &d);
		del = lentz_step(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)), &c, &d);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

double student_t_p2(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return 1;
	if (isinf(t))
		return 0;
	return ibeta(df / 2, 0.5, df / (df + t * t));
}

void welch_test(const struct sample_stats *a, const struct sample_stats *b, struct welch *w)
{
	double va, vb, se2;

	w->t = NAN;
	w->df = NAN;
	w->p = NAN;
	w->valid = 0;
	if (a->n < 2 || b->n < 2)
		return;
	va = a->stddev * a->stddev / a->n;
	vb = b->stddev * b->stddev / b->n;
	se2 = va + vb;
	if (se2 <= 0)
		return;
	w->t = (b->mean - a->mean) / sqrt(se2);
	w->df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	w->p = student_t_p2(w->t, w->df);
	w->valid = 1;
}

void change_of(const struct sample_stats *a, const struct sample_stats *b, double alpha, struct change *c)
{
	welch_test(a, b, &c->w);
	c->na = a->n;
	c->nb = b->n;
	c->pct = a->mean != 0 ? 100 * (b->mean - a->mean) / fabs(a->mean) : NAN;
	if (isnan(c->pct))
		c->kind = CHANGE_UNDEFINED;
	else if (!c->w.valid)
		c->kind = CHANGE_UNTESTED;
	else
		c->kind = c->w.p < alpha ? CHANGE_SIGNIFICANT : CHANGE_NOT_SIGNIFICANT;
}

const char *change_untested_why(size_t na, size_t nb, char *buf, size_t n)
{
	if (na >= 2 && nb >= 2)
		return NULL;
	if (na == nb)
		snprintf(buf, n, "%zu run%s a side", na, na == 1 ? "" : "s");
	else
		snprintf(buf, n, "%zu run%s in A, %zu in B", na, na == 1 ? "" : "s", nb);
	return buf;
}

const char *change_words(const struct change *c, char better, char *buf, size_t n)
{
	char why[64];

	switch (c->kind) {
	case CHANGE_UNDEFINED:
		snprintf(buf, n, "(A is 0: no relative change)");
		break;
	case CHANGE_UNTESTED:
		if (change_untested_why(c->na, c->nb, why, sizeof(why)))
			snprintf(buf, n, "(%s: not tested)", why);
		else
			snprintf(buf, n, "(no spread on either side: not tested)");
		break;
	case CHANGE_NOT_SIGNIFICANT:
		snprintf(buf, n, "(no significant change, p = %.2g)", c->w.p);
		break;
	case CHANGE_SIGNIFICANT:
		if (better == 'h' || better == 'l')
			snprintf(buf, n, "(%.1f%% %s)", fabs(c->pct),
				 (better == 'h') == (c->pct > 0) ? "improvement" : "regression");
		else
			snprintf(buf, n, "(%+.1f%%, p = %.2g)", c->pct, c->w.p);
		break;
	}
	return buf;
}

const char *stats_sd_pct(const struct sample_stats *s, char *buf, size_t n)
{
	if (s->n < 2 || s->mean == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", 100 * s->stddev / fabs(s->mean));
	return buf;
}
