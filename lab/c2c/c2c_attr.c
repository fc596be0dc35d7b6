// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/c2c_attr.h"
#include "c2c/c2c_legend.h"
#include "util/err.h"
#include "util/outfile.h"
#include "util/tsv.h"

int c2c_objects_add(struct c2c_objects *o, const struct kbtf *k, const char *type, uint64_t base,
		    const char *label, const char *source, char *err, size_t errlen)
{
	int id = kbtf_find_struct(k, type);
	long size;
	struct c2c_object *ob;

	if (id < 0) {
		snprintf(err, errlen, "struct %s is not in the BTF of %s", type, k->path ? k->path : "the kernel");
		return -1;
	}
	size = kbtf_type_size(k, id);
	if (size <= 0) {
		snprintf(err, errlen, "struct %s has no size in BTF", type);
		return -1;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->v = xrealloc(o->v, o->cap * sizeof(*o->v));
	}
	ob = &o->v[o->n++];
	ob->label = xstrdup(label && *label ? label : type);
	ob->type = xstrdup(type);
	ob->type_id = id;
	ob->base = base;
	ob->size = (uint64_t)size;
	ob->source = xstrdup(source ? source : "");
	return 0;
}

/* objects.tsv's columns: a file from before the source or the cgroup
 * column still reads (the source: the file; the version: unknown). */
static const char *const objects_cols[] = { "label", "type", "address", "?source", "?cgroup", NULL };
enum { O_LABEL, O_TYPE, O_ADDRESS, O_SOURCE, O_CGROUP };

/* One row of objects.tsv into o: 0, or -1 with err. */
static int objects_row(struct tsv *t, struct c2c_objects *o, const struct kbtf *k, bool *seen_cg)
{
	const char *cgs = tsv_get(t, O_CGROUP);
	char why[256];
	uint64_t addr;

	if (tsv_u64(t, O_ADDRESS, &addr))
		return -1;
	if (tsv_has(t, O_CGROUP)) {
		enum field_cgroup cg;

		if (field_cgroup_parse(cgs, &cg) < 0)
			return tsv_fail(t, -1, "cgroup '%s': expected v1 or v2", cgs);
		if (*seen_cg && cg != o->cgroup)
			return tsv_fail(t, -1, "cgroup '%s' after objects of cgroup '%s': one run's objects have one "
					"version", cgs, field_cgroup_name(o->cgroup));
		o->cgroup = cg;
		*seen_cg = true;
	}
	if (c2c_objects_add(o, k, tsv_get(t, O_TYPE), addr, tsv_get(t, O_LABEL),
			    tsv_has(t, O_SOURCE) ? tsv_get(t, O_SOURCE) : t->path, why, sizeof(why)) < 0)
		return tsv_fail(t, -1, "%s", why);
	return 0;
}

int c2c_objects_read_tsv(struct c2c_objects *o, const struct kbtf *k, const char *path,
			 char *err, size_t errlen)
{
	struct tsv t;
	bool seen_cg = false;
	int r = tsv_open(&t, path, objects_cols, 0, err, errlen);

	while (!r && (r = tsv_next(&t)) == TSV_ROW)
		r = objects_row(&t, o, k, &seen_cg);
	tsv_close(&t);
	return r < 0 ? -1 : 0;
}

void c2c_objects_write_tsv(const struct c2c_objects *o, FILE *f)
{
	tsv_write_header(f, objects_cols);
	for (size_t i = 0; i < o->n; i++)
		tsv_write_row(f, "%s\t%s\t0x%" PRIx64 "\t%s\t%s\n", o->v[i].label, o->v[i].type, o->v[i].base,
			      o->v[i].source, field_cgroup_name(o->cgroup));
}

const struct c2c_object *c2c_objects_find(const struct c2c_objects *o, uint64_t addr)
{
	for (size_t i = 0; o && i < o->n; i++)
		if (addr >= o->v[i].base && addr - o->v[i].base < o->v[i].size)
			return &o->v[i];
	return NULL;
}

void c2c_objects_free(struct c2c_objects *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].label);
		free(o->v[i].type);
		free(o->v[i].source);
	}
	free(o->v);
	memset(o, 0, sizeof(*o));
}

/* pct% of a cacheline total; NAN when either is missing. */
static double share(const char *pct, const char *total)
{
	double p, t;

	if (!c2c_num(pct, &p) || !c2c_num(total, &t) || isnan(p))
		return NAN;
	return round(p * t / 10.0) / 10.0;	/* p/100 * t, to 0.1 */
}

static double sum_known(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a + b;
}

struct c2c_attr_row *c2c_attribute(const struct c2c_report *r, const struct kbtf *k,
				   const struct c2c_objects *objs, size_t *n)
{
	struct c2c_attr_row *rows = xcalloc(r->noffs ? r->noffs : 1, sizeof(*rows));

	for (size_t i = 0; i < r->noffs; i++) {
		const struct c2c_offset *o = &r->offs[i];
		const struct c2c_cacheline *cl = o->cl;
		struct c2c_attr_row *a = &rows[i];
		uint64_t addr;

		a->o = o;
		a->hitm_rmt = share(o->v[OFF_HITM_RMT_PCT], cl->v[CL_HITM_RMT]);
		a->hitm_lcl = share(o->v[OFF_HITM_LCL_PCT], cl->v[CL_HITM_LCL]);
		a->peer_rmt = share(o->v[OFF_PEER_RMT_PCT], cl->v[CL_PEER_RMT]);
		a->peer_lcl = share(o->v[OFF_PEER_LCL_PCT], cl->v[CL_PEER_LCL]);
		a->hitm = sum_known(a->hitm_rmt, a->hitm_lcl);
		a->peer = sum_known(a->peer_rmt, a->peer_lcl);
		a->peer = sum_known(a->peer, share(o->v[OFF_PEER_PCT], cl->v[CL_PEER_TOTAL]));
		a->stores = sum_known(sum_known(share(o->v[OFF_ST_L1HIT_PCT], cl->v[CL_ST_L1HIT]),
						share(o->v[OFF_ST_L1MISS_PCT], cl->v[CL_ST_L1MISS])),
				      share(o->v[OFF_ST_NA_PCT], cl->v[CL_ST_NA]));
		if (!o->v[OFF_DATA_ADDRESS] || !k)
			continue;
		addr = strtoull(o->v[OFF_DATA_ADDRESS], NULL, 16);
		a->obj = c2c_objects_find(objs, addr);
		if (!a->obj)
			continue;
		a->obj_offset = addr - a->obj->base;
		if (field_at(k, a->obj->type_id, a->obj_offset, objs->cgroup, &a->field) < 0)
			a->obj = NULL;
	}
	*n = r->noffs;
	return rows;
}

/* A count as a cell, to 0.1: "" where the report has none. */
static const char *num(char *buf, double v)
{
	if (isnan(v))
		return "";
	snprintf(buf, 32, "%.1f", v);
	return buf;
}

static const char *cell(const char *s)
{
	return s ? s : "";
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static bool reads(const struct c2c_attr_row *a)
{
	return (!isnan(a->hitm) && a->hitm > 0) || (!isnan(a->peer) && a->peer > 0);
}

static bool writes(const struct c2c_attr_row *a)
{
	return !isnan(a->stores) && a->stores > 0;
}

static const char *access_of(const struct c2c_attr_row *a)
{
	bool r = reads(a), w = writes(a);

	return r && w ? "read+write" : r ? "read" : w ? "write" : "-";
}

static const char *const fields_cols[] = {
	"cacheline", "cacheline_address", "offset", "data_address", "object", "struct", "field", "field_offset",
	"field_size", "struct_line", "hitm", "peer", "stores", "access", "symbol", "object_file", "source",
	"hitm_lcl", "hitm_rmt", "peer_lcl", "peer_rmt", NULL
};

void c2c_write_fields_tsv(const struct c2c_attr_row *rows, size_t n, FILE *f)
{
	tsv_write_header(f, fields_cols);
	for (size_t i = 0; i < n; i++) {
		const struct c2c_attr_row *a = &rows[i];
		const struct c2c_offset *o = a->o;
		char h[32], p[32], st[32], hl[32], hr[32], pl[32], pr[32];

		tsv_write_row(f, "%s\t%s\t%s\t%s\t", cell(o->v[OFF_CACHELINE]), cell(o->v[OFF_CACHELINE_ADDRESS]),
			      cell(o->v[OFF_OFFSET]), cell(o->v[OFF_DATA_ADDRESS]));
		if (a->obj)
			tsv_write_row(f, "%s\t%s\t%s.%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t", a->obj->label,
				      a->obj->type, a->obj->type, a->field.name, a->field.offset, a->field.size,
				      a->obj_offset / 64);
		else
			fputs("\t\t\t\t\t\t", f);
		tsv_write_row(f, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", num(h, a->hitm), num(p, a->peer),
			      num(st, a->stores), access_of(a), cell(o->v[OFF_SYMBOL]), cell(o->v[OFF_OBJECT]),
			      cell(o->v[OFF_SOURCE]), num(hl, a->hitm_lcl), num(hr, a->hitm_rmt), num(pl, a->peer_lcl),
			      num(pr, a->peer_rmt));
	}
}

/* Aggregation over (key string, function, access). */
struct agg {
	char *key;		/* field name, or offset as text */
	const struct c2c_attr_row *first;
	const char *func;
	const char *access;
	double hitm, peer, stores;
	int rows;
};

struct aggs {
	struct agg *v;
	size_t n, cap;
};

static struct agg *agg_get(struct aggs *g, const char *key, const struct c2c_attr_row *a, const char *func,
			   const char *access)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].key, key) && !strcmp(g->v[i].func, func) && !strcmp(g->v[i].access, access))
			return &g->v[i];
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 32;
		g->v = xrealloc(g->v, g->cap * sizeof(*g->v));
	}
	memset(&g->v[g->n], 0, sizeof(g->v[0]));
	g->v[g->n].key = xstrdup(key);
	g->v[g->n].first = a;
	g->v[g->n].func = func;
	g->v[g->n].access = access;
	g->v[g->n].hitm = g->v[g->n].peer = g->v[g->n].stores = NAN;
	return &g->v[g->n++];
}

static void agg_add(struct agg *x, const struct c2c_attr_row *a, bool read)
{
	if (read) {
		x->hitm = sum_known(x->hitm, a->hitm);
		x->peer = sum_known(x->peer, a->peer);
	} else {
		x->stores = sum_known(x->stores, a->stores);
	}
	x->rows++;
}

/* Each row counts as a read (its HITMs/peer snoops) and/or a write (its stores). */
static void aggregate(const struct c2c_attr_row *rows, size_t n, const char *type, bool by_offset,
		      struct aggs *g)
{
	for (size_t i = 0; i < n; i++) {
		const struct c2c_attr_row *a = &rows[i];
		const char *func = a->o->v[OFF_SYMBOL] ? a->o->v[OFF_SYMBOL] : "?";
		char key[300];

		if (type && (!a->obj || strcmp(a->obj->type, type)))
			continue;
		if (!type)
			snprintf(key, sizeof(key), "%s", cell(a->o->v[OFF_OBJECT]));
		else if (by_offset)
			snprintf(key, sizeof(key), "%020" PRIu64, a->obj_offset);
		else
			snprintf(key, sizeof(key), "%s", a->field.name);
		if (reads(a))
			agg_add(agg_get(g, key, a, func, "read"), a, true);
		if (writes(a))
			agg_add(agg_get(g, key, a, func, "write"), a, false);
	}
}

static int cmp_field(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;

	if (a->first->field.offset != b->first->field.offset)
		return a->first->field.offset < b->first->field.offset ? -1 : 1;
	if (strcmp(a->access, b->access))
		return strcmp(a->access, b->access);
	return strcmp(a->func, b->func);
}

static int cmp_key(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	if (c)
		return c;
	if (strcmp(a->access, b->access))
		return strcmp(a->access, b->access);
	return strcmp(a->func, b->func);
}

static void aggs_free(struct aggs *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->v[i].key);
	free(g->v);
}

/* An aggregate's counts and rows, the end of its row. */
static void put_counts(FILE *f, const struct agg *x)
{
	char h[32], p[32], st[32];

	tsv_write_row(f, "%s\t%s\t%s\t%d\n", num(h, x->hitm), num(p, x->peer), num(st, x->stores), x->rows);
}

void c2c_write_fieldmap_tsv(const struct c2c_attr_row *rows, size_t n, const char *type, FILE *f)
{
	struct aggs g = { 0 };

	aggregate(rows, n, type, false, &g);
	if (g.n)
		qsort(g.v, g.n, sizeof(*g.v), cmp_field);
	tsv_write_header(f, (const char *const[]){ "struct", "field", "field_offset", "field_size", "struct_line",
						   "function", "access", "hitm", "peer", "stores", "rows", NULL });
	for (size_t i = 0; i < g.n; i++) {
		const struct agg *x = &g.v[i];
		const struct field_hit *fh = &x->first->field;

		tsv_write_row(f, "%s\t%s.%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\t%s\t", type, type, fh->name,
			      fh->offset, fh->size, fh->offset / 64, x->func, x->access);
		put_counts(f, x);
	}
	aggs_free(&g);
}

void c2c_write_offsetmap_tsv(const struct c2c_attr_row *rows, size_t n, const char *type, FILE *f)
{
	struct aggs g = { 0 };

	aggregate(rows, n, type, true, &g);
	if (g.n)
		qsort(g.v, g.n, sizeof(*g.v), cmp_key);
	tsv_write_header(f, (const char *const[]){ "struct", "offset", "offset_hex", "struct_line", "field",
						   "function", "access", "hitm", "peer", "stores", "rows", NULL });
	for (size_t i = 0; i < g.n; i++) {
		const struct agg *x = &g.v[i];
		uint64_t off = x->first->obj_offset;

		tsv_write_row(f, "%s\t%" PRIu64 "\t0x%" PRIx64 "\t%" PRIu64 "\t%s.%s\t%s\t%s\t", type, off, off,
			      off / 64, type, x->first->field.name, x->func, x->access);
		put_counts(f, x);
	}
	aggs_free(&g);
}

static int cmp_symbol(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;
	double ha = isnan(a->hitm) ? (isnan(a->peer) ? 0 : a->peer) : a->hitm;
	double hb = isnan(b->hitm) ? (isnan(b->peer) ? 0 : b->peer) : b->hitm;
	int c;

	if (ha != hb)
		return ha > hb ? -1 : 1;
	c = strcmp(a->func, b->func);
	return c ? c : strcmp(a->access, b->access);
}

void c2c_write_symbols_tsv(const struct c2c_attr_row *rows, size_t n, FILE *f)
{
	struct aggs g = { 0 };

	aggregate(rows, n, NULL, false, &g);
	if (g.n)
		qsort(g.v, g.n, sizeof(*g.v), cmp_symbol);
	tsv_write_header(f, (const char *const[]){ "symbol", "object_file", "access", "hitm", "peer", "stores", "rows",
						   NULL });
	for (size_t i = 0; i < g.n; i++) {
		tsv_write_row(f, "%s\t%s\t%s\t", g.v[i].func, g.v[i].key, g.v[i].access);
		put_counts(f, &g.v[i]);
	}
	aggs_free(&g);
}

static void print_count(FILE *f, double v, int width)
{
	if (isnan(v))
		fprintf(f, "%*s", width, "-");
	else
		fprintf(f, "%*.1f", width, v);
}

void c2c_print_attribution(const struct c2c_report *r, const struct c2c_attr_row *rows, size_t n,
			   const struct c2c_objects *objs, FILE *f)
{
	const struct c2c_cacheline *cur = NULL;
	size_t named = 0, outside = 0;
	bool peer = r->peer_display;
	struct c2c_pmu_words w;
	char limit[640];
	const char *lim = c2c_report_limit(r, limit, sizeof(limit));

	c2c_pmu_words(r, &w);
	if (lim)
		fprintf(f, "cannot show: %s.\n", lim);
	if (w.legend)
		fprintf(f, "%s\n", w.legend);
	if (!objs || !objs->n)
		fprintf(f, "No object address is known (give --struct S --base ADDR, or --objects FILE from a lab "
			"run): the fields cannot be named; offsets are attributed by code symbol only.\n");
	else
		for (size_t i = 0; i < objs->n; i++)
			fprintf(f, "object: %s = struct %s at 0x%" PRIx64 " (%" PRIu64 " bytes; %s)\n",
				objs->v[i].label, objs->v[i].type, objs->v[i].base, objs->v[i].size,
				objs->v[i].source);
	for (size_t i = 0; i < n; i++) {
		const struct c2c_attr_row *a = &rows[i];
		const struct c2c_offset *o = a->o;

		if (o->cl != cur) {
			cur = o->cl;
			fprintf(f, "\nCacheline %s  %s  %s %s %s %s %s  stores %s\n", cell(cur->v[CL_INDEX]),
				cell(cur->v[CL_ADDRESS]), w.kind, w.rmt,
				or_dash(cur->v[peer ? CL_PEER_RMT : CL_HITM_RMT]), w.lcl,
				or_dash(cur->v[peer ? CL_PEER_LCL : CL_HITM_LCL]), or_dash(cur->v[CL_STORES]));
			fprintf(f, "  %-6s %-46s %8s %9s %9s %8s  %-10s %s\n", "offset", "field", peer ? "peer" : "hitm",
				w.rmt, w.lcl, "stores", "access", "function");
		}
		if (a->obj) {
			char name[400];

			snprintf(name, sizeof(name), "%s.%s", a->obj->type, a->field.name);
			fprintf(f, "  %-6s %-46s ", cell(o->v[OFF_OFFSET]), name);
			named++;
		} else {
			fprintf(f, "  %-6s %-46s ", cell(o->v[OFF_OFFSET]),
				objs && objs->n ? "? (outside every known object)" : "?");
			outside++;
		}
		print_count(f, peer ? a->peer : a->hitm, 8);
		fputc(' ', f);
		print_count(f, peer ? a->peer_rmt : a->hitm_rmt, 9);
		fputc(' ', f);
		print_count(f, peer ? a->peer_lcl : a->hitm_lcl, 9);
		fputc(' ', f);
		print_count(f, a->stores, 8);
		fprintf(f, "  %-10s %s\n", access_of(a), cell(o->v[OFF_SYMBOL]));
	}
	if (!n && lim)
		fprintf(f, "\nThe report has no Pareto offset rows: not a measurement of no sharing (above).\n");
	else if (!n)
		fprintf(f, "\nThe report has no Pareto offset rows (0 shared cachelines, or --stats output).\n");
	else if (objs && objs->n && outside)
		fprintf(f, "\n%zu of %zu offset rows lie outside every known object: their field cannot be "
			"named; they are attributed by code symbol (symbols.tsv).\n", outside, n);
	else if (named)
		fprintf(f, "\nAll %zu offset rows named from BTF.\n", n);
}

static int write_one(const char *dir, const char *name, const struct c2c_attr_row *rows, size_t n,
		     const struct c2c_objects *objs, const char *type, int what, char *err, size_t errlen)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = outfile_open(path, "w");
	switch (what) {
	case 0: c2c_write_fields_tsv(rows, n, f); break;
	case 1: c2c_write_symbols_tsv(rows, n, f); break;
	case 2: c2c_objects_write_tsv(objs, f); break;
	case 3: c2c_write_fieldmap_tsv(rows, n, type, f); break;
	default: c2c_write_offsetmap_tsv(rows, n, type, f); break;
	}
	if (outfile_close(f)) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int c2c_write_attribution_dir(const char *dir, const struct c2c_attr_row *rows, size_t n,
			      const struct c2c_objects *objs, char *err, size_t errlen)
{
	if (write_one(dir, "fields.tsv", rows, n, objs, NULL, 0, err, errlen) < 0 ||
	    write_one(dir, "symbols.tsv", rows, n, objs, NULL, 1, err, errlen) < 0 ||
	    write_one(dir, "objects.tsv", rows, n, objs, NULL, 2, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < objs->n; i++) {
		const char *type = objs->v[i].type;
		char name[160];
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(objs->v[j].type, type);
		if (seen)
			continue;
		snprintf(name, sizeof(name), "fieldmap-%s.tsv", type);
		if (write_one(dir, name, rows, n, objs, type, 3, err, errlen) < 0)
			return -1;
		snprintf(name, sizeof(name), "offsetmap-%s.tsv", type);
		if (write_one(dir, name, rows, n, objs, type, 4, err, errlen) < 0)
			return -1;
	}
	return 0;
}
