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

enum row_kind { R_WINDOW, R_LINE, R_SHAPE, R_SITE, R_KINDS };

static const char *const kind_names[R_KINDS] = { "window", "line", "shape", "site" };

#define COUNTS "loads", "stores", "load_hitm", "store_hitm", "store_inval", "false", "true"
#define MAX_COLS 24

/* The columns each row needs, in the order they are read. */
static const char *const need[R_KINDS][MAX_COLS] = {
	[R_WINDOW] = { "index", "windows", "open", "accesses", "load_hitm", "store_hitm", "store_inval", "false",
		       "true" },
	[R_LINE] = { "paddr", "vaddr", "win_loads", "win_stores", COUNTS, "other_shape_accesses",
		     "other_shape_events", "other_site_accesses", "other_site_events" },
	[R_SHAPE] = { "paddr", "off", "size", COUNTS, "other_mask" },
	[R_SITE] = { "paddr", "pc", "vcpu", "rw", "off", "size", COUNTS, "prev_vcpu", "prev_pc", "other_mask" },
};

/* Columns a row may have (a later writer's): -1 in opt_col when absent. */
enum { OPT_LINE_WINDOW, OPT_WINDOW_INSNS, OPT_WINDOW_INSNS_VCPU, OPT_COLS };
static const struct {
	enum row_kind kind;
	const char *name;
} optional[OPT_COLS] = {
	[OPT_LINE_WINDOW] = { R_LINE, "window" },
	[OPT_WINDOW_INSNS] = { R_WINDOW, "insns" },
	[OPT_WINDOW_INSNS_VCPU] = { R_WINDOW, "insns_vcpu" },
};

struct parser {
	const char *name;
	unsigned lineno;
	char *err;
	size_t errlen;
	/* need[k][i] is field col[k][i] of a row (0: the row kind itself). */
	int col[R_KINDS][MAX_COLS];
	int opt_col[OPT_COLS];
	bool have_fields[R_KINDS];
	char *fields[MAX_COLS * 2];
	int nfields;
};

static int perr(struct parser *p, const char *field, const char *fmt, const char *what)
{
	char why[160];

	snprintf(why, sizeof(why), fmt, what);
	if (field)
		return set_err(p->err, p->errlen, "%s:%u: field %s: %s", p->name, p->lineno, field, why);
	return set_err(p->err, p->errlen, "%s:%u: %s", p->name, p->lineno, why);
}

/* A u64 in decimal, or hex with 0x. */
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

static int field_u64(struct parser *p, enum row_kind k, int i, uint64_t *v)
{
	const char *s = p->fields[p->col[k][i]];

	if (parse_u64(s, v))
		return perr(p, need[k][i], "'%s' is not a number", s);
	return 0;
}

static int field_uint(struct parser *p, enum row_kind k, int i, unsigned max, unsigned *v)
{
	uint64_t x;

	if (field_u64(p, k, i, &x))
		return -1;
	if (x > max) {
		char lim[32];

		snprintf(lim, sizeof(lim), "%u", max);
		return perr(p, need[k][i], "more than %s", lim);
	}
	*v = (unsigned)x;
	return 0;
}

/* Seven counts from column i on. */
static int field_counts(struct parser *p, enum row_kind k, int i, struct lines_counts *c)
{
	uint64_t *dst[] = { &c->loads, &c->stores, &c->load_hitm, &c->store_hitm, &c->store_inval,
			    &c->false_sharing, &c->true_sharing };

	for (int j = 0; j < 7; j++)
		if (field_u64(p, k, i + j, dst[j]))
			return -1;
	return 0;
}

static int split_row(struct parser *p, char *line)
{
	p->nfields = 0;
	for (char *s = line;;) {
		char *tab = strchr(s, '\t');

		if (p->nfields == (int)(sizeof(p->fields) / sizeof(p->fields[0])))
			return perr(p, NULL, "%s", "more than 48 fields");
		p->fields[p->nfields++] = s;
		if (!tab)
			break;
		*tab = '\0';
		s = tab + 1;
	}
	return 0;
}

static int fields_line(struct parser *p)
{
	enum row_kind k;

	if (p->nfields < 2)
		return perr(p, NULL, "%s", "#fields names no row kind");
	for (k = 0; k < R_KINDS; k++)
		if (!strcmp(p->fields[1], kind_names[k]))
			break;
	if (k == R_KINDS)
		return 0;	/* a row kind of a later writer: its rows are skipped */
	for (int i = 0; i < MAX_COLS && need[k][i]; i++) {
		p->col[k][i] = -1;
		/* Field 1 of #fields names the kind, as field 0 of a row does. */
		for (int j = 2; j < p->nfields; j++)
			if (!strcmp(p->fields[j], need[k][i]))
				p->col[k][i] = j - 1;
		if (p->col[k][i] < 0)
			return perr(p, need[k][i], "%s", "missing from #fields");
	}
	for (int o = 0; o < OPT_COLS; o++) {
		if (optional[o].kind != k)
			continue;
		p->opt_col[o] = -1;
		for (int j = 2; j < p->nfields; j++)
			if (!strcmp(p->fields[j], optional[o].name))
				p->opt_col[o] = j - 1;
	}
	p->have_fields[k] = true;
	return 0;
}

static int row_width(struct parser *p, enum row_kind k)
{
	for (int i = 0; i < MAX_COLS && need[k][i]; i++)
		if (p->col[k][i] >= p->nfields)
			return perr(p, need[k][i], "%s", "missing (the row is short)");
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
static int window_insns(struct parser *p, struct lines_window_row *w)
{
	int ic = p->opt_col[OPT_WINDOW_INSNS], vc = p->opt_col[OPT_WINDOW_INSNS_VCPU];
	const char *s;
	unsigned n = 0;

	if (ic < 0 || ic >= p->nfields || !strcmp(p->fields[ic], "-"))
		return 0;
	if (parse_u64(p->fields[ic], &w->insns))
		return perr(p, "insns", "'%s' is not a number", p->fields[ic]);
	w->insns_counted = true;
	if (vc < 0 || vc >= p->nfields || !strcmp(p->fields[vc], "-"))
		return 0;
	for (s = p->fields[vc]; *s; n++) {
		char num[24];
		size_t len = strcspn(s, ",");

		if (n >= LINES_MAX_VCPUS || !len || len >= sizeof(num))
			return perr(p, "insns_vcpu", "'%s' is not a count per vCPU, comma-separated", p->fields[vc]);
		memcpy(num, s, len);
		num[len] = '\0';
		if (parse_u64(num, &w->insns_vcpu[n]))
			return perr(p, "insns_vcpu", "'%s' is not a count per vCPU, comma-separated", p->fields[vc]);
		s += len + (s[len] == ',');
	}
	w->insns_per_vcpu = n > 0;
	return 0;
}

static int window_row(struct parser *p, struct lines_file *f, struct caps *cap)
{
	struct lines_window_row *w;
	uint64_t v[9];

	for (int i = 0; i < 9; i++)
		if (field_u64(p, R_WINDOW, i, &v[i]))
			return -1;
	GROW(f->windows, f->nwindows, cap->windows);
	w = &f->windows[f->nwindows++];
	*w = (struct lines_window_row){ .index = v[0], .windows = v[1], .open = v[2] != 0, .accesses = v[3], .load_hitm = v[4],
					.store_hitm = v[5], .store_inval = v[6], .false_sharing = v[7],
					.true_sharing = v[8] };
	return window_insns(p, w);
}

static int line_row(struct parser *p, struct lines_file *f, struct caps *cap)
{
	struct lines_pline l = { .window = -1 };
	int wc = p->opt_col[OPT_LINE_WINDOW];

	if (wc >= 0 && wc < p->nfields && strcmp(p->fields[wc], "-")) {
		uint64_t w;

		if (parse_u64(p->fields[wc], &w) || w > INT64_MAX)
			return perr(p, "window", "'%s' is not a window number", p->fields[wc]);
		l.window = (int64_t)w;
	}
	if (field_u64(p, R_LINE, 0, &l.paddr) || field_u64(p, R_LINE, 1, &l.vaddr) ||
	    field_u64(p, R_LINE, 2, &l.win_loads) || field_u64(p, R_LINE, 3, &l.win_stores) ||
	    field_counts(p, R_LINE, 4, &l.c) || field_u64(p, R_LINE, 11, &l.other_shape_accesses) ||
	    field_u64(p, R_LINE, 12, &l.other_shape_events) || field_u64(p, R_LINE, 13, &l.other_site_accesses) ||
	    field_u64(p, R_LINE, 14, &l.other_site_events))
		return -1;
	if (l.paddr & 63)
		return perr(p, "paddr", "%s", "not the start of a 64-byte line");
	GROW(f->lines, f->nlines, cap->lines);
	f->lines[f->nlines++] = l;
	cap->shapes = cap->sites = 0;
	return 0;
}

/* The line a shape or site row belongs to: the last line row, same paddr
 * (each window's lines come with their own shapes and sites). */
static struct lines_pline *owner(struct parser *p, struct lines_file *f, enum row_kind k)
{
	uint64_t paddr;

	if (field_u64(p, k, 0, &paddr))
		return NULL;
	if (!f->nlines || f->lines[f->nlines - 1].paddr != paddr) {
		char a[24];

		snprintf(a, sizeof(a), "0x%llx", (unsigned long long)paddr);
		perr(p, "paddr", "%s: no line row before it", a);
		return NULL;
	}
	return &f->lines[f->nlines - 1];
}

static int shape_row(struct parser *p, struct lines_file *f, struct caps *cap)
{
	struct lines_pline *l = owner(p, f, R_SHAPE);
	struct lines_pshape s = { 0 };

	if (!l || field_uint(p, R_SHAPE, 1, 63, &s.off) || field_uint(p, R_SHAPE, 2, 64, &s.size) ||
	    field_counts(p, R_SHAPE, 3, &s.c) || field_u64(p, R_SHAPE, 10, &s.other_mask))
		return -1;
	if (!s.size || s.off + s.size > 64)
		return perr(p, "size", "%s", "the access does not fit its line");
	GROW(l->shapes, l->nshapes, cap->shapes);
	l->shapes[l->nshapes++] = s;
	return 0;
}

static int site_row(struct parser *p, struct lines_file *f, struct caps *cap)
{
	struct lines_pline *l = owner(p, f, R_SITE);
	struct lines_psite s = { 0 };
	const char *rw, *prev;
	unsigned pv;

	if (!l || field_u64(p, R_SITE, 1, &s.pc) || field_uint(p, R_SITE, 2, LINES_MAX_VCPUS - 1, &s.vcpu) ||
	    field_uint(p, R_SITE, 4, 63, &s.off) || field_uint(p, R_SITE, 5, 64, &s.size) ||
	    field_counts(p, R_SITE, 6, &s.c) || field_u64(p, R_SITE, 14, &s.prev_pc) ||
	    field_u64(p, R_SITE, 15, &s.other_mask))
		return -1;
	rw = p->fields[p->col[R_SITE][3]];
	if (strcmp(rw, "R") && strcmp(rw, "W"))
		return perr(p, "rw", "'%s' is neither R nor W", rw);
	s.store = rw[0] == 'W';
	if (!s.size || s.off + s.size > 64)
		return perr(p, "size", "%s", "the access does not fit its line");
	prev = p->fields[p->col[R_SITE][13]];
	if (!strcmp(prev, "-")) {
		s.prev_vcpu = -1;
	} else {
		if (field_uint(p, R_SITE, 13, LINES_MAX_VCPUS - 1, &pv))
			return -1;
		s.prev_vcpu = (int)pv;
	}
	GROW(l->sites, l->nsites, cap->sites);
	l->sites[l->nsites++] = s;
	return 0;
}

static int meta_line(struct parser *p, struct lines_file *f, struct caps *cap, char *line)
{
	char *tab = strchr(line + 2, '\t');

	if (!tab)
		return 0;	/* a comment */
	*tab = '\0';
	GROW(f->meta, f->nmeta, cap->meta);
	f->meta[f->nmeta].key = xstrdup(line + 2);
	f->meta[f->nmeta++].value = xstrdup(tab + 1);
	(void)p;
	return 0;
}

int lines_parse_text(const char *name, const char *text, size_t len, struct lines_file *out, char *err,
		     size_t errlen)
{
	struct parser p = { .name = name, .err = err, .errlen = errlen };
	struct caps cap = { 0 };
	char *copy = xmalloc(len + 1), *line;
	bool ended = false;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	memcpy(copy, text, len);
	copy[len] = '\0';
	if (memchr(copy, '\0', len)) {
		free(copy);
		return set_err(err, errlen, "%s: a NUL byte: not the lines plugin's text output", name);
	}
	line = copy;
	for (char *nl; line && *line && rc == 0; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		p.lineno++;
		if (ended) {
			rc = perr(&p, NULL, "%s", "text after '# end'");
			break;
		}
		if (p.lineno == 1) {
			int v;
			char tail;

			if (sscanf(line, "# memcg-lab lines %d%c", &v, &tail) != 1) {
				rc = perr(&p, NULL, "%s", "not the lines plugin's output (no '# memcg-lab lines N' first)");
				break;
			}
			if (v != LINES_FORMAT_VERSION) {
				char why[80];

				snprintf(why, sizeof(why), "format version %d; this lab reads %d", v, LINES_FORMAT_VERSION);
				rc = perr(&p, NULL, "%s", why);
				break;
			}
			out->version = v;
			continue;
		}
		if (!strcmp(line, "# end")) {
			ended = true;
			continue;
		}
		if (!strncmp(line, "#fields\t", 8)) {
			rc = split_row(&p, line) ?: fields_line(&p);
			continue;
		}
		if (line[0] == '#') {
			if (line[1] == ' ')
				rc = meta_line(&p, out, &cap, line);
			continue;
		}
		if (!*line)
			continue;
		if (split_row(&p, line)) {
			rc = -1;
			break;
		}
		for (enum row_kind k = 0; k < R_KINDS; k++) {
			if (strcmp(p.fields[0], kind_names[k]))
				continue;
			if (!p.have_fields[k]) {
				rc = perr(&p, NULL, "a %s row before its #fields line", kind_names[k]);
				break;
			}
			if (row_width(&p, k)) {
				rc = -1;
				break;
			}
			rc = k == R_WINDOW ? window_row(&p, out, &cap) :
			     k == R_LINE   ? line_row(&p, out, &cap) :
			     k == R_SHAPE  ? shape_row(&p, out, &cap) :
					     site_row(&p, out, &cap);
			break;
		}
		/* Rows of a kind this lab does not know are skipped. */
	}
	free(copy);
	if (rc == 0 && p.lineno == 0)
		rc = set_err(err, errlen, "%s: empty: the plugin wrote nothing", name);
	if (rc == 0 && !ended)
		rc = set_err(err, errlen, "%s:%u: cut short: no '# end' line (qemu died before the plugin finished?)",
			     name, p.lineno);
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
