// SPDX-License-Identifier: GPL-2.0
/* Histogram: bucket bounds, merge, and percentiles against a sorted array. */
#include <math.h>
#include <stdlib.h>
#include "util/hist.h"
#include "tests/tap.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* xorshift: reproducible random data without libc's rand() quirks. */
static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Bounds are contiguous and every value maps inside its bucket. */
TEST(bucket_bounds)
{
	int bad = 0;

	for (int i = 0; i < HIST_NBUCKETS - 1; i++)
		if (hist_bucket_high(i) + 1 != hist_bucket_low(i + 1))
			bad++;
	is_int(bad, 0, "bucket bounds are contiguous over all %d buckets", HIST_NBUCKETS);
	bad = 0;
	for (int i = 0; i < 100000; i++) {
		uint64_t x = next_rand() >> (next_rand() % 64);
		int idx = hist_index(x);

		if (x < hist_bucket_low(idx) || x > hist_bucket_high(idx))
			bad++;
		if (hist_bucket_high(idx) - hist_bucket_low(idx) > hist_bucket_low(idx) / 32 + 1)
			bad++;
	}
	is_int(bad, 0, "values land in their bucket; bucket width <= 1/32 of its value");
	is_int(hist_index(UINT64_MAX), HIST_NBUCKETS - 1, "UINT64_MAX is the last bucket");
}

/*
 * Log-normal-ish latencies from ~100 ns to ~1 s, split over two threads'
 * histograms a and b, and all of them in one: made by main(); the cases
 * below merge b into a (each its own copy, in its own process).
 */
enum { N = 200000 };
static struct hist a, b, all;
static uint64_t *v;

TEST(merge_equals_one_histogram)
{
	int bad = 0;

	hist_merge(&a, &b);
	is_int(a.count, N, "merged count equals the number of values");
	for (int i = 0; i < HIST_NBUCKETS; i++)
		bad += a.bucket[i] != all.bucket[i];
	is_int(bad, 0, "merging per-thread histograms equals one histogram of all values");
	is_int(a.min, all.min, "merged min");
	is_int(a.max, all.max, "merged max");
}

TEST(percentiles_against_sorted_array)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	uint64_t prev = 0;
	bool ordered = true;

	hist_merge(&a, &b);
	qsort(v, N, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		size_t rank = (size_t)ceil(qs[i] * N);
		uint64_t exact = v[rank - 1], got = hist_quantile(&a, qs[i]);
		double err = fabs((double)got - (double)exact) / (double)exact;

		ok(err <= 1.0 / 32, "p%g: %llu vs exact %llu (rel err %.4f <= 1/32)",
		   qs[i] * 100, (unsigned long long)got, (unsigned long long)exact, err);
		if (got < prev)
			ordered = false;
		prev = got;
	}
	ok(ordered, "percentiles are ordered");
}

TEST(count_above)
{
	uint64_t above = 0;

	hist_merge(&a, &b);
	for (int i = 0; i < N; i++)
		above += v[i] > 1000000;
	/* Bucket precision: values in the bucket holding 1 ms are not counted. */
	ok(hist_count_above(&a, 1000000) <= above &&
	   hist_count_above(&a, 1000000) >= above - a.bucket[hist_index(1000000)],
	   "count above 1 ms matches the data to bucket precision");
}

TEST(tsv_round_trip)
{
	FILE *f = tmpfile();
	static struct hist back;
	char err[256] = "";

	hist_merge(&a, &b);
	hist_write_tsv(&a, f);
	rewind(f);
	hist_init(&back);
	is_int(hist_read_tsv(&back, f, "hist.tsv", err, sizeof(err)), 0, "TSV round trip parses");
	is_int(back.count, a.count, "TSV round trip keeps the count");
	is_int(hist_quantile(&back, 0.99), hist_quantile(&a, 0.99), "TSV round trip keeps p99");
	fclose(f);
}

int main(int argc, char **argv)
{
	int rc;

	v = malloc(N * sizeof(*v));
	/* The draws bucket_bounds takes came first when one main() ran both:
	 * skip them, and the data is the same as it was. */
	for (int i = 0; i < 2 * 100000; i++)
		next_rand();
	hist_init(&a);
	hist_init(&b);
	hist_init(&all);
	for (int i = 0; i < N; i++) {
		double u = (double)(next_rand() >> 11) / 9007199254740992.0;

		v[i] = (uint64_t)(100.0 * pow(1e7, u * u));
		hist_record(i % 2 ? &a : &b, v[i]);
		hist_record(&all, v[i]);
	}
	rc = tap_main(argc, argv);
	free(v);
	return rc;
}
