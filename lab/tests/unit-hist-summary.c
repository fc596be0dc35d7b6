// SPDX-License-Identifier: GPL-2.0
/* The reported numbers of a histogram: ordered percentiles, shares over
 * 1 ms / 10 ms / 1 s, and the empty case. */
#include "report/hist_summary.h"
#include "tests/tap.h"

TEST(empty_histogram)
{
	static struct hist h;
	struct hist_summary s;

	hist_init(&h);
	hist_summarize(&h, &s);
	ok(s.count == 0 && s.p50 == 0 && s.max == 0 && hist_summary_over_pct(&s, 0) == 0,
	   "empty histogram: all zero, no division by zero");
}

TEST(percentiles_and_shares_over)
{
	static struct hist h;
	struct hist_summary s;

	hist_init(&h);
	/* 1000 reads: 900 at 30 us, 80 at 5 ms, 15 at 50 ms, 5 at 2 s. */
	for (int i = 0; i < 900; i++)
		hist_record(&h, 30000);
	for (int i = 0; i < 80; i++)
		hist_record(&h, 5000000);
	for (int i = 0; i < 15; i++)
		hist_record(&h, 50000000);
	for (int i = 0; i < 5; i++)
		hist_record(&h, 2000000000);
	hist_summarize(&h, &s);
	is_int(s.count, 1000, "count");
	ok(s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.p999 && s.p999 <= s.max,
	   "min <= p50 <= p90 <= p99 <= p99.9 <= max");
	ok(s.p50 >= 29000 && s.p50 <= 31000, "p50 is the 30 us mode (%llu)", (unsigned long long)s.p50);
	ok(s.p99 >= 48000000 && s.p99 <= 52000000, "p99 falls in the 50 ms group (%llu)",
	   (unsigned long long)s.p99);
	is_int(s.max, 2000000000, "max is exact");
	is_int(s.over[0], 100, "100 reads over 1 ms");
	is_int(s.over[1], 20, "20 reads over 10 ms");
	is_int(s.over[2], 5, "5 reads over 1 s");
	ok(hist_summary_over_pct(&s, 2) == 0.5, "0.5%% of reads over 1 s");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
