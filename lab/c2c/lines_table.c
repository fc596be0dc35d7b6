// SPDX-License-Identifier: GPL-2.0
/* The plugin's counts per struct field (c2c/lines_table.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_table.h"
#include "util/err.h"
#include "util/outfile.h"
#include "util/tsv.h"

static struct lines_frow *row_of(struct lines_ftable *t, const struct lines_gname *nm)
{
	struct lines_frow *r;

	for (size_t i = t->n; i-- > 0;)
		if (!strcmp(t->r[i].field, nm->field) && !strcmp(t->r[i].st, nm->st))
			return &t->r[i];
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->r = xrealloc(t->r, t->cap * sizeof(*t->r));
	}
	r = &t->r[t->n++];
	memset(r, 0, sizeof(*r));
	r->st = xstrdup(nm->st);
	r->field = xstrdup(nm->field);
	r->off = nm->off;
	r->size = nm->size;
	return r;
}

void lines_counts_add(struct lines_counts *a, const struct lines_counts *b)
{
	a->loads += b->loads;
	a->stores += b->stores;
	a->load_hitm += b->load_hitm;
	a->store_hitm += b->store_hitm;
	a->store_inval += b->store_inval;
	a->false_sharing += b->false_sharing;
	a->true_sharing += b->true_sharing;
}

static void other_add(struct lines_frow *r, const char *name, uint64_t off)
{
	size_t i = 0;

	for (size_t k = 0; k < r->nother; k++)
		if (!strcmp(r->other[k], name))
			return;
	while (i < r->nother && r->other_off[i] <= off)
		i++;
	r->other = xrealloc(r->other, (r->nother + 1) * sizeof(*r->other));
	r->other_off = xrealloc(r->other_off, (r->nother + 1) * sizeof(*r->other_off));
	memmove(r->other + i + 1, r->other + i, (r->nother - i) * sizeof(*r->other));
	memmove(r->other_off + i + 1, r->other_off + i, (r->nother - i) * sizeof(*r->other_off));
	r->other[i] = xstrdup(name);
	r->other_off[i] = off;
	r->nother++;
}

void lines_table_add(struct lines_ftable *t, const struct lines_guest *g, const struct lines_pline *l)
{
	int64_t w = l->window;
	struct lines_gname nm;

	t->lines++;
	/* Every field on the line, inside an object, has its row. */
	for (uint64_t a = l->vaddr; a < l->vaddr + 64;) {
		uint64_t next;

		if (!lines_guest_name(g, w, a, &nm)) {
			a++;
			continue;
		}
		row_of(t, &nm);
		next = nm.base + nm.off + nm.size;
		a = next > a ? next : a + 1;
	}
	for (size_t i = 0; i < l->nshapes; i++) {
		const struct lines_pshape *s = &l->shapes[i];
		struct lines_frow *r;

		if (!lines_guest_name(g, w, l->vaddr + s->off, &nm)) {
			t->unnamed_events += s->c.load_hitm + s->c.store_hitm + s->c.store_inval;
			continue;
		}
		r = row_of(t, &nm);
		lines_counts_add(&r->c, &s->c);
		for (uint64_t b = 0; b < 64; b++) {
			struct lines_gname o;
			uint64_t end;

			if (!(s->other_mask >> b & 1) || !lines_guest_name(g, w, l->vaddr + b, &o))
				continue;
			/* The same field of another instance is the same name. */
			other_add(r, o.field, o.off);
			end = o.base + o.off + o.size - l->vaddr;	/* past the field: its other bytes */
			if (end > b + 1)
				b = end - 1;
		}
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct lines_frow *x = a, *y = b;
	int c = strcmp(x->st, y->st);

	if (c)
		return c;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return strcmp(x->field, y->field);
}

const struct lines_frow *lines_table_row(const struct lines_ftable *t, const char *st, const char *field)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->r[i].st, st) && !strcmp(t->r[i].field, field))
			return &t->r[i];
	return NULL;
}

const char *const lines_table_cols[] = { "struct", "field", "offset", "size", "loads", "stores", "hitm_loads",
					 "hitm_stores", "false_hitm", "true_hitm", "other_field", NULL };

int lines_table_write(const struct lines_ftable *t, const char *path, char *err, size_t errlen)
{
	struct lines_frow *rows = t->n ? xmalloc(t->n * sizeof(*rows)) : NULL;
	FILE *f = outfile_open(path, "w");

	/* qsort and memcpy take no NULL, not even for none. */
	if (t->n) {
		memcpy(rows, t->r, t->n * sizeof(*rows));
		qsort(rows, t->n, sizeof(*rows), row_cmp);
	}
	tsv_write_header(f, lines_table_cols);
	for (size_t i = 0; i < t->n; i++) {
		const struct lines_frow *r = &rows[i];

		tsv_write_row(f, "%s\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t", r->st, r->field,
			(unsigned long long)r->off, (unsigned long long)r->size, (unsigned long long)r->c.loads,
			(unsigned long long)r->c.stores, (unsigned long long)r->c.load_hitm,
			(unsigned long long)(r->c.store_hitm + r->c.store_inval),
			(unsigned long long)r->c.false_sharing, (unsigned long long)r->c.true_sharing);
		if (!r->nother)
			fputc('-', f);
		for (size_t k = 0; k < r->nother; k++)
			tsv_write_row(f, "%s%s", k ? "+" : "", r->other[k]);
		fputc('\n', f);
	}
	free(rows);
	if (outfile_close(f))
		return set_err(err, errlen, "%s: cannot write: %s", path, strerror(errno));
	return 0;
}

void lines_table_free(struct lines_ftable *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (size_t k = 0; k < t->r[i].nother; k++)
			free(t->r[i].other[k]);
		free(t->r[i].other);
		free(t->r[i].other_off);
		free(t->r[i].st);
		free(t->r[i].field);
	}
	free(t->r);
	memset(t, 0, sizeof(*t));
}
