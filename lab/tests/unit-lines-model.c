// SPDX-License-Identifier: GPL-2.0
/*
 * The lines plugin's model (c2c/lines_model.h) on recorded access
 * sequences: interleavings of two and three vCPUs with known load HITM,
 * store HITM, invalidation, true and false counts; dirty bytes that grow
 * and restart; accesses split at a line and at a page; a full table and a
 * full detail pool, said; the window (nothing counted while it is closed,
 * a fresh state in each); each window on its own (its row and lines
 * written at its close, the pool reused); the locked model under threads;
 * and the file it writes, read back by c2c/lines_parse.h, with its
 * refusals.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_model.h"
#include "c2c/lines_parse.h"
#include "tests/tap.h"

#define KVA 0xffff888000000000ULL	/* the direct map: vaddr = KVA + paddr */
#define LINE 0x12340ULL			/* a line-aligned paddr */

static struct lines_model *model(uint64_t lines, uint32_t ext, bool locked, bool always)
{
	struct lines_config c = { .lines = lines, .ext_lines = ext, .vcpus = 4, .locked = locked, .always = always };
	char err[256];
	struct lines_model *m = lines_model_new(&c, err, sizeof(err));

	if (!m) {
		printf("Bail out! lines_model_new: %s\n", err);
		exit(1);
	}
	return m;
}

static void ld(struct lines_model *m, unsigned cpu, uint64_t pa, unsigned size)
{
	lines_model_access(m, cpu, 0x1000 + cpu, KVA + pa, pa, size, 0);
}

static void st(struct lines_model *m, unsigned cpu, uint64_t pa, unsigned size)
{
	lines_model_access(m, cpu, 0x2000 + cpu, KVA + pa, pa, size, LINES_STORE);
}

/* The totals' events: "LH SH SI F T". */
static const char *events(struct lines_model *m)
{
	static char s[128];
	struct lines_totals t;

	lines_model_totals(m, &t);
	snprintf(s, sizeof(s), "%llu %llu %llu %llu %llu", (unsigned long long)t.load_hitm,
		 (unsigned long long)t.store_hitm, (unsigned long long)t.store_inval,
		 (unsigned long long)t.false_sharing, (unsigned long long)t.true_sharing);
	return s;
}

#define is_events(m, want, name) \
	(ok(!strcmp(events(m), want), "%s: load_hitm store_hitm store_inval false true = %s", name, want) || \
	 (tap_diag("  got %s", events(m)), 0))

static const struct lines_shape *shape_at(const struct lines_ext *e, unsigned off)
{
	for (unsigned i = 0; e && i < e->nshapes; i++)
		if (e->shapes[i].off == off)
			return &e->shapes[i];
	return NULL;
}

/* The site of vCPU cpu's loads (store false) or stores. */
static const struct lines_site *site_of(const struct lines_ext *e, unsigned cpu, bool store)
{
	for (unsigned i = 0; e && i < LINES_SITES; i++)
		if (e->sites[i].size && e->sites[i].vcpu == cpu && e->sites[i].store == store)
			return &e->sites[i];
	return NULL;
}

TEST(interleavings)
{
	struct lines_model *m;
	const struct lines_ext *e;

	/* Two fields of one line, x++ on each from two vCPUs (load, store). */
	m = model(1024, 16, false, true);
	st(m, 0, LINE + 0, 8);		/* vCPU 0 owns the line, bytes 0-7 dirty */
	ld(m, 1, LINE + 8, 8);		/* load HITM: 8-15 misses 0-7: false */
	st(m, 1, LINE + 8, 8);		/* invalidates vCPU 0, which wrote 0-7: false */
	ld(m, 0, LINE + 0, 8);		/* load HITM on 8-15 written: false */
	st(m, 0, LINE + 0, 8);		/* invalidation: false */
	is_events(m, "2 0 2 4 0", "x++ on two fields of one line");
	e = lines_model_ext(m, LINE);
	ok(e && e->paddr == LINE && e->vaddr == KVA + LINE, "the line has its detail: paddr and vaddr kept");
	if (e) {
		is_int(e->nshapes, 2, "two shapes: offsets 0 and 8");
		ok(shape_at(e, 0) && shape_at(e, 0)->size == 8 && shape_at(e, 0)->other_mask == 0xff00 &&
			   shape_at(e, 8)->other_mask == 0xff,
		   "offset 0's events had the other side on bytes 8-15, offset 8's on 0-7");
		is_int(e->loads + e->stores, 5, "the slot counted every access of the window");
	}
	ld(m, 0, LINE + 16, 8);		/* its own dirty line: no event */
	e = lines_model_ext(m, LINE);
	ok(e && e->nsites == 4 && e->c.loads == 3 && shape_at(e, 16) && shape_at(e, 16)->c.loads == 1,
	   "an access without an event counts in its line and shape, and makes no site");
	lines_model_free(m);

	/* The same on one counter: true sharing. */
	m = model(1024, 16, false, true);
	st(m, 0, LINE, 8);
	ld(m, 1, LINE, 8);
	st(m, 1, LINE, 8);
	ld(m, 0, LINE, 8);
	st(m, 0, LINE, 8);
	is_events(m, "2 0 2 0 4", "x++ on one counter from two vCPUs");
	lines_model_free(m);

	/* Stores only: each takes a line modified elsewhere (store HITM). */
	m = model(1024, 16, false, true);
	st(m, 0, LINE + 0, 4);
	st(m, 1, LINE + 4, 4);		/* store HITM, false */
	st(m, 0, LINE + 0, 4);		/* store HITM, false */
	st(m, 0, LINE + 4, 4);		/* its own line: nothing; dirty 0-7 now */
	ld(m, 1, LINE + 4, 4);		/* load HITM on bytes it wrote: true */
	is_events(m, "1 2 0 2 1", "store HITMs, then dirty bytes grow while a vCPU keeps the line");
	e = lines_model_ext(m, LINE);
	{
		const struct lines_site *s = site_of(e, 1, false);

		ok(s && s->c.load_hitm == 1 && s->prev_vcpu == 0 && s->prev_pc == 0x2000 && s->other_mask == 0xff,
		   "the loading site names the writer: vCPU 0, its PC, its bytes 0-7");
	}
	lines_model_free(m);

	/* A vCPU that writes again after others loaded: the readers' bytes decide. */
	m = model(1024, 16, false, true);
	st(m, 0, LINE + 0, 8);		/* A */
	ld(m, 1, LINE + 16, 8);		/* load HITM, false (B vs A) */
	st(m, 0, LINE + 0, 8);		/* invalidates vCPU 1, which loaded B: false */
	ld(m, 1, LINE + 0, 8);		/* load HITM, true (A) */
	st(m, 0, LINE + 32, 8);		/* invalidates vCPU 1, which loaded A: false */
	ld(m, 1, LINE + 0, 8);		/* load HITM: 0's dirty bytes restarted at C: false */
	is_events(m, "3 0 2 4 1", "readers' bytes, and dirty bytes that restart after a transfer");
	lines_model_free(m);

	/* The writer's own loads are not the others' bytes. */
	m = model(1024, 16, false, true);
	st(m, 0, LINE + 0, 8);		/* A */
	ld(m, 1, LINE + 8, 8);		/* load HITM on B: false */
	ld(m, 0, LINE + 16, 8);		/* the writer loads C */
	st(m, 0, LINE + 16, 8);		/* invalidates vCPU 1, which loaded B only: false */
	is_events(m, "1 0 1 2 0", "the last writer's own loads do not count as the others' bytes");
	lines_model_free(m);

	/* A vCPU on its own line: no event, whatever it does. */
	m = model(1024, 16, false, true);
	st(m, 2, LINE, 8);
	ld(m, 2, LINE + 8, 8);
	st(m, 2, LINE + 16, 8);
	ld(m, 2, LINE, 8);
	is_events(m, "0 0 0 0 0", "one vCPU loading and storing its own line: no event");
	lines_model_free(m);

	/* Reads shared by three vCPUs: no event; one store invalidates them. */
	m = model(1024, 16, false, true);
	ld(m, 0, LINE, 8);
	ld(m, 1, LINE, 8);
	ld(m, 2, LINE, 8);
	ld(m, 0, LINE, 8);
	is_events(m, "0 0 0 0 0", "loads shared by three vCPUs: no event");
	ok(!lines_model_ext(m, LINE), "a line without events has no detail");
	st(m, 3, LINE + 8, 8);
	is_events(m, "0 0 1 1 0", "a store to other bytes: one invalidation, false (they loaded bytes 0-7)");
	st(m, 3, LINE, 8);
	st(m, 3, LINE + 8, 8);
	is_events(m, "0 0 1 1 0", "stores of the vCPU that holds the line alone: no event");
	ld(m, 0, LINE + 8, 8);
	st(m, 0, LINE + 8, 8);
	is_events(m, "1 0 2 1 2", "then x++ by vCPU 0 on the bytes vCPU 3 wrote: true, twice");
	lines_model_free(m);

	/* The bytes others loaded count only until the next store. */
	m = model(1024, 16, false, true);
	ld(m, 1, LINE + 0, 8);		/* A, no writer yet */
	st(m, 0, LINE + 0, 8);		/* invalidates vCPU 1, which loaded A: true */
	ld(m, 2, LINE + 16, 8);		/* load HITM on C, 0 wrote A: false */
	st(m, 0, LINE + 0, 8);		/* invalidates vCPU 2, which loaded C (not A): false */
	is_events(m, "1 0 2 2 1", "the loaded bytes restart at each store");
	lines_model_free(m);
}

TEST(detail)
{
	struct lines_model *m = model(1024, 16, false, true);
	const struct lines_ext *e;

	lines_model_access(m, 0, 0x3000, KVA + LINE, LINE, 8, LINES_DETAIL);
	lines_model_access(m, 1, 0x3001, KVA + LINE + 8, LINE + 8, 8, LINES_STORE | LINES_DETAIL);
	ld(m, 0, LINE + 64, 8);
	e = lines_model_ext(m, LINE);
	ok(e && e->c.loads == 1 && e->c.stores == 1 && e->nshapes == 2 && e->nsites == 2 && e->vaddr == KVA + LINE,
	   "a line asked for in detail has it from its first access, without an event");
	/* Two sizes at one offset, each access again: two more shapes, one more site each. */
	for (int k = 0; k < 2; k++) {
		lines_model_access(m, 0, 0x3000, KVA + LINE + 16, LINE + 16, 8, LINES_DETAIL);
		lines_model_access(m, 0, 0x3002, KVA + LINE + 16, LINE + 16, 4, LINES_DETAIL);
	}
	e = lines_model_ext(m, LINE);
	ok(e && e->nshapes == 4 && e->nsites == 4 && shape_at(e, 16) && e->c.loads == 5,
	   "each (offset, size) is one shape, each (PC, vCPU, offset, size, rw) one site, found again");
	ok(!lines_model_ext(m, LINE + 64), "a line not asked for has none");
	lines_model_free(m);
}

TEST(splits)
{
	struct lines_model *m = model(1024, 16, false, true);
	struct lines_totals t;
	const struct lines_ext *e;
	uint64_t l, s;

	/* 8 bytes at offset 60: bytes 60-63 of LINE, 0-3 of the next line. */
	st(m, 0, LINE + 60, 8);
	ld(m, 1, LINE + 64, 4);		/* true: bytes 0-3 of the second line */
	ld(m, 1, LINE + 56, 4);		/* false: bytes 56-59 of the first */
	is_events(m, "2 0 0 1 1", "a store across a line boundary is split into its two lines");
	lines_model_totals(m, &t);
	is_int(t.split, 1, "one access split");
	is_int(t.accesses, 3, "an access split in two counts once in accesses");
	e = lines_model_ext(m, LINE);
	ok(site_of(e, 1, false) && site_of(e, 1, false)->other_mask == 0xfULL << 60,
	   "the first part wrote bytes 60-63 of its line");
	e = lines_model_ext(m, LINE + 64);
	ok(site_of(e, 1, false) && site_of(e, 1, false)->other_mask == 0xf,
	   "the second part wrote bytes 0-3 of the next");
	ok(lines_model_line_counts(m, LINE, &l, &s) && s == 1 && lines_model_line_counts(m, LINE + 64, &l, &s) &&
		   s == 1, "each line counts one store");

	/* Across a page: the second part has no physical address. */
	st(m, 2, 0x5000 - 2, 4);
	lines_model_totals(m, &t);
	is_int(t.split_page_dropped, 1, "a part on the next page is dropped, and counted");
	ok(lines_model_line_counts(m, 0x5000 - 64, &l, &s) && s == 1, "the part on the first page is counted");
	ok(!lines_model_line_counts(m, 0x5000, &l, &s), "nothing is made up for the next page");
	lines_model_free(m);
}

static bool has_status(struct lines_model *m, const char *word)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool found;

	lines_write_begin(f);
	lines_model_write(m, f, 10, NULL);
	fclose(f);
	found = strstr(buf, "# status\t") && strstr(strstr(buf, "# status\t"), word) &&
		strstr(strstr(buf, "# status\t"), word) < strchr(strstr(buf, "# status\t"), '\n');
	free(buf);
	return found;
}

TEST(full)
{
	/* 64 slots, one stripe: 200 distinct lines cannot all fit. */
	struct lines_model *m = model(64, 16, false, true);
	struct lines_totals t;
	uint64_t l, s, stored = 0;

	for (int round = 0; round < 2; round++)
		for (uint64_t i = 0; i < 200; i++)
			ld(m, 0, i * 64, 8);
	for (uint64_t i = 0; i < 200; i++)
		stored += lines_model_line_counts(m, i * 64, &l, &s);
	lines_model_totals(m, &t);
	ok(t.lines_used <= 64 && t.lines_used == stored, "the table holds at most its 64 lines (%llu)",
	   (unsigned long long)t.lines_used);
	is_int(t.dropped_accesses, 2 * (200 - stored), "every access of a line with no slot is counted as dropped");
	ok(t.dropped_lines_min <= 200 - stored && t.dropped_lines_min + 3 >= 200 - stored,
	   "the dropped lines are counted (%llu of %llu)", (unsigned long long)t.dropped_lines_min,
	   (unsigned long long)(200 - stored));
	ok(has_status(m, "table-full"), "a full table is said in the status");
	lines_model_free(m);

	/* One detail record: the second line with events keeps only totals. */
	m = model(1024, 1, false, true);
	st(m, 0, LINE, 8);
	ld(m, 1, LINE, 8);
	st(m, 0, LINE + 64, 8);
	ld(m, 1, LINE + 64, 8);
	ld(m, 0, LINE + 64, 8);
	st(m, 1, LINE + 64, 8);
	lines_model_totals(m, &t);
	ok(t.ext_used == 1 && t.ext_dropped_lines == 1 && t.ext_dropped_events == 2,
	   "a full detail pool: 1 line and its 2 events counted as without detail");
	is_events(m, "2 0 1 0 3", "the totals still count every event");
	ok(has_status(m, "detail-pool-full"), "a full detail pool is said in the status");
	ok(!has_status(m, "table-full"), "and the table is not called full");
	lines_model_free(m);
}

TEST(windows)
{
	struct lines_model *m = model(1024, 16, false, false);
	struct lines_window_row rows[4];
	struct lines_totals t;
	uint64_t l, s;

	st(m, 0, LINE, 8);
	ld(m, 1, LINE, 8);
	lines_model_totals(m, &t);
	ok(t.accesses == 0 && t.lines_used == 0, "before the window opens nothing is counted nor followed");
	ok(has_status(m, "window-never-opened"), "a window that never opened is said");
	lines_model_window(m, 0, true);
	st(m, 0, LINE, 8);
	ld(m, 1, LINE, 8);
	st(m, 0, LINE, 8);		/* dirty in vCPU 0 as the window closes */
	lines_model_window(m, 2, false);
	st(m, 1, LINE, 8);
	ld(m, 0, LINE, 8);
	is_events(m, "1 0 1 0 2", "only the accesses inside the window count");
	ok(lines_model_line_counts(m, LINE, &l, &s) && l == 1 && s == 2, "the line's own counts too");
	lines_model_window(m, 1, true);
	ld(m, 2, LINE, 8);
	is_events(m, "1 0 1 0 2", "a new window starts each line afresh (vCPU 0's store is not its writer)");
	ok(has_status(m, "window-open-at-exit"), "a window still open at the end is said");
	is_int(lines_model_windows(m, rows, 4), 2, "two window rows");
	ok(rows[0].accesses == 3 && rows[0].load_hitm == 1 && !rows[0].open && rows[1].accesses == 1 && rows[1].open,
	   "each window's own accesses and events");
	lines_model_window(m, 1, false);
	ok(has_status(m, "\tok"), "opened and closed: status ok");
	lines_model_free(m);
}

/* Each window on its own: written at its close, counted afresh, one pool. */
TEST(each_window)
{
	FILE *each = tmpfile();
	struct lines_config c = { .lines = 1024, .ext_lines = 1, .vcpus = 4, .each = each, .each_top = 10 };
	char err[256], *buf = NULL;
	size_t len = 0;
	struct lines_model *m = lines_model_new(&c, err, sizeof(err));
	struct lines_file lf;
	FILE *f;
	int found = 0;

	if (!ok(m && each, "a model with each window on its own"))
		return;
	for (int w = 0; w < 3; w++) {
		uint64_t line = w == 1 ? LINE + 64 : LINE;

		lines_model_window(m, 0, true);
		st(m, 0, line, 8);
		ld(m, 1, line + 8, 8);		/* a load HITM, false sharing */
		if (w == 2)
			ld(m, 2, line + 8, 8);	/* no event: vCPU 0's line is shared now */
		if (w < 2)
			lines_model_window(m, 0, false);
	}
	f = open_memstream(&buf, &len);
	lines_write_begin(f);
	ok(lines_model_write(m, f, 10, NULL) == 0, "the model writes its file");
	fclose(f);
	if (!ok(lines_parse_text("each", buf, len, &lf, err, sizeof(err)) == 0, "the parser reads it back"))
		tap_diag("%s", err);
	ok(lines_meta(&lf, "status") && !strcmp(lines_meta(&lf, "status"), "window-open-at-exit"),
	   "one detail record serves every window (no detail-pool-full): %s", lines_meta(&lf, "status"));
	ok(lines_meta(&lf, "windows") && !strcmp(lines_meta(&lf, "windows"), "each"), "the file says windows each");
	is_int(lf.nwindows, 3, "a window row per window");
	ok(lf.nwindows == 3 && lf.windows[0].index == 0 && lf.windows[2].index == 2 && lf.windows[2].open &&
		   !lf.windows[1].open && lf.windows[1].accesses == 2 && lf.windows[2].accesses == 3,
	   "numbered 0..2, each its own accesses, the last still open");
	is_int(lf.nlines, 3, "a line row per window");
	for (size_t i = 0; i < lf.nlines; i++) {
		const struct lines_pline *l = &lf.lines[i];
		uint64_t want = l->window == 1 ? LINE + 64 : LINE;

		found += l->window == (int64_t)i && l->paddr == want && l->c.load_hitm == 1 && l->c.false_sharing == 1 &&
			 l->win_loads == (l->window == 2 ? 2u : 1u) && l->win_stores == 1 && l->nshapes == 1 &&
			 l->shapes[0].c.loads == l->win_loads;
	}
	is_int(found, 3, "each window's line with its own counts (not added up over windows) and shapes");
	lines_file_free(&lf);
	free(buf);
	lines_model_free(m);
	fclose(each);
}

struct hammer {
	struct lines_model *m;
	unsigned cpu;
	pthread_barrier_t *start;
};

enum { HAMMER_N = 1000000, PRIVATE_LINES = 4096 };

static void *hammer(void *arg)
{
	struct hammer *h = arg;

	pthread_barrier_wait(h->start);
	for (unsigned i = 0; i < HAMMER_N; i++) {
		/* A shared line, and now and then a private line of its own. */
		/* Stores first: a line read by several vCPUs before anyone wrote
		 * it classifies its first invalidation by all their loads. */
		lines_model_access(h->m, h->cpu, 0x3000, KVA + LINE, LINE + h->cpu * 8, 8, i & 1 ? 0 : LINES_STORE);
		if (i % 8 == 0)
			lines_model_access(h->m, h->cpu, 0x3004, 0,
					   0x100000 * (h->cpu + 1) + (i / 8 % PRIVATE_LINES) * 64, 8,
					   i & 1 ? LINES_STORE : 0);
	}
	return NULL;
}

TEST(threads)
{
	struct lines_model *m = model(1 << 16, 64, true, true);
	struct hammer h[4];
	pthread_t t[4];
	struct lines_totals tot;
	uint64_t l = 0, s = 0, priv_events = 0;
	const struct lines_ext *e;
	pthread_barrier_t start;

	pthread_barrier_init(&start, NULL, 4);
	for (unsigned i = 0; i < 4; i++) {
		h[i] = (struct hammer){ m, i, &start };
		pthread_create(&t[i], NULL, hammer, &h[i]);
	}
	for (unsigned i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	lines_model_totals(m, &tot);
	is_int(tot.accesses, 4 * (HAMMER_N + HAMMER_N / 8), "four threads: every access counted");
	lines_model_line_counts(m, LINE, &l, &s);
	is_int(l + s, 4 * HAMMER_N, "the shared line's counts lose no update under its stripe's lock");
	e = lines_model_ext(m, LINE);
	ok(e && e->c.false_sharing > 0 && e->c.true_sharing == 0,
	   "four vCPUs on four fields of one line: false sharing only (%llu)",
	   e ? (unsigned long long)e->c.false_sharing : 0ULL);
	for (unsigned i = 0; i < 4; i++)
		for (uint64_t k = 0; k < PRIVATE_LINES; k++) {
			const struct lines_ext *p = lines_model_ext(m, 0x100000 * (i + 1) + k * 64);

			priv_events += p ? p->c.load_hitm + p->c.store_hitm + p->c.store_inval : 0;
		}
	is_int(priv_events, 0, "private lines: no event");
	is_int(tot.lines_used, 1 + 4 * PRIVATE_LINES, "1 + 4 x %d lines in the table", PRIVATE_LINES);
	lines_model_free(m);
}

static int parse_str(const char *text, struct lines_file *f, char *err, size_t n)
{
	return lines_parse_text("test.lines", text, strlen(text), f, err, n);
}

TEST(roundtrip)
{
	struct lines_model *m = model(1024, 16, false, false);
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lines_file lf;
	const struct lines_pline *pl;
	uint64_t v;

	lines_model_window(m, 0, true);
	st(m, 0, LINE + 0, 8);
	ld(m, 1, LINE + 8, 8);
	st(m, 1, LINE + 8, 8);
	ld(m, 0, LINE + 0, 8);
	st(m, 0, LINE + 0, 8);
	st(m, 2, LINE + 0x1000, 4);	/* a line with no event */
	lines_model_window(m, 0, false);
	lines_write_begin(f);
	lines_write_meta(f, "vcpus", "%d", 4);
	lines_write_meta(f, "trace_file", "%s", "/tmp/a\tb\nline\t0x1");
	ok(lines_model_write(m, f, 10, "mode-violation") == 0, "the model writes its file");
	fclose(f);
	lines_model_free(m);
	if (!ok(lines_parse_text("mem", buf, len, &lf, err, sizeof(err)) == 0, "the parser reads it back"))
		tap_diag("%s", err);
	ok(lines_meta(&lf, "vcpus") && !strcmp(lines_meta(&lf, "vcpus"), "4"), "the caller's meta line");
	ok(lines_meta(&lf, "trace_file") && !strcmp(lines_meta(&lf, "trace_file"), "/tmp/a b line 0x1"),
	   "a meta value's tab and newline are spaces: one line, one cell (%s)", lines_meta(&lf, "trace_file"));
	ok(lines_meta(&lf, "status") && !strcmp(lines_meta(&lf, "status"), "mode-violation"),
	   "the caller's problem is the status (%s)", lines_meta(&lf, "status"));
	ok(!lines_meta_u64(&lf, "accesses", &v) && v == 6, "accesses 6");
	ok(!lines_meta_u64(&lf, "lines_used", &v) && v == 2, "lines_used 2");
	is_int(lf.nlines, 1, "one line row: the line with events");
	is_int(lf.nwindows, 1, "one window row");
	pl = lines_file_line(&lf, LINE + 5);
	ok(pl && pl->vaddr == KVA + LINE && pl->c.load_hitm == 2 && pl->c.store_inval == 2 &&
		   pl->c.false_sharing == 4 && pl->win_loads == 2 && pl->win_stores == 3,
	   "its counts survive the round trip");
	ok(pl && lines_file_line_at_vaddr(&lf, KVA + LINE + 63) == pl, "found by its vaddr too");
	ok(pl && pl->nshapes == 2 && pl->nsites == 4, "2 shapes and 4 sites (2 PCs x 2 vCPUs x R/W)");
	if (pl && pl->nsites) {
		bool found = false;

		for (size_t i = 0; i < pl->nsites; i++)
			if (pl->sites[i].store && pl->sites[i].vcpu == 1)
				found = pl->sites[i].c.store_inval == 1 && pl->sites[i].prev_vcpu == 0 &&
					pl->sites[i].prev_pc == 0x2000 && pl->sites[i].other_mask == 0xff;
		ok(found, "vCPU 1's store site: invalidated vCPU 0, writer PC 0x2000, bytes 0-7");
	}
	lines_file_free(&lf);

	/* Refusals: one line each, naming the line and the field. */
	buf[len - 6] = '\0';		/* drop "# end\n" */
	ok(lines_parse_text("cut", buf, strlen(buf), &lf, err, sizeof(err)) < 0 && strstr(err, "cut short"),
	   "a file without its end: %s", err);
	free(buf);
	ok(parse_str("# memcg-lab lines 2\n# end\n", &lf, err, sizeof(err)) < 0 && strstr(err, "format version 2"),
	   "another format version: %s", err);
	ok(parse_str("hello\n", &lf, err, sizeof(err)) < 0 && strstr(err, "test.lines:1:"), "not the format: %s", err);
	ok(parse_str("# memcg-lab lines 1\n#fields\tline\tpaddr\tvaddr\n# end\n", &lf, err, sizeof(err)) < 0 &&
		   strstr(err, "test.lines:2: field win_loads: missing from #fields"),
	   "a missing column: %s", err);
	ok(parse_str("# memcg-lab lines 1\n"
		     "#fields\tshape\tpaddr\toff\tsize\tloads\tstores\tload_hitm\tstore_hitm\tstore_inval\tfalse\ttrue\tother_mask\n"
		     "shape\t0x40\t0\t8\t1\t1\t0\t0\t0\t0\t0\t0x0\n# end\n",
		     &lf, err, sizeof(err)) < 0 && strstr(err, ":3: field paddr: 0x40: no line row before it"),
	   "a shape before its line: %s", err);
	ok(parse_str("# memcg-lab lines 1\n"
		     "#fields\twindow\tindex\twindows\topen\taccesses\tload_hitm\tstore_hitm\tstore_inval\tfalse\ttrue\n"
		     "window\t0\t1\t0\t12x\t0\t0\t0\t0\t0\n# end\n",
		     &lf, err, sizeof(err)) < 0 && strstr(err, ":3: field accesses: '12x' is not a number"),
	   "a bad number: %s", err);
	ok(parse_str("# memcg-lab lines 1\n#fields\tfuture\ta\nfuture\t1\n# end\n", &lf, err, sizeof(err)) == 0,
	   "rows of a later kind are skipped");
	lines_file_free(&lf);
}

/* The window rows' guest instructions (the plugin's counts): the total,
 * per vCPU where given, "-" where nobody counted; windows past the 64th
 * add up in the last row; read back by the parser, by column name. */
TEST(window_insns)
{
	for (int each = 0; each < 2; each++) {
		FILE *es = each ? tmpfile() : NULL;
		struct lines_config c = { .lines = 1024, .ext_lines = 4, .vcpus = 4, .each = es };
		char err[256], *buf = NULL;
		size_t len = 0;
		struct lines_model *m = lines_model_new(&c, err, sizeof(err));
		const uint64_t per[4] = { 10, 20, 30, 40 };
		struct lines_file lf;
		FILE *f;

		if (!ok(m, "a model (%s)", each ? "each" : "sum"))
			return;
		ok(lines_model_window_index(m) == -1, "no window open: index -1");
		lines_model_window(m, 0, true);
		ok(lines_model_window_index(m) == 0, "the first window: index 0");
		lines_model_window_insns(m, 1000, NULL, 4);
		lines_model_window(m, 0, false);
		lines_model_window(m, 0, true);
		ok(lines_model_window_index(m) == 1, "the second: index 1");
		lines_model_window_insns(m, 100, per, 4);
		lines_model_window(m, 0, false);
		lines_model_window(m, 0, true);	/* nobody counts this one */
		lines_model_window(m, 0, false);
		f = open_memstream(&buf, &len);
		lines_write_begin(f);
		lines_model_write(m, f, 10, NULL);
		fclose(f);
		if (!ok(lines_parse_text("insns", buf, len, &lf, err, sizeof(err)) == 0 && lf.nwindows == 3,
			"%s: three window rows read back", each ? "each" : "sum")) {
			tap_diag("%s", err);
			free(buf);
			lines_model_free(m);
			continue;
		}
		ok(lf.windows[0].insns_counted && lf.windows[0].insns == 1000 && !lf.windows[0].insns_per_vcpu,
		   "window 0: 1000 instructions, the total only");
		ok(lf.windows[1].insns_counted && lf.windows[1].insns == 100 && lf.windows[1].insns_per_vcpu &&
			   lf.windows[1].insns_vcpu[0] == 10 && lf.windows[1].insns_vcpu[3] == 40,
		   "window 1: 100, and 10,20,30,40 per vCPU");
		ok(!lf.windows[2].insns_counted, "window 2: not counted ('-'), never a 0");
		ok(strstr(buf, "\tinsns\tinsns_vcpu\n") && strstr(buf, "\t100\t10,20,30,40\n") && strstr(buf, "\t-\t-\n"),
		   "the file's columns: insns, insns_vcpu");
		lines_file_free(&lf);
		free(buf);
		lines_model_free(m);
		if (es)
			fclose(es);
	}
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
