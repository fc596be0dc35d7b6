// SPDX-License-Identifier: GPL-2.0
/*
 * The trace replay of `memcg-lab lines predict` / `lines suggest`
 * (c2c/lines_replay.h, c2c/lines_layout.h) on recorded access sequences
 * with known outcomes under two layouts:
 *   - two vCPUs writing two fields 8 bytes apart: false sharing packed,
 *     none padded; both writing one field: true sharing either way;
 *   - a store against loads: load HITMs and invalidations, and the other
 *     side named;
 *   - 64 against 128: fields 64 bytes apart share a 128-byte pair (perf
 *     c2c --double-cl), apart when the pair boundary falls between them;
 *   - the recorded layout replayed gives the model's own counts (the same
 *     model, the same sequence at the recorded addresses);
 *   - what is not replayed, named: a field the new layout lacks, an access
 *     the new layout splits, a neighbour outside the object;
 * and the layouts from the real kernels' BTF (build/btf/, from
 * lab/tests/data/btf): 5.10's mem_cgroup remapped to 6.1's by field name
 * (memory.usage and memory.max share a line in 5.10, not in 6.1); the
 * edits (--move, --align, --pad-after) and their refusals; page_counter
 * edited inside mem_cgroup; every fixture's structs laid out again
 * unchanged; and the 2020 relayout (Feng Tang, 5.10) swapped back: the
 * vmstats members meet in a 128-byte pair again.  And predicted-fields.tsv
 * read back (report/lines_predicted.h): its "# KEY<TAB>VALUE" lines by
 * util/tsv.h, a trace path longer than a line buffer included, and a bad
 * row named by its line and column.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "c2c/lines_layout.h"
#include "c2c/lines_replay.h"
#include "report/lines_predicted.h"
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"

#define BASE 0xffff888000100000ULL

/* ---- a trace in memory ---- */

struct tbuf {
	struct lines_trace_rec *r;
	size_t n;
	unsigned vcpus;
	void *mem;
	struct lines_trace t;
};

static void acc(struct tbuf *b, char rw, unsigned vcpu, uint64_t addr, unsigned size)
{
	b->r = xrealloc(b->r, (b->n + 1) * sizeof(*b->r));
	memset(&b->r[b->n], 0, sizeof(*b->r));
	b->r[b->n].vaddr = addr;
	b->r[b->n].pc = 0xffffffff81000000ULL + (rw == 'S' ? 0x10 : 0) + vcpu;
	b->r[b->n].vcpu = (uint8_t)vcpu;
	b->r[b->n].size = (uint8_t)size;
	b->r[b->n].flags = rw == 'S' ? LINES_TRACE_STORE : 0;
	b->n++;
}

static struct lines_trace *trace_of(struct tbuf *b)
{
	struct lines_trace_header h = { .version = LINES_TRACE_VERSION, .record_size = sizeof(struct lines_trace_rec),
					.nrecords = b->n, .cap = b->n, .status = LINES_TRACE_COMPLETE,
					.vcpus = b->vcpus ? b->vcpus : 4 };
	size_t size = sizeof(h) + b->n * sizeof(*b->r);
	char err[512];

	memcpy(h.magic, LINES_TRACE_MAGIC, 8);
	free(b->mem);
	b->mem = xmalloc(size);
	memcpy(b->mem, &h, sizeof(h));
	memcpy((char *)b->mem + sizeof(h), b->r, b->n * sizeof(*b->r));
	if (lines_trace_open_mem(&b->t, "test", b->mem, size, err, sizeof(err)) < 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	return &b->t;
}

static void tbuf_free(struct tbuf *b)
{
	lines_trace_close(&b->t);
	free(b->mem);
	free(b->r);
	memset(b, 0, sizeof(*b));
}

static void obj_add(struct lines_trace_objs *o, const char *type, uint64_t base, uint64_t size)
{
	o->v = xrealloc(o->v, (o->n + 1) * sizeof(*o->v));
	o->v[o->n++] = (struct lines_trace_obj){ 0, xstrdup("test object"), xstrdup(type), xstrdup("test"), base, size,
						 size, false, NULL, "test", 0 };
}

/* A struct of fields named a, b, c... at offs, sizes 8 unless given. */
static void simple(struct ll_layout *l, const char *st, const char *const *names, const uint64_t *offs, size_t n,
		   uint64_t size)
{
	uint64_t sizes[8];

	for (size_t i = 0; i < n; i++)
		sizes[i] = 8;
	lines_layout_simple(l, st, names, offs, sizes, n, size);
}

/* Replays b on objs with old -> new (new NULL: recorded) at line. */
static void replay(struct tbuf *b, struct lines_trace_objs *objs, const struct ll_layout *old,
		   const struct ll_layout *new, unsigned line, struct lr_result *res)
{
	struct lr_type ty = { old->st, old, new };
	struct lr_input in = { trace_of(b), objs, &ty, 1, line, new == NULL, NULL };
	char err[512];

	if (lines_replay(&in, res, err, sizeof(err)) < 0) {
		printf("Bail out! lines_replay: %s\n", err);
		exit(1);
	}
}

/* "events false true" of field name in res (layout l). */
static const char *fcounts(const struct lr_result *res, const struct ll_layout *l, const char *name)
{
	static char s[128];
	int f = lines_layout_find_field(l, name);
	const struct lines_counts *c;

	if (f < 0)
		return "no such field";
	c = &res->counts[0].c[f];
	snprintf(s, sizeof(s), "%llu %llu %llu", (unsigned long long)lines_replay_events(c),
		 (unsigned long long)c->false_sharing, (unsigned long long)c->true_sharing);
	return s;
}

#define is_counts(res, l, name, want, what) \
	(ok(!strcmp(fcounts(res, l, name), want), "%s: %s events false true = %s", what, name, want) || \
	 (tap_diag("  got %s", fcounts(res, l, name)), 0))

static uint64_t total_events(const struct lr_result *res)
{
	uint64_t n = 0;

	for (size_t i = 0; i < res->counts[0].nf; i++)
		n += lines_replay_events(&res->counts[0].c[i]);
	return n;
}

static const char *const AB[] = { "a", "b" };

TEST(packed_against_padded)
{
	struct ll_layout packed, padded;
	struct lines_trace_objs objs = { 0 };
	struct tbuf b = { 0 };
	struct lr_result res;

	simple(&packed, "pair", AB, (uint64_t[]){ 0, 8 }, 2, 16);
	simple(&padded, "pair", AB, (uint64_t[]){ 0, 64 }, 2, 72);
	obj_add(&objs, "pair", BASE, 16);
	/* vCPU 0 writes a, vCPU 1 writes b, ten times each, in turn. */
	for (int i = 0; i < 10; i++) {
		acc(&b, 'S', 0, BASE + 0, 8);
		acc(&b, 'S', 1, BASE + 8, 8);
	}
	replay(&b, &objs, &packed, NULL, 64, &res);
	/* The first store takes the line; each later one finds it modified
	 * by the other vCPU: a store HITM, false sharing (other bytes). */
	is_counts(&res, &packed, "a", "9 9 0", "packed, recorded");
	is_counts(&res, &packed, "b", "10 10 0", "packed, recorded");
	ok(res.counts[0].c[0].stores == 10 && res.counts[0].c[1].stores == 10, "packed: every store replayed");
	ok(res.counts[0].other[0] == 2 && res.counts[0].other[1] == 1, "packed: a's other side is b, b's is a");
	lines_replay_free(&res);
	replay(&b, &objs, &packed, &padded, 64, &res);
	ok(total_events(&res) == 0, "padded (b on the next line): no event") ||
		(tap_diag("  got %llu", (unsigned long long)total_events(&res)), 0);
	ok(res.replayed == 20 && !res.missing && !res.split_remap, "padded: all 20 records replayed, none split");
	lines_replay_free(&res);

	/* Both write a: true sharing, whatever the layout. */
	tbuf_free(&b);
	for (int i = 0; i < 10; i++) {
		acc(&b, 'S', 0, BASE + 0, 8);
		acc(&b, 'S', 1, BASE + 0, 8);
	}
	replay(&b, &objs, &packed, &padded, 64, &res);
	is_counts(&res, &padded, "a", "19 0 19", "one field written by both, padded");
	lines_replay_free(&res);

	/* A writer against a reader: load HITMs on b, invalidations by a. */
	tbuf_free(&b);
	for (int i = 0; i < 10; i++) {
		acc(&b, 'S', 0, BASE + 0, 8);
		acc(&b, 'L', 1, BASE + 8, 8);
	}
	replay(&b, &objs, &packed, NULL, 64, &res);
	ok(res.counts[0].c[1].load_hitm == 10 && res.counts[0].c[0].store_inval == 9,
	   "writer and reader: 10 load HITMs on b, 9 invalidations by a's stores");
	is_counts(&res, &packed, "b", "10 10 0", "writer and reader");
	lines_replay_free(&res);
	replay(&b, &objs, &packed, &padded, 64, &res);
	ok(total_events(&res) == 0, "writer and reader, padded: no event");
	lines_replay_free(&res);

	tbuf_free(&b);
	lines_trace_objs_free(&objs);
	lines_layout_free(&packed);
	lines_layout_free(&padded);
}

TEST(line_128_pairs)
{
	struct ll_layout apart, far;
	struct lines_trace_objs objs = { 0 };
	struct tbuf b = { 0 };
	struct lr_result res;

	simple(&apart, "pair", AB, (uint64_t[]){ 0, 64 }, 2, 72);
	simple(&far, "pair", AB, (uint64_t[]){ 0, 128 }, 2, 136);
	obj_add(&objs, "pair", BASE, 72);
	for (int i = 0; i < 10; i++) {
		acc(&b, 'S', 0, BASE + 0, 8);
		acc(&b, 'L', 1, BASE + 64, 8);
	}
	replay(&b, &objs, &apart, NULL, 64, &res);
	ok(total_events(&res) == 0, "64 bytes apart, 64-byte lines: no event");
	lines_replay_free(&res);
	replay(&b, &objs, &apart, &apart, 128, &res);
	is_counts(&res, &apart, "b", "10 10 0", "64 bytes apart, 128-byte lines: b's loads");
	is_counts(&res, &apart, "a", "9 9 0", "64 bytes apart, 128-byte lines: a's stores");
	lines_replay_free(&res);
	replay(&b, &objs, &apart, &far, 128, &res);
	ok(total_events(&res) == 0, "128 bytes apart, 128-byte lines: no event");
	lines_replay_free(&res);
	lines_trace_objs_free(&objs);

	/* The same struct at 64 mod 128: a and b in two pairs. */
	memset(&objs, 0, sizeof(objs));
	obj_add(&objs, "pair", BASE + 64, 72);
	tbuf_free(&b);
	for (int i = 0; i < 10; i++) {
		acc(&b, 'S', 0, BASE + 64, 8);
		acc(&b, 'L', 1, BASE + 128, 8);
	}
	replay(&b, &objs, &apart, &apart, 128, &res);
	ok(total_events(&res) == 0, "an object at 64 mod 128 keeps its place in the pair: no event at 128");
	lines_replay_free(&res);

	/* Line 128's true/false is per 2 bytes: one-byte neighbours are named. */
	{
		struct ll_layout g;
		const char *const names[] = { "x", "y", "z" };
		char *s;

		lines_layout_simple(&g, "flags", names, (uint64_t[]){ 0, 1, 8 }, (uint64_t[]){ 1, 1, 8 }, 3, 16);
		s = lines_replay_granules(&g);
		ok(s && !strcmp(s, "x+y"), "128-byte lines: x and y share a 2-byte granule, named") ||
			(tap_diag("  got %s", s ? s : "(none)"), 0);
		free(s);
		lines_layout_free(&g);
		s = lines_replay_granules(&apart);
		ok(!s, "8-byte fields share no granule");
		free(s);
	}
	tbuf_free(&b);
	lines_trace_objs_free(&objs);
	lines_layout_free(&apart);
	lines_layout_free(&far);
}

/* The recorded replay against the model fed the same sequence itself. */
TEST(recorded_layout_same_counts)
{
	static const char *const N3[] = { "a", "b", "c" };
	struct ll_layout l;
	struct lines_trace_objs objs = { 0 };
	struct tbuf b = { .vcpus = 3 };
	struct lr_result res;
	struct lines_config cfg = { .lines = 1024, .ext_lines = 64, .vcpus = 3 };
	char err[256];
	struct lines_model *m = lines_model_new(&cfg, err, sizeof(err));
	struct lines_totals t;
	struct lines_counts sum = { 0 };
	uint32_t seed = 12345;

	simple(&l, "three", N3, (uint64_t[]){ 0, 24, 64 }, 3, 72);
	obj_add(&objs, "three", BASE, 72);
	lines_model_window(m, 0, true);
	for (int i = 0; i < 2000; i++) {
		uint64_t offs[] = { 0, 4, 24, 28, 64, 68 };
		unsigned v, k, size;
		bool store;

		seed = seed * 1103515245 + 12345;
		v = (seed >> 16) % 3;
		k = (seed >> 8) % 6;
		store = (seed >> 20) % 3 == 0;
		size = (seed >> 24) % 2 ? 4 : (offs[k] % 8 ? 4 : 8);
		acc(&b, store ? 'S' : 'L', v, BASE + offs[k], size);
		lines_model_access(m, v, 0x1000, BASE + offs[k], BASE + offs[k], size, store ? LINES_STORE : 0);
	}
	lines_model_window(m, 0, false);
	lines_model_totals(m, &t);
	replay(&b, &objs, &l, NULL, 64, &res);
	for (size_t i = 0; i < res.counts[0].nf; i++) {
		const struct lines_counts *c = &res.counts[0].c[i];

		sum.load_hitm += c->load_hitm;
		sum.store_hitm += c->store_hitm;
		sum.store_inval += c->store_inval;
		sum.false_sharing += c->false_sharing;
		sum.true_sharing += c->true_sharing;
	}
	ok(t.load_hitm && sum.load_hitm == t.load_hitm && sum.store_hitm == t.store_hitm &&
	   sum.store_inval == t.store_inval && sum.false_sharing == t.false_sharing && sum.true_sharing == t.true_sharing,
	   "the recorded layout replayed: the model's own load HITMs, store HITMs, invalidations, false, true "
	   "(%llu %llu %llu %llu %llu)", (unsigned long long)t.load_hitm, (unsigned long long)t.store_hitm,
	   (unsigned long long)t.store_inval, (unsigned long long)t.false_sharing, (unsigned long long)t.true_sharing) ||
		(tap_diag("  replay: %llu %llu %llu %llu %llu", (unsigned long long)sum.load_hitm,
			 (unsigned long long)sum.store_hitm, (unsigned long long)sum.store_inval,
			 (unsigned long long)sum.false_sharing, (unsigned long long)sum.true_sharing), 0);
	lines_replay_free(&res);
	lines_model_free(m);
	tbuf_free(&b);
	lines_trace_objs_free(&objs);
	lines_layout_free(&l);
}

TEST(not_replayed_named)
{
	struct ll_layout packed, only_a, apart;
	struct lines_trace_objs objs = { 0 };
	struct tbuf b = { 0 };
	struct lr_result res;

	simple(&packed, "pair", AB, (uint64_t[]){ 0, 8 }, 2, 16);
	simple(&only_a, "pair", AB, (uint64_t[]){ 0 }, 1, 8);
	simple(&apart, "pair", AB, (uint64_t[]){ 0, 64 }, 2, 72);
	obj_add(&objs, "pair", BASE + 16, 16);
	for (int i = 0; i < 10; i++) {
		acc(&b, 'S', 0, BASE + 16, 8);
		acc(&b, 'L', 1, BASE + 24, 8);
	}
	acc(&b, 'L', 2, BASE + 16, 16);		/* a and b at once */
	acc(&b, 'S', 3, BASE + 8, 8);		/* a neighbour on the object's line */
	replay(&b, &objs, &packed, &only_a, 64, &res);
	ok(res.missing_fields.n == 1 && !strcmp(res.missing_fields.v[0].name, "b") && res.missing_fields.v[0].n == 11,
	   "a field the layout lacks: b, its 11 accesses named, not replayed") ||
		(tap_diag("  got %zu: %s %llu", res.missing_fields.n, res.missing_fields.n ? res.missing_fields.v[0].name : "",
			 res.missing_fields.n ? (unsigned long long)res.missing_fields.v[0].n : 0ULL), 0);
	ok(res.outside == 1 && res.nmeet == 1 && res.meet[0].line == BASE && res.meet[0].outside == 1,
	   "a neighbour outside the object: counted, its line named where the object meets it");
	ok(res.edges.n == 1 && strstr(res.edges.v[0].name, "from byte 16 of its first line to byte 23 of its last"),
	   "the object at 16 in its line: it would share its line with its neighbours, said") ||
		(tap_diag("  got %s", res.edges.n ? res.edges.v[0].name : "(none)"), 0);
	lines_replay_free(&res);
	replay(&b, &objs, &packed, &apart, 64, &res);
	ok(res.split_remap == 1 && res.split_accesses.n == 1 && !strcmp(res.split_accesses.v[0].name, "a+b"),
	   "a 16-byte load of a and b, apart in the new layout: split, named a+b") ||
		(tap_diag("  got %llu", (unsigned long long)res.split_remap), 0);
	ok(res.counts[0].c[0].loads == 1 && res.counts[0].c[1].loads == 11, "its parts replayed: a 1 load, b 11");
	lines_replay_free(&res);
	tbuf_free(&b);
	lines_trace_objs_free(&objs);
	lines_layout_free(&packed);
	lines_layout_free(&only_a);
	lines_layout_free(&apart);
}

/* ---- the real kernels' layouts ---- */

static bool open_btf(struct kbtf *k, const char *rel)
{
	char *p = xasprintf("build/btf/vmlinux-%s.btf", rel), err[512];
	bool okk = path_exists(p) && !kbtf_open(k, p, NULL, err, sizeof(err));

	free(p);
	return okk;
}

static uint64_t off_of(const struct ll_layout *l, const char *f)
{
	int i = lines_layout_find_field(l, f);

	return i < 0 ? UINT64_MAX : lines_layout_off(l, (size_t)i);
}

TEST(btf_remap_by_field_name)
{
	struct kbtf k510, k61;
	struct ll_layout m510, m61;
	struct lines_trace_objs objs = { 0 };
	struct tbuf b = { 0 };
	struct lr_result res;
	char err[512];
	size_t pc_missing = 0;
	uint64_t u, mx;

	if (!open_btf(&k510, "5.10.262") || !open_btf(&k61, "6.1.192")) {
		tap_skip("5.10 -> 6.1 remap", "build/btf/ is not built (make build)");
		return;
	}
	ok(!lines_layout_from_btf(&m510, &k510, "mem_cgroup", FIELD_CG_V1, err, sizeof(err)) &&
	   !lines_layout_from_btf(&m61, &k61, "mem_cgroup", FIELD_CG_V1, err, sizeof(err)),
	   "mem_cgroup of 5.10.262 and 6.1.192 from BTF");
	u = off_of(&m510, "memory.usage");
	mx = off_of(&m510, "memory.max");
	ok(u == 208 && mx == 240 && u / 64 == mx / 64, "5.10: memory.usage (208) and memory.max (240) on one line");
	ok(off_of(&m61, "memory.usage") / 64 != off_of(&m61, "memory.max") / 64,
	   "6.1: memory.usage (%llu) and memory.max (%llu) on two lines", (unsigned long long)off_of(&m61, "memory.usage"),
	   (unsigned long long)off_of(&m61, "memory.max"));
	for (size_t i = 0; i < m510.nf; i++)
		if (!strncmp(m510.f[i].name, "memory.", 7) && lines_layout_find_field(&m61, m510.f[i].name) < 0)
			pc_missing++;
	ok(!pc_missing, "every memory.* field of 5.10 has its name in 6.1");
	ok(lines_layout_find_field(&m510, "memsw.usage") >= 0 && lines_layout_find_field(&m510, "swap.usage") < 0,
	   "cgroup v1: the union named by memsw");
	obj_add(&objs, "mem_cgroup", BASE, m510.size);
	for (int i = 0; i < 10; i++) {
		acc(&b, 'S', 0, BASE + u, 8);
		acc(&b, 'L', 1, BASE + mx, 8);
	}
	acc(&b, 'L', 2, BASE + off_of(&m510, "vmstats_local"), 8);
	replay(&b, &objs, &m510, NULL, 64, &res);
	is_counts(&res, &m510, "memory.max", "10 10 0", "5.10 as recorded");
	lines_replay_free(&res);
	replay(&b, &objs, &m510, &m61, 64, &res);
	ok(total_events(&res) == 0, "the same accesses on 6.1's layout: no event");
	ok(res.missing_fields.n == 1 && !strcmp(res.missing_fields.v[0].name, "vmstats_local"),
	   "vmstats_local, gone in 6.1: named missing");
	lines_replay_free(&res);
	tbuf_free(&b);
	lines_trace_objs_free(&objs);
	lines_layout_free(&m510);
	lines_layout_free(&m61);
	kbtf_close(&k510);
	kbtf_close(&k61);
}

static int edit(struct ll_layout *l, const char *spec, char *err, size_t n)
{
	/* "move usage=64", "align max=64", "pad-after usage"; several by ';' */
	struct ll_edit e[8];
	char buf[8][128];
	size_t ne = 0;
	char *copy = xstrdup(spec), *save = NULL;
	int rc;

	for (char *tok = strtok_r(copy, ";", &save); tok && ne < 8; tok = strtok_r(NULL, ";", &save), ne++) {
		char *sp = strchr(tok, ' '), *eq;

		snprintf(buf[ne], sizeof(buf[ne]), "%s", sp + 1);
		e[ne].arg = buf[ne];
		e[ne].kind = !strncmp(tok, "move", 4) ? LL_MOVE : !strncmp(tok, "align", 5) ? LL_ALIGN : LL_PAD_AFTER;
		eq = strchr(buf[ne], '=');
		e[ne].value = eq ? strtoull(eq + 1, NULL, 0) : 0;
		e[ne].name = eq ? xasprintf("%.*s", (int)(eq - buf[ne]), buf[ne]) : xstrdup(buf[ne]);
	}
	rc = lines_layout_edit(l, e, ne, 64, err, n);
	for (size_t i = 0; i < ne; i++)
		free((char *)e[i].name);
	free(copy);
	return rc;
}

TEST(layout_edits)
{
	struct kbtf k;
	struct ll_layout pc, x, mc, emb;
	char err[512];
	int n;

	if (!open_btf(&k, "5.10.262")) {
		tap_skip("edits", "build/btf/ is not built (make build)");
		return;
	}
	lines_layout_from_btf(&pc, &k, "page_counter", FIELD_CG_UNKNOWN, err, sizeof(err));
	lines_layout_copy(&x, &pc);
	ok(!edit(&x, "pad-after usage", err, sizeof(err)) && off_of(&x, "usage") == 0 && off_of(&x, "min") == 64 &&
	   off_of(&x, "failcnt") == 160 && x.size == 192 && x.align == 64,
	   "--pad-after usage: min starts line 1, failcnt at 160, 192 B, 64-aligned") ||
		(tap_diag("  min %llu failcnt %llu size %llu", (unsigned long long)off_of(&x, "min"),
			 (unsigned long long)off_of(&x, "failcnt"), (unsigned long long)x.size), 0);
	lines_layout_free(&x);
	lines_layout_copy(&x, &pc);
	ok(!edit(&x, "align max=64", err, sizeof(err)) && off_of(&x, "high") == 24 && off_of(&x, "max") == 64 &&
	   off_of(&x, "failcnt") == 136 && x.size == 192, "--align max=64: max at 64, the rest after it, 192 B");
	lines_layout_free(&x);
	lines_layout_copy(&x, &pc);
	ok(!edit(&x, "move usage=112", err, sizeof(err)) && off_of(&x, "usage") == 112 && off_of(&x, "min") == 8 &&
	   x.size == 120, "--move usage=112: usage at the end, the rest stays, 120 B");
	lines_layout_free(&x);
	lines_layout_copy(&x, &pc);
	ok(!edit(&x, "move usage=8;move min=0", err, sizeof(err)) && off_of(&x, "usage") == 8 && off_of(&x, "min") == 0,
	   "two moves in a row are one edit: usage and min swapped") || (tap_diag("  %s", err), 0);
	lines_layout_free(&x);
	lines_layout_copy(&x, &pc);
	ok(edit(&x, "move min=0", err, sizeof(err)) < 0 && strstr(err, "--move min=0") && strstr(err, "overlaps member usage"),
	   "--move min=0: refused, the member it overlaps named") || (tap_diag("  %s", err), 0);
	lines_layout_free(&x);
	lines_layout_copy(&x, &pc);
	ok(edit(&x, "move nope=8", err, sizeof(err)) < 0 && strstr(err, "has no member nope"),
	   "--move nope=8: no such member, named") || (tap_diag("  %s", err), 0);
	lines_layout_free(&x);
	lines_layout_copy(&x, &pc);
	ok(edit(&x, "move usage=4", err, sizeof(err)) < 0 && strstr(err, "alignment"),
	   "--move usage=4: not at its alignment, refused") || (tap_diag("  %s", err), 0);
	lines_layout_free(&x);
	lines_layout_copy(&x, &pc);
	ok(edit(&x, "pad-after nope", err, sizeof(err)) < 0 && strstr(err, "--pad-after nope"),
	   "--pad-after nope: refused, named");
	lines_layout_free(&x);

	lines_layout_from_btf(&mc, &k, "mem_cgroup", FIELD_CG_UNKNOWN, err, sizeof(err));
	lines_layout_copy(&x, &mc);
	ok(edit(&x, "align memory.usage=64", err, sizeof(err)) < 0 && strstr(err, "inside member memory") &&
	   strstr(err, "--struct page_counter"), "mem_cgroup --align memory.usage: inside memory, --struct page_counter "
	   "said") || (tap_diag("  %s", err), 0);
	lines_layout_free(&x);
	/* page_counter edited inside mem_cgroup */
	lines_layout_copy(&x, &pc);
	edit(&x, "pad-after usage", err, sizeof(err));
	lines_layout_embed(&mc, &pc, &x, &emb, &n);
	ok(n == 4, "page_counter is 4 members of 5.10's mem_cgroup (memory, swap|memsw, kmem, tcpmem)");
	ok(off_of(&emb, "memory.usage") == 256 && off_of(&emb, "memory.min") == 320 &&
	   off_of(&emb, "swap|memsw.usage") == 448 && emb.nf == mc.nf && off_of(&emb, "css.cgroup") == 0,
	   "the edited page_counter in mem_cgroup: memory at 256 (64-aligned), memory.min on its next line, "
	   "swap|memsw after it, every field kept") ||
		(tap_diag("  memory.usage %llu memory.min %llu swap %llu nf %zu/%zu",
			 (unsigned long long)off_of(&emb, "memory.usage"), (unsigned long long)off_of(&emb, "memory.min"),
			 (unsigned long long)off_of(&emb, "swap|memsw.usage"), emb.nf, mc.nf), 0);
	ok(off_of(&emb, "vmstats[0]") % 64 == 0 && emb.size % 64 == 0,
	   "the members after it laid out again: vmstats still on a line start (after _pad1_)");
	lines_layout_free(&emb);
	lines_layout_free(&x);

	/* The 2020 relayout swapped back (Feng Tang: the two member blocks). */
	lines_layout_copy(&x, &mc);
	ok(!edit(&x, "move moving_account..vmstats_percpu=1152;move vmstats..objcg_list=1216;"
		 "move cgwb_list..deferred_split_queue=2496", err, sizeof(err)),
	   "5.10 mem_cgroup with the two blocks swapped back (three moves)") || (tap_diag("  %s", err), 0);
	ok(off_of(&mc, "vmstats_percpu") / 128 != off_of(&mc, "vmstats[0]") / 128,
	   "5.10 as it ships: vmstats_percpu and vmstats[0] in different 128-byte pairs");
	ok(off_of(&x, "vmstats_percpu") / 128 == off_of(&x, "vmstats[0]") / 128 &&
	   off_of(&x, "vmstats_percpu") / 64 != off_of(&x, "vmstats[0]") / 64,
	   "swapped back: vmstats_percpu (%llu) and vmstats[0] (%llu) share a 128-byte pair, not a line",
	   (unsigned long long)off_of(&x, "vmstats_percpu"), (unsigned long long)off_of(&x, "vmstats[0]"));
	{
		struct lines_trace_objs objs = { 0 };
		struct tbuf b = { 0 };
		struct lr_result res;

		obj_add(&objs, "mem_cgroup", BASE, mc.size);
		for (int i = 0; i < 10; i++) {
			acc(&b, 'S', 0, BASE + off_of(&mc, "vmstats[0]"), 8);
			acc(&b, 'L', 1, BASE + off_of(&mc, "vmstats_percpu"), 8);
		}
		replay(&b, &objs, &mc, &mc, 128, &res);
		ok(total_events(&res) == 0, "5.10's own layout at 128-byte lines: no event between them");
		lines_replay_free(&res);
		replay(&b, &objs, &mc, &x, 128, &res);
		is_counts(&res, &x, "vmstats_percpu", "10 10 0", "swapped back, 128-byte lines");
		lines_replay_free(&res);
		replay(&b, &objs, &mc, &x, 64, &res);
		ok(total_events(&res) == 0, "swapped back, 64-byte lines: no event (only the pair shares)");
		lines_replay_free(&res);
		tbuf_free(&b);
		lines_trace_objs_free(&objs);
	}
	lines_layout_free(&x);
	lines_layout_free(&mc);
	lines_layout_free(&pc);
	kbtf_close(&k);
}

/* Every fixture's structs laid out again from their first member: unchanged. */
TEST(relayout_identity)
{
	static const char *const rels[] = { "5.10.262", "6.1.192", "6.12.117", "6.16.12", "6.18.44", "7.1.13", "7.2.12",
					    "7.3.4-rt" };
	static const char *const sts[] = { "mem_cgroup", "page_counter", "memcg_stock_pcp", "obj_stock_pcp" };

	for (size_t r = 0; r < sizeof(rels) / sizeof(rels[0]); r++) {
		struct kbtf k;
		int checked = 0, same = 0;
		char err[512], bad[512] = "";

		if (!open_btf(&k, rels[r])) {
			tap_skip("relayout identity", "build/btf/ is not built (make build)");
			continue;
		}
		for (size_t s = 0; s < sizeof(sts) / sizeof(sts[0]); s++) {
			struct ll_layout l, x;
			char spec[300], first[256];
			bool eq;

			if (lines_layout_from_btf(&l, &k, sts[s], FIELD_CG_UNKNOWN, err, sizeof(err)) < 0)
				continue;
			lines_layout_copy(&x, &l);
			/* The first member is at 0: aligning it lays every member out again. */
			snprintf(first, sizeof(first), "%s", x.u[0].name);
			first[strcspn(first, "|")] = '\0';
			snprintf(spec, sizeof(spec), "align %s=64", first);
			checked++;
			eq = !edit(&x, spec, err, sizeof(err)) && x.size == (l.size + 63) / 64 * 64 && x.nf == l.nf;
			for (size_t i = 0; eq && i < l.nf; i++)
				if (lines_layout_off(&x, i) != lines_layout_off(&l, i) || strcmp(x.f[i].name, l.f[i].name)) {
					snprintf(bad, 256, "%s.%s %llu -> %llu", sts[s], l.f[i].name,
						 (unsigned long long)lines_layout_off(&l, i),
						 (unsigned long long)lines_layout_off(&x, i));
					eq = false;
				}
			same += eq;
			if (!eq && !bad[0])
				snprintf(bad, 256, "%s: %.150s (size %llu -> %llu)", sts[s], err, (unsigned long long)l.size,
					 (unsigned long long)x.size);
			lines_layout_free(&l);
			lines_layout_free(&x);
		}
		ok(checked && same == checked, "%s: %d structs laid out again from their first member, every field in "
		   "place", rels[r], checked) || (tap_diag("  %s", bad), 0);
		kbtf_close(&k);
	}
}

/* predicted-fields.tsv as lines predict writes it (cmd/lines_predict.c). */
TEST(predicted_file_read_back)
{
	char dir[] = "/tmp/unit-lines-predict.XXXXXX", *p, *text, *trace, err[512] = "";
	static const char hdr[] = "struct\tfield\toffset\tsize\tloads\tstores\thitm_loads\thitm_stores\tfalse_hitm\t"
				  "true_hitm\tother_field\n";
	struct lines_fields lf;
	struct lines_pred_meta m;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	p = xasprintf("%s/" LINES_PREDICTED_TSV, dir);
	/* A trace path longer than the 1 KiB line the old reader took. */
	trace = xmalloc(1101);
	memset(trace, 'd', 1100);
	trace[0] = '/';
	trace[1100] = '\0';
	text = xasprintf("# trace\t%s\n# layout\tmem_cgroup of 6.1 (BTF)\n# line_size\t128\n# ops\t1200\tpage faults\n"
			 "%smem_cgroup\tmemory.usage\t192\t8\t10\t20\t30\t4\t3\t31\tmemory.parent\n", trace, hdr);
	write_file_atomic(p, text, strlen(text));
	free(text);
	ok(lines_predicted_load(p, &lf, &m, err, sizeof(err)) == 0, "read (%s)", err);
	ok(strlen(m.trace) == sizeof(m.trace) - 1 && !strncmp(m.trace, trace, sizeof(m.trace) - 1),
	   "trace: the path (as much as its buffer holds)");
	ok(!strcmp(m.layout, "mem_cgroup of 6.1 (BTF)"), "layout after a long trace line: '%s'", m.layout);
	is_int(m.line_size, 128, "line_size");
	ok(m.ops == 1200 && !strcmp(m.unit, "page faults"), "ops: 1200 page faults (%g '%s')", m.ops, m.unit);
	ok(lf.n == 1 && !strcmp(lf.r[0].field, "memory.usage") && lf.r[0].hitm_loads == 30 && lf.r[0].offset == 192,
	   "the row, by its columns");
	lines_fields_free(&lf);

	text = xasprintf("# ops\t-\t-\n%smem_cgroup\tmemory.usage\t192\t8\t10\t20\tx\t4\t3\t31\t-\n", hdr);
	write_file_atomic(p, text, strlen(text));
	free(text);
	ok(lines_predicted_load(p, &lf, &m, err, sizeof(err)) < 0 &&
	   strstr(err, LINES_PREDICTED_TSV ":3: field hitm_loads: 'x' is not a count"),
	   "a bad row named by its line and column: %s", err);
	ok(m.ops == -1, "ops - -: not counted");
	lines_fields_free(&lf);

	unlink(p);
	ok(lines_predicted_load(p, &lf, &m, err, sizeof(err)) < 0 && strstr(err, LINES_PREDICTED_TSV ": cannot read"),
	   "no file: %s", err);
	lines_fields_free(&lf);
	rmdir(dir);
	free(trace);
	free(p);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
