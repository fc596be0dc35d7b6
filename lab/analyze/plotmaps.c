// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/plotmaps.h"
#include "util/err.h"
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

/*
 * "struct NAME: SIZE B, N cachelines of L B" opens a struct; rows
 * "  K [a-b] tok tok ..." follow, a token being name@off+size with an
 * optional [w]/[r] tag; "<name" continues a field and "|name" marks padding,
 * neither has a place of its own.
 */
int plotmap_cachelines(const char *path, void (*emit)(const char *st, int size, int lines, const char *tsv,
						       void *arg),
		       void *arg, char *err, size_t errlen)
{
	char *text = read_text(path, NULL), *save = NULL, st[128] = "";
	struct sbuf b = { 0 };
	int nstructs = 0, size = 0, nlines = 0, L = 64, lineno = 0;

	if (!text) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	for (char *line = strtok_r(text, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
		char name[128];
		int sz, n, l;

		lineno++;
		if (!line || !strncmp(line, "struct ", 7)) {
			if (st[0] && b.n) {
				emit(st, size, nlines, b.s, arg);
				nstructs++;
			}
			b.n = 0;
			st[0] = '\0';
			if (!line)
				break;
			if (sscanf(line, "struct %127[^:]: %d B, %d cachelines of %d B", name, &sz, &n, &l) == 4) {
				snprintf(st, sizeof(st), "%s", name);
				size = sz;
				nlines = n;
				L = l > 0 ? l : 64;
				b.n = 0;
				sb_printf(&b, "line\tstart\tend\ttag\tlabel\n");
			}
			continue;
		}
		if (!st[0] || line[0] == '#')
			continue;
		{
			char *p = line, *tok, *tsave = NULL;
			int k;

			if (sscanf(p, " %d [", &k) != 1)
				continue;
			p = strchr(p, ']');
			if (!p) {
				snprintf(err, errlen, "%s:%d: a cacheline row without its byte range", path, lineno);
				free(text);
				free(b.s);
				return -1;
			}
			for (tok = strtok_r(p + 1, " ", &tsave); tok; tok = strtok_r(NULL, " ", &tsave)) {
				char fname[160], tagc = 0;
				long off, fsz;
				char *at = strchr(tok, '@');

				if (tok[0] == '<' || tok[0] == '|' || !at)
					continue;
				snprintf(fname, sizeof(fname), "%.*s", (int)(at - tok), tok);
				if (sscanf(at, "@%ld+%ld", &off, &fsz) != 2)
					continue;
				if (strstr(at, "[w]"))
					tagc = 1;
				else if (strstr(at, "[r]"))
					tagc = 2;
				/* One segment per line the field covers. */
				for (long a = off; a < off + (fsz ? fsz : 1); a = (a / L + 1) * L) {
					long ln = a / L, e = off + fsz < (ln + 1) * L ? off + fsz : (ln + 1) * L;

					sb_printf(&b, "%ld\t%ld\t%ld\t%d\t%s\n", ln, a - ln * L, e - ln * L, tagc, fname);
				}
			}
		}
	}
	free(text);
	free(b.s);
	return nstructs;
}

struct fm_row {
	char field[192];
	double off;
	double read, write;
};

static int by_offset(const void *a, const void *b)
{
	const struct fm_row *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

char *plotmap_fieldmap(const char *path, const char **metric, char *err, size_t errlen)
{
	char *text = read_text(path, NULL), *save = NULL;
	int col_field = -1, col_off = -1, col_acc = -1, col_hitm = -1, col_peer = -1, lineno = 0;
	struct fm_row *rows = NULL;
	size_t n = 0;
	bool use_peer = false, any_hitm = false;
	struct sbuf b = { 0 };

	if (!text) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *cells[16], *csave = NULL;
		int nc = 0;

		lineno++;
		/* strtok would merge empty cells: split on every tab. */
		for (char *c = line; nc < 16; ) {
			cells[nc++] = c;
			c = strchr(c, '\t');
			if (!c)
				break;
			*c++ = '\0';
		}
		(void)csave;
		if (lineno == 1) {
			for (int i = 0; i < nc; i++) {
				if (!strcmp(cells[i], "field"))
					col_field = i;
				else if (!strcmp(cells[i], "field_offset"))
					col_off = i;
				else if (!strcmp(cells[i], "access"))
					col_acc = i;
				else if (!strcmp(cells[i], "hitm"))
					col_hitm = i;
				else if (!strcmp(cells[i], "peer"))
					col_peer = i;
			}
			if (col_field < 0 || col_acc < 0 || (col_hitm < 0 && col_peer < 0)) {
				snprintf(err, errlen, "%s:1: not a c2c fieldmap (want field, access, hitm or peer columns)",
					 path);
				goto fail;
			}
			continue;
		}
		if (col_field >= nc || col_acc >= nc)
			continue;
		{
			double h = col_hitm >= 0 && col_hitm < nc && cells[col_hitm][0] ? atof(cells[col_hitm]) : NAN;
			double p = col_peer >= 0 && col_peer < nc && cells[col_peer][0] ? atof(cells[col_peer]) : NAN;
			size_t k;

			any_hitm |= !isnan(h);
			for (k = 0; k < n && strcmp(rows[k].field, cells[col_field]); k++)
				;
			if (k == n) {
				rows = xrealloc(rows, (n + 1) * sizeof(*rows));
				memset(&rows[n], 0, sizeof(rows[n]));
				snprintf(rows[n].field, sizeof(rows[n].field), "%s", cells[col_field]);
				rows[n].off = col_off >= 0 && col_off < nc ? atof(cells[col_off]) : (double)n;
				n++;
			}
			if (!strcmp(cells[col_acc], "write")) {
				rows[k].write += isnan(h) ? 0 : h;
			} else {
				rows[k].read += isnan(h) ? 0 : h;
			}
			/* Peer snoops are kept aside in case no HITM was measured. */
			if (!isnan(p))
				use_peer = true;
			if (!isnan(p) && isnan(h)) {
				if (!strcmp(cells[col_acc], "write"))
					rows[k].write += p;
				else
					rows[k].read += p;
			}
		}
	}
	*metric = any_hitm || !use_peer ? "HITMs" : "peer snoops";
	qsort(rows, n, sizeof(*rows), by_offset);
	sb_printf(&b, "field\tread\twrite\n");
	for (size_t i = 0; i < n; i++) {
		const char *f = rows[i].field, *dot = strchr(f, '.');

		/* "mem_cgroup.memory.usage" -> "memory.usage": the plot names the struct. */
		sb_printf(&b, "%s\t%.1f\t%.1f\n", dot ? dot + 1 : f, rows[i].read, rows[i].write);
	}
	free(rows);
	free(text);
	return b.s ? b.s : xstrdup("field\tread\twrite\n");
fail:
	free(rows);
	free(text);
	return NULL;
}
