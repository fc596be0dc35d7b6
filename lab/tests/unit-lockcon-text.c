// SPDX-License-Identifier: GPL-2.0
/*
 * The perf lock contention output parser on every published capture in
 * lab/tests/data/samples/lock and the CSV capture of the -x patch set, plus
 * perf's time formatting against the strings perf printed.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include "lock/lockcon_text.h"
#include "tests/tap.h"
#include "util/fileio.h"

#define SAMPLES TEST_DATA "/samples/lock"

struct expect {
	const char *file;
	int ntables;
	struct {
		enum lockcon_text_view view;
		size_t rows;
	} t[8];
};

static const struct expect expects[] = {
	{ "01-lkml-acme-bpf-caller-and-lockaddr.txt", 2, { { LCT_CALLER, 4 }, { LCT_ADDR, 13 } } },
	{ "04-perfwiki-caller-default-ab.txt", 1, { { LCT_CALLER, 7 } } },
	{ "05-perfwiki-verbose-stacks-abv-E3.txt", 1, { { LCT_CALLER, 3 } } },
	{ "06-perfwiki-lock-filter-L-addr.txt", 1, { { LCT_CALLER, 1 } } },
	{ "07-perfwiki-lock-filter-L-name.txt", 1, { { LCT_CALLER, 1 } } },
	{ "08-perfwiki-threads-abt.txt", 1, { { LCT_TASK, 8 } } },
	{ "09-perfwiki-threads-Y-mutex.txt", 1, { { LCT_TASK, 2 } } },
	{ "10-perfwiki-owner-abto.txt", 1, { { LCT_TASK, 3 } } },
	{ "11-perfwiki-lockaddr-abl.txt", 1, { { LCT_ADDR, 12 } } },
	{ "12-perfwiki-lock-cgroup.txt", 1, { { LCT_CGROUP, 2 } } },
	{ "14-lkml-pull-v6.2-tracepoint-pipe.txt", 1, { { LCT_CALLER, 4 } } },
	{ "15-lkml-pull-v6.2-narrow-t-and-l.txt", 2, { { LCT_TASK, 5 }, { LCT_ADDR, 7 } } },
	{ "16-lkml-namhyung-slab-zone-lock-abl.txt", 1, { { LCT_ADDR, 5 } } },
	{ "17-lkml-namhyung-lock-cgroup-and-G-filter.txt", 2, { { LCT_CGROUP, 10 }, { LCT_TASK, 6 } } },
	/* perf 7.3.4 here: default, -t, -l, then the same with -x ';', then -v and -v -x. */
	{ "20-debian-perf7.3.4-tracepoint-l-x-t-v.txt", 8,
	  { { LCT_CALLER, 5 }, { LCT_TASK, 5 }, { LCT_ADDR, 5 }, { LCT_CALLER, 5 }, { LCT_TASK, 5 },
	    { LCT_ADDR, 5 }, { LCT_CALLER, 3 }, { LCT_CALLER, 3 } } },
	/* Waiters and the owner section: rows of both roles. */
	{ "21-lkml-ctshao-owner-stacks-abvo.txt", 1, { { LCT_CALLER, 7 } } },
	{ "22-source-perf7.3-owner-csv-abvo-x.txt", 1, { { LCT_CALLER, 5 } } },
};

static int parse_file(const char *path, struct lockcon_text_table **t, size_t *nt, char *err, size_t errlen)
{
	char *text = read_text(path, NULL);
	int r;

	if (!text) {
		snprintf(err, errlen, "%.400s: cannot read", path);
		return -1;
	}
	r = lockcon_text_parse(text, path, t, nt, err, errlen);
	free(text);
	return r;
}

static const struct expect *expect_of(const char *name)
{
	for (size_t i = 0; i < sizeof(expects) / sizeof(expects[0]); i++)
		if (!strcmp(expects[i].file, name))
			return &expects[i];
	return NULL;
}

/* Every sample file: parsed, and the tables and rows the file shows. */
TEST(every_sample_parses)
{
	DIR *d = opendir(SAMPLES);
	struct dirent *de;
	int seen = 0;

	if (!ok(d != NULL, "sample directory %s exists", SAMPLES))
		return;
	while ((de = readdir(d))) {
		char path[512], err[512];
		const struct expect *x;
		struct lockcon_text_table *t;
		size_t nt;

		if (de->d_name[0] == '.')
			continue;
		seen++;
		snprintf(path, sizeof(path), "%s/%s", SAMPLES, de->d_name);
		x = expect_of(de->d_name);
		if (!ok(x != NULL, "%s has expectations in this test", de->d_name))
			continue;
		if (!ok(parse_file(path, &t, &nt, err, sizeof(err)) == 0, "%s parses", de->d_name)) {
			tap_diag("%s", err);
			continue;
		}
		is_int(nt, x->ntables, "%s: %d table(s)", de->d_name, x->ntables);
		for (int k = 0; k < x->ntables && k < (int)nt; k++) {
			ok(t[k].view == x->t[k].view, "%s table %d: %s view", de->d_name, k + 1,
			   lockcon_text_view_name(x->t[k].view));
			is_int(t[k].n, x->t[k].rows, "%s table %d: %zu rows", de->d_name, k + 1, x->t[k].rows);
		}
		lockcon_text_free(t, nt);
	}
	closedir(d);
	is_int(seen, sizeof(expects) / sizeof(expects[0]), "every sample file was checked");
}

static struct lockcon_text_table *load(const char *name, size_t *nt)
{
	char path[512], err[512];
	struct lockcon_text_table *t = NULL;

	snprintf(path, sizeof(path), "%s/%s", SAMPLES, name);
	if (parse_file(path, &t, nt, err, sizeof(err))) {
		tap_diag("%s", err);
		*nt = 0;
	}
	return t;
}

TEST(known_values)
{
	struct lockcon_text_table *t;
	size_t nt;

	/* 01: ^C before the header, ns/us/ms units, empty lock symbol. */
	t = load("01-lkml-acme-bpf-caller-and-lockaddr.txt", &nt);
	if (nt == 2) {
		const struct lockcon_text_row *r = &t[0].rows[0], *a = &t[1].rows[0], *b = &t[1].rows[1];

		ok(r->v[LCT_CONTENDED] == 7 && r->v[LCT_WAIT_TOTAL] == 53590 && r->v[LCT_WAIT_MAX] == 10860 &&
		   r->v[LCT_WAIT_AVG] == 7660, "01 caller row 1: 7, 53.59 us, 10.86 us, 7.66 us");
		ok(!strcmp(r->type, "rwlock:R") && !strcmp(r->caller, "start_this_handle+0xa0"),
		   "01 caller row 1: rwlock:R start_this_handle+0xa0");
		ok(a->addr == 0xffff8e67502d0170ull && !a->symbol[0] && !strcmp(a->type, "mutex") &&
		   a->v[LCT_WAIT_TOTAL] == 262960000, "01 address row 1: no symbol, (mutex), 262.96 ms");
		ok(!strcmp(b->symbol, "mmap_lock") && !strcmp(b->type, "rwsem"), "01 address row 2: mmap_lock (rwsem)");
		ok(t[1].rows[7].v[LCT_WAIT_MAX] == 818, "01 address row 8: '818 ns' max wait");
	}
	lockcon_text_free(t, nt);

	/* 05: -v stacks under each entry and the debug footer. */
	t = load("05-perfwiki-verbose-stacks-abv-E3.txt", &nt);
	if (nt == 1) {
		ok(t[0].rows[0].nframes == 8 && t[0].rows[2].nframes == 8, "05: 8 stack frames under each entry");
		ok(t[0].have_debug && t[0].debug_total == 14 && t[0].debug_bad == 0, "05: debug footer bad 0 total 14");
	}
	lockcon_text_free(t, nt);

	/* 06: seconds. */
	t = load("06-perfwiki-lock-filter-L-addr.txt", &nt);
	if (nt == 1)
		ok(t[0].rows[0].v[LCT_CONTENDED] == 39412 && t[0].rows[0].v[LCT_WAIT_TOTAL] == 1580000000ull,
		   "06: 39412 contentions, 1.58 s");
	lockcon_text_free(t, nt);

	/* 08/10: comm with spaces-free truncation, pid -1 as Unknown. */
	t = load("08-perfwiki-threads-abt.txt", &nt);
	if (nt == 1)
		ok(t[0].rows[0].pid == 7738 && !strcmp(t[0].rows[0].comm, "chrome") &&
		   !strcmp(t[0].rows[2].comm, "ThreadPoolForeg"), "08: pid 7738 chrome, ThreadPoolForeg");
	lockcon_text_free(t, nt);
	t = load("10-perfwiki-owner-abto.txt", &nt);
	if (nt == 1)
		ok(t[0].rows[2].pid == -1 && !strcmp(t[0].rows[2].comm, "Unknown") &&
		   t[0].rows[2].v[LCT_WAIT_AVG] == 434, "10: pid -1 Unknown, avg 434 ns");
	lockcon_text_free(t, nt);

	/* 15: the narrow first-6.2 layout, -l rows without (type). */
	t = load("15-lkml-pull-v6.2-narrow-t-and-l.txt", &nt);
	if (nt == 2) {
		ok(t[0].rows[2].pid == 2725038 && !strcmp(t[0].rows[2].comm, "EventManager_De"),
		   "15: narrow -t row with pid 2725038");
		ok(!strcmp(t[1].rows[1].symbol, "rcu_state") && !t[1].rows[1].type[0] && !t[1].rows[0].symbol[0],
		   "15: narrow -l rows: 'rcu_state' without type, empty symbol");
	}
	lockcon_text_free(t, nt);

	/* 16: workload output before the table, slab cache names. */
	t = load("16-lkml-namhyung-slab-zone-lock-abl.txt", &nt);
	if (nt == 1)
		ok(!strcmp(t[0].rows[0].symbol, "&kmem_cache_node") && !strcmp(t[0].rows[0].type, "spinlock") &&
		   t[0].rows[0].v[LCT_CONTENDED] == 5167 && !strcmp(t[0].rows[4].symbol, "zone_lock"),
		   "16: &kmem_cache_node (spinlock) 5167, zone_lock");
	lockcon_text_free(t, nt);

	/* 17: cgroup paths with escapes. */
	t = load("17-lkml-namhyung-lock-cgroup-and-G-filter.txt", &nt);
	if (nt == 2)
		ok(!strcmp(t[0].rows[4].cgroup, "/app-gnome-firefox\\x2desr-34054.scope") &&
		   t[1].rows[1].pid == 0 && !strcmp(t[1].rows[1].comm, "swapper"),
		   "17: cgroup path with \\x2d, then the -t table");
	lockcon_text_free(t, nt);
}

/* perf 7.3's outputs (real, sample 20) and the owner section of -o -v
 * (perf 6.15+, samples 21 text and 22 CSV): owner rows keep their role. */
TEST(perf73_owner_rows)
{
	struct lockcon_text_table *t;
	size_t nt;

	t = load("20-debian-perf7.3.4-tracepoint-l-x-t-v.txt", &nt);
	if (nt == 8) {
		ok(t[0].rows[0].v[LCT_WAIT_TOTAL] == 8080000 && t[3].rows[0].v[LCT_WAIT_TOTAL] == 8080030,
		   "20: the text row says 8.08 ms, its CSV twin 8080030 ns");
		ok(t[2].rows[0].addr == 0xffff888627c2ba80ull && !t[2].rows[0].symbol[0] &&
		   !strcmp(t[2].rows[0].type, "spinlock") && !strcmp(t[5].rows[0].type, "spinlock") &&
		   t[5].rows[0].addr == t[2].rows[0].addr, "20: -l rows, text and CSV: address, no symbol, spinlock");
		ok(t[1].rows[1].pid == 3393 && !strcmp(t[1].rows[1].comm, ":3393") &&
		   !strcmp(t[4].rows[0].comm, "cc1"), "20: -t rows, text and CSV: pid and comm");
		ok(t[6].have_debug && t[6].debug_total == 160 && t[7].have_debug && t[7].debug_total == 160,
		   "20: -v debug footers, text and CSV: total 160");
		ok(!t[0].nowners && !t[7].nowners, "20: no owner rows without -o");
	}
	lockcon_text_free(t, nt);

	t = load("21-lkml-ctshao-owner-stacks-abvo.txt", &nt);
	if (nt == 1) {
		const struct lockcon_text_row *w = &t[0].rows[5], *o = &t[0].rows[6];

		ok(t[0].nowners == 1 && !w->owner && o->owner, "21: 6 waiter rows, then 1 owner row");
		ok(!strcmp(o->caller, "pipe_read+0x348") && o->v[LCT_CONTENDED] == 3 && o->nframes == 5 &&
		   w->nframes == 4, "21: the owner row pipe_read+0x348 with its 5 frames, not a 7th waiter");
	}
	lockcon_text_free(t, nt);

	t = load("22-source-perf7.3-owner-csv-abvo-x.txt", &nt);
	if (nt == 1) {
		ok(t[0].nowners == 2 && !t[0].rows[2].owner && t[0].rows[3].owner && t[0].rows[4].owner,
		   "22 (CSV): 3 waiters, then '# owner stack trace:' and 2 owners");
		ok(t[0].rows[0].nframes == 3 && t[0].rows[3].nframes == 3 && t[0].have_debug &&
		   t[0].debug_total == 214, "22: stacktrace column frames, and the debug line after the owners");
	}
	if (nt == 1) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		lockcon_text_write_tsv(f, &t[0]);
		fclose(f);
		ok(strstr(buf, "\ttype\trole\n") && strstr(buf, "pipe_read+0x57\t171\t1550000\t20260\t9060\t-\tmutex\twaiter\n") &&
		   strstr(buf, "pipe_read+0x348\t3\t31240\t15270\t10410\t-\tmutex\towner\n"),
		   "22: TSV with a role column, waiter and owner");
		free(buf);
	}
	lockcon_text_free(t, nt);
}

TEST(csv_output)
{
	char err[512];
	struct lockcon_text_table *t;
	size_t nt;

	if (!ok(parse_file(TEST_DATA "/lock/lockcon-csv-01-lkml-namhyung-csv-v2.txt", &t, &nt, err,
			   sizeof(err)) == 0, "CSV capture parses")) {
		tap_diag("%s", err);
		return;
	}
	ok(nt == 1 && t[0].csv && t[0].view == LCT_CALLER && t[0].n == 9, "CSV: one caller table of 9 rows");
	if (nt == 1 && t[0].n == 9) {
		const struct lockcon_text_row *r = &t[0].rows[0];

		ok(r->v[LCT_CONTENDED] == 19 && r->v[LCT_WAIT_TOTAL] == 194232 && r->v[LCT_WAIT_MAX] == 21415 &&
		   r->v[LCT_WAIT_AVG] == 10222 && !strcmp(r->type, "spinlock") &&
		   !strcmp(r->caller, "process_one_work+0x1f0"), "CSV row 1: raw nanoseconds and caller");
		ok(!strcmp(t[0].rows[3].type, "mutex") && t[0].rows[3].v[LCT_WAIT_MIN] == LCT_ABSENT,
		   "CSV row 4: mutex; min wait absent (not selected)");
	}
	lockcon_text_free(t, nt);
}

/* perf's own strings come back from the parsed nanoseconds. */
TEST(perf_time_format)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {
		{ 53590, "    53.59 us" }, { 262960000, "   262.96 ms" }, { 818, "      818 ns" },
		{ 1580000000ull, "     1.58 s " }, { 999, "      999 ns" }, { 1000, "     1.00 us" },
		{ 90ull * 60 * 1000000000ull, "     1.50 h " }, { 0, "        0 ns" },
	};
	char buf[32];
	uint64_t ns;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lockcon_text_format_time(cases[i].ns, buf, sizeof(buf));
		ok(!strcmp(buf, cases[i].text), "%llu ns prints as '%s'", (unsigned long long)cases[i].ns,
		   cases[i].text);
		if (strcmp(buf, cases[i].text))
			tap_diag("got '%s'", buf);
	}
	ok(lockcon_text_parse_time("1.58", "s", &ns) == 0 && ns == 1580000000ull, "'1.58 s' parses to 1580000000 ns");
	ok(lockcon_text_parse_time("12", "xs", &ns) < 0, "an unknown unit is refused");
}

TEST(bad_input)
{
	char err[512];
	struct lockcon_text_table *t;
	size_t nt;

	ok(lockcon_text_parse("hello\nworld\n", "junk.txt", &t, &nt, err, sizeof(err)) < 0 &&
	   strstr(err, "junk.txt") && strstr(err, "no perf lock contention table"),
	   "text without a table: one line naming the file");
	ok(lockcon_text_parse(" contended   total wait     max wait     avg wait         type   caller\n\n"
		     "         7     53.59 qq     10.86 us      7.66 us     spinlock   foo+0x1\n",
		     "bad.txt", &t, &nt, err, sizeof(err)) < 0 && strstr(err, "bad.txt:3") &&
	   strstr(err, "total wait"), "a bad unit: file:line and the field");
	tap_diag("%s", err);
	ok(lockcon_text_parse("# output: contended, total wait, max wait, avg wait, type, caller\n"
		     "19, 12x, 1, 1, spinlock, f+0x1\n", "bad.csv", &t, &nt, err, sizeof(err)) < 0 &&
	   strstr(err, "bad.csv:2"), "a bad CSV number: file:line");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
