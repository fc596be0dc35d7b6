// SPDX-License-Identifier: GPL-2.0
/* The lab's TSV files, read by column name and written with their header (util/tsv.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "util/err.h"
#include "util/fileio.h"
#include "util/strfmt.h"
#include "util/tsv.h"

/* tsv_open_kinds's files: "#fields" lines, each row's kind in its first cell. */
#define TSV_KINDS (1u << 16)
#define FIELDS_LINE "#fields"

/* A kind's columns: where in a row cols[i] is (-1: absent), and how wide its rows are. */
struct tsv_kcols {
	int *col;
	int ncols;
	int width;		/* cells in a row */
	int hdr_line;		/* the header's (or #fields line's) line number */
	bool seen;
};

static bool multi(const struct tsv *t)
{
	return t->flags & TSV_KINDS;
}

static const char *col_name(const char *c)
{
	return c + (c[0] == '?');
}

static int failf(struct tsv *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failf(struct tsv *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->errlen)
		return -1;
	str_setf(t->err, t->errlen, "%s:%d: ", t->path, t->lineno);
	va_start(ap, fmt);
	str_vappendf(t->err, t->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The required columns of kind k joined by sep (malloc'd). */
static char *want_list(const struct tsv *t, int k, const char *sep)
{
	const char *const *cols = t->kinds[k].cols;
	size_t len = 1;
	char *s;

	for (int i = 0; cols[i]; i++)
		len += strlen(cols[i]) + strlen(sep);
	s = xmalloc(len);
	s[0] = '\0';
	for (int i = 0; cols[i]; i++) {
		if (cols[i][0] == '?')
			continue;
		if (s[0])
			strcat(s, sep);
		strcat(s, cols[i]);
	}
	return s;
}

/* The next line, its newline (and a '\r' before it) gone; NULL at the end. */
static char *next_line(struct tsv *t)
{
	char *line = t->pos, *nl;
	size_t n;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	t->pos = nl ? nl + 1 : NULL;
	if (nl)
		*nl = '\0';
	n = strlen(line);
	if (n && line[n - 1] == '\r')
		line[n - 1] = '\0';
	t->lineno++;
	return line;
}

/* The line's cells, split at every tab. */
static void split(struct tsv *t, char *line)
{
	t->ncell = 0;
	for (char *p = line;;) {
		char *tab = strchr(p, '\t');

		if (t->ncell == t->cellcap) {
			t->cellcap = t->cellcap ? 2 * t->cellcap : 32;
			t->cell = xrealloc(t->cell, t->cellcap * sizeof(*t->cell));
		}
		t->cell[t->ncell++] = p;
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
}

/* The split line's cells from first on name kind k's columns (a row's
 * cell j is the header's cell j + off). */
static int header(struct tsv *t, int k, int first, int off)
{
	const char *const *cols = t->kinds[k].cols;
	struct tsv_kcols *kc = &t->k[k];
	int missing = -1, found = 0;

	for (int i = 0; i < kc->ncols; i++) {
		const char *name = col_name(cols[i]);

		kc->col[i] = -1;
		for (int h = first; h < t->ncell; h++) {
			if (strcmp(t->cell[h], name))
				continue;
			if (kc->col[i] >= 0)
				return failf(t, "column '%s' twice in the %s", name, multi(t) ? FIELDS_LINE " line" : "header");
			kc->col[i] = h - off;
		}
		if (kc->col[i] >= 0 && cols[i][0] != '?')
			found++;
		if (kc->col[i] < 0 && cols[i][0] != '?' && missing < 0)
			missing = i;
	}
	if (missing >= 0) {
		char *want, got[48], *all;
		size_t len = 1;
		int r;

		if (multi(t))
			return failf(t, "field %s: missing from " FIELDS_LINE " (of %s rows)", cols[missing],
				     t->kinds[k].name);
		if (found) {
			want = want_list(t, k, ", ");
			r = failf(t, "no column '%s' in the header (want %s)", cols[missing], want);
			free(want);
			return r;
		}
		/* None of the columns: not a header at all (the file lost it, or
		 * is another file).  What is there, tabs as spaces. */
		for (int h = 0; h < t->ncell; h++)
			len += strlen(t->cell[h]) + 1;
		all = xmalloc(len);
		all[0] = '\0';
		for (int h = 0; h < t->ncell; h++) {
			if (h)
				strcat(all, " ");
			strcat(all, t->cell[h]);
		}
		snprintf(got, sizeof(got), "%.47s", all);
		want = want_list(t, k, " ");
		r = failf(t, "no header row: want '%s' (tab-separated), got '%s%s'", want, got,
			  strlen(all) >= sizeof(got) ? "..." : "");
		free(want);
		free(all);
		return r;
	}
	kc->width = t->ncell - off;
	kc->hdr_line = t->lineno;
	kc->seen = true;
	return 0;
}

/* The end of a single-kind file that never gave its header. */
static int no_header(struct tsv *t)
{
	char *want = want_list(t, 0, " ");
	bool empty = !t->text[0] || !t->lineno;

	if (empty)
		str_setf(t->err, t->errlen, "%s: empty: not even its header row (%s)", t->path, want);
	else
		str_setf(t->err, t->errlen, "%s: no header row, only comments: want '%s' (tab-separated)", t->path,
			 want);
	free(want);
	return -1;
}

static bool is_fields_line(const char *line)
{
	size_t n = strlen(FIELDS_LINE);

	return !strncmp(line, FIELDS_LINE, n) && (line[n] == '\t' || !line[n]);
}

static int fields_line(struct tsv *t, char *line)
{
	split(t, line);
	if (t->ncell < 2 || !t->cell[1][0])
		return failf(t, "%s", FIELDS_LINE " names no row kind");
	for (int k = 0; k < t->nkinds; k++)
		if (!strcmp(t->cell[1], t->kinds[k].name))
			return header(t, k, 2, 1);
	return 0;	/* a kind of a later writer: its rows are skipped */
}

/* Reads up to the single-kind file's header. */
static int read_header(struct tsv *t)
{
	char *line;

	while ((line = next_line(t))) {
		if (!*line || *line == '#')
			continue;
		split(t, line);
		return header(t, 0, 0, 0);
	}
	return no_header(t);
}

static int open_owned(struct tsv *t, const char *name, char *text, size_t len, const struct tsv_kind *kinds,
		      int nkinds, unsigned flags, char *err, size_t errlen)
{
	const char *nul = memchr(text, '\0', len);

	t->path = name;
	t->text = t->pos = text;
	t->err = err;
	t->errlen = errlen;
	t->flags = flags;
	t->kinds = kinds;
	t->nkinds = nkinds;
	t->k = xcalloc(nkinds, sizeof(*t->k));
	for (int k = 0; k < nkinds; k++) {
		struct tsv_kcols *kc = &t->k[k];

		while (kinds[k].cols[kc->ncols])
			kc->ncols++;
		kc->col = xmalloc((kc->ncols + 1) * sizeof(*kc->col));
		for (int i = 0; i < kc->ncols; i++)
			kc->col[i] = flags & TSV_NO_HEADER ? i : -1;
		if (flags & TSV_NO_HEADER) {
			kc->width = kc->ncols;
			kc->seen = true;
		}
	}
	if (nul) {
		for (const char *p = text; p < nul; p++)
			t->lineno += *p == '\n';
		t->lineno++;
		t->pos = NULL;
		return failf(t, "%s", "a NUL byte: not a text file");
	}
	if (!multi(t) && !(flags & (TSV_NO_HEADER | TSV_COMMENTS)))
		return read_header(t);
	return 0;
}

static int open_one(struct tsv *t, const char *name, char *text, size_t len, const char *const cols[],
		    unsigned flags, char *err, size_t errlen)
{
	t->one = (struct tsv_kind){ .name = NULL, .cols = cols };
	return open_owned(t, name, text, len, &t->one, 1, flags & ~TSV_KINDS, err, errlen);
}

int tsv_open(struct tsv *t, const char *path, const char *const cols[], unsigned flags, char *err, size_t errlen)
{
	size_t len;
	char *text;

	memset(t, 0, sizeof(*t));
	t->path = path;
	text = read_text(path, &len);
	if (!text)
		return set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
	return open_one(t, path, text, len, cols, flags, err, errlen);
}

int tsv_open_text(struct tsv *t, const char *name, const char *text, size_t len, const char *const cols[],
		  unsigned flags, char *err, size_t errlen)
{
	char *copy = xmalloc(len + 1);

	memset(t, 0, sizeof(*t));
	memcpy(copy, text, len);
	copy[len] = '\0';
	return open_one(t, name, copy, len, cols, flags, err, errlen);
}

int tsv_open_stream(struct tsv *t, FILE *f, const char *name, const char *const cols[], unsigned flags, char *err,
		    size_t errlen)
{
	size_t len = 0, cap = 4096, n;
	char *text = xmalloc(cap);

	memset(t, 0, sizeof(*t));
	while ((n = fread(text + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			cap *= 2;
			text = xrealloc(text, cap);
		}
	}
	text[len] = '\0';
	if (ferror(f)) {
		free(text);
		t->path = name;
		return set_err(err, errlen, "%s: cannot read: %s", name, strerror(errno ? errno : EIO));
	}
	return open_one(t, name, text, len, cols, flags, err, errlen);
}

int tsv_open_kinds(struct tsv *t, const char *name, const char *text, size_t len, const struct tsv_kind kinds[],
		   unsigned flags, char *err, size_t errlen)
{
	char *copy = xmalloc(len + 1);
	int n = 0;

	memset(t, 0, sizeof(*t));
	memcpy(copy, text, len);
	copy[len] = '\0';
	while (kinds[n].name)
		n++;
	return open_owned(t, name, copy, len, kinds, n, (flags & ~TSV_NO_HEADER) | TSV_KINDS, err, errlen);
}

int tsv_next(struct tsv *t)
{
	char *line;

	if (!t->text)
		return TSV_END;
	while ((line = next_line(t))) {
		struct tsv_kcols *kc;

		if (!*line)
			continue;
		if (multi(t) && is_fields_line(line)) {
			if (fields_line(t, line))
				return TSV_ERROR;
			continue;
		}
		if (*line == '#') {
			if (!(t->flags & TSV_COMMENTS))
				continue;
			split(t, line);
			return TSV_COMMENT;
		}
		split(t, line);
		if (!multi(t)) {
			if (!t->k[0].seen) {
				if (header(t, 0, 0, 0))
					return TSV_ERROR;
				continue;
			}
			t->kind = 0;
		} else {
			for (t->kind = 0; t->kind < t->nkinds; t->kind++)
				if (!strcmp(t->cell[0], t->kinds[t->kind].name))
					break;
			if (t->kind == t->nkinds)
				continue;	/* a kind this reader does not know */
			if (!t->k[t->kind].seen)
				return failf(t, "a %s row before its " FIELDS_LINE " line", t->kinds[t->kind].name);
		}
		kc = &t->k[t->kind];
		if (t->ncell != kc->width) {
			if (t->flags & TSV_NO_HEADER)
				return failf(t, "expected %d tab-separated columns, got %d", kc->width, t->ncell);
			return failf(t, "expected %d tab-separated columns as in its %s (line %d), got %d", kc->width,
				     multi(t) ? FIELDS_LINE " line" : "header", kc->hdr_line, t->ncell);
		}
		return TSV_ROW;
	}
	if (!multi(t) && !t->k[0].seen)
		return no_header(t);
	return TSV_END;
}

const char *tsv_get(const struct tsv *t, int i)
{
	const struct tsv_kcols *kc = &t->k[t->kind];

	if (i < 0 || i >= kc->ncols || kc->col[i] < 0 || kc->col[i] >= t->ncell)
		return "";
	return t->cell[kc->col[i]];
}

bool tsv_has(const struct tsv *t, int i)
{
	const struct tsv_kcols *kc = &t->k[t->kind];

	return i >= 0 && i < kc->ncols && kc->col[i] >= 0;
}

int tsv_ncells(const struct tsv *t)
{
	return t->ncell;
}

const char *tsv_cell(const struct tsv *t, int j)
{
	return j >= 0 && j < t->ncell ? t->cell[j] : "";
}

int tsv_fail(struct tsv *t, int i, const char *fmt, ...)
{
	const struct tsv_kcols *kc = &t->k[t->kind];
	va_list ap;

	if (!t->errlen)
		return -1;
	if (i >= 0 && i < kc->ncols)
		str_setf(t->err, t->errlen, "%s:%d: field %s: ", t->path, t->lineno,
			 col_name(t->kinds[t->kind].cols[i]));
	else
		str_setf(t->err, t->errlen, "%s:%d: ", t->path, t->lineno);
	va_start(ap, fmt);
	str_vappendf(t->err, t->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int tsv_u64(struct tsv *t, int i, uint64_t *v)
{
	const char *s = tsv_get(t, i), *p = s;
	int base = 10;
	char *end;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16, p += 2;
	if (!(base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
		return tsv_fail(t, i, "'%s' is not a number", s);
	errno = 0;
	*v = strtoull(p, &end, base);
	if (errno || *end)
		return tsv_fail(t, i, "'%s' is not a number", s);
	return 0;
}

int tsv_long(struct tsv *t, int i, long *v)
{
	const char *s = tsv_get(t, i);
	char *end;

	if (!(isdigit((unsigned char)s[0]) || ((s[0] == '-' || s[0] == '+') && isdigit((unsigned char)s[1]))))
		return tsv_fail(t, i, "'%s' is not an integer", s);
	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || *end)
		return tsv_fail(t, i, "'%s' is not an integer", s);
	return 0;
}

int tsv_double(struct tsv *t, int i, double *v)
{
	const char *s = tsv_get(t, i);
	char *end;

	if (!s[0] || isspace((unsigned char)s[0]))
		return tsv_fail(t, i, "'%s' is not a number", s);
	*v = strtod(s, &end);
	if (*end)
		return tsv_fail(t, i, "'%s' is not a number", s);
	return 0;
}

int tsv_format(const struct tsv *t, const char *name)
{
	static const char magic[] = "# memcg-lab ";
	const char *p = t->text;
	size_t n = strlen(name);
	long v = 0;

	if (!p || strncmp(p, magic, sizeof(magic) - 1))
		return 0;
	p += sizeof(magic) - 1;
	if (strncmp(p, name, n) || p[n] != ' ' || !isdigit((unsigned char)p[n + 1]))
		return 0;
	for (p += n + 1; isdigit((unsigned char)*p); p++)
		if ((v = v * 10 + (*p - '0')) > 1000000)
			return 0;
	if (*p == '\r')
		p++;
	return *p && *p != '\n' ? 0 : (int)v;
}

void tsv_close(struct tsv *t)
{
	if (t->k)
		for (int k = 0; k < t->nkinds; k++)
			free(t->k[k].col);
	free(t->k);
	free(t->cell);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/* ---- the writer ---- */

/* Text as one cell: each control byte a space. */
static void put_clean(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		fputc(c < ' ' || c == 0x7f ? ' ' : c, f);
	}
}

void tsv_field(FILE *f, const char *s, char sep)
{
	put_clean(f, s ? s : "", s ? strlen(s) : 0);
	if (sep)
		fputc(sep, f);
}

void tsv_write_header(FILE *f, const char *const cols[])
{
	for (int i = 0; cols[i]; i++)
		tsv_field(f, col_name(cols[i]), cols[i + 1] ? '\t' : '\n');
}

void tsv_write_cells(FILE *f, const char *const cells[], int n)
{
	for (int i = 0; i < n; i++)
		tsv_field(f, cells[i], i + 1 < n ? '\t' : '\n');
	if (!n)
		fputc('\n', f);
}

/* One conversion's output: printed as it stands, or (text) as one cell. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void put_text(FILE *f, const char *spec, const int *star, int nstar, bool is_char, const char *s, int c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		die("tsv: cannot allocate: %s", strerror(errno));
	if (is_char && nstar == 2)
		fprintf(m, spec, star[0], star[1], c);
	else if (is_char && nstar)
		fprintf(m, spec, star[0], c);
	else if (is_char)
		fprintf(m, spec, c);
	else if (nstar == 2)
		fprintf(m, spec, star[0], star[1], s);
	else if (nstar)
		fprintf(m, spec, star[0], s);
	else
		fprintf(m, spec, s);
	fclose(m);
	put_clean(f, buf, len);
	free(buf);
}

#define PUT_ARG(type) \
	do { \
		type a_ = va_arg(ap, type); \
		if (nstar == 2) \
			fprintf(f, spec, star[0], star[1], a_); \
		else if (nstar) \
			fprintf(f, spec, star[0], a_); \
		else \
			fprintf(f, spec, a_); \
	} while (0)

void tsv_vwrite_row(FILE *f, const char *fmt, va_list ap)
{
	for (const char *p = fmt; *p;) {
		const char *start = p;
		char spec[40], len[3] = "";
		int star[2], nstar = 0;

		if (*p != '%' || p[1] == '%') {
			fputc(*p, f);
			p += *p == '%' ? 2 : 1;
			continue;
		}
		p++;
		p += strspn(p, "-+ #0'");
		if (*p == '*') {
			star[nstar++] = va_arg(ap, int);
			p++;
		} else {
			p += strspn(p, "0123456789");
		}
		if (*p == '.') {
			p++;
			if (*p == '*') {
				star[nstar++] = va_arg(ap, int);
				p++;
			} else {
				p += strspn(p, "0123456789");
			}
		}
		if ((p[0] == 'h' && p[1] == 'h') || (p[0] == 'l' && p[1] == 'l'))
			memcpy(len, p, 2), p += 2;
		else if (*p && strchr("hljztL", *p))
			len[0] = *p++;
		if (!*p || (size_t)(p + 1 - start) >= sizeof(spec)) {
			fputs(start, f);	/* not a conversion: as it stands */
			break;
		}
		snprintf(spec, sizeof(spec), "%.*s", (int)(p + 1 - start), start);
		switch (*p++) {
		case 's':
			put_text(f, spec, star, nstar, false, va_arg(ap, const char *), 0);
			break;
		case 'c':
			put_text(f, spec, star, nstar, true, NULL, va_arg(ap, int));
			break;
		case 'd':
		case 'i':
			if (!strcmp(len, "l"))
				PUT_ARG(long);
			else if (!strcmp(len, "ll"))
				PUT_ARG(long long);
			else if (!strcmp(len, "j"))
				PUT_ARG(intmax_t);
			else if (!strcmp(len, "z"))
				PUT_ARG(ssize_t);
			else if (!strcmp(len, "t"))
				PUT_ARG(ptrdiff_t);
			else
				PUT_ARG(int);
			break;
		case 'u':
		case 'o':
		case 'x':
		case 'X':
			if (!strcmp(len, "l"))
				PUT_ARG(unsigned long);
			else if (!strcmp(len, "ll"))
				PUT_ARG(unsigned long long);
			else if (!strcmp(len, "j"))
				PUT_ARG(uintmax_t);
			else if (!strcmp(len, "z"))
				PUT_ARG(size_t);
			else if (!strcmp(len, "t"))
				PUT_ARG(ptrdiff_t);
			else
				PUT_ARG(unsigned int);
			break;
		case 'e':
		case 'E':
		case 'f':
		case 'F':
		case 'g':
		case 'G':
		case 'a':
		case 'A':
			if (!strcmp(len, "L"))
				PUT_ARG(long double);
			else
				PUT_ARG(double);
			break;
		case 'p':
			PUT_ARG(void *);
			break;
		default:
			/* %n and the unknown: never in a row. */
			die("tsv_write_row: conversion '%s' is not one a row writes", spec);
		}
	}
}
#pragma GCC diagnostic pop

void tsv_write_row(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tsv_vwrite_row(f, fmt, ap);
	va_end(ap);
}

char *tsv_asprintf(const char *fmt, ...)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	va_list ap;

	if (!m)
		die("tsv: cannot allocate: %s", strerror(errno));
	va_start(ap, fmt);
	tsv_vwrite_row(m, fmt, ap);
	va_end(ap);
	fclose(m);
	return buf;
}
