// SPDX-License-Identifier: GPL-2.0
/* lines/fields.tsv, read for the cacheline claims (report/lines_fields.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/lines_fields.h"
#include "util/err.h"
#include "util/strfmt.h"
#include "util/tsv.h"

/* The columns the claims read (offset and size where the file has them);
 * other columns may come. */
static const char *const columns[] = { "struct", "field", "loads", "stores", "hitm_loads", "hitm_stores",
				       "false_hitm", "true_hitm", "other_field", "?offset", "?size", NULL };
enum { C_STRUCT, C_FIELD, C_LOADS, C_OTHER = 8, C_OFFSET, C_SIZE };

/* The page_counters a mem_cgroup embeds (by kernel: memsw is swap's union twin). */
static const char *const memcg_counters[] = { "memory", "swap", "memsw", "kmem", "tcpmem" };

static int count_field(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end == s || *end || errno || !isfinite(*v) || *v < 0 ? -1 : 0;
}

int lines_fields_load(const char *path, struct lines_fields *lf, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	int r;

	memset(lf, 0, sizeof(*lf));
	if (!f)
		return set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
	r = lines_fields_parse_stream(f, path, lf, err, errlen);
	fclose(f);
	return r;
}

/* One row of fields.tsv: 0, or -1 with err naming its column. */
static int fields_row(struct tsv *t, struct lines_row *row)
{
	double *num[6] = { &row->loads, &row->stores, &row->hitm_loads, &row->hitm_stores, &row->false_hitm,
			   &row->true_hitm };

	memset(row, 0, sizeof(*row));
	str_setf(row->st, sizeof(row->st), "%s", tsv_get(t, C_STRUCT));
	str_setf(row->field, sizeof(row->field), "%s", tsv_get(t, C_FIELD));
	str_setf(row->other, sizeof(row->other), "%s", tsv_get(t, C_OTHER));
	for (int c = 0; c < 6; c++)
		if (count_field(tsv_get(t, C_LOADS + c), num[c]))
			return tsv_fail(t, C_LOADS + c, "'%s' is not a count", tsv_get(t, C_LOADS + c));
	row->offset = row->size = -1;
	for (int c = C_OFFSET; c <= C_SIZE; c++) {
		double v;

		if (!tsv_has(t, c))
			continue;
		if (count_field(tsv_get(t, c), &v) || v != floor(v) || v >= 0x1p63)
			return tsv_fail(t, c, "'%s' is not a byte count", tsv_get(t, c));
		*(c == C_SIZE ? &row->size : &row->offset) = (long)v;
	}
	return 0;
}

int lines_fields_parse_stream(FILE *f, const char *path, struct lines_fields *lf, char *err, size_t errlen)
{
	struct tsv t;
	int r;

	memset(lf, 0, sizeof(*lf));
	r = tsv_open_stream(&t, f, path, columns, 0, err, errlen);
	while (!r && (r = tsv_next(&t)) == TSV_ROW) {
		lf->r = xrealloc(lf->r, (lf->n + 1) * sizeof(*lf->r));
		r = fields_row(&t, &lf->r[lf->n]);
		lf->n += !r;
	}
	tsv_close(&t);
	return r < 0 ? -1 : 0;
}

void lines_fields_free(struct lines_fields *lf)
{
	free(lf->r);
	memset(lf, 0, sizeof(*lf));
}

static bool memcg_counter(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(memcg_counters) / sizeof(memcg_counters[0]); i++)
		if (strlen(memcg_counters[i]) == len && !strncmp(name, memcg_counters[i], len))
			return true;
	return false;
}

/* Does the row (st, field) name q_st.q_field?  page_counter.F is also each
 * page_counter of mem_cgroup (memory.F, swap.F, ...), and the union's
 * "swap|memsw.F" where the run's cgroup version was not known
 * (c2c/field_at.h). */
static bool names(const char *st, const char *field, const char *q_st, const char *q_field)
{
	const char *dot = strchr(field, '.');

	if (!strcmp(st, q_st) && !strcmp(field, q_field))
		return true;
	if (strcmp(q_st, "page_counter") || strcmp(st, "mem_cgroup") || !dot || strcmp(dot + 1, q_field))
		return false;
	for (const char *p = field; p < dot;) {
		size_t len = strcspn(p, "|.");

		if (!memcg_counter(p, len))
			return false;
		p += len + (p[len] == '|');
	}
	return true;
}

/* One name of the other side: "usage" or a memcg's "memory.usage" for vs "usage". */
static bool other_one(const char *other, size_t len, const char *vs)
{
	const char *dot = NULL;

	for (size_t i = 0; i < len; i++)
		if (other[i] == '.')
			dot = other + i;
	if (len == strlen(vs) && !strncmp(other, vs, len))
		return true;
	return dot && !strchr(vs, '.') && (size_t)(other + len - dot - 1) == strlen(vs) && !strncmp(dot + 1, vs, strlen(vs));
}

/* The other side's field is vs: one of the '+'-joined names c2c/lines_table.c writes. */
static bool other_is(const char *other, const char *vs)
{
	for (const char *p = other;;) {
		size_t len = strcspn(p, "+");

		if (other_one(p, len, vs))
			return true;
		if (!p[len])
			return false;
		p += len + 1;
	}
}

static double column(const struct lines_row *r, const char *col)
{
	if (!strcmp(col, "loads"))
		return r->loads;
	if (!strcmp(col, "stores"))
		return r->stores;
	if (!strcmp(col, "hitm_loads"))
		return r->hitm_loads;
	if (!strcmp(col, "hitm_stores"))
		return r->hitm_stores;
	if (!strcmp(col, "false_hitm"))
		return r->false_hitm;
	if (!strcmp(col, "true_hitm"))
		return r->true_hitm;
	return r->hitm_loads + r->hitm_stores;	/* "hitm" */
}

double lines_fields_sum(const struct lines_fields *lf, const struct claim_lines *q, int *nrows)
{
	double sum = 0;

	*nrows = 0;
	for (size_t i = 0; i < lf->n; i++) {
		const struct lines_row *r = &lf->r[i];
		bool match = false;

		for (int k = 0; k < q->nfields && !match; k++)
			match = names(r->st, r->field, q->st, q->field[k]);
		if (!match)
			continue;
		/* A field counted against another side is 0 against this one. */
		(*nrows)++;
		if (!q->vs[0] || other_is(r->other, q->vs))
			sum += column(r, q->column);
	}
	return sum;
}

int lines_ops_load(const char *path, struct lines_ops *o, char *err, size_t errlen)
{
	static const char *const cols[] = { "windows", "counted", "ops", "unit", NULL };
	enum { WINDOWS, COUNTED, OPS, UNIT };
	struct tsv t;
	int r, rows = 0;

	memset(o, 0, sizeof(*o));
	o->ops = -1;
	r = tsv_open(&t, path, cols, 0, err, errlen);
	while (!r && (r = tsv_next(&t)) == TSV_ROW) {
		if (rows++)
			r = tsv_fail(&t, -1, "a second row: want one (windows, counted, ops, unit)");
		else if (tsv_long(&t, WINDOWS, &o->windows) || tsv_long(&t, COUNTED, &o->counted))
			r = -1;
		else if (o->windows < 0 || o->counted < 0 || o->counted > o->windows)
			r = tsv_fail(&t, COUNTED, "%ld of %ld windows: want one row: windows, counted, ops, unit",
				     o->counted, o->windows);
		else if (o->counted && count_field(tsv_get(&t, OPS), &o->ops))
			r = tsv_fail(&t, OPS, "'%s' is not a count", tsv_get(&t, OPS));
		else
			r = 0;
		str_setf(o->unit, sizeof(o->unit), "%s", tsv_get(&t, UNIT));
	}
	tsv_close(&t);
	if (r < 0)
		return -1;
	return rows ? 0 : set_err(err, errlen, "%s: no row", path);
}

bool lines_ops_of(const char *fields_path, double *ops, char *unit, size_t unitlen, char *why, size_t n)
{
	const char *slash = strrchr(fields_path, '/');
	char *p = xasprintf("%.*s" LINES_OPS_TSV, slash ? (int)(slash - fields_path + 1) : 0, fields_path);
	struct lines_ops o;
	char err[512];
	bool ok = false;

	if (access(p, F_OK))
		str_setf(why, n, "no %s beside %s: the guest run counted no operations in its windows (a run from "
			 "before the counts)", LINES_OPS_TSV, fields_path);
	else if (lines_ops_load(p, &o, err, sizeof(err)))
		str_setf(why, n, "%s", err);
	else if (!o.counted || o.ops <= 0)
		str_setf(why, n, "%s: none of the %ld windows counted the driver's operations", p, o.windows);
	else if (o.counted < o.windows)
		str_setf(why, n, "%s: only %ld of the %ld windows counted the driver's operations", p, o.counted,
			 o.windows);
	else if (!strcmp(o.unit, "mixed"))
		str_setf(why, n, "%s: the windows counted operations of different units", p);
	else
		ok = true;
	if (ok) {
		*ops = o.ops;
		str_setf(unit, unitlen, "%s", o.unit);
	}
	free(p);
	return ok;
}

char *lines_dir_of(const char *dir, bool in_vm, const char *sub)
{
	const char *where[] = { "%s/lines/%s%s", "%s/../../lines/%s%s" };

	for (int i = 0; i < (in_vm ? 2 : 1); i++) {
		char *d = xasprintf(where[i], dir, sub ? sub : "", sub ? "/" : "");
		char *f = xasprintf("%s" LINES_FIELDS_FILE, d);
		bool yes = !access(f, F_OK);

		free(f);
		if (yes)
			return d;
		free(d);
	}
	return NULL;
}

void lines_field_pair_add(struct lines_field_pair **rows, size_t *n, const struct lines_row *r, bool side_b)
{
	struct lines_field_pair *x = NULL;
	double *v;

	for (size_t i = 0; i < *n && !x; i++)
		if (!strcmp((*rows)[i].st, r->st) && !strcmp((*rows)[i].field, r->field))
			x = &(*rows)[i];
	if (!x) {
		*rows = xrealloc(*rows, (*n + 1) * sizeof(**rows));
		x = &(*rows)[(*n)++];
		memset(x, 0, sizeof(*x));
		x->st = r->st;
		x->field = r->field;
		x->offset = r->offset;
	}
	v = side_b ? x->b : x->a;
	v[0] += r->hitm_loads + r->hitm_stores;
	v[1] += r->false_hitm;
	v[2] += r->true_hitm;
}

static int by_struct_offset(const void *p, const void *q)
{
	const struct lines_field_pair *x = p, *y = q;
	int c = strcmp(x->st, y->st);

	if (c)
		return c;
	if (x->offset != y->offset)
		return x->offset < 0 ? 1 : y->offset < 0 ? -1 : x->offset < y->offset ? -1 : 1;
	return strcmp(x->field, y->field);
}

void lines_field_pair_sort(struct lines_field_pair *rows, size_t n)
{
	if (n)
		qsort(rows, n, sizeof(*rows), by_struct_offset);
}
