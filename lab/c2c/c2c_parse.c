// SPDX-License-Identifier: GPL-2.0
/*
 * perf c2c report --stdio parser: the section state machine and the rows
 * it reads, one concern (a little over 1,000 lines as such).  See
 * c2c_parse.h for the contract and lab/README section 2 for the rules the
 * samples force.  Which column is which, per perf version, is
 * c2c_parse_cols.c; the TSVs of a parsed report, c2c_parse_dir.c.
 *
 * Lines are classified after dropping the excerpt prefix (mail quotes, TABs,
 * spaces): banner ('='), dash separator ('-', optionally after '#'), '#'
 * header/comment, blank, or text.  A small state machine follows the
 * sections; header lines are recognised by their column names, so excerpts
 * without banners still parse.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "util/strfmt.h"
#include "c2c/c2c_parse.h"
#include "c2c/c2c_parse_cols.h"
#include "util/err.h"

/* The two name rows of a table (their columns: c2c_parse_cols.h). */
struct header {
	int n;
	struct col c[MAX_COLS];
	int line;		/* line of the name row; 0 when inferred */
	bool valid;
	int first_text;		/* index of the first text column (Pareto), or n */
	int offset_col;		/* index of "Offset" (Pareto), or -1 */
	int stage;		/* inferred Pareto header: 1 = up to Offset, 2 = full */
	bool warned_unknown;
};

enum table { TAB_CL, TAB_PARETO };

/* ---------------------------------------------------------------- */
/* Parser state                                                      */

enum section { S_NONE, S_TRACE, S_GLOBAL, S_DETAILS, S_TABLE, S_PARETO, S_UNKNOWN };
enum block { B_NONE, B_SUMMARY, B_HDR_END, B_ROWS };

static const char *const section_names[] = {
	[S_NONE] = "trace", [S_TRACE] = "trace", [S_GLOBAL] = "global",
	[S_DETAILS] = "details", [S_TABLE] = "table", [S_PARETO] = "pareto",
	[S_UNKNOWN] = "unknown",
};

struct parser {
	struct c2c_report *r;
	c2c_offset_cb cb;
	void *cb_arg;
	struct arena row_arena;		/* streamed offset rows */

	enum section sect;
	int banner;			/* 0 none, 1 expecting title, 2 expecting closing '=' */
	enum block blk;
	struct header tab, par;
	char prev_hash[4096];		/* the '#' line before this one (group line candidate) */
	bool have_prev_hash;
	const char *last_key;		/* for "Events" continuation lines */
	const char *share_of;
	struct c2c_cacheline *cur;	/* the Pareto block's cacheline */
	bool warned_nobanner_stats;
	bool warned_infer;
	bool partial;			/* this line has no newline: the file was cut off in it */
	bool tables;			/* a cacheline table or Pareto block began */
	int lineno;
};

static void warn_at(struct parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn_at(struct parser *p, int line, const char *fmt, ...)
{
	struct c2c_report *r = p->r;
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (r->nwarns == r->warns_cap) {
		r->warns_cap = r->warns_cap ? 2 * r->warns_cap : 16;
		r->warns = xrealloc(r->warns, r->warns_cap * sizeof(*r->warns));
	}
	r->warns[r->nwarns].line = line;
	r->warns[r->nwarns].msg = arena_strdup(&r->arena, buf);
	r->nwarns++;
}

/* A short, printable excerpt of a line for messages. */
static const char *excerpt(const char *s, char *buf, size_t n)
{
	size_t len = strlen(s);

	if (len + 1 <= n) {
		snprintf(buf, n, "%s", s);
	} else {
		snprintf(buf, n, "%.*s...", (int)(n - 4), s);
	}
	for (char *c = buf; *c; c++)
		if (*c == '\t')
			*c = ' ';
	return buf;
}

/* ---------------------------------------------------------------- */
/* Report storage                                                    */

static void add_stat(struct parser *p, const char *section, const char *key, const char *value)
{
	struct c2c_report *r = p->r;
	struct c2c_stat *s;
	size_t vlen = strlen(value);
	bool pct = vlen && value[vlen - 1] == '%';

	if (r->nstats == r->stats_cap) {
		r->stats_cap = r->stats_cap ? 2 * r->stats_cap : 64;
		r->stats = xrealloc(r->stats, r->stats_cap * sizeof(*r->stats));
	}
	s = &r->stats[r->nstats++];
	s->section = section;
	s->key = arena_strdup(&r->arena, key);
	s->value = arena_strndup(&r->arena, value, pct ? vlen - 1 : vlen);
	while (pct && s->value[0] == ' ')
		s->value++;
	s->unit = pct ? "%" : "";
	s->line = p->lineno;
	p->last_key = s->key;

	if (!strcmp(section, "details")) {
		if (!strcasecmp(key, "Cachelines sort on")) {
			r->sort_on = s->value;
			if (strcasestr(s->value, "Peer"))
				r->peer_display = true;
		} else if (!strncasecmp(key, "Cacheline data group", 20)) {
			r->grouping = s->value;
		} else if (!strcasecmp(key, "Events") && !r->vendor) {
			/* "Events : arm_spe_0/.../", then continuation lines
			 * (": memory", the samples perf synthesized) */
			r->vendor = c2c_vendor_of_event(s->value);
		}
	} else if (!c2c_is_number(s->value, (int)strlen(s->value))) {
		char ex[80];

		warn_at(p, p->lineno, "statistic '%s' has a value that is not a number: '%s'",
			key, excerpt(value, ex, sizeof(ex)));
	}
}

static struct c2c_cacheline *find_cl(struct c2c_report *r, int index)
{
	if (index >= 0 && (size_t)index < r->ncls && r->cls[index].index == index)
		return &r->cls[index];
	for (size_t i = 0; i < r->ncls; i++)
		if (r->cls[i].index == index)
			return &r->cls[i];
	return NULL;
}

/*
 * Cachelines are few (one per table row), so they live in a growing array;
 * offset rows point at them, hence the array is re-pointed on growth.
 */
static struct c2c_cacheline *new_cl(struct parser *p)
{
	struct c2c_report *r = p->r;
	struct c2c_cacheline *old = r->cls, *cl;

	if (r->ncls == r->cls_cap) {
		r->cls_cap = r->cls_cap ? 2 * r->cls_cap : 64;
		r->cls = xrealloc(r->cls, r->cls_cap * sizeof(*r->cls));
		if (old != r->cls) {
			for (size_t i = 0; i < r->noffs; i++)
				r->offs[i].cl = r->cls + (r->offs[i].cl - old);
			if (p->cur)
				p->cur = r->cls + (p->cur - old);
		}
	}
	cl = &r->cls[r->ncls++];
	memset(cl, 0, sizeof(*cl));
	cl->index = -1;
	cl->line = p->lineno;
	return cl;
}

static void append_extra(struct arena *a, const char **slot, const struct col *c, const char *val, int len)
{
	const char *name = c ? c->name : "column";

	if (*slot)
		*slot = arena_printf(a, "%s;%s%s%s=%.*s", *slot, c && c->group[0] ? c->group : "",
				     c && c->group[0] ? " " : "", name, len, val);
	else
		*slot = arena_printf(a, "%s%s%s=%.*s", c && c->group[0] ? c->group : "",
				     c && c->group[0] ? " " : "", name, len, val);
}

/* ---------------------------------------------------------------- */
/* Headers                                                           */

static void parse_header(struct parser *p, struct header *h, enum table tab, const char *names,
			 const char *groups)
{
	struct seg ns[MAX_COLS], gs[MAX_COLS];
	char nbuf[4096], gbuf[4096];
	int nn, ng = 0;
	bool taken[(int)OFF_NKEYS > (int)CL_NKEYS ? (int)OFF_NKEYS : (int)CL_NKEYS] = { 0 };
	bool after_text = false;

	memset(h, 0, sizeof(*h));
	snprintf(nbuf, sizeof(nbuf), "%s", names);
	nbuf[0] = ' ';		/* the leading '#' */
	nn = c2c_split_cells(nbuf, ns, MAX_COLS);
	if (groups) {
		snprintf(gbuf, sizeof(gbuf), "%s", groups);
		gbuf[0] = ' ';
		ng = c2c_split_cells(gbuf, gs, MAX_COLS);
	}
	h->line = p->lineno;
	h->offset_col = -1;
	h->first_text = nn;
	p->share_of = NULL;
	for (int i = 0; i < nn; i++) {
		struct col *c = &h->c[i];
		int cs = i ? ns[i - 1].end + 1 : 0, ce = ns[i].end;
		int best = 0;

		c2c_clean_label(c->name, sizeof(c->name), nbuf + ns[i].start, ns[i].end - ns[i].start);
		c->end = ce;
		for (int j = 0; j < ng; j++) {
			int lo = gs[j].start > cs ? gs[j].start : cs;
			int hi = gs[j].end < ce + 1 ? gs[j].end : ce + 1;

			if (hi - lo > best) {
				best = hi - lo;
				c2c_clean_label(c->group, sizeof(c->group), gbuf + gs[j].start,
					    gs[j].end - gs[j].start);
			}
		}
		if (tab == TAB_CL) {
			c->key = c2c_map_cl_col(c, taken, &p->share_of);
			c->type = c2c_cl_type(c->key);
			if (c2c_group_has(c->group, "Double-Cacheline"))
				p->r->double_cl = true;
		} else {
			c->key = c2c_map_pareto_col(c, taken, after_text);
			c->type = c2c_off_type(c->key);
			if (c->type == T_TEXT && !after_text) {
				after_text = true;
				h->first_text = i;
			}
			if (after_text && c->type != T_TEXT) {
				/* An unknown column among the text columns stays text. */
				c->type = T_TEXT;
			}
			if (c->key == OFF_OFFSET)
				h->offset_col = i;
			if (c->key == OFF_PEER_RMT_PCT || c->key == OFF_PEER_LCL_PCT)
				p->r->peer_display = true;
		}
		if (c->key >= 0)
			taken[c->key] = true;
		if (c->key == KEY_UNKNOWN)
			warn_at(p, p->lineno, "unknown column '%s%s%s' (kept in the extra column)",
				c->group, c->group[0] ? " " : "", c->name);
	}
	h->n = nn;
	h->valid = nn > 0;
	if (tab == TAB_CL && p->share_of && !strcmp(p->share_of, "peer"))
		p->r->peer_display = true;
	if (tab == TAB_PARETO && h->offset_col < 0)
		warn_at(p, p->lineno, "Pareto header has no Offset column");
}

/* Header columns for a Pareto block printed without its header (excerpts). */
static void infer_add(struct header *h, const char *group, const char *name)
{
	bool taken[OFF_NKEYS] = { 0 }, after_text = false;
	struct col *c;

	/* A summary line with more counts than any perf prints (found by
	 * fuzz-c2c): the columns past MAX_COLS are not read. */
	if (h->n >= MAX_COLS)
		return;
	c = &h->c[h->n];

	for (int i = 0; i < h->n; i++) {
		if (h->c[i].key >= 0)
			taken[h->c[i].key] = true;
		after_text |= h->c[i].type == T_TEXT;
	}
	snprintf(c->group, sizeof(c->group), "%s", group);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->key = c2c_map_pareto_col(c, taken, after_text);
	c->type = c2c_off_type(c->key);
	if (c->key == OFF_OFFSET)
		h->offset_col = h->n;
	if (!after_text)
		h->first_text = c->type == T_TEXT ? h->n : h->n + 1;
	h->n++;
}

static void infer_pareto_summary(struct parser *p, int ncounts)
{
	struct header *h = &p->par;
	static const char *const four[] = { "Rmt", "Lcl", "L1 Hit", "L1 Miss" };

	memset(h, 0, sizeof(*h));
	h->offset_col = -1;
	infer_add(h, "", "Num");
	for (int i = 0; i < ncounts; i++) {
		if (ncounts == 6 && i == 2) {
			infer_add(h, "Snoop", "Peer");
			continue;
		}
		{
			int j = (ncounts == 6 && i > 2) ? i - 1 : i;

			if (j < 4)
				infer_add(h, j < 2 ? "HITM" : "Store Refs", four[j]);
			else if (j == 4)
				infer_add(h, "Store Refs", "N/A");
			else
				infer_add(h, "", "?");
		}
	}
	h->stage = 1;
	h->valid = true;
	if (!p->warned_infer) {
		warn_at(p, p->lineno, "Pareto block without a column header (an excerpt): %d counts read "
			"as %s; the HITM display is assumed", ncounts,
			ncounts == 4 ? "Rmt, Lcl, L1 Hit, L1 Miss" :
			ncounts == 5 ? "Rmt, Lcl, L1 Hit, L1 Miss, N/A" :
			ncounts == 6 ? "Rmt, Lcl, Peer, L1 Hit, L1 Miss, Any Lvl" : "unknown columns");
		p->warned_infer = true;
	}
}

/* Completes an inferred header from the shape of the first offset row. */
static void infer_pareto_rows(struct parser *p, const struct tok *t, int n)
{
	struct header *h = &p->par;
	int i = h->n - 1;		/* tokens before the offset: the percentages */
	int mid = 0, after = 0;

	/* offset, then tokens up to the code address, then counts up to "[x]" */
	if (i >= n || !c2c_is_hex(t[i].s, t[i].len)) {
		warn_at(p, p->lineno, "offset row without a column header does not have an offset after "
			"%d percentages; its values are kept in the extra column", i);
		h->stage = 2;
		return;
	}
	infer_add(h, "Data address", "Offset");
	for (int j = i + 1; j < n && !c2c_is_hex(t[j].s, t[j].len); j++)
		mid++;
	if (mid == 1) {
		infer_add(h, "", "Pid");
	} else if (mid >= 2) {
		infer_add(h, "Data address", "Node");
		infer_add(h, "Data address", "PA cnt");
		if (mid >= 3)
			infer_add(h, "", "Pid");
		if (mid >= 4)
			infer_add(h, "", "Tid");
	}
	infer_add(h, "", "Code address");
	for (int j = i + mid + 2; j < n && t[j].s[0] != '['; j++)
		after++;
	infer_add(h, "cycles", "rmt hitm");
	infer_add(h, "cycles", "lcl hitm");
	infer_add(h, "cycles", "load");
	if (after >= 6)
		infer_add(h, "cycles", "peer");
	if (after >= 5)
		infer_add(h, "Total", "records");
	infer_add(h, "cpu", "cnt");
	infer_add(h, "", "Symbol");
	infer_add(h, "Shared", "Object");
	infer_add(h, "", "Source:Line");
	infer_add(h, "", "Node");
	h->stage = 2;
	warn_at(p, p->lineno, "offset rows read as: offset%s, code address, %d cycle/count columns, "
		"symbol, object, source, node (inferred from the values)",
		mid == 1 ? ", pid" : mid == 2 ? ", node, PA cnt" : mid >= 3 ? ", node, PA cnt, pid" : "",
		after);
}

/* ---------------------------------------------------------------- */
/* Rows                                                              */

static void parse_cl_row(struct parser *p, const char *line)
{
	struct c2c_report *r = p->r;
	struct header *h = &p->tab;
	struct tok t[MAX_TOKS];
	int n = c2c_tokenize(line, t, MAX_TOKS, NULL), i;
	struct c2c_cacheline *cl;
	char ex[80];

	if (p->partial && n > 0) {
		warn_at(p, p->lineno, "the report is cut off in this row; its last value '%.*s' may be "
			"incomplete and is dropped", t[n - 1].len, t[n - 1].s);
		n--;
	}
	if (!h->valid) {
		warn_at(p, p->lineno, "table row before any column header, skipped: '%s'",
			excerpt(line, ex, sizeof(ex)));
		return;
	}
	cl = new_cl(p);
	if (p->share_of)
		cl->v[CL_SHARE_OF] = p->share_of;
	for (i = 0; i < n && i < h->n; i++) {
		const struct col *c = &h->c[i];

		if (!c2c_tok_is(c->type, &t[i])) {
			warn_at(p, p->lineno, "column '%s' should be %s, found '%.*s'; the rest of the row is skipped",
				c->name, c2c_type_name(c->type), t[i].len, t[i].s);
			break;
		}
		if (c->key < 0) {
			append_extra(&r->arena, &cl->v[CL_EXTRA], c, t[i].s, t[i].len);
			continue;
		}
		cl->v[c->key] = arena_strndup(&r->arena, t[i].s,
					      c->type == T_PCT ? t[i].len - 1 : t[i].len);
	}
	if (i == n && n < h->n)
		warn_at(p, p->lineno, "table row ends after %d of %d columns (cut off?); kept what was there",
			n, h->n);
	for (int j = h->n; j < n; j++)
		append_extra(&r->arena, &cl->v[CL_EXTRA], NULL, t[j].s, t[j].len);
	if (n > h->n)
		warn_at(p, p->lineno, "table row has %d values for %d columns; the rest kept in the extra column",
			n, h->n);
	if (cl->v[CL_INDEX])
		cl->index = atoi(cl->v[CL_INDEX]);
	if (cl->v[CL_ADDRESS])
		cl->address = strtoull(cl->v[CL_ADDRESS], NULL, 16);
}

/* Summary counts go to the cacheline's own cells. */
static int summary_key(int off_key, bool peer)
{
	switch (off_key) {
	case OFF_HITM_RMT_PCT: return CL_HITM_RMT;
	case OFF_HITM_LCL_PCT: return CL_HITM_LCL;
	case OFF_PEER_RMT_PCT: return CL_PEER_RMT;
	case OFF_PEER_LCL_PCT: return CL_PEER_LCL;
	case OFF_PEER_PCT: return CL_PEER_TOTAL;
	case OFF_ST_L1HIT_PCT: return CL_ST_L1HIT;
	case OFF_ST_L1MISS_PCT: return CL_ST_L1MISS;
	case OFF_ST_NA_PCT: return CL_ST_NA;
	default: (void)peer; return -1;
	}
}

static void parse_summary(struct parser *p, const char *line)
{
	struct c2c_report *r = p->r;
	struct tok t[MAX_TOKS];
	int n = c2c_tokenize(line, t, MAX_TOKS, NULL), ncounts;
	struct header *h = &p->par;
	struct c2c_cacheline *cl;
	int index;
	uint64_t addr;
	char ex[80];

	if (p->partial) {
		warn_at(p, p->lineno, "the report is cut off in a cacheline summary; block skipped");
		p->cur = NULL;
		return;
	}
	if (n < 2 || !str_is_digits(t[0].s, t[0].len) || !c2c_is_hex(t[n - 1].s, t[n - 1].len)) {
		warn_at(p, p->lineno, "expected a cacheline summary (Num ... address), found '%s'; block skipped",
			excerpt(line, ex, sizeof(ex)));
		p->cur = NULL;
		return;
	}
	ncounts = n - 2;
	if (!h->valid)
		infer_pareto_summary(p, ncounts);
	index = atoi(t[0].s);
	addr = strtoull(t[n - 1].s, NULL, 16);
	cl = find_cl(r, index);
	if (cl && cl->v[CL_ADDRESS] && cl->address != addr) {
		warn_at(p, p->lineno, "Pareto block %d is for %.*s but table row %d is %s; kept apart",
			index, t[n - 1].len, t[n - 1].s, index, cl->v[CL_ADDRESS]);
		cl = NULL;
	}
	if (!cl) {
		cl = new_cl(p);
		cl->index = index;
		cl->v[CL_INDEX] = arena_strndup(&r->arena, t[0].s, t[0].len);
		cl->v[CL_SHARE_OF] = NULL;
	}
	if (!cl->v[CL_ADDRESS]) {
		cl->v[CL_ADDRESS] = arena_strndup(&r->arena, t[n - 1].s, t[n - 1].len);
		cl->address = addr;
	}
	{
		int want = h->offset_col >= 0 ? h->offset_col - 1 : h->n - 1;

		if (want != ncounts)
			warn_at(p, p->lineno, "cacheline summary has %d counts, the header %d; counts beyond the "
				"header kept in the extra column", ncounts, want);
	}
	for (int i = 1; i <= ncounts; i++) {
		const struct col *c = i < h->n && (h->offset_col < 0 || i < h->offset_col) ? &h->c[i] : NULL;
		int key = c ? summary_key(c->key, r->peer_display) : -1;

		if (!str_is_digits(t[i].s, t[i].len)) {
			warn_at(p, p->lineno, "cacheline summary value '%.*s' is not a count; skipped",
				t[i].len, t[i].s);
			continue;
		}
		if (key < 0) {
			append_extra(&r->arena, &cl->v[CL_EXTRA], c, t[i].s, t[i].len);
			continue;
		}
		if (cl->v[key]) {
			if ((int)strlen(cl->v[key]) != t[i].len || strncmp(cl->v[key], t[i].s, t[i].len))
				warn_at(p, p->lineno, "cacheline %d: the Pareto summary says %s %.*s, the table %s; "
					"the table's value kept", index, c->name, t[i].len, t[i].s, cl->v[key]);
			continue;
		}
		cl->v[key] = arena_strndup(&r->arena, t[i].s, t[i].len);
	}
	p->cur = cl;
}

static void store_offset(struct parser *p, struct c2c_offset *o)
{
	struct c2c_report *r = p->r;

	r->noffs_seen++;
	if (p->cb) {
		p->cb(o, p->cb_arg);
		return;
	}
	if (r->noffs == r->offs_cap) {
		r->offs_cap = r->offs_cap ? 2 * r->offs_cap : 256;
		r->offs = xrealloc(r->offs, r->offs_cap * sizeof(*r->offs));
	}
	r->offs[r->noffs++] = *o;
}

/* Splits "[k] symbol  object  source  node" into the text columns. */
static void parse_text_cols(struct parser *p, struct arena *a, struct c2c_offset *o, const char *s)
{
	const struct header *h = &p->par;
	int ci = h->first_text;
	char ex[80];

	while (*s == ' ')
		s++;
	if (!*s)
		return;
	if (ci < h->n && h->c[ci].key == OFF_SYMBOL) {
		if (p->partial && s[0] == '[' && (!s[1] || !s[2])) {
			return;		/* cut inside "[k]": nothing to keep */
		}
		if (s[0] == '[' && s[1] && s[2] == ']') {
			o->v[OFF_SYMBOL_TYPE] = arena_strndup(a, s, 3);
			s += 3;
			while (*s == ' ')
				s++;
		} else {
			warn_at(p, p->lineno, "symbol should start with [k] or [.], found '%s'",
				excerpt(s, ex, sizeof(ex)));
		}
	}
	for (; ci < h->n && *s; ci++) {
		const struct col *c = &h->c[ci];
		const char *end;
		size_t len;

		if (ci == h->n - 1) {
			/* The last column (node info) may itself hold double spaces. */
			len = strlen(s);
			while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
				len--;
			end = s + len;
		} else {
			end = strstr(s, "  ");
			if (!end)
				end = s + strlen(s);
			len = end - s;
		}
		if (c->key >= 0)
			o->v[c->key] = arena_strndup(a, s, len);
		else
			append_extra(a, &o->v[OFF_EXTRA], c, s, (int)len);
		s = end;
		while (*s == ' ' || *s == '\t')
			s++;
	}
	if (ci < h->n - 1)
		warn_at(p, p->lineno, "offset row ends before column '%s' (cut off?)", h->c[ci].name);
}

/* A report cut off in this row: its last value may be incomplete. */
static void trim_cut_row(struct parser *p, const struct tok *t, int *n, int *nnum)
{
	if (*nnum == *n && *n > 0) {
		warn_at(p, p->lineno, "the report is cut off in this row; its last value '%.*s' may be "
			"incomplete and is dropped", t[*n - 1].len, t[*n - 1].s);
		(*n)--;
		(*nnum)--;
	} else if (*nnum < *n) {
		warn_at(p, p->lineno, "the report is cut off in this row's text columns; the last "
			"one may be incomplete");
	}
}

/*
 * Stores token t[*ti] as the value of value column ci.  A comm may hold
 * spaces: a Tid:Comm cell takes the tokens the later value columns leave
 * over (of the nnum before the symbol), and *ti moves to its last one.
 */
static void take_value(struct parser *p, struct arena *a, struct c2c_offset *o, int ci,
		       const struct tok *t, int *ti, int nnum)
{
	const struct header *h = &p->par;
	const struct col *c = &h->c[ci];
	const struct tok *k = &t[*ti];

	if (c->type == T_TIDCOMM) {
		const char *start = k->s, *cend = k->s + k->len;
		const char *colon = memchr(start, ':', k->len);
		int surplus = (nnum - *ti - 1) - (h->first_text - ci - 1);

		while (surplus-- > 0) {
			(*ti)++;
			cend = t[*ti].s + t[*ti].len;
		}
		o->v[OFF_TID] = arena_strndup(a, start, (colon ? colon : cend) - start);
		if (colon)
			o->v[OFF_COMM] = arena_strndup(a, colon + 1, cend - colon - 1);
	} else if (c->key >= 0) {
		o->v[c->key] = arena_strndup(a, k->s, c->type == T_PCT ? k->len - 1 : k->len);
	} else {
		append_extra(a, &o->v[OFF_EXTRA], c, k->s, k->len);
	}
}

static void parse_offset_row(struct parser *p, const char *line)
{
	struct arena *a = p->cb ? &p->row_arena : &p->r->arena;
	struct header *h = &p->par;
	struct tok t[MAX_TOKS];
	const char *rest = NULL;
	struct c2c_offset o;
	int n, ti = 0, ci, nnum;
	char ex[80];

	if (!p->cur) {
		warn_at(p, p->lineno, "offset row outside a cacheline block, skipped: '%s'",
			excerpt(line, ex, sizeof(ex)));
		return;
	}
	n = c2c_tokenize(line, t, MAX_TOKS, NULL);
	if (h->valid && h->stage == 1) {
		if (p->partial) {
			warn_at(p, p->lineno, "the report is cut off in the first row of a block without a "
				"column header; its columns cannot be told, row skipped");
			return;
		}
		infer_pareto_rows(p, t, n);
	}
	nnum = 0;
	while (nnum < n && !c2c_is_symbol_mark(&t[nnum]))
		nnum++;
	if (p->partial)
		trim_cut_row(p, t, &n, &nnum);
	if (p->cb)
		arena_reset(a);
	memset(&o, 0, sizeof(o));
	o.cl = p->cur;
	o.line = p->lineno;
	o.v[OFF_CACHELINE] = p->cur->v[CL_INDEX];
	o.v[OFF_CACHELINE_ADDRESS] = p->cur->v[CL_ADDRESS];

	/* Value columns: every header column after Num up to the text columns;
	 * a row whose symbol comes early is missing some. */
	for (ci = 1; ci < h->first_text && ti < nnum; ci++, ti++) {
		const struct col *c = &h->c[ci];

		if (!c2c_tok_is(c->type, &t[ti])) {
			warn_at(p, p->lineno, "column '%s' should be %s, found '%.*s'; the rest of the row is skipped",
				c->name, c2c_type_name(c->type), t[ti].len, t[ti].s);
			store_offset(p, &o);
			return;
		}
		take_value(p, a, &o, ci, t, &ti, nnum);
		rest = t[ti].s + t[ti].len;
	}
	if (ci < h->first_text) {
		warn_at(p, p->lineno, "offset row ends after %d of %d value columns (cut off?); kept what was there",
			ci - 1, h->first_text - 1);
	} else if (h->first_text < h->n) {
		parse_text_cols(p, a, &o, rest ? rest : line);
	} else {
		for (; ti < n; ti++)
			append_extra(a, &o.v[OFF_EXTRA], NULL, t[ti].s, t[ti].len);
	}
	if (o.v[OFF_OFFSET] && p->cur->v[CL_ADDRESS]) {
		uint64_t off = strtoull(o.v[OFF_OFFSET], NULL, 16);

		o.v[OFF_DATA_ADDRESS] = arena_printf(a, "0x%" PRIx64, p->cur->address + off);
	}
	store_offset(p, &o);
}

/* ---------------------------------------------------------------- */
/* Lines                                                             */

static enum section section_of(const char *title)
{
	if (strcasestr(title, "Trace Event Information"))
		return S_TRACE;
	if (strcasestr(title, "Global Shared Cache Line Event"))
		return S_GLOBAL;
	if (strcasestr(title, "c2c details"))
		return S_DETAILS;
	if (strcasestr(title, "Shared Data") && strcasestr(title, "Table"))
		return S_TABLE;
	if (strcasestr(title, "Pareto"))
		return S_PARETO;
	return S_UNKNOWN;
}

static bool all_of(const char *s, const char *set)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(set, *s))
			return false;
	return true;
}

static bool is_dash_line(const char *s)
{
	size_t n;

	if (*s == '#')
		s++;
	while (*s == ' ')
		s++;
	n = strspn(s, "-");
	return n >= 20 && s[n] == '\0';
}

static bool stat_line(struct parser *p, const char *s)
{
	const char *colon = strchr(s, ':');
	char key[128];
	const char *k = s, *v;
	size_t klen;

	if (!colon)
		return false;
	klen = colon - k;
	while (klen && (k[klen - 1] == ' ' || k[klen - 1] == '\t'))
		klen--;
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	if (klen == 0) {
		/* "                      : cpu/mem-stores/P" continues Events. */
		if (!p->last_key)
			return false;
		snprintf(key, sizeof(key), "%s", p->last_key);
	} else {
		bool letter = false;

		if (klen >= sizeof(key))
			return false;
		for (size_t i = 0; i < klen; i++)
			letter |= isalpha((unsigned char)k[i]) != 0;
		if (!letter || isdigit((unsigned char)k[0]))
			return false;
		memcpy(key, k, klen);
		key[klen] = '\0';
	}
	if (p->partial) {
		warn_at(p, p->lineno, "the report is cut off in statistic '%s'; its value is dropped", key);
		return true;
	}
	if (p->sect == S_NONE) {
		if (!p->warned_nobanner_stats) {
			warn_at(p, p->lineno, "statistics without a section banner (an excerpt); filed under 'trace'");
			p->warned_nobanner_stats = true;
		}
	}
	add_stat(p, section_names[p->sect], key, v);
	return true;
}

static void handle_hash(struct parser *p, const char *s)
{
	struct tok t[MAX_TOKS];
	int n;

	if (all_of(s, "#. ")) {
		/* "#" or the dotted width line */
		if (strlen(s) > 1)
			return;		/* keep prev_hash: the dots sit under the names */
		p->have_prev_hash = false;
		return;
	}
	n = c2c_tokenize(s + 1, t, MAX_TOKS, NULL);
	if (c2c_is_cl_header(t, n)) {
		parse_header(p, &p->tab, TAB_CL, s, p->have_prev_hash ? p->prev_hash : NULL);
		p->sect = S_TABLE;
		p->tables = true;
	} else if (c2c_is_pareto_header(t, n)) {
		parse_header(p, &p->par, TAB_PARETO, s, p->have_prev_hash ? p->prev_hash : NULL);
		p->sect = S_PARETO;
		p->blk = B_NONE;
		p->tables = true;
	}
	snprintf(p->prev_hash, sizeof(p->prev_hash), "%s", s);
	p->have_prev_hash = true;
}

static void handle_line(struct parser *p, char *raw)
{
	char *s = raw, ex[80];
	size_t len;

	/* The excerpt prefix: mail quotes, TABs, indentation. */
	while (*s == ' ' || *s == '\t' || *s == '>')
		s++;
	len = strlen(s);
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
		s[--len] = '\0';

	if (len >= 10 && all_of(s, "=")) {
		if (p->banner == 2) {
			p->banner = 0;
		} else {
			p->banner = 1;
			if (p->blk == B_ROWS || p->blk == B_SUMMARY || p->blk == B_HDR_END)
				p->blk = B_NONE;
		}
		p->have_prev_hash = false;
		return;
	}
	if (p->banner == 1 && len) {
		p->sect = section_of(s);
		p->tables |= p->sect == S_TABLE || p->sect == S_PARETO;
		p->banner = 2;
		p->last_key = NULL;
		p->blk = B_NONE;
		if (p->sect == S_UNKNOWN)
			warn_at(p, p->lineno, "unknown section '%s'; its lines are skipped", excerpt(s, ex, sizeof(ex)));
		return;
	}
	if (p->banner == 2)
		p->banner = 0;		/* a title without its closing line */

	if (!len) {
		p->last_key = NULL;
		p->have_prev_hash = false;
		if (p->blk == B_ROWS)
			p->blk = B_NONE;
		return;
	}
	if (is_dash_line(s)) {
		p->have_prev_hash = false;
		if (p->sect != S_PARETO) {
			p->sect = S_PARETO;	/* an excerpt without the banner */
			p->tables = true;
		}
		if (p->blk == B_HDR_END) {
			p->blk = B_ROWS;
		} else if (p->blk == B_SUMMARY) {
			warn_at(p, p->lineno, "two separator lines without a cacheline summary between them");
		} else {
			p->blk = B_SUMMARY;
			p->cur = NULL;
		}
		return;
	}
	if (s[0] == '#') {
		handle_hash(p, s);
		return;
	}
	p->have_prev_hash = false;

	switch (p->sect) {
	case S_NONE:
	case S_TRACE:
	case S_GLOBAL:
	case S_DETAILS:
		if (stat_line(p, s))
			return;
		break;
	case S_TABLE:
		if (isdigit((unsigned char)s[0])) {
			parse_cl_row(p, s);
			return;
		}
		break;
	case S_PARETO:
		if (p->blk == B_SUMMARY) {
			parse_summary(p, s);
			p->blk = B_HDR_END;
			return;
		}
		if (p->blk == B_HDR_END) {
			warn_at(p, p->lineno, "missing separator line after the cacheline summary");
			p->blk = B_ROWS;
		}
		if (p->blk == B_ROWS) {
			parse_offset_row(p, s);
			return;
		}
		break;
	case S_UNKNOWN:
		return;
	}
	warn_at(p, p->lineno, "not part of a perf c2c report, skipped: '%s'", excerpt(s, ex, sizeof(ex)));
}

int c2c_parse_file(struct c2c_report *r, FILE *f, const char *name, c2c_offset_cb cb, void *arg)
{
	struct parser *p = xcalloc(1, sizeof(*p));
	char *line = NULL;
	size_t cap = 0;

	memset(r, 0, sizeof(*r));
	r->name = arena_strdup(&r->arena, name ? name : "-");
	p->r = r;
	p->cb = cb;
	p->cb_arg = arg;
	p->par.offset_col = -1;
	p->tab.offset_col = -1;
	errno = 0;
	for (;;) {
		ssize_t n = getline(&line, &cap, f);

		if (n < 0)
			break;
		p->lineno++;
		p->partial = n > 0 && line[n - 1] != '\n';
		handle_line(p, line);
	}
	r->nlines = p->lineno;
	free(line);
	arena_free(&p->row_arena);
	if (ferror(f)) {
		free(p);
		return -1;
	}
	if (p->blk == B_SUMMARY || p->blk == B_HDR_END)
		warn_at(p, p->lineno, "the report ends inside a cacheline block header (cut off)");
	/* perf c2c report prints its statistics, then (unless --stats) the
	 * Shared Data Cache Line Table banner even when the table is empty
	 * (tools/perf/builtin-c2c.c, perf_c2c__hists_fprintf): statistics
	 * alone are a report cut off after them, or a --stats one. */
	if (r->nstats && !p->tables && !r->ncls && !r->noffs_seen)
		warn_at(p, p->lineno, "the report ends after its statistics: no Shared Data Cache Line Table, so no "
			"cacheline or offset rows (cut off, or `perf c2c report --stats`)");
	free(p);
	return 0;
}

int c2c_parse_path(struct c2c_report *r, const char *path, c2c_offset_cb cb, void *arg)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	int ret, e;

	if (!f) {
		memset(r, 0, sizeof(*r));
		return -1;
	}
	ret = c2c_parse_file(r, f, path, cb, arg);
	e = errno;
	if (f != stdin)
		fclose(f);
	errno = e;
	return ret;
}

void c2c_report_free(struct c2c_report *r)
{
	free(r->stats);
	free(r->cls);
	free(r->offs);
	free(r->warns);
	arena_free(&r->arena);
	memset(r, 0, sizeof(*r));
}

void c2c_report_assume_vendor(struct c2c_report *r, enum c2c_vendor v)
{
	if (!r->vendor)
		r->vendor = v;
}

bool c2c_stat_num(const struct c2c_report *r, const char *key, double *out)
{
	for (size_t i = 0; i < r->nstats; i++)
		if (!strcasecmp(r->stats[i].key, key))
			return c2c_num(r->stats[i].value, out);
	return false;
}

bool c2c_num(const char *cell, double *out)
{
	char *end;

	if (!cell || !*cell)
		return false;
	*out = strtod(cell, &end);
	return end != cell && !*end;
}

bool c2c_report_is_empty(const struct c2c_report *r)
{
	return !r->nstats && !r->ncls && !r->noffs_seen;
}
