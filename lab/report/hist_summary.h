/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The numbers a latency histogram is reported by: count, percentiles
 * (p50/p90/p99/p99.9), min/max/mean and how many values exceed 1 ms,
 * 10 ms and 1 s, the thresholds the memcg stat-flushing threads quote.
 */
#ifndef LAB_REPORT_HIST_SUMMARY_H
#define LAB_REPORT_HIST_SUMMARY_H

#include <stdint.h>
#include "util/hist.h"

#define HIST_NTHRESH 3
extern const uint64_t hist_thresh_ns[HIST_NTHRESH];	/* 1 ms, 10 ms, 1 s */
extern const char *const hist_thresh_names[HIST_NTHRESH];	/* "1ms", "10ms", "1s" */

struct hist_summary {
	uint64_t count, min, max;
	uint64_t p50, p90, p99, p999;
	double mean;
	uint64_t over[HIST_NTHRESH];	/* values above each threshold (bucket precision) */
};

void hist_summarize(const struct hist *h, struct hist_summary *s);
/* over[i] as a percentage of count (0 when empty). */
double hist_summary_over_pct(const struct hist_summary *s, int i);

#endif
