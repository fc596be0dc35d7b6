// SPDX-License-Identifier: GPL-2.0
/* The claims of an experiment file (report/claim.h): parsed and checked. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/claim.h"
#include "util/err.h"
#include "util/strfmt.h"

bool claim_section(const char *section)
{
	return !strcmp(section, "claim") || !strncmp(section, "claim ", 6);
}

const char *claim_label(const struct claim *c)
{
	return c->name[0] ? c->name : "claim";
}

/* ---- small parsers ---- */

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

/* A whole decimal number (strtod's forms, no trailing text). */
static bool full_number(const char *s, double *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*v);
}

/* One figure: "N", "A..B", "> N", "< N". */
static bool parse_num(const char *s, struct claim_num *n)
{
	char buf[64];
	const char *dots;

	memset(n, 0, sizeof(*n));
	str_setf(buf, sizeof(buf), "%s", s);
	trim(buf);
	str_setf(n->text, sizeof(n->text), "%s", buf);
	if (buf[0] == '<' || buf[0] == '>') {
		n->bound = buf[0];
		memmove(buf, buf + 1, strlen(buf));
		trim(buf);
		if (!full_number(buf, &n->lo))
			return false;
		n->hi = n->lo;
		return true;
	}
	dots = strstr(buf, "..");
	if (dots) {
		char lo[64];

		str_setf(lo, sizeof(lo), "%.*s", (int)(dots - buf), buf);
		trim(lo);
		char *hi = (char *)dots + 2;

		trim(hi);
		return full_number(lo, &n->lo) && full_number(hi, &n->hi) && n->lo < n->hi;
	}
	if (!full_number(buf, &n->lo))
		return false;
	n->hi = n->lo;
	return true;
}

/* A unit: letters, digits, %, /, µ, '.', '_', '-', with a letter or %. */
static bool is_unit(const char *u)
{
	bool letter = false;

	if (!*u)
		return false;
	for (const unsigned char *p = (const unsigned char *)u; *p; p++) {
		if (isalpha(*p) || *p == '%' || *p >= 0x80)
			letter = true;
		else if (!isdigit(*p) && !strchr("/._-", *p))
			return false;
	}
	return letter;
}

/*
 * "N[, N...] UNIT" into nums (at most max); the count, or -1 (a value
 * without a unit, a figure that is not a number).
 */
static int parse_figures(const char *v, struct claim_num *nums, int max, char *unit, size_t unitlen)
{
	char buf[512], *sp, *save = NULL;
	int n = 0;

	str_setf(buf, sizeof(buf), "%s", v);
	trim(buf);
	sp = strrchr(buf, ' ');
	if (!sp || !is_unit(sp + 1))
		return -1;
	str_setf(unit, unitlen, "%s", sp + 1);
	*sp = '\0';
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max || !parse_num(tok, &nums[n]))
			return -1;
		n++;
	}
	return n ? n : -1;
}

/* The digits after the point of a written number: its precision. */
static int decimals(const char *s)
{
	const char *dot = strchr(s, '.');
	int d = 0;

	if (!dot)
		return 0;
	for (dot++; isdigit((unsigned char)*dot); dot++)
		d++;
	return d;
}

/* "+62.7%, -7.2%": changes in %, each as written (precision in *prec). */
static int parse_changes(const char *v, double *ch, int *prec, int max)
{
	char buf[512], *save = NULL;
	int n = 0;

	str_setf(buf, sizeof(buf), "%s", v);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t len;

		trim(tok);
		len = strlen(tok);
		if (n == max || len < 2 || tok[len - 1] != '%')
			return -1;
		tok[len - 1] = '\0';
		trim(tok);
		if (!full_number(tok, &ch[n]))
			return -1;
		prec[n++] = decimals(tok);
	}
	return n ? n : -1;
}

static bool is_hex_word(const char *s, size_t len)
{
	if (len < 12 || len > 40)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* A source: one of its comma-separated parts is a commit, a Message-ID
 * or "FILE of vN.N". */
static bool good_source(const char *v)
{
	char buf[512], *save = NULL;

	str_setf(buf, sizeof(buf), "%s", v);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *lt, *gt, *at, *of;

		trim(tok);
		lt = strchr(tok, '<');
		gt = lt ? strchr(lt, '>') : NULL;
		at = lt ? strchr(lt, '@') : NULL;
		if (lt && gt && at && at > lt + 1 && at < gt - 1)
			return true;
		/* "mainline 1813e51eece0", "f735eebe55f8" */
		for (char *w = tok; *w;) {
			size_t len = strcspn(w, " ()");

			if (is_hex_word(w, len))
				return true;
			w += len;
			w += strspn(w, " ()");
		}
		of = strstr(tok, " of v");
		if (of && strchr(tok, '/') && strchr(tok, '/') < of && isdigit((unsigned char)of[5]))
			return true;
	}
	return false;
}

/* "PATH: A -> B; PATH: V" into feat; ab: each needs "->". 0 or -1 with why. */
static int parse_features(const char *v, bool ab, struct claim_feature *feat, int *nfeat, char *why, size_t n)
{
	char buf[512], *save = NULL;

	*nfeat = 0;
	str_setf(buf, sizeof(buf), "%s", v);
	for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		struct claim_feature *f;
		char *colon, *arrow;

		trim(tok);
		if (*nfeat == CLAIM_MAX_FEATURES)
			return set_err(why, n, "more than %d facts", CLAIM_MAX_FEATURES);
		f = &feat[(*nfeat)++];
		colon = strchr(tok, ':');
		if (!colon)
			return set_err(why, n, "'%s' has no ':'", tok);
		*colon = '\0';
		str_setf(f->path, sizeof(f->path), "%s", tok);
		trim(f->path);
		if (strncmp(f->path, "probe.", 6) && strncmp(f->path, "runtime.", 8) && strncmp(f->path, "vm.", 3))
			return set_err(why, n, "'%s' is not a meta.json path under probe., runtime. or vm.", f->path);
		for (const char *p = f->path; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_')
				return set_err(why, n, "'%s' is not a meta.json path", f->path);
		arrow = strstr(colon + 1, "->");
		if (ab != (arrow != NULL))
			return set_err(why, n, "'%s' %s", f->path, ab ? "needs BASE -> PATCHED" : "takes one value, no ->");
		if (arrow) {
			*arrow = '\0';
			str_setf(f->b, sizeof(f->b), "%s", arrow + 2);
			trim(f->b);
		}
		str_setf(f->a, sizeof(f->a), "%s", colon + 1);
		trim(f->a);
		if (!f->a[0] || (ab && !f->b[0]))
			return set_err(why, n, "'%s' has an empty value", f->path);
	}
	return *nfeat ? 0 : set_err(why, n, "no PATH: VALUE");
}

static bool name_chars(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(extra, *p))
			return false;
	return true;
}

/* metric:STEP:METRIC, STEP maybe "[PHASE:]PARAM=LIST". */
static int parse_metric_q(struct claim *c, const char *q, char *why, size_t n)
{
	char buf[256], *colon, *eq, phase[128] = "", param[128];
	long vals[CLAIM_MAX_POINTS];
	int nv;

	str_setf(buf, sizeof(buf), "%s", q);
	colon = strrchr(buf, ':');
	if (!colon || colon == buf || !colon[1])
		return set_err(why, n, "want metric:STEP:METRIC (e.g. metric:hierarchy:charge.sock.total)");
	*colon = '\0';
	str_setf(c->metric, sizeof(c->metric), "%s", colon + 1);
	if (!name_chars(c->metric, "._-"))
		return set_err(why, n, "metric '%s' is not a metric name", c->metric);
	eq = strchr(buf, '=');
	/* One step as written, or a series: PARAM=LIST of more than one value. */
	if (!eq || !strpbrk(eq, ",.")) {
		str_setf(c->step[0], sizeof(c->step[0]), "%s", buf);
		c->npoints = 1;
		return 0;
	}
	/* A series: the phase before the first ':' that comes before '='. */
	colon = strchr(buf, ':');
	if (colon && colon < eq) {
		str_setf(phase, sizeof(phase), "%.*s:", (int)(colon - buf), buf);
		str_setf(param, sizeof(param), "%.*s", (int)(eq - colon - 1), colon + 1);
	} else {
		str_setf(param, sizeof(param), "%.*s", (int)(eq - buf), buf);
	}
	nv = parse_int_list(eq + 1, vals, CLAIM_MAX_POINTS);
	if (nv < 1)
		return set_err(why, n, "step '%s': want PARAM=V1,V2,... (at most %d values)", buf, CLAIM_MAX_POINTS);
	for (int i = 0; i < nv; i++)
		str_setf(c->step[i], sizeof(c->step[i]), "%s%s=%ld", phase, param, vals[i]);
	c->npoints = nv;
	return 0;
}

/* STRUCT.FIELD[+FIELD].COLUMN[ vs FIELD][ / [STEP:]METRIC] */
static int parse_lines_q(struct claim *c, const char *q, bool cliff, char *why, size_t n)
{
	static const char *const columns[] = { "loads", "stores", "hitm_loads", "hitm_stores", "false_hitm",
					       "true_hitm", "hitm", NULL };
	struct claim_lines *l = &c->lines;
	char buf[256], *slash, *vs, *dot, *last, *save = NULL;
	bool known = false;

	str_setf(buf, sizeof(buf), "%s", q);
	slash = strstr(buf, " / ");
	if (slash) {
		char *per = slash + 3, *colon;

		*slash = '\0';
		trim(per);
		colon = strrchr(per, ':');
		if (!strcmp(per, "ops")) {
			l->per_ops = true;
			per = NULL;
		} else if (cliff && colon)
			return set_err(why, n, "lines-cliff divides by a METRIC at each K, without a step");
		else if (!cliff && !colon)
			return set_err(why, n, "want '/ STEP:METRIC' or '/ ops' after the lines count");
		if (per) {
			if (colon) {
				*colon = '\0';
				str_setf(l->per_step, sizeof(l->per_step), "%s", per);
				per = colon + 1;
			}
			str_setf(l->per_metric, sizeof(l->per_metric), "%s", per);
			if (!name_chars(l->per_metric, "._-") || (colon && !l->per_step[0]))
				return set_err(why, n, "'/ %s': want [STEP:]METRIC or ops", slash + 3);
		}
	}
	vs = strstr(buf, " vs ");
	if (vs) {
		*vs = '\0';
		str_setf(l->vs, sizeof(l->vs), "%s", vs + 4);
		trim(l->vs);
		if (!name_chars(l->vs, "._"))
			return set_err(why, n, "vs '%s': want a field name", l->vs);
	}
	trim(buf);
	dot = strchr(buf, '.');
	last = strrchr(buf, '.');
	if (!dot || dot == last)
		return set_err(why, n, "want STRUCT.FIELD.COLUMN (e.g. page_counter.max.false_hitm)");
	*dot = '\0';
	*last = '\0';
	str_setf(l->st, sizeof(l->st), "%s", buf);
	str_setf(l->column, sizeof(l->column), "%s", last + 1);
	for (int i = 0; columns[i]; i++)
		known |= !strcmp(columns[i], l->column);
	if (!known)
		return set_err(why, n, "column '%s': want loads, stores, hitm_loads, hitm_stores, false_hitm, "
			       "true_hitm or hitm", l->column);
	if (!name_chars(l->st, "_"))
		return set_err(why, n, "struct '%s' is not a struct name", l->st);
	for (char *f = strtok_r(dot + 1, "+", &save); f; f = strtok_r(NULL, "+", &save)) {
		if (l->nfields == CLAIM_MAX_FIELDS)
			return set_err(why, n, "more than %d fields", CLAIM_MAX_FIELDS);
		trim(f);
		if (!name_chars(f, "._[]"))
			return set_err(why, n, "field '%s' is not a field name", f);
		str_setf(l->field[l->nfields++], sizeof(l->field[0]), "%s", f);
	}
	if (cliff && l->nfields != 1)
		return set_err(why, n, "lines-cliff takes one field");
	c->npoints = 1;
	return 0;
}

static int parse_quantity(struct claim *c, const char *q, char *why, size_t n)
{
	const char *rest;

	str_setf(c->quantity, sizeof(c->quantity), "%s", q);
	c->npoints = 1;
	if (!strncmp(q, "metric:", 7)) {
		c->src = CQ_METRIC;
		return parse_metric_q(c, q + 7, why, n);
	}
	if (!strncmp(q, "meta:", 5)) {
		c->src = CQ_META;
		str_setf(c->metric, sizeof(c->metric), "%s", q + 5);
		if (strncmp(c->metric, "runtime.", 8) && strncmp(c->metric, "probe.", 6))
			return set_err(why, n, "meta:'%s': want a path under runtime. or probe.", c->metric);
		return name_chars(c->metric, "._") ? 0 : set_err(why, n, "meta:'%s' is not a meta.json path", c->metric);
	}
	if (!strncmp(q, "cliff:", 6)) {
		c->src = CQ_CLIFF;
		str_setf(c->mode, sizeof(c->mode), "%s", q + 6);
		return !strcmp(c->mode, "stock") || !strcmp(c->mode, "objstock") ? 0 :
		       set_err(why, n, "cliff:'%s': want cliff:stock or cliff:objstock", q + 6);
	}
	if (!strncmp(q, "layout:", 7)) {
		const char *dot = strrchr(q + 7, '.');

		c->src = CQ_LAYOUT;
		if (!dot || (strcmp(dot, ".size") && strcmp(dot, ".cachelines")))
			return set_err(why, n, "want layout:STRUCT.size or layout:STRUCT.cachelines");
		str_setf(c->lstruct, sizeof(c->lstruct), "%.*s", (int)(dot - q - 7), q + 7);
		c->cachelines = !strcmp(dot, ".cachelines");
		return name_chars(c->lstruct, "_") ? 0 : set_err(why, n, "'%s' is not a struct name", c->lstruct);
	}
	if ((rest = !strncmp(q, "lines:", 6) ? q + 6 : NULL)) {
		c->src = CQ_LINES;
		return parse_lines_q(c, rest, false, why, n);
	}
	if ((rest = !strncmp(q, "lines-cliff:", 12) ? q + 12 : NULL)) {
		c->src = CQ_LINES_CLIFF;
		return parse_lines_q(c, rest, true, why, n);
	}
	return set_err(why, n, "unknown quantity: want metric:STEP:METRIC, meta:PATH, cliff:stock|objstock, "
		       "layout:STRUCT.size, lines:STRUCT.FIELD.COLUMN or lines-cliff:STRUCT.FIELD.COLUMN");
}

/* ---- the checks of one claim ---- */

/* A [claim] section being read, and where its first fault goes. */
struct claim_src {
	const struct expfile *f;
	const char *section;
	const struct exp_entry *first;
	const struct exp_entry **bad;	/* the entry at fault */
	char *err;
	size_t errlen;
};

static const struct exp_entry *entry(const struct claim_src *s, const char *key)
{
	return expfile_get(s->f, s->section, key);
}

/* Bad value of key: s->err and *s->bad set; -1. */
static int bad_value(const struct claim_src *s, const char *key, const char *why)
{
	const struct exp_entry *e = entry(s, key);

	*s->bad = e ? e : s->first;
	return set_err(s->err, s->errlen, "[%s] %s = '%s': %s", s->section, key, e ? e->value : "", why);
}

static bool sampled(const struct claim *c)
{
	return c->src == CQ_METRIC;
}

static bool ratio_unit(const char *u)
{
	return !strcmp(u, "ratio") || !strcmp(u, "x");
}

/* The published change of point i from base and patched; false for bounds. */
static bool computed_change(const struct claim *c, int i, double *lo, double *hi)
{
	const struct claim_num *b = &c->base[i], *p = &c->patched[i];

	if (b->bound || p->bound || b->lo <= 0 || b->hi <= 0)
		return false;
	/* A range's change spans its extremes. */
	*lo = 100 * (p->lo - b->hi) / b->hi;
	*hi = 100 * (p->hi - b->lo) / b->lo;
	return true;
}

static int check_figures(struct claim *c, const struct claim_src *s)
{
	const struct exp_entry *v = entry(s, "value"), *b = entry(s, "base"), *p = entry(s, "patched"),
			       *ch = entry(s, "change");
	char unit2[32], why[256];
	double stated[CLAIM_MAX_POINTS];
	int prec[CLAIM_MAX_POINTS], n;

	if (v && (b || p || ch))
		return bad_value(s, "value", "a value, or base and patched (an A/B), not both");
	if (!v && !b && !p && !ch) {
		*s->bad = s->first;
		return set_err(s->err, s->errlen, "[%s] needs value (one figure), or base and patched (an A/B)",
			       s->section);
	}
	if (!v && (!b != !p))
		return bad_value(s, b ? "base" : "patched", "an A/B needs both base and patched");
	if (v) {
		n = parse_figures(v->value, c->value, CLAIM_MAX_POINTS, c->unit, sizeof(c->unit));
		if (n < 0)
			return bad_value(s, "value", "want a number and its unit (e.g. 7 memcgs, 20..50 us, > 0 hitm)");
		if (n != c->npoints) {
			str_setf(why, sizeof(why), "%d figure%s for the quantity's %d step%s", n, n == 1 ? "" : "s",
				 c->npoints, c->npoints == 1 ? "" : "s");
			return bad_value(s, "value", why);
		}
		return 0;
	}
	c->ab = true;
	if (b) {
		int nb = parse_figures(b->value, c->base, CLAIM_MAX_POINTS, c->unit, sizeof(c->unit));
		int np = parse_figures(p->value, c->patched, CLAIM_MAX_POINTS, unit2, sizeof(unit2));

		if (nb < 0)
			return bad_value(s, "base", "want a number and its unit (e.g. 10482.7 Mbps)");
		if (np < 0)
			return bad_value(s, "patched", "want a number and its unit (e.g. 17063.7 Mbps)");
		if (strcmp(c->unit, unit2))
			return bad_value(s, "patched", "its unit differs from base's");
		if (nb != c->npoints || np != c->npoints) {
			str_setf(why, sizeof(why), "%d figure%s for the quantity's %d step%s", nb != c->npoints ? nb : np,
				 (nb != c->npoints ? nb : np) == 1 ? "" : "s", c->npoints, c->npoints == 1 ? "" : "s");
			return bad_value(s, nb != c->npoints ? "base" : "patched", why);
		}
		c->have_base = true;
		c->have_change = true;
		for (int i = 0; i < c->npoints; i++)
			if (!computed_change(c, i, &c->change_lo[i], &c->change_hi[i]))
				c->have_change = false;
	}
	if (ch) {
		n = parse_changes(ch->value, stated, prec, CLAIM_MAX_POINTS);
		if (n < 0)
			return bad_value(s, "change", "want changes in % (e.g. +62.7%)");
		if (n != c->npoints) {
			str_setf(why, sizeof(why), "%d change%s for the quantity's %d step%s", n, n == 1 ? "" : "s",
				 c->npoints, c->npoints == 1 ? "" : "s");
			return bad_value(s, "change", why);
		}
		for (int i = 0; i < n; i++) {
			/* Written to its last digit, rounded or cut: within one unit of it. */
			double tol = pow(10, -prec[i]) + 1e-9;

			if (c->have_change && c->change_lo[i] == c->change_hi[i] &&
			    fabs(c->change_lo[i] - stated[i]) >= tol) {
				str_setf(why, sizeof(why), "%s to %s is %+.*f%%, not %+.*f%%", c->base[i].text,
					 c->patched[i].text, prec[i] + 1, c->change_lo[i], prec[i], stated[i]);
				return bad_value(s, "change", why);
			}
			c->change_lo[i] = c->change_hi[i] = stated[i];
		}
		c->have_change = true;
		if (!b)
			str_setf(c->unit, sizeof(c->unit), "%%");
	}
	return 0;
}

/* The unit of a measured figure: the claim's, except where it gives only a
 * change (in %): then the quantity's (a lines count's column, per op). */
static void measured_unit(struct claim *c)
{
	const struct claim_lines *l = &c->lines;

	if (!(c->ab && !c->have_base && !strcmp(c->unit, "%")))
		str_setf(c->munit, sizeof(c->munit), "%s", c->unit);
	else if (c->src == CQ_LINES)
		str_setf(c->munit, sizeof(c->munit), "%s%s%s", l->column, l->per_ops ? "/op" : l->per_metric[0] ? "/" : "",
			 l->per_metric);
	else
		c->munit[0] = '\0';
}

/* The rule, from the figures and the quantity. */
static void pick_rule(struct claim *c)
{
	bool bound = false, exact = !sampled(c);

	for (int i = 0; i < c->npoints; i++)
		bound |= c->value[i].bound || c->base[i].bound || c->patched[i].bound;
	if (c->ab) {
		if (c->expect_same)
			c->rule = RULE_SAME;
		else if (bound || c->src == CQ_CLIFF || c->src == CQ_META || c->src == CQ_LINES_CLIFF ||
			 !c->have_change)
			c->rule = RULE_SIDES;
		else
			c->rule = exact ? RULE_CHANGE_EXACT : RULE_CHANGE;
	} else if (bound) {
		c->rule = RULE_BOUND;
	} else if (exact) {
		c->rule = RULE_EQUAL;
	} else {
		c->rule = ratio_unit(c->unit) ? RULE_RATIO : RULE_NEAR;
	}
}

/* ---- the keys: a table that drives the parser (perf's keys[]) ---- */

/*
 * A key's parser reads its entry e (NULL where the key is absent) into c:
 * 0, or -1 with s->err and *s->bad at the entry at fault.  Every parser
 * runs, in the order of claim_keys[], so that a key may use what an
 * earlier one set (the quantity's source, the figures' A/B), and the
 * first fault in that order is the one reported.
 */
typedef int (*claim_parse_fn)(struct claim *c, const struct exp_entry *e, const struct claim_src *s);

struct claim_key {
	const char *key;
	bool required;
	const char *what;
	claim_parse_fn parse;	/* NULL: none, or read by an earlier key's */
	size_t text;		/* its value kept as written: the offset of a char * in struct claim; 0 none */
};

static int parse_quantity_key(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	char why[256];

	if (parse_quantity(c, e->value, why, sizeof(why)))
		return bad_value(s, "quantity", why);
	return 0;
}

static int parse_source(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	(void)c;
	if (!good_source(e->value))
		return bad_value(s, "source", "want a commit (12+ hex digits), a Message-ID (<...@...>) or a kernel "
				 "file and version (mm/memcontrol.c of v7.2)");
	return 0;
}

static int parse_expect(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	if (e) {
		if (strcmp(e->value, "change") && strcmp(e->value, "same"))
			return bad_value(s, "expect", "want change or same");
		c->expect_same = !strcmp(e->value, "same");
	}
	return 0;
}

/* value, or base, patched and change: check_figures() reads them together. */
static int parse_figures_keys(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	(void)e;
	if (check_figures(c, s))
		return -1;
	/* expect (read before) against what the figures made the claim. */
	if (c->expect_same && !c->ab)
		return bad_value(s, "expect", "same is for an A/B (base and patched)");
	return 0;
}

/* ab (an A/B's facts) or kernel (a value's): the one its figures want. */
static int parse_facts(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	char why[256];
	bool ab;

	if (!e)
		return 0;
	ab = !strcmp(e->key, "ab");
	if (ab != c->ab)
		return bad_value(s, e->key, ab ? "ab is for base and patched; a value takes kernel" :
				 "kernel is for a value; an A/B takes ab");
	if (entry(s, "ab") && entry(s, "kernel"))
		return bad_value(s, "kernel", "ab or kernel, not both");
	if (parse_features(e->value, ab, c->feat, &c->nfeat, why, sizeof(why)))
		return bad_value(s, e->key, why);
	return 0;
}

static int parse_kernels(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	const char *arrow;

	if (!e)
		return 0;
	arrow = strstr(e->value, "->");
	if (c->src != CQ_LAYOUT || !c->ab)
		return bad_value(s, "kernels", "only a layout A/B names its kernels");
	if (!arrow)
		return bad_value(s, "kernels", "want RELEASE -> RELEASE (e.g. 5.10.262 -> 6.1.192)");
	str_setf(c->kernel_a, sizeof(c->kernel_a), "%.*s", (int)(arrow - e->value), e->value);
	str_setf(c->kernel_b, sizeof(c->kernel_b), "%s", arrow + 2);
	trim(c->kernel_a);
	trim(c->kernel_b);
	if (!name_chars(c->kernel_a, ".-_+") || !name_chars(c->kernel_b, ".-_+"))
		return bad_value(s, "kernels", "want RELEASE -> RELEASE (e.g. 5.10.262 -> 6.1.192)");
	return 0;
}

static int parse_cpus(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	long cpus;

	if (!e)
		return 0;
	if (parse_long(e->value, 1, 1 << 20, &cpus))
		return bad_value(s, "cpus", "want an integer >= 1");
	c->cpus = (int)cpus;
	return 0;
}

static int parse_within(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	char *end;

	c->within = 2;
	if (!e)
		return 0;
	c->within = strtod(e->value, &end);
	if (end == e->value || (strcmp(end, "x") && *end) || !(c->within > 1) || c->within > 1000)
		return bad_value(s, "within", "want a factor > 1 (e.g. 2x)");
	return 0;
}

static int parse_timing(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	if (e && parse_bool(e->value, &c->timing))
		return bad_value(s, "timing", "want yes or no");
	return 0;
}

static int parse_workload(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	if (!e)
		return 0;
	if (!name_chars(e->value, "._-") || strlen(e->value) >= sizeof(c->workload))
		return bad_value(s, "workload", "want a meta.json path (e.g. charge.workload)");
	str_setf(c->workload, sizeof(c->workload), "%s", e->value);
	return 0;
}

static int parse_needs(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	if (!e)
		return 0;
	if (strcmp(e->value, "sockets-v2"))
		return bad_value(s, "needs", "want sockets-v2");
	c->sockets_v2 = true;
	return 0;
}

static int parse_readers(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	long r;

	if (!e)
		return 0;
	if (parse_long(e->value, 1, 1L << 30, &r))
		return bad_value(s, "readers", "want an integer >= 1");
	c->readers = (int)r;
	return 0;
}

/* tree, and readers with it: the seed's count and its tree go together. */
static int parse_tree(struct claim *c, const struct exp_entry *e, const struct claim_src *s)
{
	if (e) {
		char extra;

		if (sscanf(e->value, "%dx%d%c", &c->tree_top, &c->tree_children, &extra) != 2 || c->tree_top < 1 ||
		    c->tree_children < 0)
			return bad_value(s, "tree", "want TOPxCHILDREN (e.g. 50x5)");
	}
	if (!c->readers != !c->tree_top) {
		*s->bad = entry(s, c->readers ? "readers" : "tree");
		return set_err(s->err, s->errlen, "[%s] readers and tree go together (the seed's count and its tree)",
			       s->section);
	}
	return 0;
}

#define TEXT(field) offsetof(struct claim, field)

/* The keys a [claim] takes, in the order they are read; required ones say
 * so (and the first missing, in this order, is the one named). */
static const struct claim_key claim_keys[] = {
	{ "published", true, "the published quantity in the seed's words", NULL, TEXT(published) },
	{ "quantity", true, "how the lab measures it: metric:STEP:METRIC, meta:PATH, cliff:stock|objstock, "
			    "layout:STRUCT.size, lines:STRUCT.FIELD.COLUMN or lines-cliff:...", parse_quantity_key, 0 },
	{ "machine", true, "the machine the seed measured on", NULL, TEXT(machine) },
	{ "condition", true, "the condition: clients, CPUs, tree", NULL, TEXT(condition) },
	{ "source", true, "a commit (12+ hex digits), a Message-ID (<...@...>) or a kernel file and "
			  "version (mm/memcontrol.c of v7.2)", parse_source, TEXT(source) },
	{ "note", false, "text", NULL, TEXT(note) },
	{ "expect", false, "change or same", parse_expect, 0 },
	{ "value", false, "a number and its unit (e.g. 7 memcgs, 20..50 us, > 0 hitm)", parse_figures_keys, 0 },
	{ "base", false, "a number and its unit (e.g. 10482.7 Mbps)", NULL, 0 },
	{ "patched", false, "a number and its unit (e.g. 17063.7 Mbps)", NULL, 0 },
	{ "change", false, "a change in % (e.g. +62.7%)", NULL, 0 },
	{ "ab", false, "PATH: BASE -> PATCHED[; PATH: V -> V] (meta.json paths)", parse_facts, 0 },
	{ "kernel", false, "PATH: VALUE[; PATH: VALUE] (meta.json paths)", parse_facts, 0 },
	{ "kernels", false, "RELEASE -> RELEASE (captures in layouts/)", parse_kernels, 0 },
	{ "cpus", false, "the seed's CPU count, an integer >= 1", parse_cpus, 0 },
	{ "within", false, "a factor > 1 (e.g. 2x)", parse_within, 0 },
	{ "timing", false, "yes or no", parse_timing, 0 },
	{ "workload", false, "a meta.json path (e.g. charge.workload)", parse_workload, 0 },
	{ "needs", false, "sockets-v2", parse_needs, 0 },
	{ "readers", false, "an integer >= 1", parse_readers, 0 },
	{ "tree", false, "TOPxCHILDREN (e.g. 50x5)", parse_tree, 0 },
};

#define NKEYS (sizeof(claim_keys) / sizeof(claim_keys[0]))

static int parse_one(const struct expfile *f, const char *section, struct claim *c, const struct exp_entry **bad,
		     char *err, size_t errlen)
{
	struct claim_src s = { f, section, NULL, bad, err, errlen };

	memset(c, 0, sizeof(*c));
	str_setf(c->section, sizeof(c->section), "%s", section);
	str_setf(c->name, sizeof(c->name), "%s", section[5] ? section + 6 : "");
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->e[i].section, section)) {
			s.first = &f->e[i];
			break;
		}
	c->line = s.first ? s.first->line : 0;
	*bad = s.first;
	if (c->name[0] && !name_chars(c->name, "-_"))
		return set_err(err, errlen, "[%s]: a claim's name is [a-z0-9-]", section);
	for (size_t i = 0; i < f->n; i++) {
		bool known = false;

		if (strcmp(f->e[i].section, section))
			continue;
		for (size_t k = 0; k < NKEYS; k++)
			known |= !strcmp(claim_keys[k].key, f->e[i].key);
		if (!known) {
			*bad = &f->e[i];
			return set_err(err, errlen, "unknown key '%s' in [%s] (want published, quantity, value or "
				       "base/patched/change, machine, condition, source, ...: report/claim.h)",
				       f->e[i].key, section);
		}
		if (!f->e[i].value[0]) {
			*bad = &f->e[i];
			return set_err(err, errlen, "[%s] %s is empty", section, f->e[i].key);
		}
	}
	for (size_t k = 0; k < NKEYS; k++)
		if (claim_keys[k].required && !entry(&s, claim_keys[k].key)) {
			*bad = s.first;
			return set_err(err, errlen, "[%s] needs %s (%s)", section, claim_keys[k].key, claim_keys[k].what);
		}
	for (const struct claim_key *k = claim_keys; k < claim_keys + NKEYS; k++) {
		const struct exp_entry *e = entry(&s, k->key);

		if (k->parse && k->parse(c, e, &s))
			return -1;
		if (k->text && e)
			*(char **)((char *)c + k->text) = xstrdup(e->value);
	}
	pick_rule(c);
	measured_unit(c);
	if (c->rule == RULE_RATIO)
		for (int i = 0; i < c->npoints; i++)
			if (!(c->value[i].lo > 0))
				return bad_value(&s, "value", "a ratio is > 0");
	if ((c->rule == RULE_CHANGE || c->rule == RULE_CHANGE_EXACT) && !c->have_change)
		return bad_value(&s, "base", "no change can be computed (a base of 0?): give change");
	return 0;
}

int claims_parse(const struct expfile *f, struct claims *out, const struct exp_entry **bad, char *err,
		 size_t errlen)
{
	memset(out, 0, sizeof(*out));
	*bad = NULL;
	for (size_t i = 0; i < f->n; i++) {
		const char *sec = f->e[i].section;
		bool seen = false;

		if (!claim_section(sec))
			continue;
		for (int k = 0; k < out->n && !seen; k++)
			seen = !strcmp(out->c[k].section, sec);
		if (seen)
			continue;
		out->c = xrealloc(out->c, (out->n + 1) * sizeof(*out->c));
		if (parse_one(f, sec, &out->c[out->n++], bad, err, errlen))
			return -1;
	}
	return 0;
}

void claims_free(struct claims *cl)
{
	for (int i = 0; i < cl->n; i++) {
		free(cl->c[i].published);
		free(cl->c[i].machine);
		free(cl->c[i].condition);
		free(cl->c[i].source);
		free(cl->c[i].note);
	}
	free(cl->c);
	memset(cl, 0, sizeof(*cl));
}

/* ---- words ---- */

const char *claim_point_label(const struct claim *c, int point)
{
	const char *s = c->step[point > 0 ? point : 0], *colon = strchr(s, ':');

	return colon && strchr(colon, '=') ? colon + 1 : s;
}

static void fmt_change(char *buf, size_t n, double lo, double hi)
{
	if (lo == hi)
		str_setf(buf, n, "%+.1f%%", lo);
	else
		str_setf(buf, n, "%+.0f%%..%+.0f%%", lo, hi);
}

void claim_published_text(const struct claim *c, int point, char *buf, size_t n)
{
	char ch[64];
	int i = point > 0 ? point : 0;

	if (!c->ab) {
		str_setf(buf, n, "%s %s", c->value[i].text, c->unit);
		return;
	}
	fmt_change(ch, sizeof(ch), c->change_lo[i], c->change_hi[i]);
	/* Sides judged each by itself (counts, cliffs) show no change. */
	bool change = c->have_change && c->rule != RULE_SIDES;

	if (c->have_base)
		str_setf(buf, n, "%s -> %s %s%s%s%s", c->base[i].text, c->patched[i].text, c->unit, change ? " (" : "",
			 change ? ch : "", change ? ")" : "");
	else
		str_setf(buf, n, "%s", ch);
}

void claim_rule_text(const struct claim *c, int point, char *buf, size_t n)
{
	int i = point > 0 ? point : 0;
	char ch[64], f[16];

	str_setf(f, sizeof(f), "%gx", c->within);
	fmt_change(ch, sizeof(ch), c->change_lo[i], c->change_hi[i]);
	switch (c->rule) {
	case RULE_CHANGE:
		str_setf(buf, n, "reproduced when the change has the published sign, Welch's t gives p < 0.05, "
			 "and it is within %s of the published %s", f, ch);
		break;
	case RULE_SAME:
		str_setf(buf, n, "reproduced when Welch's t finds no change (p >= 0.05) and |change| <= %s the "
			 "published %s (or 5%%)", f, ch);
		break;
	case RULE_CHANGE_EXACT:
		str_setf(buf, n, "exact figures, no test: reproduced when the change has the published sign and "
			 "is within %s of the published %s", f, ch);
		break;
	case RULE_SIDES:
		str_setf(buf, n, "reproduced when each side is as published: A %s%s %s, B %s%s %s%s",
			 c->base[i].bound ? "" : "= ", c->base[i].text, c->unit, c->patched[i].bound ? "" : "= ",
			 c->patched[i].text, c->unit, c->src == CQ_CLIFF ? " (a cliff counts its highest repeat: "
			 "other tasks on the CPU can only evict)" : "");
		break;
	case RULE_RATIO:
		str_setf(buf, n, "reproduced when the effect (ratio - 1) has the published sign, a one-sample "
			 "t-test against 1 gives p < 0.05, and it is within %s of the published %+.0f%%", f,
			 100 * (c->value[i].lo - 1));
		break;
	case RULE_NEAR:
		str_setf(buf, n, "reproduced when the mean is within %s of the published %s %s", f, c->value[i].text,
			 c->unit);
		break;
	case RULE_EQUAL:
		str_setf(buf, n, "exact: reproduced when equal to the published %s %s%s", c->value[i].text, c->unit,
			 c->src == CQ_CLIFF ? " in the highest repeat (other tasks on the CPU can only evict)" : "");
		break;
	case RULE_BOUND:
		str_setf(buf, n, "reproduced when every value is %s %s", c->value[i].text, c->unit);
		break;
	}
}
