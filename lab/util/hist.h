/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histograms (HDR style): exact below 64, then 32
 * sub-buckets per power of two, so any value is kept within 1/32 (3.1%)
 * relative error from 1 ns to the full u64 range in 1920 buckets (15 KiB).
 *
 * Recording is a few instructions with no locks: each thread owns its
 * histogram and the owner merges them at the end (hist_merge), which is
 * exact because all histograms share the same bucket bounds.
 */
#ifndef LAB_UTIL_HIST_H
#define LAB_UTIL_HIST_H

#include <stdint.h>
#include <stdio.h>

#define HIST_SUB_BITS 5
#define HIST_LINEAR 64
#define HIST_NBUCKETS (HIST_LINEAR + (64 - 6) * (1 << HIST_SUB_BITS))

struct hist {
	uint64_t count;
	uint64_t sum;		/* saturates at UINT64_MAX */
	uint64_t min, max;
	uint64_t bucket[HIST_NBUCKETS];
};

void hist_init(struct hist *h);
void hist_merge(struct hist *dst, const struct hist *src);
/* Value at quantile q (0..1), within the bucket's relative error; 0 if empty. */
uint64_t hist_quantile(const struct hist *h, double q);
/* Number of recorded values strictly greater than v (to bucket precision:
 * a bucket counts when its lower bound is > v). */
uint64_t hist_count_above(const struct hist *h, uint64_t v);
double hist_mean(const struct hist *h);
/* Bucket bounds: [low, high] inclusive. */
uint64_t hist_bucket_low(int idx);
uint64_t hist_bucket_high(int idx);
/* Non-empty buckets as TSV rows "low\thigh\tcount" after a header row
 * (util/tsv.h: low_ns high_ns count). */
void hist_write_tsv(const struct hist *h, FILE *f);
/* Reads what hist_write_tsv wrote (adds into h) by its columns' names,
 * skipping '#' comment lines such as the "# title: ..." the plot step
 * uses; 0, or -1 with one line in err naming the file (name), the line
 * and the field (a number that is not one, bounds not of this scheme). */
int hist_read_tsv(struct hist *h, FILE *f, const char *name, char *err, size_t errlen);

static inline int hist_index(uint64_t v)
{
	int msb, shift;

	if (v < HIST_LINEAR)
		return (int)v;
	msb = 63 - __builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	return HIST_LINEAR + (msb - 6) * (1 << HIST_SUB_BITS) +
	       (int)((v >> shift) - (1u << HIST_SUB_BITS));
}

static inline void hist_record(struct hist *h, uint64_t v)
{
	h->bucket[hist_index(v)]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum = h->sum + v < h->sum ? UINT64_MAX : h->sum + v;
}

#endif
