// SPDX-License-Identifier: GPL-2.0
/*
 * The lines plugin's output, read back (c2c/lines_parse.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_parse.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/tsv.h"

enum row_kind { R_WINDOW, R_LINE, R_SHAPE, R_SITE, R_KINDS };

#define COUNTS "loads", "stores", "load_hitm", "store_hitm", "store_inval", "false", "true"

/* The columns each row kind is read by, by the names of its #fields line
 * (util/tsv.h); '?': a later writer's, absent from older files. */
static const char *const window_cols[] = { "index", "windows", "open", "accesses", "load_hitm", "store_hitm",
					   "store_inval", "false", "true", "?insns", "?insns_vcpu", NULL };
enum { W_INSNS = 9, W_INSNS_VCPU };
static const char *const line_cols[] = { "paddr", "vaddr", "win_loads", "win_stores", COUNTS,
					 "other_shape_accesses", "other_shape_events", "other_site_accesses",
					 "other_site_events", "?window", NULL };
enum { L_WINDOW = 15 };
static const char *const shape_cols[] = { "paddr", "off", "size", COUNTS, "other_mask", NULL };
static const char *const site_cols[] = { "paddr", "pc", "vcpu", "rw", "off", "size", COUNTS, "prev_vcpu",
					 "prev_pc", "other_mask", NULL };
static const struct tsv_kind kinds[] = {
	[R_WINDOW] = { "window", window_cols },
	[R_LINE] = { "line", line_cols },
	[R_SHAPE] = { "shape", shape_cols },
	[R_SITE] = { "site", site_cols },
	[R_KINDS] = { NULL, NULL },
};

/* A u64 in decimal, or hex with 0x (as tsv_u64 reads a cell). */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	if (!*s || !((*s >= '0' && *s <= '9') || (base == 16 && strchr("abcdefABCDEF", *s))))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

static int field_uint(struct tsv *t, int i, unsigned max, unsigned *v)
{
	uint64_t x;

	if (tsv_u64(t, i, &x))
		return -1;
	if (x > max)
		return tsv_fail(t, i, "more than %u", max);
	*v = (unsigned)x;
	return 0;
}

/* Seven counts from column i on. */
static int field_counts(struct tsv *t, int i, struct lines_counts *c)
{
	uint64_t *dst[] = { &c->loads, &c->stores, &c->load_hitm, &c->store_hitm, &c->store_inval,
			    &c->false_sharing, &c->true_sharing };

	for (int j = 0; j < 7; j++)
		if (tsv_u64(t, i + j, dst[j]))
			return -1;
	return 0;
}

#define GROW(arr, n, cap) \
	do { \
		if ((n) == (cap)) { \
			(cap) = (cap) ? 2 * (cap) : 16; \
			(arr) = xrealloc((arr), (cap) * sizeof(*(arr))); \
		} \
	} while (0)

struct caps {
	size_t meta, windows, lines, shapes, sites;
};

/* The optional insns and insns_vcpu columns ("-": not counted). */
static int window_insns(struct tsv *t, struct lines_window_row *w)
{
	const char *vc = tsv_get(t, W_INSNS_VCPU), *s;
	unsigned n = 0;

	if (!tsv_has(t, W_INSNS) || !strcmp(tsv_get(t, W_INSNS), "-"))
		return 0;
	if (tsv_u64(t, W_INSNS, &w->insns))
		return -1;
	w->insns_counted = true;
	if (!tsv_has(t, W_INSNS_VCPU) || !strcmp(vc, "-"))
		return 0;
	for (s = vc; *s; n++) {
		char num[24];
		size_t len = strcspn(s, ",");

		if (n >= LINES_MAX_VCPUS || !len || len >= sizeof(num))
			return tsv_fail(t, W_INSNS_VCPU, "'%s' is not a count per vCPU, comma-separated", vc);
		memcpy(num, s, len);
		num[len] = '\0';
		if (parse_u64(num, &w->insns_vcpu[n]))
			return tsv_fail(t, W_INSNS_VCPU, "'%s' is not a count per vCPU, comma-separated", vc);
		s += len + (s[len] == ',');
	}
	w->insns_per_vcpu = n > 0;
	return 0;
}

static int window_row(struct tsv *t, struct lines_file *f, struct caps *cap)
{
	struct lines_window_row *w;
	uint64_t v[9];

	for (int i = 0; i < 9; i++)
		if (tsv_u64(t, i, &v[i]))
			return -1;
	GROW(f->windows, f->nwindows, cap->windows);
	w = &f->windows[f->nwindows++];
	*w = (struct lines_window_row){ .index = v[0], .windows = v[1], .open = v[2] != 0, .accesses = v[3], .load_hitm = v[4],
					.store_hitm = v[5], .store_inval = v[6], .false_sharing = v[7],
					.true_sharing = v[8] };
	return window_insns(t, w);
}

static int line_row(struct tsv *t, struct lines_file *f, struct caps *cap)
{
	struct lines_pline l = { .window = -1 };
	const char *win = tsv_get(t, L_WINDOW);

	if (tsv_has(t, L_WINDOW) && strcmp(win, "-")) {
		uint64_t w;

		if (parse_u64(win, &w) || w > INT64_MAX)
			return tsv_fail(t, L_WINDOW, "'%s' is not a window number", win);
		l.window = (int64_t)w;
	}
	if (tsv_u64(t, 0, &l.paddr) || tsv_u64(t, 1, &l.vaddr) || tsv_u64(t, 2, &l.win_loads) ||
	    tsv_u64(t, 3, &l.win_stores) || field_counts(t, 4, &l.c) || tsv_u64(t, 11, &l.other_shape_accesses) ||
	    tsv_u64(t, 12, &l.other_shape_events) || tsv_u64(t, 13, &l.other_site_accesses) ||
	    tsv_u64(t, 14, &l.other_site_events))
		return -1;
	if (l.paddr & 63)
		return tsv_fail(t, 0, "not the start of a 64-byte line");
	GROW(f->lines, f->nlines, cap->lines);
	f->lines[f->nlines++] = l;
	cap->shapes = cap->sites = 0;
	return 0;
}

/* The line a shape or site row belongs to: the last line row, same paddr
 * (each window's lines come with their own shapes and sites). */
static struct lines_pline *owner(struct tsv *t, struct lines_file *f)
{
	uint64_t paddr;

	if (tsv_u64(t, 0, &paddr))
		return NULL;
	if (!f->nlines || f->lines[f->nlines - 1].paddr != paddr) {
		tsv_fail(t, 0, "0x%llx: no line row before it", (unsigned long long)paddr);
		return NULL;
	}
	return &f->lines[f->nlines - 1];
}

static int shape_row(struct tsv *t, struct lines_file *f, struct caps *cap)
{
	struct lines_pline *l = owner(t, f);
	struct lines_pshape s = { 0 };

	if (!l || field_uint(t, 1, 63, &s.off) || field_uint(t, 2, 64, &s.size) || field_counts(t, 3, &s.c) ||
	    tsv_u64(t, 10, &s.other_mask))
		return -1;
	if (!s.size || s.off + s.size > 64)
		return tsv_fail(t, 2, "the access does not fit its line");
	GROW(l->shapes, l->nshapes, cap->shapes);
	l->shapes[l->nshapes++] = s;
	return 0;
}

static int site_row(struct tsv *t, struct lines_file *f, struct caps *cap)
{
	struct lines_pline *l = owner(t, f);
	struct lines_psite s = { 0 };
	const char *rw = tsv_get(t, 3), *prev = tsv_get(t, 13);
	unsigned pv = 0;

	if (!l || tsv_u64(t, 1, &s.pc) || field_uint(t, 2, LINES_MAX_VCPUS - 1, &s.vcpu) ||
	    field_uint(t, 4, 63, &s.off) || field_uint(t, 5, 64, &s.size) || field_counts(t, 6, &s.c) ||
	    tsv_u64(t, 14, &s.prev_pc) || tsv_u64(t, 15, &s.other_mask))
		return -1;
	if (strcmp(rw, "R") && strcmp(rw, "W"))
		return tsv_fail(t, 3, "'%s' is neither R nor W", rw);
	s.store = rw[0] == 'W';
	if (!s.size || s.off + s.size > 64)
		return tsv_fail(t, 5, "the access does not fit its line");
	if (!strcmp(prev, "-")) {
		s.prev_vcpu = -1;
	} else {
		if (field_uint(t, 13, LINES_MAX_VCPUS - 1, &pv))
			return -1;
		s.prev_vcpu = (int)pv;
	}
	GROW(l->sites, l->nsites, cap->sites);
	l->sites[l->nsites++] = s;
	return 0;
}

/* "# key<TAB>value": a meta line (the value all after the first tab);
 * a comment without a tab is only a comment. */
static void meta_line(struct tsv *t, struct lines_file *f, struct caps *cap)
{
	const char *key = tsv_cell(t, 0);
	size_t len = 0;
	char *value;

	if (key[1] != ' ' || tsv_ncells(t) < 2)
		return;
	for (int j = 1; j < tsv_ncells(t); j++)
		len += strlen(tsv_cell(t, j)) + 1;
	value = xmalloc(len);
	value[0] = '\0';
	for (int j = 1; j < tsv_ncells(t); j++) {
		if (j > 1)
			strcat(value, "\t");
		strcat(value, tsv_cell(t, j));
	}
	GROW(f->meta, f->nmeta, cap->meta);
	f->meta[f->nmeta].key = xstrdup(key + 2);
	f->meta[f->nmeta++].value = value;
}

/* The rows after the format line, up to "# end". */
static int parse_rows(struct tsv *t, struct lines_file *out)
{
	struct caps cap = { 0 };
	bool ended = false;
	int r;

	while ((r = tsv_next(t)) != TSV_END) {
		if (r < 0)
			return -1;
		if (ended)
			return tsv_fail(t, -1, "text after '# end'");
		if (r == TSV_COMMENT) {
			if (t->lineno == 1)
				continue;	/* the format line */
			if (!strcmp(tsv_cell(t, 0), "# end") && tsv_ncells(t) == 1)
				ended = true;
			else
				meta_line(t, out, &cap);
			continue;
		}
		r = t->kind == R_WINDOW ? window_row(t, out, &cap) :
		    t->kind == R_LINE   ? line_row(t, out, &cap) :
		    t->kind == R_SHAPE  ? shape_row(t, out, &cap) :
					  site_row(t, out, &cap);
		if (r)
			return -1;
	}
	if (!ended)
		return set_err(t->err, t->errlen, "%s:%d: cut short: no '# end' line (qemu died before the plugin "
			       "finished?)", t->path, t->lineno);
	return 0;
}

int lines_parse_text(const char *name, const char *text, size_t len, struct lines_file *out, char *err,
		     size_t errlen)
{
	struct tsv t;
	int rc, v;

	memset(out, 0, sizeof(*out));
	if (!len)
		return set_err(err, errlen, "%s: empty: the plugin wrote nothing", name);
	rc = tsv_open_kinds(&t, name, text, len, kinds, TSV_COMMENTS, err, errlen);
	v = rc ? 0 : tsv_format(&t, "lines");
	if (!rc && !v)
		rc = set_err(err, errlen, "%s:1: not the lines plugin's output (no '# memcg-lab lines N' first)", name);
	else if (!rc && v != LINES_FORMAT_VERSION)
		rc = set_err(err, errlen, "%s:1: format version %d; this lab reads %d", name, v, LINES_FORMAT_VERSION);
	if (!rc) {
		out->version = v;
		rc = parse_rows(&t, out);
	}
	tsv_close(&t);
	if (rc)
		lines_file_free(out);
	return rc;
}

int lines_parse_file(const char *path, struct lines_file *out, char *err, size_t errlen)
{
	size_t len;
	char *text = read_text(path, &len);
	int rc;

	if (!text) {
		memset(out, 0, sizeof(*out));
		return set_err(err, errlen, "%s: %s", path, strerror(errno));
	}
	rc = lines_parse_text(path, text, len, out, err, errlen);
	free(text);
	return rc;
}

void lines_file_free(struct lines_file *f)
{
	for (size_t i = 0; i < f->nmeta; i++) {
		free(f->meta[i].key);
		free(f->meta[i].value);
	}
	for (size_t i = 0; i < f->nlines; i++) {
		free(f->lines[i].shapes);
		free(f->lines[i].sites);
	}
	free(f->meta);
	free(f->windows);
	free(f->lines);
	memset(f, 0, sizeof(*f));
}

const char *lines_meta(const struct lines_file *f, const char *key)
{
	for (size_t i = 0; i < f->nmeta; i++)
		if (!strcmp(f->meta[i].key, key))
			return f->meta[i].value;
	return NULL;
}

int lines_meta_u64(const struct lines_file *f, const char *key, uint64_t *v)
{
	const char *s = lines_meta(f, key);

	return s && !parse_u64(s, v) ? 0 : -1;
}

const struct lines_pline *lines_file_line(const struct lines_file *f, uint64_t paddr)
{
	for (size_t i = 0; i < f->nlines; i++)
		if (f->lines[i].paddr == (paddr & ~63ULL))
			return &f->lines[i];
	return NULL;
}

const struct lines_pline *lines_file_line_at_vaddr(const struct lines_file *f, uint64_t vaddr)
{
	for (size_t i = 0; i < f->nlines; i++)
		if (f->lines[i].vaddr == (vaddr & ~63ULL))
			return &f->lines[i];
	return NULL;
}
