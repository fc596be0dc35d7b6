// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>
#include "util/hist.h"
#include "util/tsv.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	for (int i = 0; i < HIST_NBUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum = dst->sum + src->sum < dst->sum ? UINT64_MAX : dst->sum + src->sum;
}

uint64_t hist_bucket_low(int idx)
{
	int g, r;

	if (idx < HIST_LINEAR)
		return idx;
	g = (idx - HIST_LINEAR) >> HIST_SUB_BITS;
	r = (idx - HIST_LINEAR) & ((1 << HIST_SUB_BITS) - 1);
	return (uint64_t)((1u << HIST_SUB_BITS) + r) << (g + 1);
}

uint64_t hist_bucket_high(int idx)
{
	if (idx < HIST_LINEAR)
		return idx;
	if (idx == HIST_NBUCKETS - 1)
		return UINT64_MAX;
	return hist_bucket_low(idx + 1) - 1;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* The smallest value with at least q of the values at or below it. */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (!rank)
		rank = 1;
	for (int i = 0; i < HIST_NBUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t lo = hist_bucket_low(i), hi = hist_bucket_high(i);
			uint64_t mid = lo + (hi - lo) / 2;

			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;
}

uint64_t hist_count_above(const struct hist *h, uint64_t v)
{
	uint64_t n = 0;

	for (int i = hist_index(v) + 1; i < HIST_NBUCKETS; i++)
		n += h->bucket[i];
	return n;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

/* The file's columns, as written and read. */
static const char *const hist_cols[] = { "low_ns", "high_ns", "count", NULL };

void hist_write_tsv(const struct hist *h, FILE *f)
{
	tsv_write_header(f, hist_cols);
	for (int i = 0; i < HIST_NBUCKETS; i++)
		if (h->bucket[i])
			tsv_write_row(f, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", hist_bucket_low(i),
				      hist_bucket_high(i), h->bucket[i]);
}

/* One row into h: 0, or -1 with err. */
static int hist_row(struct hist *h, struct tsv *t)
{
	uint64_t lo, hi, n;
	int idx;

	if (tsv_u64(t, 0, &lo) || tsv_u64(t, 1, &hi) || tsv_u64(t, 2, &n))
		return -1;
	idx = hist_index(lo);
	if (hist_bucket_low(idx) != lo || hist_bucket_high(idx) != hi)
		return tsv_fail(t, -1, "not a lab histogram row (want low_ns high_ns count, with the lab's bucket "
				"bounds): %" PRIu64 "-%" PRIu64 " is no bucket", lo, hi);
	if (!n)
		return 0;
	h->bucket[idx] += n;
	if (!h->count || lo < h->min)
		h->min = lo;
	if (hi > h->max)
		h->max = hi;
	h->count += n;
	/* The sum is not stored: estimate it from bucket midpoints. */
	h->sum += n * (lo + (hi - lo) / 2);
	return 0;
}

int hist_read_tsv(struct hist *h, FILE *f, const char *name, char *err, size_t errlen)
{
	struct tsv t;
	int r = tsv_open_stream(&t, f, name, hist_cols, 0, err, errlen);

	while (!r && (r = tsv_next(&t)) == TSV_ROW)
		r = hist_row(h, &t);
	tsv_close(&t);
	return r < 0 ? -1 : 0;
}
