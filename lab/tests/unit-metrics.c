// SPDX-License-Identifier: GPL-2.0
/*
 * The data/metrics.tsv reader (util/metrics.h) that compare, plot and
 * report share: rows read back as written; a file of zero bytes and a file
 * without its header row are one line naming the file (they read as no
 * rows, or their first row went missing, and compare printed an empty
 * table with exit 0); a header alone is a run that measured nothing yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"
#include "util/metrics.h"

static int parse(const char *text, struct metrics *m, char *err, size_t n)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	/* fmemopen of zero bytes: a file with nothing in it. */
	if (!f)
		f = fopen("/dev/null", "r");
	err[0] = '\0';
	rc = metrics_parse_stream(f, "r/data/metrics.tsv", m, err, n);
	fclose(f);
	return rc;
}

TEST(rows_read_back)
{
	struct metrics m;
	char err[512];

	ok(!parse(METRICS_HEADER "tasks=6\t0\tcharge.ops\t1.5e6\tops/s\thigher\n-\t1\tx\t2\t-\tlower\n", &m, err,
		  sizeof(err)) && m.n == 2 && !strcmp(m.rows[0].step, "tasks=6") && m.rows[0].value == 1.5e6 &&
	   m.rows[0].better == 'h' && m.rows[1].repeat == 1 && m.rows[1].better == 'l',
	   "two rows read back (%s)", err);
	metrics_free(&m);
}

TEST(zero_bytes_one_line)
{
	struct metrics m;
	char err[512];

	ok(parse("", &m, err, sizeof(err)) &&
	   !strcmp(err, "r/data/metrics.tsv: empty: not even its header row (step repeat metric value unit better)"),
	   "zero bytes: one line naming the file (%s)", err);
	metrics_free(&m);
}

TEST(no_header_row_one_line)
{
	struct metrics m;
	char err[512];

	ok(parse("tasks=6\t0\tcharge.ops\t1.5e6\tops/s\thigher\n", &m, err, sizeof(err)) &&
	   strstr(err, "r/data/metrics.tsv:1: no header row: want 'step repeat metric value unit better' "
		       "(tab-separated), got 'tasks=6 0 charge.ops 1.5e6 ops/s higher'") && !strchr(err, '\t'),
	   "no header row: file:1, what is wanted, what is there, no tab in the line (%s)", err);
	metrics_free(&m);
}

TEST(header_alone_no_rows)
{
	struct metrics m;
	char err[512];

	ok(!parse(METRICS_HEADER, &m, err, sizeof(err)) && m.n == 0, "a header alone: no rows, no error (%s)", err);
	metrics_free(&m);
}

TEST(bad_value_names_line_and_field)
{
	struct metrics m;
	char err[512];

	ok(parse(METRICS_HEADER "-\t0\tm\tx\tu\thigher\n", &m, err, sizeof(err)) &&
	   strstr(err, "metrics.tsv:2: field value: 'x' is not a number"), "a bad value: file:line and field (%s)", err);
	metrics_free(&m);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
