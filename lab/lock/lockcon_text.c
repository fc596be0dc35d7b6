// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/strfmt.h"
#include "lock/lockcon_text.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/tsv.h"

static const struct {
	const char *unit;
	float base;
} units[] = {
	{ "h", 1e9f * 3600 }, { "m", 1e9f * 60 }, { "s", 1e9f }, { "ms", 1e6f }, { "us", 1e3f },
};

void lockcon_text_format_time(uint64_t ns, char *buf, size_t n)
{
	/*
	 * tools/perf/builtin-lock.c lock_stat_key_print_time(): the table's
	 * bases are floats, so the comparison and the division happen in
	 * single precision; printing must do the same to agree digit for
	 * digit.
	 */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		float v;

		if ((float)ns < units[i].base)
			continue;
		v = (float)ns / units[i].base;
		snprintf(buf, n, "%9.2f %-2s", (double)v, units[i].unit);
		return;
	}
	snprintf(buf, n, "%9" PRIu64 " ns", ns);
}

int lockcon_text_parse_time(const char *num, const char *unit, uint64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(num, &end);
	if (end == num || *end || errno || v < 0)
		return -1;
	if (!strcmp(unit, "ns")) {
		*ns = (uint64_t)llround(v);
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit)) {
			*ns = (uint64_t)llround(v * (double)units[i].base);
			return 0;
		}
	return -1;
}

const char *lockcon_text_view_name(enum lockcon_text_view v)
{
	static const char *const names[] = { "caller", "task", "address", "cgroup" };

	return names[v];
}

/* Whitespace tokens of a line with their positions. */
struct toks {
	int n;
	const char *s[64];
	int len[64];
};

static void tokenize(const char *line, struct toks *t)
{
	const char *p = line;

	t->n = 0;
	while (*p && t->n < 64) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		t->s[t->n] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		t->len[t->n] = p - t->s[t->n];
		t->n++;
	}
}

static bool tok_is(const struct toks *t, int i, const char *w)
{
	return i < t->n && t->len[i] == (int)strlen(w) && !strncmp(t->s[i], w, t->len[i]);
}

static void tok_copy(const struct toks *t, int i, char *buf, size_t n)
{
	snprintf(buf, n, "%.*s", i < t->n ? t->len[i] : 0, i < t->n ? t->s[i] : "");
}

/* Copies the line from token i to its end, trailing blanks removed. */
static void rest_copy(const struct toks *t, int i, char *buf, size_t n)
{
	size_t len;

	if (i >= t->n) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, n, "%s", t->s[i]);
	len = strlen(buf);
	while (len && isspace((unsigned char)buf[len - 1]))
		buf[--len] = '\0';
}

static int col_of_word(const char *w, int len)
{
	if (len == 5 && !strncmp(w, "total", 5))
		return LCT_WAIT_TOTAL;
	if (len == 3 && !strncmp(w, "max", 3))
		return LCT_WAIT_MAX;
	if (len == 3 && !strncmp(w, "min", 3))
		return LCT_WAIT_MIN;
	if (len == 3 && !strncmp(w, "avg", 3))
		return LCT_WAIT_AVG;
	return -1;
}

/* A text header: "[^C] contended  total wait ... (type caller | pid comm | address symbol | cgroup)". */
static bool parse_text_header(const struct toks *t, struct lockcon_text_table *tb)
{
	int i = 0, nc = 0;

	if (tok_is(t, 0, "^C"))
		i = 1;
	if (!tok_is(t, i, "contended"))
		return false;
	tb->cols[nc++] = LCT_CONTENDED;
	for (i++; i + 1 < t->n && tok_is(t, i + 1, "wait"); i += 2) {
		int c = col_of_word(t->s[i], t->len[i]);

		if (c < 0 || nc >= LCT_NCOLS)
			return false;
		tb->cols[nc++] = c;
	}
	tb->cols[nc] = LCT_NCOLS;
	if (tok_is(t, i, "type") && tok_is(t, i + 1, "caller"))
		tb->view = LCT_CALLER;
	else if (tok_is(t, i, "pid") && (tok_is(t, i + 1, "comm") || tok_is(t, i + 1, "owner")))
		tb->view = LCT_TASK;
	else if (tok_is(t, i, "address") && tok_is(t, i + 1, "symbol"))
		tb->view = LCT_ADDR;
	else if (tok_is(t, i, "cgroup"))
		tb->view = LCT_CGROUP;
	else
		return false;
	return true;
}

/* Splits a CSV line at sep (a string, e.g. ","), trimming blanks. */
static int csv_split(char *line, const char *sep, char **f, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		char *s = strstr(p, sep), *b, *e;

		if (s)
			*s = '\0';
		for (b = p; isspace((unsigned char)*b); b++)
			;
		e = b + strlen(b);
		while (e > b && isspace((unsigned char)e[-1]))
			*--e = '\0';
		f[n++] = b;
		if (!s)
			break;
		p = s + strlen(sep);
	}
	return n;
}

/* "# output: contended<SEP> total wait<SEP> ... <SEP> caller" */
static bool parse_csv_header(const char *line, struct lockcon_text_table *tb, char *sep, size_t seplen)
{
	const char *p = strstr(line, "# output:");
	char buf[512], *f[16];
	const char *c;
	int n, nc = 0;
	size_t k = 0;

	if (!p)
		return false;
	p += strlen("# output:");
	while (*p == ' ')
		p++;
	if (strncmp(p, "contended", 9))
		return false;
	c = p + 9;
	while (c[k] && c[k] != ' ' && k + 1 < seplen)
		k++;
	if (!k)
		return false;
	memcpy(sep, c, k);
	sep[k] = '\0';
	snprintf(buf, sizeof(buf), "%s", p);
	n = csv_split(buf, sep, f, 16);
	tb->csv = true;
	for (int i = 0; i < n; i++) {
		/* Each time column once at most (a mangled header could repeat). */
		if (nc >= LCT_NCOLS)
			return false;
		if (!strcmp(f[i], "contended"))
			tb->cols[nc++] = LCT_CONTENDED;
		else if (!strcmp(f[i], "total wait"))
			tb->cols[nc++] = LCT_WAIT_TOTAL;
		else if (!strcmp(f[i], "max wait"))
			tb->cols[nc++] = LCT_WAIT_MAX;
		else if (!strcmp(f[i], "min wait"))
			tb->cols[nc++] = LCT_WAIT_MIN;
		else if (!strcmp(f[i], "avg wait"))
			tb->cols[nc++] = LCT_WAIT_AVG;
		else if (!strcmp(f[i], "caller"))
			tb->view = LCT_CALLER;
		else if (!strcmp(f[i], "comm") || !strcmp(f[i], "owner"))
			tb->view = LCT_TASK;
		else if (!strcmp(f[i], "symbol"))
			tb->view = LCT_ADDR;
		else if (!strcmp(f[i], "cgroup"))
			tb->view = LCT_CGROUP;
	}
	tb->cols[nc] = LCT_NCOLS;
	return nc > 0;
}

static int ncols(const struct lockcon_text_table *tb)
{
	int n = 0;

	while (tb->cols[n] != LCT_NCOLS)
		n++;
	return n;
}

static struct lockcon_text_row *new_row(struct lockcon_text_table *tb, int lineno)
{
	struct lockcon_text_row *r;

	tb->rows = xrealloc(tb->rows, (tb->n + 1) * sizeof(*tb->rows));
	r = &tb->rows[tb->n++];
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < LCT_NCOLS; i++)
		r->v[i] = LCT_ABSENT;
	r->pid = -1;
	r->line = lineno;
	return r;
}

static void parse_addr_tail(struct lockcon_text_row *r, const char *rest)
{
	char buf[256], *open;
	size_t len;

	snprintf(buf, sizeof(buf), "%s", rest);
	len = strlen(buf);
	open = strrchr(buf, '(');
	if (len && buf[len - 1] == ')' && open) {
		buf[len - 1] = '\0';
		snprintf(r->type, sizeof(r->type), "%s", open + 1);
		*open = '\0';
		len = strlen(buf);
		while (len && isspace((unsigned char)buf[len - 1]))
			buf[--len] = '\0';
	}
	snprintf(r->symbol, sizeof(r->symbol), "%s", buf);
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static const char *col_label(int c)
{
	static const char *const l[] = { "contended", "total wait", "max wait", "min wait", "avg wait" };

	return l[c];
}

static int parse_text_row(struct lockcon_text_table *tb, const struct toks *t, const char *source,
			  int lineno, char *err, size_t errlen)
{
	int nc = ncols(tb), i = 1;
	struct lockcon_text_row *r;

	/* Not a row unless "<int> <number> <unit>" starts it. */
	if (t->n < 3 || !str_is_digits(t->s[0], t->len[0]) || !isdigit((unsigned char)t->s[1][0]))
		return 1;
	r = new_row(tb, lineno);
	r->v[LCT_CONTENDED] = strtoull(t->s[0], NULL, 10);
	for (int c = 1; c < nc; c++, i += 2) {
		char num[32], unit[8];

		tok_copy(t, i, num, sizeof(num));
		tok_copy(t, i + 1, unit, sizeof(unit));
		if (i + 1 >= t->n || lockcon_text_parse_time(num, unit, &r->v[tb->cols[c]]))
			FAIL("%s:%d: field '%s': expected a time like '12.34 us' or '870 ns', got '%s %s'",
			     source, lineno, col_label(tb->cols[c]), num, unit);
	}
	switch (tb->view) {
	case LCT_CALLER:
		if (i + 1 >= t->n)
			FAIL("%s:%d: expected 'type caller' after the times", source, lineno);
		tok_copy(t, i, r->type, sizeof(r->type));
		rest_copy(t, i + 1, r->caller, sizeof(r->caller));
		break;
	case LCT_TASK: {
		char pid[32], *end;

		tok_copy(t, i, pid, sizeof(pid));
		r->pid = strtol(pid, &end, 10);
		if (end == pid || *end)
			FAIL("%s:%d: field 'pid': expected an integer, got '%s'", source, lineno, pid);
		rest_copy(t, i + 1, r->comm, sizeof(r->comm));
		break;
	}
	case LCT_ADDR: {
		char addr[40], *end, rest[256];

		tok_copy(t, i, addr, sizeof(addr));
		r->addr = strtoull(addr, &end, 16);
		if (end == addr || *end)
			FAIL("%s:%d: field 'address': expected a hex address, got '%s'", source, lineno, addr);
		rest_copy(t, i + 1, rest, sizeof(rest));
		parse_addr_tail(r, rest);
		break;
	}
	case LCT_CGROUP:
		rest_copy(t, i, r->cgroup, sizeof(r->cgroup));
		break;
	}
	return 0;
}

static int parse_csv_row(struct lockcon_text_table *tb, char *line, const char *sep, const char *source,
			 int lineno, char *err, size_t errlen)
{
	char *f[32];
	int n = csv_split(line, sep, f, 32), nc = ncols(tb), k;
	struct lockcon_text_row *r;

	if (!n || !str_is_digits(f[0], strlen(f[0])))
		return 1;
	r = new_row(tb, lineno);
	for (k = 0; k < nc; k++) {
		char *end;

		if (k >= n)
			FAIL("%s:%d: expected %d values, got %d", source, lineno, nc, n);
		r->v[tb->cols[k]] = strtoull(f[k], &end, 10);
		if (end == f[k] || *end)
			FAIL("%s:%d: field '%s': expected integer nanoseconds, got '%s'", source, lineno,
			     col_label(tb->cols[k]), f[k]);
	}
	switch (tb->view) {
	case LCT_CALLER:
		snprintf(r->type, sizeof(r->type), "%s", k < n ? f[k] : "");
		snprintf(r->caller, sizeof(r->caller), "%s", k + 1 < n ? f[k + 1] : "");
		/* With -v a stacktrace column follows: frames split by ':'. */
		if (k + 2 < n && f[k + 2][0])
			for (char *p = f[k + 2]; p; p = strchr(p + 1, ':'))
				r->nframes++;
		break;
	case LCT_TASK:
		r->pid = k < n ? strtol(f[k], NULL, 10) : -1;
		snprintf(r->comm, sizeof(r->comm), "%s", k + 1 < n ? f[k + 1] : "");
		break;
	case LCT_ADDR:
		r->addr = k < n ? strtoull(f[k], NULL, 16) : 0;
		snprintf(r->symbol, sizeof(r->symbol), "%s", k + 1 < n ? f[k + 1] : "");
		snprintf(r->type, sizeof(r->type), "%s", k + 2 < n ? f[k + 2] : "");
		break;
	case LCT_CGROUP:
		snprintf(r->cgroup, sizeof(r->cgroup), "%s", k < n ? f[k] : "");
		break;
	}
	return 0;
}

static void parse_debug_csv(struct lockcon_text_table *tb, const char *line)
{
	const char *p = strstr(line, "total="), *b = strstr(line, "bad=");

	tb->have_debug = true;
	if (p)
		tb->debug_total = strtoull(p + 6, NULL, 10);
	if (b)
		tb->debug_bad = strtoull(b + 4, NULL, 10);
}

int lockcon_text_parse(const char *text, const char *source, struct lockcon_text_table **tables,
		       size_t *ntables, char *err, size_t errlen)
{
	struct lockcon_text_table *tv = NULL, *cur = NULL;
	size_t nt = 0;
	const char *p = text;
	char sep[8] = "";
	bool in_debug = false;
	int lineno = 0;

	char line[4096];

	while (text_next_line(&p, line, sizeof(line))) {
		struct lockcon_text_table probe;
		struct toks t;
		int r;

		lineno++;
		tokenize(line, &t);
		if (!t.n)
			continue;

		memset(&probe, 0, sizeof(probe));
		if (parse_text_header(&t, &probe) || parse_csv_header(line, &probe, sep, sizeof(sep))) {
			tv = xrealloc(tv, (nt + 1) * sizeof(*tv));
			cur = &tv[nt++];
			*cur = probe;
			cur->header_line = lineno;
			in_debug = false;
			continue;
		}
		if (!cur)
			continue;
		/* The owner section: rows after it are owners (print_contention_result). */
		if (strstr(line, "=== owner stack trace ===") ||
		    (cur->csv && strstr(line, "# owner stack trace:"))) {
			cur->owner_line = lineno;
			in_debug = false;
			continue;
		}
		if (strstr(line, "=== output for debug ===")) {
			in_debug = true;
			cur->have_debug = true;
			continue;
		}
		if (in_debug) {
			const char *b = strstr(line, "bad: "), *tt = strstr(line, "total: ");

			if (b && tt) {
				cur->debug_bad = strtoull(b + 5, NULL, 10);
				cur->debug_total = strtoull(tt + 7, NULL, 10);
			}
			continue;
		}
		if (cur->csv && !strncmp(t.s[0], "#", 1)) {
			if (strstr(line, "# debug:"))
				parse_debug_csv(cur, line);
			continue;
		}
		/* -v stack frames: indented "0xaddr  sym+off" under an entry. */
		if (!cur->csv && isspace((unsigned char)line[0]) && t.len[0] > 2 &&
		    !strncmp(t.s[0], "0x", 2) && cur->n) {
			cur->rows[cur->n - 1].nframes++;
			continue;
		}
		if (cur->csv)
			r = parse_csv_row(cur, line, sep, source, lineno, err, errlen);
		else
			r = parse_text_row(cur, &t, source, lineno, err, errlen);
		if (r < 0) {
			lockcon_text_free(tv, nt);
			return -1;
		}
		if (r == 0 && cur->owner_line) {
			cur->rows[cur->n - 1].owner = true;
			cur->nowners++;
		}
	}
	if (!nt) {
		snprintf(err, errlen, "%s: no perf lock contention table (a header with 'contended' and "
			 "'caller', 'comm', 'symbol' or 'cgroup', or a CSV '# output:' line)", source);
		return -1;
	}
	*tables = tv;
	*ntables = nt;
	return 0;
}

void lockcon_text_free(struct lockcon_text_table *tables, size_t ntables)
{
	for (size_t i = 0; i < ntables; i++)
		free(tables[i].rows);
	free(tables);
}

void lockcon_text_write_tsv(FILE *f, const struct lockcon_text_table *t)
{
	tsv_write_header(f, (const char *const[]){ "key", "contended", "wait_total_ns", "wait_max_ns", "wait_avg_ns",
						   "wait_min_ns", "type", "role", NULL });
	for (size_t i = 0; i < t->n; i++) {
		const struct lockcon_text_row *r = &t->rows[i];
		static const int cols[] = { LCT_WAIT_TOTAL, LCT_WAIT_MAX, LCT_WAIT_AVG, LCT_WAIT_MIN };

		switch (t->view) {
		case LCT_CALLER: tsv_write_row(f, "%s", r->caller); break;
		case LCT_TASK: fprintf(f, "%ld", r->pid); break;
		case LCT_ADDR:
			if (r->symbol[0])
				tsv_write_row(f, "%s", r->symbol);
			else
				fprintf(f, "0x%016" PRIx64, r->addr);
			break;
		case LCT_CGROUP: tsv_write_row(f, "%s", r->cgroup); break;
		}
		fprintf(f, "\t%" PRIu64, r->v[LCT_CONTENDED]);
		for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
			if (r->v[cols[c]] == LCT_ABSENT)
				fprintf(f, "\t-");
			else
				fprintf(f, "\t%" PRIu64, r->v[cols[c]]);
		}
		tsv_write_row(f, "\t%s\t%s\n", r->type[0] ? r->type : "-", r->owner ? "owner" : "waiter");
	}
}
