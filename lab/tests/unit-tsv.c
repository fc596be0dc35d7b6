// SPDX-License-Identifier: GPL-2.0
/*
 * util/tsv.h, the lab's file format: columns found by their header's
 * names in any order, optional columns, comments, the format line; each
 * refusal one line naming the file, the line and the column; multi-kind
 * files (#fields lines); the writer's header and its cells, whose tabs,
 * newlines and other control bytes become spaces, read back as written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/tap.h"
#include "util/tsv.h"

static const char *const cols[] = { "name", "count", "?note", NULL };
enum { C_NAME, C_COUNT, C_NOTE };

static int open_str(struct tsv *t, const char *text, const char *const *c, unsigned flags, char *err, size_t n)
{
	err[0] = '\0';
	return tsv_open_text(t, "x.tsv", text, strlen(text), c, flags, err, n);
}

/* Reads every row of text; the first error (or "") in err; rows counted. */
static int read_all(const char *text, const char *const *c, unsigned flags, char *err, size_t n)
{
	struct tsv t;
	int rows = 0, r;

	if (open_str(&t, text, c, flags, err, n)) {
		tsv_close(&t);
		return -1;
	}
	while ((r = tsv_next(&t)) == TSV_ROW)
		rows++;
	tsv_close(&t);
	return r < 0 ? -1 : rows;
}

TEST(columns_by_name_in_any_order)
{
	struct tsv t;
	char err[256];
	uint64_t v = 0;
	int r;

	r = open_str(&t, "# a comment\n\ncount\tother\tname\n12\tz\tusage\n0x10\t\tmax\n", cols, 0, err, sizeof(err));
	ok(!r, "a header in another order, a column the reader does not ask for (%s)", err);
	ok(tsv_next(&t) == TSV_ROW && !strcmp(tsv_get(&t, C_NAME), "usage") && !tsv_u64(&t, C_COUNT, &v) && v == 12 &&
		   t.lineno == 4,
	   "row 1 by the reader's column index: name usage, count 12, line 4");
	ok(!tsv_has(&t, C_NOTE) && !strcmp(tsv_get(&t, C_NOTE), ""), "an optional column the file lacks: \"\"");
	ok(tsv_next(&t) == TSV_ROW && !strcmp(tsv_get(&t, C_NAME), "max") && !tsv_u64(&t, C_COUNT, &v) && v == 16 &&
		   tsv_ncells(&t) == 3 && !strcmp(tsv_cell(&t, 1), ""),
	   "row 2: 0x hex; an empty cell keeps its place");
	ok(tsv_next(&t) == TSV_END, "then the end");
	tsv_close(&t);
	ok(read_all("name\tcount\tnote\r\nx\t1\ty\r\n", cols, 0, err, sizeof(err)) == 1, "CRLF lines read (%s)", err);
}

TEST(header_refusals)
{
	char err[256];

	ok(read_all("", cols, 0, err, sizeof(err)) < 0 &&
		   !strcmp(err, "x.tsv: empty: not even its header row (name count)"),
	   "zero bytes: %s", err);
	ok(read_all("# only\n\n", cols, 0, err, sizeof(err)) < 0 && strstr(err, "x.tsv: no header row, only comments"),
	   "comments only: %s", err);
	ok(read_all("usage\t12\n", cols, 0, err, sizeof(err)) < 0 &&
		   !strcmp(err, "x.tsv:1: no header row: want 'name count' (tab-separated), got 'usage 12'"),
	   "a data row where the header belongs: %s", err);
	ok(read_all("# c\nname\tcounts\n", cols, 0, err, sizeof(err)) < 0 &&
		   !strcmp(err, "x.tsv:2: no column 'count' in the header (want name, count)"),
	   "a required column missing: %s", err);
	ok(read_all("name\tcount\tname\n", cols, 0, err, sizeof(err)) < 0 &&
		   strstr(err, "x.tsv:1: column 'name' twice in the header"),
	   "a column named twice: %s", err);
	ok(read_all("name\tcount\na\0b\t1\n", cols, 0, err, sizeof(err)) < 0, "a NUL byte (in the text's length)");
}

TEST(row_refusals_name_line_and_column)
{
	struct tsv t;
	char err[256];
	uint64_t u;
	long l;
	double d;

	ok(read_all("name\tcount\nx\t1\ny\n", cols, 0, err, sizeof(err)) < 0 &&
		   !strcmp(err, "x.tsv:3: expected 2 tab-separated columns as in its header (line 1), got 1"),
	   "a short row: %s", err);
	ok(read_all("name\tcount\nx\t1\t2\n", cols, 0, err, sizeof(err)) < 0 && strstr(err, "x.tsv:2: expected 2"),
	   "a long row: %s", err);
	open_str(&t, "name\tcount\nx\t-1\n", cols, 0, err, sizeof(err));
	ok(tsv_next(&t) == TSV_ROW && tsv_u64(&t, C_COUNT, &u) < 0 &&
		   !strcmp(err, "x.tsv:2: field count: '-1' is not a number"),
	   "a negative u64: %s", err);
	ok(!tsv_long(&t, C_COUNT, &l) && l == -1, "the same as a long: -1");
	ok(tsv_fail(&t, C_NAME, "'%s' is too short", tsv_get(&t, C_NAME)) < 0 &&
		   !strcmp(err, "x.tsv:2: field name: 'x' is too short"),
	   "a reader's own complaint: %s", err);
	tsv_close(&t);
	open_str(&t, "name\tcount\nx\t1.5e3\n\ty\n", cols, 0, err, sizeof(err));
	ok(tsv_next(&t) == TSV_ROW && !tsv_double(&t, C_COUNT, &d) && d == 1500 && tsv_long(&t, C_COUNT, &l) < 0 &&
		   strstr(err, "field count: '1.5e3' is not an integer"),
	   "a double, not a long: %s", err);
	ok(tsv_next(&t) == TSV_ROW && tsv_double(&t, C_COUNT, &d) < 0 && strstr(err, "x.tsv:3: field count: 'y'"),
	   "not a double: %s", err);
	ok(tsv_u64(&t, C_NAME, &u) < 0 && strstr(err, "field name: '' is not a number"), "an empty cell: %s", err);
	tsv_close(&t);
	open_str(&t, "name\tcount\nx\t18446744073709551616\n", cols, 0, err, sizeof(err));
	ok(tsv_next(&t) == TSV_ROW && tsv_u64(&t, C_COUNT, &u) < 0, "2^64 is out of range: %s", err);
	tsv_close(&t);
}

TEST(format_line_and_comments)
{
	struct tsv t;
	char err[256];

	open_str(&t, "# memcg-lab thing 3\nname\tcount\n", cols, 0, err, sizeof(err));
	ok(tsv_format(&t, "thing") == 3 && tsv_format(&t, "other") == 0 && tsv_format(&t, "thin") == 0,
	   "the format line: its version, 0 for another name");
	tsv_close(&t);
	open_str(&t, "# memcg-lab thing 3x\nname\tcount\n", cols, 0, err, sizeof(err));
	ok(tsv_format(&t, "thing") == 0, "a version with a tail: no format line");
	tsv_close(&t);
	open_str(&t, "# memcg-lab thing 1\n# k\tv\nname\tcount\n# between\na\t1\n", cols, TSV_COMMENTS, err,
		 sizeof(err));
	ok(tsv_next(&t) == TSV_COMMENT && t.lineno == 1 && tsv_next(&t) == TSV_COMMENT && tsv_ncells(&t) == 2 &&
		   !strcmp(tsv_cell(&t, 0), "# k") && !strcmp(tsv_cell(&t, 1), "v"),
	   "TSV_COMMENTS: the comments in order, split at their tabs");
	ok(tsv_next(&t) == TSV_COMMENT && t.lineno == 4 && tsv_next(&t) == TSV_ROW && !strcmp(tsv_get(&t, C_NAME), "a"),
	   "the header found on the way; a comment after it; then the row");
	ok(tsv_format(&t, "thing") == 1, "the format line, after the text was split");
	tsv_close(&t);
}

TEST(no_header)
{
	static const char *const two[] = { "plot", "what", NULL };
	struct tsv t;
	char err[256];

	open_str(&t, "# c\na.png\tthe a\n", two, TSV_NO_HEADER | TSV_COMMENTS, err, sizeof(err));
	ok(tsv_next(&t) == TSV_COMMENT && tsv_next(&t) == TSV_ROW && !strcmp(tsv_get(&t, 1), "the a"),
	   "no header: the columns in their order");
	tsv_close(&t);
	ok(read_all("a.png\n", two, TSV_NO_HEADER, err, sizeof(err)) < 0 &&
		   !strcmp(err, "x.tsv:1: expected 2 tab-separated columns, got 1"),
	   "no header: a short row: %s", err);
	ok(read_all("", two, TSV_NO_HEADER, err, sizeof(err)) == 0, "no header: an empty file has no rows");
}

TEST(multi_kind)
{
	static const char *const a_cols[] = { "x", "?y", NULL }, *const b_cols[] = { "z", NULL };
	static const struct tsv_kind kinds[] = { { "a", a_cols }, { "b", b_cols }, { NULL, NULL } };
	static const char text[] = "#fields\ta\ty\tx\n#fields\tb\tz\n#fields\tlater\tq\n"
				   "a\t2\t1\nlater\t9\nb\t3\n";
	struct tsv t;
	char err[256];
	int r;

	r = tsv_open_kinds(&t, "m.tsv", text, strlen(text), kinds, 0, err, sizeof(err));
	ok(!r && tsv_next(&t) == TSV_ROW && t.kind == 0 && !strcmp(tsv_get(&t, 0), "1") && !strcmp(tsv_get(&t, 1), "2"),
	   "kind a by its #fields names (%s)", err);
	ok(tsv_next(&t) == TSV_ROW && t.kind == 1 && !strcmp(tsv_get(&t, 0), "3") && t.lineno == 6,
	   "a later writer's kind skipped; kind b");
	ok(tsv_next(&t) == TSV_END, "the end");
	tsv_close(&t);
	tsv_open_kinds(&t, "m.tsv", "b\t1\n", 4, kinds, 0, err, sizeof(err));
	ok(tsv_next(&t) == TSV_ERROR && !strcmp(err, "m.tsv:1: a b row before its #fields line"), "%s", err);
	tsv_close(&t);
	tsv_open_kinds(&t, "m.tsv", "#fields\ta\ty\n", 12, kinds, 0, err, sizeof(err));
	ok(tsv_next(&t) == TSV_ERROR && !strcmp(err, "m.tsv:1: field x: missing from #fields (of a rows)"), "%s", err);
	tsv_close(&t);
	tsv_open_kinds(&t, "m.tsv", "#fields\tb\tz\nb\t1\t2\n", 18, kinds, 0, err, sizeof(err));
	ok(tsv_next(&t) == TSV_ERROR && strstr(err, "m.tsv:2: expected 2 tab-separated columns as in its #fields line (line 1), got 3"),
	   "%s", err);
	tsv_close(&t);
	tsv_open_kinds(&t, "m.tsv", "#fields\n", 8, kinds, 0, err, sizeof(err));
	ok(tsv_next(&t) == TSV_ERROR && strstr(err, "m.tsv:1: #fields names no row kind"), "%s", err);
	tsv_close(&t);
}

TEST(writer_reads_back)
{
	static const char *const wcols[] = { "name", "count", "?note", NULL };
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *cells[] = { "a\tb", "2", "line\nbreak\x1b" };
	struct tsv t;
	uint64_t v;

	tsv_write_header(f, wcols);
	tsv_write_row(f, "%s\t%d\t%.3s%c\n", "tab\there", 7, "new\nline", '\t');
	tsv_write_row(f, "%-4s|\t%llu\t%5.1f%%\n", "x", 18446744073709551615ULL, 2.25);
	tsv_write_cells(f, cells, 3);
	tsv_write_row(f, "%*s\t%zu\t%s\n", 3, "\r", (size_t)5, "-");
	fclose(f);
	ok(!strcmp(buf, "name\tcount\tnote\n"
			"tab here\t7\tnew \n"
			"x   |\t18446744073709551615\t  2.2%\n"
			"a b\t2\tline break \n"
			"   \t5\t-\n"),
	   "header without the '?'; each %%s and %%c a clean cell; numbers as printf writes them:\n%s", buf);
	ok(!open_str(&t, buf, wcols, 0, err, sizeof(err)) && tsv_next(&t) == TSV_ROW &&
		   !strcmp(tsv_get(&t, 0), "tab here") && tsv_next(&t) == TSV_ROW && !tsv_u64(&t, 1, &v) &&
		   v == 18446744073709551615ULL && tsv_next(&t) == TSV_ROW && !strcmp(tsv_get(&t, 2), "line break ") &&
		   tsv_next(&t) == TSV_ROW && tsv_next(&t) == TSV_END,
	   "and it reads back, one row per row written (%s)", err);
	tsv_close(&t);
	free(buf);
}

TEST(open_a_path_and_a_stream)
{
	struct tsv t;
	char err[256], path[] = "/tmp/unit-tsv-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	ok(tsv_open(&t, "/nonexistent/x.tsv", cols, 0, err, sizeof(err)) < 0 &&
		   !strcmp(err, "/nonexistent/x.tsv: cannot read: No such file or directory"),
	   "a missing file: %s", err);
	tsv_close(&t);
	if (fd < 0 || write(fd, "name\tcount\nq\t1\n", 15) != 15) {
		ok(0, "a temporary file");
		return;
	}
	close(fd);
	ok(!tsv_open(&t, path, cols, 0, err, sizeof(err)) && tsv_next(&t) == TSV_ROW && !strcmp(t.path, path) &&
		   !strcmp(tsv_get(&t, 0), "q"),
	   "a file by its path");
	tsv_close(&t);
	f = fopen(path, "r");
	ok(f && !tsv_open_stream(&t, f, "s.tsv", cols, 0, err, sizeof(err)) && tsv_next(&t) == TSV_ROW &&
		   tsv_next(&t) == TSV_END,
	   "a stream");
	tsv_close(&t);
	if (f)
		fclose(f);
	unlink(path);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
