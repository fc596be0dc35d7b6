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

/* The columns the claims read; other columns (offset, size, ...) may come. */
static const char *const columns[] = { "struct", "field", "loads", "stores", "hitm_loads", "hitm_stores",
				       "false_hitm", "true_hitm", "other_field" };
#define NCOLS (sizeof(columns) / sizeof(columns[0]))

/* The page_counters a mem_cgroup embeds (by kernel: memsw is swap's union twin). */
static const char *const memcg_counters[] = { "memory", "swap", "memsw", "kmem", "tcpmem" };

/* TAB-split fields of line into f (at most max); their count. */
static int split_tabs(char *line, char **f, int max)
{
	int n = 0;

	for (char *p = line; n < max;) {
		f[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

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

int lines_fields_parse_stream(FILE *f, const char *path, struct lines_fields *lf, char *err, size_t errlen)
{
	char line[1024], *fld[64];
	int idx[NCOLS], lineno = 0, have_header = 0, nf, off_col = -1, size_col = -1;

	memset(lf, 0, sizeof(*lf));
	while (fgets(line, sizeof(line), f)) {
		struct lines_row *r;
		double *num[6];

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		nf = split_tabs(line, fld, 64);
		if (!have_header) {
			for (size_t c = 0; c < NCOLS; c++) {
				idx[c] = -1;
				for (int i = 0; i < nf; i++)
					if (!strcmp(fld[i], columns[c]))
						idx[c] = i;
				if (idx[c] < 0)
					return set_err(err, errlen, "%s:%d: no column '%s' in the header (want struct, "
						       "field, loads, stores, hitm_loads, hitm_stores, false_hitm, "
						       "true_hitm, other_field)", path, lineno, columns[c]);
			}
			for (int i = 0; i < nf; i++) {
				if (!strcmp(fld[i], "offset"))
					off_col = i;
				if (!strcmp(fld[i], "size"))
					size_col = i;
			}
			have_header = 1;
			continue;
		}
		lf->r = xrealloc(lf->r, (lf->n + 1) * sizeof(*lf->r));
		r = &lf->r[lf->n];
		memset(r, 0, sizeof(*r));
		num[0] = &r->loads;
		num[1] = &r->stores;
		num[2] = &r->hitm_loads;
		num[3] = &r->hitm_stores;
		num[4] = &r->false_hitm;
		num[5] = &r->true_hitm;
		for (size_t c = 0; c < NCOLS; c++)
			if (idx[c] >= nf)
				return set_err(err, errlen, "%s:%d: %d fields, the header has %zu or more", path, lineno,
					       nf, NCOLS);
		str_setf(r->st, sizeof(r->st), "%s", fld[idx[0]]);
		str_setf(r->field, sizeof(r->field), "%s", fld[idx[1]]);
		str_setf(r->other, sizeof(r->other), "%s", fld[idx[8]]);
		for (int c = 0; c < 6; c++)
			if (count_field(fld[idx[2 + c]], num[c]))
				return set_err(err, errlen, "%s:%d: field %s: '%s' is not a count", path, lineno,
					       columns[2 + c], fld[idx[2 + c]]);
		r->offset = r->size = -1;
		for (int c = 0; c < 2; c++) {
			int col = c ? size_col : off_col;
			double v;

			if (col < 0)
				continue;
			if (col >= nf || count_field(fld[col], &v) || v != floor(v) || v >= 0x1p63)
				return set_err(err, errlen, "%s:%d: field %s: '%s' is not a byte count", path, lineno,
					       c ? "size" : "offset", col < nf ? fld[col] : "");
			*(c ? &r->size : &r->offset) = (long)v;
		}
		lf->n++;
	}
	if (!have_header)
		return set_err(err, errlen, "%s: empty (no header line)", path);
	return 0;
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
	FILE *f = fopen(path, "re");
	char line[256], unit[64], ops[64];
	int lineno = 0, rows = 0;

	memset(o, 0, sizeof(*o));
	o->ops = -1;
	if (!f)
		return set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#' || !strncmp(line, "windows\t", 8))
			continue;
		if (rows++ || sscanf(line, "%ld\t%ld\t%63[^\t]\t%63s", &o->windows, &o->counted, ops, unit) != 4 ||
		    o->windows < 0 || o->counted < 0 || o->counted > o->windows) {
			fclose(f);
			return set_err(err, errlen, "%s:%d: want one row: windows, counted, ops, unit", path, lineno);
		}
		if (o->counted && count_field(ops, &o->ops)) {
			fclose(f);
			return set_err(err, errlen, "%s:%d: field ops: '%s' is not a count", path, lineno, ops);
		}
		str_setf(o->unit, sizeof(o->unit), "%s", unit);
	}
	fclose(f);
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
