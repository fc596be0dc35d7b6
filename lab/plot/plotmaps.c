// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "plot/plotmaps.h"
#include "report/lines_fields.h"
#include "util/err.h"
#include "util/tsv.h"
#include "util/fileio.h"

/* A growing string. */
struct sbuf {
	char *s;
	size_t n, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int need;

	va_start(ap, fmt);
	need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->n + need + 1 > b->cap) {
		b->cap = (b->n + need + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	b->n += need;
}

struct segment {
	int line, start, end, tag;
	char name[160];
};

static int by_line_start(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;

	return x->line != y->line ? x->line - y->line : x->start - y->start;
}

/* Which tag a box of several members gets: hot-written wins, then
 * read-mostly; of lines counts, sharing wins, then any access. */
static int tag_rank(int tag)
{
	return tag == 1 ? 2 : tag == 2 ? 1 : tag == 3 || tag == 4 ? 4 : tag == 5 ? 3 : 0;
}

/*
 * The name of a box of members names[0..n): one member's own name; union
 * members with the same leaf as "swap|memsw.usage"; others '|'-joined.
 */
static char *box_name(char (*names)[160], int n)
{
	const char *leaf = strchr(names[0], '.');
	bool same_leaf = leaf != NULL && n > 1;
	struct sbuf b = { 0 };

	for (int i = 1; i < n && same_leaf; i++) {
		const char *l = strchr(names[i], '.');

		same_leaf = l && !strcmp(l, leaf);
	}
	for (int i = 0; i < n; i++) {
		int len = same_leaf ? (int)(strchr(names[i], '.') - names[i]) : (int)strlen(names[i]);

		sb_printf(&b, "%s%.*s", i ? "|" : "", len, names[i]);
	}
	if (same_leaf)
		sb_printf(&b, "%s", leaf);
	return b.s;
}

/* Overlapping segments (union members) become one box each. */
static void make_boxes(struct cl_struct *s, struct segment *seg, size_t n)
{
	qsort(seg, n, sizeof(*seg), by_line_start);
	for (size_t i = 0; i < n;) {
		char (*names)[160] = xmalloc(n * sizeof(*names));
		struct cl_box *bx;
		int nn = 0;
		size_t j = i;

		s->boxes = xrealloc(s->boxes, (s->nboxes + 1) * sizeof(*s->boxes));
		bx = &s->boxes[s->nboxes++];
		*bx = (struct cl_box){ seg[i].line, seg[i].start, seg[i].end, seg[i].tag, NULL, NULL, false };
		for (; j < n && seg[j].line == bx->line && (j == i || seg[j].start < bx->end); j++) {
			bool dup = false;

			if (seg[j].end > bx->end)
				bx->end = seg[j].end;
			if (tag_rank(seg[j].tag) > tag_rank(bx->tag))
				bx->tag = seg[j].tag;
			for (int k = 0; k < nn; k++)
				dup |= !strcmp(names[k], seg[j].name);
			if (!dup)
				snprintf(names[nn++], sizeof(names[0]), "%s", seg[j].name);
		}
		bx->name = box_name(names, nn);
		free(names);
		i = j;
	}
}

/* A line whose named boxes all share "prefix." carries it; its boxes say the rest. */
static void line_prefixes(struct cl_struct *s)
{
	s->prefix = xcalloc(s->nlines > 0 ? s->nlines : 1, sizeof(*s->prefix));
	for (int l = 0; l < s->nlines; l++) {
		const char *pre = NULL;
		size_t plen = 0;
		bool shared = true;

		for (size_t i = 0; i < s->nboxes && shared; i++) {
			const char *dot;

			if (s->boxes[i].line != l)
				continue;
			dot = strchr(s->boxes[i].name, '.');
			if (!dot)
				shared = false;
			else if (!pre)
				pre = s->boxes[i].name, plen = dot - pre;
			else
				shared = (size_t)(dot - s->boxes[i].name) == plen && !strncmp(pre, s->boxes[i].name, plen);
		}
		s->prefix[l] = shared && pre ? xasprintf("%.*s", (int)plen, pre) : xstrdup("");
	}
	for (size_t i = 0; i < s->nboxes; i++) {
		struct cl_box *bx = &s->boxes[i];
		size_t plen = bx->line < s->nlines ? strlen(s->prefix[bx->line]) : 0;

		bx->leaf = bx->name + (plen ? plen + 1 : 0);
	}
}

static void struct_done(struct cl_struct **out, int *n, struct cl_struct *cur, struct segment *seg, size_t nseg)
{
	if (!cur->name[0] || !nseg)
		return;
	make_boxes(cur, seg, nseg);
	line_prefixes(cur);
	*out = xrealloc(*out, (*n + 1) * sizeof(**out));
	(*out)[(*n)++] = *cur;
}

/*
 * "struct NAME: SIZE B, N cachelines of L B" opens a struct; rows
 * "  K [a-b] tok tok ..." follow, a token being name@off+size with an
 * optional [w]/[r] tag; "<name" continues a field and "|name" marks padding,
 * neither has a place of its own.
 */
int plotmap_cachelines_read(const char *path, struct cl_struct **out, int *n, char *err, size_t errlen)
{
	char *text = read_text(path, NULL), *save = NULL;
	struct cl_struct cur = { 0 };
	struct segment *seg = NULL;
	size_t nseg = 0;
	int lineno = 0;

	*out = NULL;
	*n = 0;
	if (!text) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	for (char *line = strtok_r(text, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
		char name[128];
		int sz, nl, l, k;

		lineno++;
		if (!line || !strncmp(line, "struct ", 7)) {
			struct_done(out, n, &cur, seg, nseg);
			memset(&cur, 0, sizeof(cur));
			nseg = 0;
			if (!line)
				break;
			if (sscanf(line, "struct %127[^:]: %d B, %d cachelines of %d B", name, &sz, &nl, &l) == 4) {
				snprintf(cur.name, sizeof(cur.name), "%s", name);
				cur.size = sz;
				cur.nlines = nl;
				cur.linesize = l > 0 ? l : 64;
			}
			continue;
		}
		if (!cur.name[0] || line[0] == '#' || sscanf(line, " %d [", &k) != 1)
			continue;
		line = strchr(line, ']');
		if (!line) {
			snprintf(err, errlen, "%s:%d: a cacheline row without its byte range", path, lineno);
			free(text);
			free(seg);
			plotmap_cachelines_free(*out, *n);
			return -1;
		}
		for (char *tsave = NULL, *tok = strtok_r(line + 1, " ", &tsave); tok; tok = strtok_r(NULL, " ", &tsave)) {
			char *at = strchr(tok, '@');
			long off, fsz;
			int L = cur.linesize, tagc = 0;

			if (tok[0] == '<' || tok[0] == '|' || !at || sscanf(at, "@%ld+%ld", &off, &fsz) != 2)
				continue;
			if (strstr(at, "[w]"))
				tagc = 1;
			else if (strstr(at, "[r]"))
				tagc = 2;
			/* One segment per line the field covers. */
			for (long a = off; a < off + (fsz ? fsz : 1); a = (a / L + 1) * L) {
				long ln = a / L, e = off + fsz < (ln + 1) * L ? off + fsz : (ln + 1) * L;

				seg = xrealloc(seg, (nseg + 1) * sizeof(*seg));
				seg[nseg] = (struct segment){ (int)ln, (int)(a - ln * L), (int)(e - ln * L), tagc, "" };
				snprintf(seg[nseg++].name, sizeof(seg[0].name), "%.*s", (int)(at - tok), tok);
			}
		}
	}
	free(text);
	free(seg);
	return *n;
}

void plotmap_struct_free(struct cl_struct *s)
{
	for (size_t b = 0; b < s->nboxes; b++)
		free(s->boxes[b].name);
	for (int l = 0; l < s->nlines; l++)
		free(s->prefix[l]);
	free(s->boxes);
	free(s->prefix);
	free(s->line_no);
}

void plotmap_cachelines_free(struct cl_struct *s, int n)
{
	for (int i = 0; i < n; i++)
		plotmap_struct_free(&s[i]);
	free(s);
}

double plotmap_label_ems(const char *s, int monospace)
{
	double w = 0;

	/* Upper bounds of DejaVu Sans advances per class of character. */
	for (const char *c = s; *c; c++)
		w += monospace ? 1 : strchr("ijlft.r|:;!' ", *c) ? 0.42 : strchr("mwMW", *c) ? 1.0
			: (*c >= 'A' && *c <= 'Z') ? 0.8 : 0.64;
	return w;
}

static bool fits(const char *s, double width, const struct cl_geometry *g)
{
	return plotmap_label_ems(s, g->monospace) * g->em_bytes + 2 * g->pad_bytes <= width;
}

int plotmap_cachelines_label(const struct cl_struct *s, const struct cl_geometry *g, char ***labels, char **keys)
{
	static const char key_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	const char **keyed = xcalloc(s->nboxes + 1, sizeof(*keyed));
	struct sbuf list = { 0 };
	int nkeyed = 0, nlist = 0;

	*labels = xcalloc(s->nboxes + 1, sizeof(**labels));
	for (size_t i = 0; i < s->nboxes; i++) {
		const struct cl_box *bx = &s->boxes[i];
		int k;

		if (fits(bx->leaf, bx->end - bx->start, g)) {
			(*labels)[i] = xstrdup(bx->leaf);
			continue;
		}
		if (bx->quiet) {
			(*labels)[i] = xstrdup("");
			continue;
		}
		/* One key per leaf name: children_min_usage reads the same on
		 * every page_counter of the struct. */
		for (k = 0; k < nkeyed && strcmp(keyed[k], bx->leaf); k++)
			;
		if (k == nkeyed && k < (int)sizeof(key_chars) - 1) {
			keyed[nkeyed++] = bx->leaf;
			sb_printf(&list, "%c %s\n", key_chars[k], bx->leaf);
			nlist++;
		}
		if (k < (int)sizeof(key_chars) - 1 && fits((char[]){ key_chars[k], 0 }, bx->end - bx->start, g)) {
			(*labels)[i] = xasprintf("%c", key_chars[k]);
			continue;
		}
		/* Too narrow even for its key (a 1-byte flag in text): the list
		 * still names it. */
		(*labels)[i] = xstrdup("");
	}
	free(keyed);
	*keys = list.s ? list.s : xstrdup("");
	return nlist;
}

struct fm_row {
	char field[192];
	double off;
	double reads, stores;
};

static int by_offset(const void *a, const void *b)
{
	const struct fm_row *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* A count of the fieldmap; NAN where the cell is empty or the column absent. */
static int cell_num(struct tsv *t, int i, double *v)
{
	*v = NAN;
	return tsv_get(t, i)[0] ? tsv_double(t, i, v) : 0;
}

char *plotmap_fieldmap(const char *path, struct fieldmap_info *info, char *err, size_t errlen)
{
	/* c2c/c2c_attr.c writes them (fieldmap-S.tsv). */
	static const char *const cols[] = { "field", "?field_offset", "access", "?hitm", "?peer", "?stores", NULL };
	enum { C_FIELD, C_OFF, C_ACC, C_HITM, C_PEER, C_ST };
	struct fm_row *rows = NULL;
	size_t n = 0, len = 0;
	bool use_peer = false, any_hitm = false;
	char *out = NULL;
	struct tsv t;
	FILE *f;
	int r;

	memset(info, 0, sizeof(*info));
	r = tsv_open(&t, path, cols, 0, err, errlen);
	if (!r && !tsv_has(&t, C_HITM) && !tsv_has(&t, C_PEER))
		r = tsv_fail(&t, -1, "not a c2c fieldmap (want field, access, hitm or peer columns)");
	while (!r && (r = tsv_next(&t)) == TSV_ROW) {
		double h, p, st;
		bool write = !strcmp(tsv_get(&t, C_ACC), "write");
		size_t k;

		if (cell_num(&t, C_HITM, &h) || cell_num(&t, C_PEER, &p) || cell_num(&t, C_ST, &st)) {
			r = -1;
			break;
		}
		r = 0;
		for (k = 0; k < n && strcmp(rows[k].field, tsv_get(&t, C_FIELD)); k++)
			;
		if (k == n) {
			double off = (double)n;

			if (tsv_has(&t, C_OFF) && cell_num(&t, C_OFF, &off)) {
				r = -1;
				break;
			}
			rows = xrealloc(rows, (n + 1) * sizeof(*rows));
			memset(&rows[n], 0, sizeof(rows[n]));
			snprintf(rows[n].field, sizeof(rows[n].field), "%s", tsv_get(&t, C_FIELD));
			rows[n].off = isnan(off) ? (double)n : off;
			n++;
		}
		/*
		 * c2c_attr.c splits each function's row: "read" carries
		 * its HITMs (peer snoops on Arm SPE), "write" its stores.
		 */
		if (write) {
			if (!isnan(st)) {
				rows[k].stores += st;
				info->store_rows++;
			}
			continue;
		}
		any_hitm |= !isnan(h);
		rows[k].reads += isnan(h) ? 0 : h;
		/* Peer snoops are kept aside in case no HITM was measured. */
		if (!isnan(p))
			use_peer = true;
		if (!isnan(p) && isnan(h))
			rows[k].reads += p;
	}
	tsv_close(&t);
	if (r < 0) {
		free(rows);
		return NULL;
	}
	info->metric = any_hitm || !use_peer ? "HITMs" : "peer snoops";
	info->nfields = (int)n;
	qsort(rows, n, sizeof(*rows), by_offset);
	f = open_memstream(&out, &len);
	if (!f)
		die("%s: cannot allocate: %s", path, strerror(errno));
	tsv_write_header(f, (const char *const[]){ "field", "reads", "stores", NULL });
	for (size_t i = 0; i < n; i++) {
		const char *fld = rows[i].field, *dot = strchr(fld, '.');

		/* "mem_cgroup.memory.usage" -> "memory.usage": the plot names the struct. */
		if (info->store_rows)
			tsv_write_row(f, "%s\t%.1f\t%.1f\n", dot ? dot + 1 : fld, rows[i].reads, rows[i].stores);
		else	/* No writer row: no store count to draw, not a zero. */
			tsv_write_row(f, "%s\t%.1f\tNaN\n", dot ? dot + 1 : fld, rows[i].reads);
	}
	fclose(f);
	free(rows);
	return out;
}

#define LINES_NOTES_MAX 12	/* fields with HITMs listed under a map */

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The row of cacheline l in lines[0..n), sorted. */
static int row_of(const int *lines, int n, int l)
{
	const int *p = bsearch(&l, lines, n, sizeof(*lines), cmp_int);

	return p ? (int)(p - lines) : -1;
}

struct sharing_note {
	double hitm;
	char *text;
};

static int by_hitm_desc(const void *a, const void *b)
{
	const struct sharing_note *x = a, *y = b;

	return x->hitm < y->hitm ? 1 : x->hitm > y->hitm ? -1 : 0;
}

int plotmap_lines_struct(const struct lines_fields *lf, const char *st, int linesize, double per,
			 struct cl_struct *out, char **notes)
{
	struct segment *seg = NULL;
	struct sharing_note *nt = NULL;
	int *lines = NULL, nl = 0, nn = 0;
	size_t nseg = 0;
	long end = 0;
	struct sbuf b = { 0 };

	memset(out, 0, sizeof(*out));
	*notes = NULL;
	for (size_t i = 0; i < lf->n; i++) {
		const struct lines_row *r = &lf->r[i];

		if (strcmp(r->st, st) || r->offset < 0)
			continue;
		for (long a = r->offset; a < r->offset + (r->size > 0 ? r->size : 1); a = (a / linesize + 1) * linesize) {
			lines = xrealloc(lines, (nl + 1) * sizeof(*lines));
			lines[nl++] = (int)(a / linesize);
		}
		if (r->offset + r->size > end)
			end = r->offset + r->size;
	}
	if (!nl)
		return -1;
	qsort(lines, nl, sizeof(*lines), cmp_int);
	{
		int u = 0;

		for (int i = 0; i < nl; i++)
			if (!u || lines[u - 1] != lines[i])
				lines[u++] = lines[i];
		nl = u;
	}
	for (size_t i = 0; i < lf->n; i++) {
		const struct lines_row *r = &lf->r[i];
		double hitm = r->hitm_loads + r->hitm_stores;
		int tag = hitm > 0 ? (r->false_hitm > r->true_hitm ? 3 : 4) : r->loads + r->stores > 0 ? 5 : 0;

		if (strcmp(r->st, st) || r->offset < 0)
			continue;
		for (long a = r->offset; a < r->offset + (r->size > 0 ? r->size : 1); a = (a / linesize + 1) * linesize) {
			long ln = a / linesize, e = r->offset + r->size < (ln + 1) * linesize ? r->offset + r->size :
				  (ln + 1) * linesize;

			seg = xrealloc(seg, (nseg + 1) * sizeof(*seg));
			seg[nseg] = (struct segment){ row_of(lines, nl, (int)ln), (int)(a - ln * linesize),
						      (int)(e - ln * linesize), tag, "" };
			snprintf(seg[nseg++].name, sizeof(seg[0].name), "%s", r->field);
		}
		if (hitm > 0) {
			char pc[64] = "";

			if (per > 0 && hitm * 1000 / per >= 1000)
				snprintf(pc, sizeof(pc), " (%.3gK per 1000 ops)", hitm / per);
			else if (per > 0)
				snprintf(pc, sizeof(pc), " (%.3g per 1000 ops)", hitm * 1000 / per);
			nt = xrealloc(nt, (nn + 1) * sizeof(*nt));
			nt[nn].hitm = hitm;
			nt[nn++].text = xasprintf("%s: %.0f false, %.0f true HITMs%s%s%s", r->field, r->false_hitm,
						  r->true_hitm, pc, strcmp(r->other, "-") ? "; the other side " : "",
						  strcmp(r->other, "-") ? r->other : "");
		}
	}
	snprintf(out->name, sizeof(out->name), "%s", st);
	out->size = (int)end;
	out->nlines = nl;
	out->linesize = linesize;
	out->line_no = lines;
	make_boxes(out, seg, nseg);
	line_prefixes(out);
	/* An untouched field is named where it fits, never keyed. */
	for (size_t i = 0; i < out->nboxes; i++)
		out->boxes[i].quiet = out->boxes[i].tag == 0;
	if (nn)
		qsort(nt, nn, sizeof(*nt), by_hitm_desc);
	for (int i = 0; i < nn; i++) {
		if (i < LINES_NOTES_MAX)
			sb_printf(&b, "%s\n", nt[i].text);
		else if (i == LINES_NOTES_MAX)
			sb_printf(&b, "and %d more field%s with HITMs (fields.tsv)\n", nn - i, nn - i == 1 ? "" : "s");
		free(nt[i].text);
	}
	free(nt);
	free(seg);
	*notes = b.s ? b.s : xstrdup("");
	return 0;
}
