// SPDX-License-Identifier: GPL-2.0
/* Durations and sizes print with the unit a reader expects at each scale. */
#include <string.h>
#include "tests/tap.h"
#include "util/humanize.h"

TEST(durations_in_their_unit)
{
	static const struct { uint64_t ns; const char *want; } durs[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1.0us" }, { 45100, "45.1us" },
		{ 999949, "999.9us" }, { 8200000, "8.20ms" }, { 1200000000, "1.20s" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++)
		ok(!strcmp(format_ns(buf, sizeof(buf), durs[i].ns), durs[i].want), "%llu ns prints as %s (got %s)",
		   (unsigned long long)durs[i].ns, durs[i].want, buf);
}

TEST(sizes_in_their_unit)
{
	static const struct { uint64_t b; const char *want; } sizes[] = {
		{ 512, "512 B" }, { 1536, "1.5 KiB" }, { 25 << 20, "25.0 MiB" }, { 1ull << 40, "1.0 TiB" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ok(!strcmp(format_bytes(buf, sizeof(buf), sizes[i].b), sizes[i].want), "%llu bytes print as %s (got %s)",
		   (unsigned long long)sizes[i].b, sizes[i].want, buf);
}

TEST(numbers_decimals_by_size)
{
	char b[32];

	ok(!strcmp(format_number(b, sizeof(b), 1203904.4), "1203904"), "format_number: integers from 1000 on (%s)", b);
	ok(!strcmp(format_number(b, sizeof(b), 123.45), "123.5"), "format_number: one decimal from 100 (%s)", b);
	ok(!strcmp(format_number(b, sizeof(b), 1.04), "1.04"), "format_number: two decimals below (%s)", b);
	ok(!strcmp(format_number(b, sizeof(b), 7.0), "7"), "format_number: whole numbers without .00 (%s)", b);
	ok(!strcmp(format_number(b, sizeof(b), 0.001), "1.000e-03"), "format_number: tiny values in %%e (%s)", b);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
