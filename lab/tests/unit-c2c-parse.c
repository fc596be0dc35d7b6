// SPDX-License-Identifier: GPL-2.0
/*
 * perf c2c report parser: values a reader can check against the samples by
 * eye, and the robustness rules of the issue: excerpts (mail-quoted,
 * TAB-indented) parse to the same numbers, a report cut off anywhere never
 * yields a number the full report does not have, unknown columns are kept
 * and warned about, and nothing crashes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/c2c_parse.h"
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"

#define SAMPLES TEST_DATA "/samples/c2c/"

static const char *const samples[] = {
	"01-perfgo-amd-ibs", "03-lkml-leoyan-peer-rfc-x86", "04-lkml-leoyan-peer-rfc-arm-spe",
	"05-lkml-leoyan-peer-v5-arm-spe-N-coalesce", "06-joemario-example-report-2016-intel",
	"07-falsesharing583-intel-tid-coalesce", "08-falsesharing583-intel-empty-after-fix",
	"09-kernel-doc-false-sharing-memcg-lruvec", "10-lkml-fengtang-memcg-rstat-cascadelake",
	"12-perf-little-book-intel-openmp-2019",
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

static char *sample_text(const char *name)
{
	char path[256];
	char *t;

	snprintf(path, sizeof(path), SAMPLES "%s.txt", name);
	t = read_text(path, NULL);
	if (!t) {
		tap_diag("cannot read %s", path);
		exit(1);
	}
	return t;
}

static void parse_text(struct c2c_report *r, const char *text, size_t len)
{
	FILE *f = fmemopen((void *)text, len ? len : 1, "r");

	if (!len) {
		/* fmemopen cannot open an empty buffer: an empty report reads as such */
		fclose(f);
		f = fopen("/dev/null", "r");
	}
	c2c_parse_file(r, f, "test", NULL, NULL);
	fclose(f);
}

static void parse_sample(struct c2c_report *r, const char *name)
{
	char *t = sample_text(name);

	parse_text(r, t, strlen(t));
	free(t);
}

/* The TSV outputs of a parse, as one string (for equality checks). */
static char *tsv_of(const struct c2c_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	c2c_write_stats_tsv(r, f);
	c2c_write_cachelines_tsv(r, f);
	c2c_write_offsets_header(f);
	for (size_t i = 0; i < r->noffs; i++)
		c2c_write_offset_row(&r->offs[i], f);
	fclose(f);
	return buf;
}

static const char *cl_cell(const struct c2c_report *r, size_t i, int key)
{
	return i < r->ncls && r->cls[i].v[key] ? r->cls[i].v[key] : "";
}

static const char *off_cell(const struct c2c_report *r, size_t i, int key)
{
	return i < r->noffs && r->offs[i].v[key] ? r->offs[i].v[key] : "";
}

static const char *stat_value(const struct c2c_report *r, const char *section, const char *key)
{
	for (size_t i = 0; i < r->nstats; i++)
		if (!strcmp(r->stats[i].section, section) && !strcmp(r->stats[i].key, key))
			return r->stats[i].value;
	return "";
}

TEST(known_values)
{
	struct c2c_report r;

	parse_sample(&r, "06-joemario-example-report-2016-intel");
	is_int(r.ncls, 5, "06 (2016 layout): 5 cachelines");
	is_int(r.noffs, 28, "06: 28 offset rows");
	ok(!strcmp(cl_cell(&r, 0, CL_HITM_RMT), "9834") && !strcmp(cl_cell(&r, 0, CL_HITM_LCL), "2269") &&
	   !strcmp(cl_cell(&r, 0, CL_SHARE_OF), "rmt_hitm") && !strcmp(cl_cell(&r, 0, CL_SHARE_PCT), "77.09"),
	   "06: line 0 has Rmt 9834, Lcl 2269 HITMs and 77.09%% of the remote HITMs");
	ok(!strcmp(cl_cell(&r, 0, CL_LD_LCLHIT), "2875") && !strcmp(cl_cell(&r, 0, CL_LLC_LD_MISS), "13747"),
	   "06: the 2016-only columns (LLC Load Hit Llc, LLC Ld Miss) are read");
	ok(!strcmp(off_cell(&r, 0, OFF_PID), "14604") && !strcmp(off_cell(&r, 0, OFF_CYCLES_RMT), "27161") &&
	   !strcmp(off_cell(&r, 0, OFF_CPU_CNT), "9") && !strcmp(off_cell(&r, 0, OFF_SOURCE),
							     "false_sharing_example.c:144"),
	   "06: first offset row: pid, rmt cycles, cpu count, source");
	ok(!strcmp(off_cell(&r, 0, OFF_NODE_INFO), "0{0-1,4}  1{24-25,120}  2{48,54}  3{169}"),
	   "06: -NN node info keeps its inner double spaces");
	ok(!strcmp(stat_value(&r, "details", "Cacheline data groupping"), "offset,pid,iaddr"),
	   "06: the 2016 spelling 'groupping' is kept as printed");
	is_int(r.nwarns, 0, "06: no warnings");
	c2c_report_free(&r);

	parse_sample(&r, "07-falsesharing583-intel-tid-coalesce");
	ok(!strcmp(off_cell(&r, 0, OFF_TID), "42783") && !strcmp(off_cell(&r, 0, OFF_COMM), "run_this_code") &&
	   !strcmp(off_cell(&r, 0, OFF_SYMBOL), "work(void*)") && !strcmp(off_cell(&r, 2, OFF_SYMBOL), "work2(void*)"),
	   "07: tid:comm split, C++ symbols kept whole");
	ok(!strcmp(stat_value(&r, "trace", "LLC Misses to Remote cache (HITM)"), "-nan"),
	   "07: a -nan%% statistic is kept as -nan");
	ok(!strcmp(off_cell(&r, 1, OFF_ST_L1MISS_PCT), "50.61"), "07: store L1 miss percentage of row 2");
	c2c_report_free(&r);

	parse_sample(&r, "05-lkml-leoyan-peer-v5-arm-spe-N-coalesce");
	ok(r.peer_display, "05: peer display detected");
	ok(!strcmp(cl_cell(&r, 0, CL_PEER_TOTAL), "99") && !strcmp(cl_cell(&r, 0, CL_PEER_LCL), "99") &&
	   !cl_cell(&r, 0, CL_HITM_TOTAL)[0], "05: Load Peer Total/Local read; no HITM cells invented");
	ok(!strcmp(off_cell(&r, 2, OFF_PEER_LCL_PCT), "48.48") && !strcmp(off_cell(&r, 2, OFF_CYCLES_LCL), "180") &&
	   !strcmp(off_cell(&r, 0, OFF_NODE_INFO), "0{ 2 100.0%    n/a}") && !strcmp(off_cell(&r, 1, OFF_TID), "3606"),
	   "05: peer percentages, peer cycles, -N node info and tid");
	c2c_report_free(&r);

	parse_sample(&r, "04-lkml-leoyan-peer-rfc-arm-spe");
	ok(!strcmp(cl_cell(&r, 0, CL_SHARE_OF), "peer") && !strcmp(cl_cell(&r, 0, CL_PEER_TOTAL), "99") &&
	   !strcmp(cl_cell(&r, 0, CL_NODE), "N/A"), "04 (RFC): two 'Snoop Peer' columns: share %% then count; Node N/A");
	ok(!strcmp(off_cell(&r, 1, OFF_PEER_PCT), "93.94") && !strcmp(off_cell(&r, 1, OFF_CYCLES_PEER), "180"),
	   "04: RFC peer percentage and peer cycles");
	c2c_report_free(&r);

	parse_sample(&r, "08-falsesharing583-intel-empty-after-fix");
	ok(r.ncls == 0 && r.noffs == 0 && r.nwarns == 0 &&
	   !strcmp(stat_value(&r, "global", "Total Shared Cache Lines"), "0"),
	   "08: an empty report (0 shared lines) parses to empty tables without warnings");
	c2c_report_free(&r);

	parse_sample(&r, "09-kernel-doc-false-sharing-memcg-lruvec");
	ok(r.noffs == 5 && !strcmp(off_cell(&r, 4, OFF_SYMBOL), "__mod_memcg_lruvec_state") &&
	   !strcmp(off_cell(&r, 4, OFF_OFFSET), "0x10") && !strcmp(cl_cell(&r, 0, CL_HITM_LCL), "2374"),
	   "09 (excerpt without headers): rows read from their values");
	ok(r.nwarns >= 2, "09: the guessed layout is announced in warnings (%zu)", r.nwarns);
	c2c_report_free(&r);

	parse_sample(&r, "12-perf-little-book-intel-openmp-2019");
	ok(r.noffs == 16 && !strcmp(cl_cell(&r, 0, CL_HITM_RMT), "41") &&
	   !strcmp(stat_value(&r, "trace", "LLC Misses to Remote cache (HITM)"), "29.2"),
	   "12 (TAB-indented markdown excerpt): 16 rows, summary counts, statistics");
	ok(r.nwarns == 3 && r.warns[0].line == 3, "12: the three '......' elisions are warned about by line");
	c2c_report_free(&r);
}

/* Every line prefixed (mail quote or markdown TAB): same numbers. */
TEST(quoted_excerpts_same_numbers)
{
	static const char *const prefixes[] = { "> ", "\t", "  ", "> > " };

	for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
		int same = 0;

		for (size_t s = 0; s < NSAMPLES; s++) {
			char *t = sample_text(samples[s]), *q = xmalloc(strlen(t) * 2 + 1024), *a, *b;
			const char *src = t;
			size_t o = 0;
			struct c2c_report r1, r2;

			while (*src) {
				size_t len = strcspn(src, "\n");

				o += sprintf(q + o, "%s%.*s\n", prefixes[p], (int)len, src);
				src += len + (src[len] == '\n');
			}
			parse_text(&r1, t, strlen(t));
			parse_text(&r2, q, o);
			a = tsv_of(&r1);
			b = tsv_of(&r2);
			same += !strcmp(a, b);
			if (strcmp(a, b))
				tap_diag("%s with prefix '%s' differs", samples[s], prefixes[p]);
			free(a);
			free(b);
			free(t);
			free(q);
			c2c_report_free(&r1);
			c2c_report_free(&r2);
		}
		is_int(same, NSAMPLES, "prefix '%s' on every line: every sample parses to the same TSV",
		       p == 1 ? "\\t" : prefixes[p]);
	}
}

static bool is_text_key(int k)
{
	return k == OFF_SYMBOL || k == OFF_OBJECT || k == OFF_SOURCE || k == OFF_NODE_INFO || k == OFF_EXTRA ||
	       k == OFF_SYMBOL_TYPE;
}

/*
 * A report cut off at any byte: every cell it yields equals the full
 * report's cell (text may be a prefix, with a warning); nothing crashes.
 */
TEST(truncated_report_no_new_numbers)
{
	for (size_t s = 0; s < NSAMPLES; s++) {
		char *t = sample_text(samples[s]);
		size_t len = strlen(t), cuts = 0, bad = 0;
		struct c2c_report full;

		parse_text(&full, t, len);
		for (size_t cut = 0; cut < len; cut += 1 + cut % 3) {
			struct c2c_report r;

			parse_text(&r, t, cut);
			cuts++;
			if (r.ncls > full.ncls || r.noffs > full.noffs || r.nstats > full.nstats) {
				bad++;
				tap_diag("%s cut at %zu: more rows than the full report", samples[s], cut);
			}
			for (size_t i = 0; i < r.nstats && i < full.nstats; i++)
				if (strcmp(r.stats[i].key, full.stats[i].key) ||
				    strcmp(r.stats[i].value, full.stats[i].value)) {
					bad++;
					tap_diag("%s cut at %zu: statistic %s = '%s', full '%s'", samples[s], cut,
						 r.stats[i].key, r.stats[i].value, full.stats[i].value);
				}
			for (size_t i = 0; i < r.ncls && i < full.ncls; i++)
				for (int k = 0; k < CL_NKEYS; k++)
					if (r.cls[i].v[k] && strcmp(r.cls[i].v[k], cl_cell(&full, i, k))) {
						bad++;
						tap_diag("%s cut at %zu: cacheline %zu %s = '%s', full '%s'", samples[s], cut,
							 i, c2c_cl_key_names[k], r.cls[i].v[k], cl_cell(&full, i, k));
					}
			for (size_t i = 0; i < r.noffs && i < full.noffs; i++)
				for (int k = 0; k < OFF_NKEYS; k++) {
					const char *got = r.offs[i].v[k], *want = off_cell(&full, i, k);

					if (!got || !strcmp(got, want))
						continue;
					if (is_text_key(k) && !strncmp(want, got, strlen(got)) && r.nwarns)
						continue;	/* a cut text column, warned about */
					bad++;
					tap_diag("%s cut at %zu: offset row %zu %s = '%s', full '%s'", samples[s], cut, i,
						 c2c_off_key_names[k], got, want);
				}
			c2c_report_free(&r);
			if (bad > 5)
				break;
		}
		is_int(bad, 0, "%s cut at %zu places: no value differs from the full report", samples[s], cuts);
		c2c_report_free(&full);
		free(t);
	}
}

/* Copies text inserting ins_* at the column where name_prefix ends, on the
 * name line, the line before it (groups) and after it (dots); and ins_row
 * after row_prefix. */
static char *insert_column(const char *text, const char *name_prefix, const char *ins_group,
			   const char *ins_name, const char *ins_dots, const char *row_prefix, const char *ins_row)
{
	const char *name = strstr(text, name_prefix), *row = strstr(text, row_prefix);
	const char *group, *dots, *pos[4];
	const char *ins[4] = { ins_group, ins_name, ins_dots, ins_row };
	size_t col, o = 0;
	char *m;
	const char *src = text;

	if (!name || !row)
		return NULL;
	group = name - 1;
	while (group > text && group[-1] != '\n')
		group--;
	group--;			/* the newline ending the group line */
	while (group > text && group[-1] != '\n')
		group--;
	dots = strchr(name, '\n') + 1;
	{
		const char *ls = name;

		while (ls > text && ls[-1] != '\n')
			ls--;
		col = (size_t)(name - ls) + strlen(name_prefix);
	}
	pos[0] = group + col;
	pos[1] = name + strlen(name_prefix);
	pos[2] = dots + col;
	pos[3] = row + strlen(row_prefix);
	m = xmalloc(strlen(text) + 64);
	for (int i = 0; i < 4; i++) {
		memcpy(m + o, src, pos[i] - src);
		o += pos[i] - src;
		o += sprintf(m + o, "%s", ins[i]);
		src = pos[i];
	}
	strcpy(m + o, src);
	return m;
}

TEST(bad_input)
{
	struct c2c_report r;
	char *t = sample_text("07-falsesharing583-intel-tid-coalesce"), *m;
	const char *hdr = "# Index             Address  Node  PA cnt";
	char *at;

	/*
	 * An unknown column in a newer perf's table, inserted after "PA cnt" the
	 * way perf would print it (group line, name line, dotted line, row):
	 * kept in 'extra', warned about, the known columns still line up.
	 */
	m = insert_column(t, hdr, "        ", "     Foo", "  ......",
			  "      0      0x7ffd0c7c0f40     0    2480", "        7");
	ok(m != NULL, "07 has the expected table header");
	parse_text(&r, m, strlen(m));
	ok(r.ncls == 1 && r.cls[0].v[CL_EXTRA] && strstr(r.cls[0].v[CL_EXTRA], "Foo=7") &&
	   !strcmp(cl_cell(&r, 0, CL_HITM_LCL), "1030") && !strcmp(cl_cell(&r, 0, CL_SHARE_PCT), "100.00"),
	   "an unknown table column is kept in 'extra' (%s) and the known ones still line up",
	   cl_cell(&r, 0, CL_EXTRA));
	{
		bool warned = false;

		for (size_t i = 0; i < r.nwarns; i++)
			warned |= strstr(r.warns[i].msg, "unknown column 'Foo'") != NULL;
		ok(warned, "the unknown column is warned about");
	}
	c2c_report_free(&r);
	free(m);

	/* A garbled value: the row stops there, with a warning naming the column. */
	m = xstrdup(t);
	at = strstr(m, "0x5b26bef90453");
	memcpy(at, "zz26bef90453", 12);
	parse_text(&r, m, strlen(m));
	ok(r.noffs == 4 && !r.offs[1].v[OFF_CODE_ADDRESS] && !r.offs[1].v[OFF_CYCLES_LCL] &&
	   !strcmp(off_cell(&r, 1, OFF_OFFSET), "0x18") && r.nwarns == 1 &&
	   strstr(r.warns[0].msg, "Code address"),
	   "a garbled code address: the row keeps what came before, the rest is empty, one warning");
	c2c_report_free(&r);
	free(m);
	free(t);

	/* --double-cl reports say so in the table's group header. */
	t = sample_text("07-falsesharing583-intel-tid-coalesce");
	at = strstr(t, "----------- Cacheline ----------");
	memcpy(at, "------ Double-Cacheline --------", 32);
	parse_text(&r, t, strlen(t));
	ok(r.double_cl && r.ncls == 1, "a Double-Cacheline table header marks a --double-cl report");
	c2c_report_free(&r);
	free(t);

	{
		const char junk[] = "hello\nworld: this is not\nperf output 1 2 3\n";

		parse_text(&r, junk, strlen(junk));
		ok(r.ncls == 0 && r.noffs == 0, "text that is not a c2c report yields no rows");
		c2c_report_free(&r);
		parse_text(&r, "", 0);
		ok(c2c_report_is_empty(&r), "an empty file is recognised as empty");
		c2c_report_free(&r);
	}
}

static size_t streamed;
static void count_row(const struct c2c_offset *o, void *arg)
{
	(void)arg;
	streamed += o->cl != NULL;
}

TEST(streaming_callback)
{
	struct c2c_report r;
	FILE *f = fopen(SAMPLES "06-joemario-example-report-2016-intel.txt", "r");

	c2c_parse_file(&r, f, "06", count_row, NULL);
	fclose(f);
	ok(streamed == 28 && r.noffs == 0 && r.noffs_seen == 28,
	   "streaming: 28 rows go to the callback, none is kept");
	c2c_report_free(&r);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
