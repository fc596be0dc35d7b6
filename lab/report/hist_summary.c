// SPDX-License-Identifier: GPL-2.0
#include "report/hist_summary.h"

const uint64_t hist_thresh_ns[HIST_NTHRESH] = { 1000000ull, 10000000ull, 1000000000ull };
const char *const hist_thresh_names[HIST_NTHRESH] = { "1ms", "10ms", "1s" };

void hist_summarize(const struct hist *h, struct hist_summary *s)
{
	s->count = h->count;
	s->min = h->count ? h->min : 0;
	s->max = h->max;
	s->mean = hist_mean(h);
	s->p50 = hist_quantile(h, 0.50);
	s->p90 = hist_quantile(h, 0.90);
	s->p99 = hist_quantile(h, 0.99);
	s->p999 = hist_quantile(h, 0.999);
	for (int i = 0; i < HIST_NTHRESH; i++)
		s->over[i] = hist_count_above(h, hist_thresh_ns[i]);
}

double hist_summary_over_pct(const struct hist_summary *s, int i)
{
	return s->count ? 100.0 * (double)s->over[i] / (double)s->count : 0.0;
}
