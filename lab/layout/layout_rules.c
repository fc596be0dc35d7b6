// SPDX-License-Identifier: GPL-2.0
/*
 * The rules file: parsing (with FILE:LINE errors), validation against the
 * known kernels, and the checks themselves.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "layout/layout_rules.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/strfmt.h"

/* ---- parsing ------------------------------------------------------------ */

struct parser {
	struct rules *rs;
	struct rule *cur;
	int line;
	char *err;
	size_t errlen;
};

static int perr(struct parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int perr(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->err, p->errlen, "%s:%d: ", p->rs->path, line);

	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen > (size_t)n ? p->errlen - n : 0, fmt, ap);
	va_end(ap);
	return -1;
}

#define MAX_TOKENS 64

/* Splits a line into words; "quoted text" is one word; # starts a comment. */
static int tokenize(struct parser *p, char *s, char **tok, int *ntok)
{
	int n = 0;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			break;
		if (n == MAX_TOKENS)
			return perr(p, p->line, "more than %d words on one line", MAX_TOKENS);
		if (*s == '"') {
			char *end = strchr(s + 1, '"');

			if (!end)
				return perr(p, p->line, "expected a closing '\"'");
			*end = '\0';
			tok[n++] = s + 1;
			s = end + 1;
			if (*s && !isspace((unsigned char)*s))
				return perr(p, p->line, "expected a space after the closing '\"'");
			continue;
		}
		tok[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	*ntok = n;
	return 0;
}

static bool is_name(const char *s, bool dots)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && !(dots && *s == '.' && s[1] && s[1] != '.'))
			return false;
	return true;
}

static bool is_rule_name(const char *s)
{
	if (!isalpha((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

static bool parse_num(const char *s, struct rule_num *n)
{
	char *end;

	if (!strcmp(s, "L")) {
		n->v = 1;
		n->lines = true;
		return true;
	}
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	n->v = strtol(s, &end, 10);
	if (errno)
		return false;
	n->lines = *end == 'L';
	return *end == '\0' || (end[0] == 'L' && end[1] == '\0');
}

static bool known_struct(const char *name)
{
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++)
		if (!strcmp(layout_struct_names[i], name))
			return true;
	return false;
}

static char *join_rest(char **tok, int n)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(tok[i]) + 1;
	s = xcalloc(1, len);
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, tok[i]);
	}
	return s;
}

static char *append_text(char *old, char **tok, int n)
{
	char *add = join_rest(tok, n), *s;

	if (!old)
		return add;
	s = xasprintf("%s %s", old, add);
	free(old);
	free(add);
	return s;
}

static int parse_tag(struct parser *p, char **tok, int n)
{
	enum lay_tag t;

	if (n < 3)
		return perr(p, p->line, "expected 'tag hot-written|read-mostly STRUCT.FIELD...'");
	if (!strcmp(tok[1], "hot-written"))
		t = LAY_TAG_HOT;
	else if (!strcmp(tok[1], "read-mostly"))
		t = LAY_TAG_READ;
	else
		return perr(p, p->line, "expected 'hot-written' or 'read-mostly' after 'tag', got '%s'", tok[1]);
	for (int i = 2; i < n; i++) {
		struct lay_tag_entry *e;
		char *dot = strchr(tok[i], '.');

		if (!dot || !is_name(tok[i], true))
			return perr(p, p->line, "expected STRUCT.FIELD, got '%s'", tok[i]);
		*dot = '\0';
		if (!known_struct(tok[i]))
			return perr(p, p->line, "struct %s is not one the lab captures "
				    "(mem_cgroup, page_counter, memcg_stock_pcp, obj_stock_pcp, memcg_vmstats_percpu)",
				    tok[i]);
		p->rs->tags.e = xrealloc(p->rs->tags.e, (p->rs->tags.n + 1) * sizeof(*e));
		e = &p->rs->tags.e[p->rs->tags.n++];
		memset(e, 0, sizeof(*e));
		snprintf(e->strukt, sizeof(e->strukt), "%s", tok[i]);
		snprintf(e->field, sizeof(e->field), "%s", dot + 1);
		e->tag = t;
		e->line = p->line;
	}
	return 0;
}

/* pending STRUCT.FIELD... "series": fields a rule may name before any kernel has them. */
static int parse_pending(struct parser *p, char **tok, int n)
{
	if (n < 3)
		return perr(p, p->line, "expected 'pending STRUCT.FIELD... \"the series that adds them\"'");
	for (int i = 1; i < n - 1; i++) {
		struct rule_pending *e;
		char *dot = strchr(tok[i], '.');

		if (!dot || !is_name(tok[i], true))
			return perr(p, p->line, "expected STRUCT.FIELD, got '%s'", tok[i]);
		*dot = '\0';
		if (!known_struct(tok[i]))
			return perr(p, p->line, "struct %s is not one the lab captures", tok[i]);
		p->rs->pending = xrealloc(p->rs->pending, (p->rs->npending + 1) * sizeof(*e));
		e = &p->rs->pending[p->rs->npending++];
		snprintf(e->strukt, sizeof(e->strukt), "%s", tok[i]);
		snprintf(e->field, sizeof(e->field), "%s", dot + 1);
	}
	if (strchr(tok[n - 1], '.') && !strchr(tok[n - 1], ' '))
		return perr(p, p->line, "pending: expected the series' name (quoted) after the fields, got '%s'",
			    tok[n - 1]);
	return 0;
}

static const struct {
	const char *word;
	enum inv_op op;
	const char *form;	/* what is expected, for the error message */
} inv_ops[] = {
	{ "offset", INV_OFFSET, "offset FIELD N" },
	{ "aligned", INV_ALIGNED, "aligned FIELD..." },
	{ "alone", INV_ALONE, "alone FIELD [allow FIELD...]" },
	{ "apart", INV_APART, "apart FIELD... from FIELD..." },
	{ "together", INV_TOGETHER, "together FIELD FIELD..." },
	{ "on-line", INV_ON_LINE, "on-line N FIELD..." },
	{ "not-on-line", INV_NOT_ON_LINE, "not-on-line N FIELD..." },
	{ "after", INV_AFTER, "after FIELD|N FIELD..." },
	{ "between", INV_BETWEEN, "between FIELD FIELD FIELD..." },
	{ "distance", INV_DISTANCE, "distance FIELD FIELD N" },
	{ "size", INV_SIZE, "size N" },
	{ "same-length", INV_SAME_LENGTH, "same-length FIELD FIELD..." },
	{ "elem-size", INV_ELEM_SIZE, "elem-size FIELD N" },
	{ "percpu-aligned", INV_PERCPU_ALIGNED, "percpu-aligned VAR" },
	{ "fewest-lines", INV_FEWEST_LINES, "fewest-lines FIELD FIELD..." },
};

static int want_field(struct parser *p, const char *form, const char *s)
{
	if (!is_name(s, true))
		return perr(p, p->line, "expected a field name in '%s', got '%s'", form, s);
	return 0;
}

static int want_num(struct parser *p, const char *form, const char *s, struct rule_num *n)
{
	if (!parse_num(s, n))
		return perr(p, p->line, "expected a number (bytes, or L, 2L... cachelines) in '%s', got '%s'",
			    form, s);
	return 0;
}

static int take_list(struct parser *p, struct rule_inv *inv, const char *form, char **tok, int n, int min)
{
	if (n < min)
		return perr(p, p->line, "expected '%s'", form);
	inv->list = xcalloc(n ? n : 1, sizeof(char *));
	for (int i = 0; i < n; i++) {
		if (want_field(p, form, tok[i]))
			return -1;
		inv->list[inv->nlist++] = xstrdup(tok[i]);
	}
	return 0;
}

static int parse_invariant(struct parser *p, struct rule *r, char **tok, int n)
{
	struct rule_inv *inv;
	const char *form = NULL;
	int i;

	if (n < 2)
		return perr(p, p->line, "expected 'invariant PREDICATE ...'");
	if (r->ninvs == RULE_MAX_PARTS)
		return perr(p, p->line, "more than %d invariants in rule %s", RULE_MAX_PARTS, r->name);
	inv = &r->invs[r->ninvs];
	memset(inv, 0, sizeof(*inv));
	inv->line = p->line;
	for (i = 0; i < (int)(sizeof(inv_ops) / sizeof(inv_ops[0])); i++)
		if (!strcmp(inv_ops[i].word, tok[1]))
			break;
	if (i == (int)(sizeof(inv_ops) / sizeof(inv_ops[0])))
		return perr(p, p->line, "unknown predicate '%s' (expected offset, aligned, alone, apart, together, "
			    "on-line, not-on-line, after, between, distance, size, same-length, elem-size, "
			    "percpu-aligned, fewest-lines)", tok[1]);
	inv->op = inv_ops[i].op;
	form = inv_ops[i].form;
	tok += 2;
	n -= 2;
	r->ninvs++;
	switch (inv->op) {
	case INV_OFFSET:
	case INV_ELEM_SIZE:
		if (n != 2)
			return perr(p, p->line, "expected '%s'", form);
		if (want_field(p, form, tok[0]) || want_num(p, form, tok[1], &inv->num))
			return -1;
		inv->a = xstrdup(tok[0]);
		return 0;
	case INV_ALIGNED:
		return take_list(p, inv, form, tok, n, 1);
	case INV_TOGETHER:
	case INV_SAME_LENGTH:
	case INV_FEWEST_LINES:
		return take_list(p, inv, form, tok, n, 2);
	case INV_ALONE:
		if (n < 1 || n == 2 || (n > 2 && strcmp(tok[1], "allow")))
			return perr(p, p->line, "expected '%s'", form);
		if (want_field(p, form, tok[0]))
			return -1;
		inv->a = xstrdup(tok[0]);
		return take_list(p, inv, form, tok + (n > 1 ? 2 : 1), n > 1 ? n - 2 : 0, 0);
	case INV_APART:
		for (i = 0; i < n && strcmp(tok[i], "from"); i++)
			;
		if (i == 0 || i >= n - 1)
			return perr(p, p->line, "expected '%s'", form);
		inv->subj = xcalloc(i, sizeof(char *));
		for (int k = 0; k < i; k++) {
			if (want_field(p, form, tok[k]))
				return -1;
			inv->subj[inv->nsubj++] = xstrdup(tok[k]);
		}
		return take_list(p, inv, form, tok + i + 1, n - i - 1, 1);
	case INV_ON_LINE:
	case INV_NOT_ON_LINE:
		if (n < 2)
			return perr(p, p->line, "expected '%s'", form);
		if (want_num(p, form, tok[0], &inv->num))
			return -1;
		if (inv->num.lines)
			return perr(p, p->line, "expected a cacheline index (0, 1, ...) in '%s', got '%s'", form, tok[0]);
		return take_list(p, inv, form, tok + 1, n - 1, 1);
	case INV_AFTER:
		if (n < 2)
			return perr(p, p->line, "expected '%s'", form);
		if (isdigit((unsigned char)tok[0][0]) || !strcmp(tok[0], "L")) {
			if (want_num(p, form, tok[0], &inv->num))
				return -1;
			inv->a_is_num = true;
		} else {
			if (want_field(p, form, tok[0]))
				return -1;
			inv->a = xstrdup(tok[0]);
		}
		return take_list(p, inv, form, tok + 1, n - 1, 1);
	case INV_BETWEEN:
		if (n < 3)
			return perr(p, p->line, "expected '%s'", form);
		if (want_field(p, form, tok[0]) || want_field(p, form, tok[1]))
			return -1;
		inv->a = xstrdup(tok[0]);
		inv->b = xstrdup(tok[1]);
		return take_list(p, inv, form, tok + 2, n - 2, 1);
	case INV_DISTANCE:
		if (n != 3)
			return perr(p, p->line, "expected '%s'", form);
		if (want_field(p, form, tok[0]) || want_field(p, form, tok[1]) ||
		    want_num(p, form, tok[2], &inv->num))
			return -1;
		inv->a = xstrdup(tok[0]);
		inv->b = xstrdup(tok[1]);
		return 0;
	case INV_SIZE:
		if (n != 1)
			return perr(p, p->line, "expected '%s'", form);
		return want_num(p, form, tok[0], &inv->num);
	case INV_PERCPU_ALIGNED:
		if (n != 1 || !is_name(tok[0], false))
			return perr(p, p->line, "expected '%s'", form);
		inv->a = xstrdup(tok[0]);
		return 0;
	}
	return 0;
}

static int parse_when(struct parser *p, struct rule *r, char **tok, int n)
{
	static const struct { const char *word; enum cond_op op; bool field; } conds[] = {
		{ "has", COND_HAS, true }, { "lacks", COND_LACKS, true },
		{ "array", COND_ARRAY, true }, { "scalar", COND_SCALAR, true },
		{ "no-lock-debug", COND_NO_LOCK_DEBUG, false },
		{ "rt-lock", COND_RT_LOCK, false }, { "no-rt-lock", COND_NO_RT_LOCK, false },
	};
	const char *form = "when has|lacks|array|scalar FIELD [\"reason\"] or when no-lock-debug|rt-lock|no-rt-lock "
			   "[\"reason\"]";
	struct rule_cond *c;
	size_t i;

	if (n < 2)
		return perr(p, p->line, "expected '%s'", form);
	for (i = 0; i < sizeof(conds) / sizeof(conds[0]); i++)
		if (!strcmp(conds[i].word, tok[1]))
			break;
	if (i == sizeof(conds) / sizeof(conds[0]))
		return perr(p, p->line, "unknown condition '%s': expected '%s'", tok[1], form);
	if (r->nconds == RULE_MAX_PARTS)
		return perr(p, p->line, "more than %d conditions in rule %s", RULE_MAX_PARTS, r->name);
	c = &r->conds[r->nconds++];
	memset(c, 0, sizeof(*c));
	c->line = p->line;
	c->op = conds[i].op;
	tok += 2;
	n -= 2;
	if (conds[i].field) {
		if (n < 1 || want_field(p, form, tok[0]))
			return n < 1 ? perr(p, p->line, "expected '%s'", form) : -1;
		c->field = xstrdup(tok[0]);
		tok++;
		n--;
	}
	if (n > 1)
		return perr(p, p->line, "expected '%s' (quote the reason)", form);
	if (n == 1)
		c->reason = xstrdup(tok[0]);
	return 0;
}

/* A rule is complete when it names its structs, its severity and an invariant. */
static int finish_rule(struct parser *p)
{
	struct rule *r = p->cur;

	p->cur = NULL;
	if (!r)
		return 0;
	if (!r->nstructs)
		return perr(p, r->line, "rule %s: expected a 'struct STRUCT...' line", r->name);
	if (!r->sev_set)
		return perr(p, r->line, "rule %s: expected a 'severity hard|soft' line", r->name);
	if (!r->ninvs)
		return perr(p, r->line, "rule %s: expected at least one 'invariant ...' line", r->name);
	return 0;
}

static int parse_rule_line(struct parser *p, char **tok, int n)
{
	struct rule *r = p->cur;
	const char *kw = tok[0];

	if (!r)
		return perr(p, p->line, "expected 'rule NAME' or 'tag ...' before '%s'", kw);
	if (!strcmp(kw, "struct")) {
		if (r->nstructs)
			return perr(p, p->line, "rule %s: a second 'struct' line (list the structs on one)", r->name);
		if (n < 2 || n - 1 > RULE_MAX_STRUCTS)
			return perr(p, p->line, "expected 'struct STRUCT...' (1 to %d structs)", RULE_MAX_STRUCTS);
		for (int i = 1; i < n; i++) {
			if (!known_struct(tok[i]))
				return perr(p, p->line, "struct %s is not one the lab captures (mem_cgroup, "
					    "page_counter, memcg_stock_pcp, obj_stock_pcp, memcg_vmstats_percpu)", tok[i]);
			r->structs[r->nstructs++] = xstrdup(tok[i]);
		}
		r->struct_line = p->line;
		return 0;
	}
	if (!strcmp(kw, "severity")) {
		if (n != 2 || (strcmp(tok[1], "hard") && strcmp(tok[1], "soft")))
			return perr(p, p->line, "expected 'severity hard' or 'severity soft'");
		r->sev = !strcmp(tok[1], "hard") ? RULE_HARD : RULE_SOFT;
		r->sev_set = true;
		return 0;
	}
	if (!strcmp(kw, "when"))
		return parse_when(p, r, tok, n);
	if (!strcmp(kw, "invariant"))
		return parse_invariant(p, r, tok, n);
	if (!strcmp(kw, "placed-at")) {
		if (n != 2 || !is_name(tok[1], false))
			return perr(p, p->line, "expected 'placed-at PERCPU_VAR'");
		free(r->placed_at);
		r->placed_at = xstrdup(tok[1]);
		r->placed_line = p->line;
		return 0;
	}
	if (!strcmp(kw, "if-absent") || !strcmp(kw, "why")) {
		char **dst = kw[0] == 'w' ? &r->why : &r->if_absent;

		if (n < 2)
			return perr(p, p->line, "expected text after '%s'", kw);
		*dst = append_text(*dst, tok + 1, n - 1);
		return 0;
	}
	return perr(p, p->line, "unknown keyword '%s' (expected struct, severity, when, placed-at, "
		    "if-absent, invariant, why, rule or tag)", kw);
}

static int parse_line(struct parser *p, char *text)
{
	char *tok[MAX_TOKENS];
	int n = 0;

	if (tokenize(p, text, tok, &n))
		return -1;
	if (!n)
		return 0;
	if (!strcmp(tok[0], "tag")) {
		if (finish_rule(p))
			return -1;
		return parse_tag(p, tok, n);
	}
	if (!strcmp(tok[0], "pending")) {
		if (finish_rule(p))
			return -1;
		return parse_pending(p, tok, n);
	}
	if (!strcmp(tok[0], "rule")) {
		struct rule *r;

		if (finish_rule(p))
			return -1;
		if (n != 2 || !is_rule_name(tok[1]))
			return perr(p, p->line, "expected 'rule NAME' (a letter, then letters, digits, '-', '_')");
		for (int i = 0; i < p->rs->n; i++)
			if (!strcmp(p->rs->r[i].name, tok[1]))
				return perr(p, p->line, "rule %s is already defined at line %d", tok[1],
					    p->rs->r[i].line);
		p->rs->r = xrealloc(p->rs->r, (p->rs->n + 1) * sizeof(*r));
		r = &p->rs->r[p->rs->n++];
		memset(r, 0, sizeof(*r));
		r->name = xstrdup(tok[1]);
		r->line = p->line;
		p->cur = r;
		return 0;
	}
	return parse_rule_line(p, tok, n);
}

int rules_parse_text(struct rules *rs, const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	struct parser p = { .rs = rs, .err = err, .errlen = errlen };
	char *copy = strndup(text, len), *line, *next;

	memset(rs, 0, sizeof(*rs));
	rs->path = xstrdup(path);
	if (!copy)
		die("out of memory");
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		p.line++;
		if (parse_line(&p, line)) {
			free(copy);
			return -1;
		}
	}
	free(copy);
	if (finish_rule(&p))
		return -1;
	if (!rs->n) {
		snprintf(err, errlen, "%s: no rules (expected at least one 'rule NAME' block)", path);
		return -1;
	}
	return 0;
}

int rules_parse(struct rules *rs, const char *path, char *err, size_t errlen)
{
	size_t len;
	char *text = read_text(path, &len);
	int r;

	if (!text) {
		memset(rs, 0, sizeof(*rs));
		snprintf(err, errlen, "%s: cannot read the rules file: %s", path, strerror(errno));
		return -1;
	}
	r = rules_parse_text(rs, path, text, len, err, errlen);
	free(text);
	return r;
}

void rules_free(struct rules *rs)
{
	for (int i = 0; i < rs->n; i++) {
		struct rule *r = &rs->r[i];

		free(r->name);
		for (int j = 0; j < r->nstructs; j++)
			free(r->structs[j]);
		for (int j = 0; j < r->nconds; j++) {
			free(r->conds[j].field);
			free(r->conds[j].reason);
		}
		for (int j = 0; j < r->ninvs; j++) {
			free(r->invs[j].a);
			free(r->invs[j].b);
			for (int k = 0; k < r->invs[j].nlist; k++)
				free(r->invs[j].list[k]);
			free(r->invs[j].list);
			for (int k = 0; k < r->invs[j].nsubj; k++)
				free(r->invs[j].subj[k]);
			free(r->invs[j].subj);
		}
		free(r->placed_at);
		free(r->if_absent);
		free(r->why);
	}
	free(rs->r);
	free(rs->tags.e);
	free(rs->pending);
	free(rs->path);
	memset(rs, 0, sizeof(*rs));
}

/* ---- validation against the known kernels -------------------------------- */

static bool field_pending(const struct rules *rs, const char *strukt, const char *field)
{
	for (int i = 0; i < rs->npending; i++)
		if (!strcmp(rs->pending[i].strukt, strukt) && !strcmp(rs->pending[i].field, field))
			return true;
	return false;
}

static bool field_known(const struct layout *const *known, int nknown, const char *strukt, const char *field)
{
	for (int i = 0; i < nknown; i++) {
		const struct lay_struct *s = layout_struct(known[i], strukt);

		if (s && s->present && lay_find(s, field))
			return true;
	}
	return false;
}

/* A tag names a member of a struct type, wherever that type is embedded. */
static bool tag_known(const struct layout *const *known, int nknown, const struct lay_tag_entry *e)
{
	for (int i = 0; i < nknown; i++)
		for (int j = 0; j < LAYOUT_NSTRUCTS; j++) {
			const struct lay_struct *s = &known[i]->s[j];

			for (int k = 0; k < s->nfields; k++) {
				const struct lay_field *f = &s->fields[k];

				if ((!strcmp(f->owner, e->strukt) && !strcmp(lay_leaf(f->name), e->field)) ||
				    (!strcmp(s->name, e->strukt) && !strcmp(f->name, e->field)))
					return true;
			}
		}
	return false;
}

static bool var_known(const struct layout *const *known, int nknown, const char *var)
{
	for (int i = 0; i < nknown; i++)
		for (int j = 0; j < LAYOUT_NSTRUCTS; j++)
			if (!strcmp(known[i]->s[j].percpu_var, var))
				return true;
	return false;
}

static int unknown_field(const struct rules *rs, int line, const struct rule *r, const char *field,
			 char *err, size_t errlen)
{
	snprintf(err, errlen, "%s:%d: rule %s: field '%s' exists in no known kernel's %s%s "
		 "(checked this kernel and the captures under layouts/)", rs->path, line, r->name, field,
		 r->structs[0], r->nstructs > 1 ? " (nor the rule's other structs)" : "");
	return -1;
}

static int check_field(const struct rules *rs, const struct rule *r, int line, const char *field,
		       const struct layout *const *known, int nknown, char *err, size_t errlen)
{
	for (int i = 0; i < r->nstructs; i++)
		if (field_known(known, nknown, r->structs[i], field) || field_pending(rs, r->structs[i], field))
			return 0;
	return unknown_field(rs, line, r, field, err, errlen);
}

int rules_validate(const struct rules *rs, const struct layout *const *known, int nknown,
		   char *err, size_t errlen)
{
	for (int i = 0; i < rs->tags.n; i++) {
		const struct lay_tag_entry *e = &rs->tags.e[i];

		if (!tag_known(known, nknown, e) && !field_pending(rs, e->strukt, e->field)) {
			snprintf(err, errlen, "%s:%d: tag: field '%s.%s' exists in no known kernel "
				 "(checked this kernel and the captures under layouts/)", rs->path, e->line,
				 e->strukt, e->field);
			return -1;
		}
	}
	for (int i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->r[i];

		for (int j = 0; j < r->nconds; j++)
			if (r->conds[j].field &&
			    check_field(rs, r, r->conds[j].line, r->conds[j].field, known, nknown, err, errlen))
				return -1;
		if (r->placed_at && !var_known(known, nknown, r->placed_at)) {
			snprintf(err, errlen, "%s:%d: rule %s: per-cpu VAR '%s' of a captured struct exists in "
				 "no known kernel", rs->path, r->placed_line, r->name, r->placed_at);
			return -1;
		}
		for (int j = 0; j < r->ninvs; j++) {
			const struct rule_inv *inv = &r->invs[j];

			if (inv->op == INV_PERCPU_ALIGNED) {
				if (!var_known(known, nknown, inv->a)) {
					snprintf(err, errlen, "%s:%d: rule %s: per-cpu VAR '%s' of a captured "
						 "struct exists in no known kernel", rs->path, inv->line, r->name, inv->a);
					return -1;
				}
				continue;
			}
			if (inv->a && check_field(rs, r, inv->line, inv->a, known, nknown, err, errlen))
				return -1;
			if (inv->b && check_field(rs, r, inv->line, inv->b, known, nknown, err, errlen))
				return -1;
			for (int k = 0; k < inv->nlist; k++)
				if (check_field(rs, r, inv->line, inv->list[k], known, nknown, err, errlen))
					return -1;
			for (int k = 0; k < inv->nsubj; k++)
				if (check_field(rs, r, inv->line, inv->subj[k], known, nknown, err, errlen))
					return -1;
		}
	}
	return 0;
}

/* ---- checking ------------------------------------------------------------ */

struct ctx {
	const struct layout *lay;
	const struct lay_struct *s;
	const struct lay_tags *tags;
	const struct rule *r;
	int L;
	uint64_t base;		/* the struct's start within its first cacheline */
	struct rule_result *res;
};

static void detail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail(struct ctx *c, const char *fmt, ...)
{
	struct rule_result *res = c->res;
	va_list ap;

	if (res->ndetails == (int)(sizeof(res->details) / sizeof(res->details[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(res->details[res->ndetails++], RESULT_TEXT, fmt, ap);
	va_end(ap);
}

static long num_bytes(const struct ctx *c, struct rule_num n)
{
	return n.lines ? n.v * c->L : n.v;
}

static const char *num_text(const struct ctx *c, struct rule_num n, char *buf, size_t len)
{
	if (n.lines)
		str_setf(buf, len, "%ld (%ldL)", n.v * c->L, n.v);
	else
		str_setf(buf, len, "%ld", n.v);
	return buf;
}

/* "cacheline 0 (bytes 0-63)": the struct bytes on a line, given the base. */
static void line_text(const struct ctx *c, uint64_t line, char *buf, size_t n)
{
	int64_t lo = (int64_t)(line * c->L) - (int64_t)c->base, hi = lo + c->L - 1;

	if (lo < 0)
		lo = 0;
	if (hi > (int64_t)c->s->size - 1)
		hi = (int64_t)c->s->size - 1;
	str_setf(buf, n, "cacheline %" PRIu64 " (bytes %" PRId64 "-%" PRId64 ")", line, lo, hi);
}

static void field_text_sized(const struct ctx *c, const struct lay_field *f, bool tag, bool with_size,
			     char *buf, size_t n)
{
	enum lay_tag t = tag ? lay_tag_of(c->tags, c->s, f) : LAY_TAG_NONE;

	str_setf(buf, n, "%s@%" PRIu64, f->name, f->offset);
	if (with_size)
		str_appendf(buf, n, "+%" PRIu64, f->size);
	if (t != LAY_TAG_NONE)
		str_appendf(buf, n, " (%s)", lay_tag_name(t));
}

static void field_text(const struct ctx *c, const struct lay_field *f, bool tag, char *buf, size_t n)
{
	field_text_sized(c, f, tag, false, buf, n);
}

static bool shares_line(const struct ctx *c, const struct lay_field *f, uint64_t line)
{
	uint64_t a, b;

	return lay_is_leaf(f) && lay_lines(f, c->base, c->L, &a, &b) && a <= line && line <= b;
}

static bool in_list(const struct rule_inv *inv, const struct lay_field *f)
{
	for (int i = 0; i < inv->nlist; i++)
		if (lay_related(f, inv->list[i]))
			return true;
	return false;
}

/* The listed fields this struct has; the missing ones go to note. */
static int present_list(const struct ctx *c, const struct rule_inv *inv, const struct lay_field **out,
			char *note, size_t n)
{
	int k = 0;

	note[0] = '\0';
	for (int i = 0; i < inv->nlist; i++) {
		const struct lay_field *f = lay_find(c->s, inv->list[i]);

		if (f)
			out[k++] = f;
		else
			str_appendf(note, n, "%s%s", note[0] ? ", " : "", inv->list[i]);
	}
	return k;
}

/* "min, low, high" of the fields present. */
static void names_text(const struct lay_field *const *fs, int n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		str_appendf(buf, len, "%s%s", i ? ", " : "", fs[i]->name);
}

/* Why a subject is missing: "page_counter has no _pad1_" plus the rule's if-absent text. */
static void missing(const struct ctx *c, char *na, size_t n, const char *field)
{
	str_setf(na, n, "%s has no %s", c->s->name, field);
	if (c->r->if_absent)
		str_appendf(na, n, " (%s)", c->r->if_absent);
}

/* Lists the leaves on a line other than those related to the subjects. */
static void others_on_line(const struct ctx *c, uint64_t line, const struct rule_inv *inv,
			   const char *subject, bool only_list, char *buf, size_t n)
{
	char ft[300];

	buf[0] = '\0';
	for (int i = 0; i < c->s->nfields; i++) {
		const struct lay_field *f = &c->s->fields[i];

		if (!shares_line(c, f, line) || lay_related(f, subject) || lay_alias_of(c->s, f))
			continue;
		if (only_list != in_list(inv, f))
			continue;
		field_text(c, f, true, ft, sizeof(ft));
		str_appendf(buf, n, "%s%s", buf[0] ? " " : "", ft);
	}
}

/* A pass whose text notes the listed fields the struct lacks, if any. */
static enum verdict pass_noting_absent(char *ok, size_t okl, const char *absent)
{
	if (absent[0])
		str_appendf(ok, okl, " (absent: %s)", absent);
	return V_PASS;
}

static enum verdict eval_alone(struct ctx *c, const struct rule_inv *inv, char *na, size_t nal, char *ok, size_t okl)
{
	const struct lay_field *f = lay_find(c->s, inv->a);
	uint64_t a, b;
	bool fail = false;
	char ft[300], lt[80], others[RESULT_TEXT / 2];

	if (!f || !lay_lines(f, c->base, c->L, &a, &b)) {
		missing(c, na, nal, inv->a);
		return V_NA;
	}
	field_text(c, f, true, ft, sizeof(ft));
	for (uint64_t line = a; line <= b; line++) {
		/* Everything but the allowed fields. */
		others_on_line(c, line, inv, inv->a, false, others, sizeof(others));
		if (!others[0])
			continue;
		fail = true;
		line_text(c, line, lt, sizeof(lt));
		detail(c, "struct %s, %s: %s shares it with %s", c->s->name, lt, ft, others);
	}
	if (fail)
		return V_FAIL;
	line_text(c, a, lt, sizeof(lt));
	others_on_line(c, a, inv, inv->a, true, others, sizeof(others));
	str_setf(ok, okl, "%s alone on %s%s%s%s", ft, lt, others[0] ? " with " : "", others,
		 others[0] ? " (allowed)" : "");
	return V_PASS;
}

/* True when f is one of the subjects of an apart, or nested in one. */
static bool is_subject(const struct rule_inv *inv, const struct lay_field *f)
{
	for (int i = 0; i < inv->nsubj; i++)
		if (lay_related(f, inv->subj[i]))
			return true;
	return false;
}

/*
 * apart F... from G...: no G on any cacheline an F is on, every line of
 * every F (a hot block over two lines has two lines to keep clear).
 */
static enum verdict eval_apart(struct ctx *c, const struct rule_inv *inv, char *na, size_t nal, char *ok, size_t okl)
{
	const struct lay_field *subj[64], *fs[64];
	char absent[256] = "", sabsent[256] = "", listed[RESULT_TEXT / 2], names[RESULT_TEXT / 2] = "", lt[80];
	uint64_t lo = UINT64_MAX, hi = 0;
	int ns = 0, n = present_list(c, inv, fs, absent, sizeof(absent));
	bool fail = false;

	for (int i = 0; i < inv->nsubj && ns < 64; i++) {
		const struct lay_field *f = lay_find(c->s, inv->subj[i]);
		uint64_t a, b;

		if (f && lay_lines(f, c->base, c->L, &a, &b)) {
			subj[ns++] = f;
			lo = a < lo ? a : lo;
			hi = b > hi ? b : hi;
		} else {
			str_appendf(sabsent, sizeof(sabsent), "%s%s", sabsent[0] ? ", " : "", inv->subj[i]);
		}
	}
	if (!ns) {
		missing(c, na, nal, sabsent);
		return V_NA;
	}
	if (!n) {
		str_setf(na, nal, "%s has none of %s", c->s->name, absent);
		return V_NA;
	}
	names_text(fs, n, listed, sizeof(listed));
	names_text(subj, ns, names, sizeof(names));
	for (uint64_t line = lo; line <= hi; line++) {
		char on[RESULT_TEXT / 2] = "", others[RESULT_TEXT / 2] = "", ft[300];
		int non = 0;

		for (int i = 0; i < ns; i++) {
			if (!shares_line(c, subj[i], line))
				continue;
			field_text(c, subj[i], true, ft, sizeof(ft));
			str_appendf(on, sizeof(on), "%s%s", on[0] ? " " : "", ft);
			non++;
		}
		if (!non)
			continue;
		for (int i = 0; i < c->s->nfields; i++) {
			const struct lay_field *o = &c->s->fields[i];

			if (!shares_line(c, o, line) || is_subject(inv, o) || lay_alias_of(c->s, o) || !in_list(inv, o))
				continue;
			field_text(c, o, true, ft, sizeof(ft));
			str_appendf(others, sizeof(others), "%s%s", others[0] ? " " : "", ft);
		}
		if (!others[0])
			continue;
		fail = true;
		line_text(c, line, lt, sizeof(lt));
		detail(c, "struct %s, %s: %s share%s it with %s", c->s->name, lt, on, non == 1 ? "s" : "", others);
	}
	if (fail)
		return V_FAIL;
	if (ns == 1 && lo == hi) {
		line_text(c, lo, lt, sizeof(lt));
		str_setf(ok, okl, "none of %s on %s's %s", listed, subj[0]->name, lt);
	} else if (ns == 1) {
		str_setf(ok, okl, "none of %s on %s's cachelines %" PRIu64 "-%" PRIu64, listed, subj[0]->name, lo, hi);
	} else if (lo == hi) {
		str_setf(ok, okl, "none of %s on cacheline %" PRIu64 " of %s", listed, lo, names);
	} else {
		str_setf(ok, okl, "none of %s on cachelines %" PRIu64 "-%" PRIu64 " of %s", listed, lo, hi, names);
	}
	return pass_noting_absent(ok, okl, absent);
}

static enum verdict eval_lines(struct ctx *c, const struct rule_inv *inv, char *na, size_t nal,
			       char *ok, size_t okl)
{
	const struct lay_field *fs[64];
	char absent[256], ft[300], lt[80];
	int n = present_list(c, inv, fs, absent, sizeof(absent));
	bool fail = false;
	uint64_t lo = UINT64_MAX, hi = 0;

	if (n == 0 || (inv->op == INV_TOGETHER && n < 2)) {
		str_setf(na, nal, "%s has %d of the %d fields (absent: %s)", c->s->name, n, inv->nlist, absent);
		return V_NA;
	}
	for (int i = 0; i < n; i++) {
		uint64_t a, b;

		if (!lay_lines(fs[i], c->base, c->L, &a, &b))
			continue;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
		if (inv->op == INV_ON_LINE && (a != (uint64_t)inv->num.v || b != (uint64_t)inv->num.v)) {
			field_text_sized(c, fs[i], true, true, ft, sizeof(ft));
			line_text(c, (uint64_t)inv->num.v, lt, sizeof(lt));
			if (a == b)
				detail(c, "struct %s: %s lies on cacheline %" PRIu64 ", not on %s", c->s->name, ft, a, lt);
			else
				detail(c, "struct %s: %s spans cachelines %" PRIu64 "-%" PRIu64 ", not only %s",
				       c->s->name, ft, a, b, lt);
			fail = true;
		}
		if (inv->op == INV_NOT_ON_LINE && a <= (uint64_t)inv->num.v && (uint64_t)inv->num.v <= b) {
			field_text_sized(c, fs[i], true, true, ft, sizeof(ft));
			line_text(c, (uint64_t)inv->num.v, lt, sizeof(lt));
			detail(c, "struct %s: %s is on %s", c->s->name, ft, lt);
			fail = true;
		}
	}
	if (inv->op == INV_TOGETHER && lo != hi) {
		char list[RESULT_TEXT / 2] = "";

		for (int i = 0; i < n; i++) {
			uint64_t a, b;

			if (!lay_lines(fs[i], c->base, c->L, &a, &b))
				continue;
			field_text(c, fs[i], false, ft, sizeof(ft));
			if (a == b)
				str_appendf(list, sizeof(list), "%s%s (line %" PRIu64 ")", list[0] ? ", " : "", ft, a);
			else
				str_appendf(list, sizeof(list), "%s%s (lines %" PRIu64 "-%" PRIu64 ")", list[0] ? ", " : "",
				     ft, a, b);
		}
		detail(c, "struct %s: the fields span cachelines %" PRIu64 "-%" PRIu64 ": %s", c->s->name, lo, hi,
		       list);
		fail = true;
	}
	if (fail)
		return V_FAIL;
	names_text(fs, n, ft, sizeof(ft));
	if (inv->op == INV_NOT_ON_LINE)
		str_setf(ok, okl, "%s not on cacheline %ld", ft, inv->num.v);
	else
		str_setf(ok, okl, "%s on cacheline %" PRIu64, ft, lo);
	return pass_noting_absent(ok, okl, absent);
}

static enum verdict eval_offsets(struct ctx *c, const struct rule_inv *inv, char *na, size_t nal,
				 char *ok, size_t okl)
{
	const struct lay_field *fa = inv->a ? lay_find(c->s, inv->a) : NULL;
	const struct lay_field *fb = inv->b ? lay_find(c->s, inv->b) : NULL;
	char nt[64], ft[300], ft2[300];

	if ((inv->a && !fa) || (inv->b && !fb)) {
		missing(c, na, nal, inv->a && !fa ? inv->a : inv->b);
		return V_NA;
	}
	switch (inv->op) {
	case INV_OFFSET:
		field_text(c, fa, true, ft, sizeof(ft));
		if ((long)fa->offset == num_bytes(c, inv->num)) {
			str_setf(ok, okl, "%s at offset %s", fa->name, num_text(c, inv->num, nt, sizeof(nt)));
			return V_PASS;
		}
		detail(c, "struct %s: %s, expected at offset %s", c->s->name, ft, num_text(c, inv->num, nt, sizeof(nt)));
		return V_FAIL;
	case INV_DISTANCE: {
		long d = (long)fb->offset - (long)fa->offset;

		if (d == num_bytes(c, inv->num)) {
			str_setf(ok, okl, "%s - %s = %ld", fb->name, fa->name, d);
			return V_PASS;
		}
		field_text(c, fa, false, ft, sizeof(ft));
		field_text(c, fb, false, ft2, sizeof(ft2));
		detail(c, "struct %s: %s - %s = %ld bytes, expected %s", c->s->name, ft2, ft, d,
		       num_text(c, inv->num, nt, sizeof(nt)));
		return V_FAIL;
	}
	case INV_ELEM_SIZE:
		if (fa->nelems && (long)fa->elem_size == num_bytes(c, inv->num)) {
			str_setf(ok, okl, "%s is %s", fa->name, fa->type);
			return V_PASS;
		}
		detail(c, "struct %s: %s is %s%s, expected an array of %s-byte elements", c->s->name, fa->name,
		       fa->type, fa->nelems ? "" : " (not an array)", num_text(c, inv->num, nt, sizeof(nt)));
		return V_FAIL;
	default:
		break;
	}
	return V_NA;
}

static enum verdict eval_ranges(struct ctx *c, const struct rule_inv *inv, char *na, size_t nal,
				char *ok, size_t okl)
{
	const struct lay_field *fs[64], *fa = NULL, *fb = NULL;
	char absent[256], ft[300], nt[64];
	int n;
	uint64_t lo = 0, hi = UINT64_MAX;
	bool fail = false;

	if (inv->a && !(fa = lay_find(c->s, inv->a))) {
		missing(c, na, nal, inv->a);
		return V_NA;
	}
	if (inv->b && !(fb = lay_find(c->s, inv->b))) {
		missing(c, na, nal, inv->b);
		return V_NA;
	}
	n = present_list(c, inv, fs, absent, sizeof(absent));
	if (!n) {
		str_setf(na, nal, "%s has none of %s", c->s->name, absent);
		return V_NA;
	}
	if (inv->op == INV_AFTER)
		lo = inv->a_is_num ? (uint64_t)num_bytes(c, inv->num) : fa->offset;
	else if (inv->op == INV_BETWEEN) {
		lo = fa->offset;
		hi = fb->offset;
	}
	for (int i = 0; i < n; i++) {
		const struct lay_field *f = fs[i];

		if (f->offset >= lo && f->offset + f->size <= hi)
			continue;
		field_text_sized(c, f, true, inv->op == INV_BETWEEN, ft, sizeof(ft));
		if (inv->op == INV_AFTER && inv->a_is_num)
			detail(c, "struct %s: %s is before %s", c->s->name, ft, num_text(c, inv->num, nt, sizeof(nt)));
		else if (inv->op == INV_AFTER)
			detail(c, "struct %s: %s is before %s@%" PRIu64, c->s->name, ft, fa->name, fa->offset);
		else
			detail(c, "struct %s: %s is outside [%s@%" PRIu64 ", %s@%" PRIu64 ")", c->s->name,
			       ft, fa->name, fa->offset, fb->name, fb->offset);
		fail = true;
	}
	if (fail)
		return V_FAIL;
	names_text(fs, n, ft, sizeof(ft));
	if (inv->op == INV_AFTER && inv->a_is_num)
		str_setf(ok, okl, "%s at or after %s", ft, num_text(c, inv->num, nt, sizeof(nt)));
	else if (inv->op == INV_AFTER)
		str_setf(ok, okl, "%s at or after %s@%" PRIu64, ft, fa->name, lo);
	else
		str_setf(ok, okl, "%s within [%s@%" PRIu64 ", %s@%" PRIu64 ")", ft, fa->name, lo, fb->name, hi);
	return pass_noting_absent(ok, okl, absent);
}

static enum verdict eval_aligned(struct ctx *c, const struct rule_inv *inv, char *na, size_t nal,
				 char *ok, size_t okl)
{
	const struct lay_field *fs[64];
	char absent[256], ft[300], lt[80], before[RESULT_TEXT / 2];
	int n = present_list(c, inv, fs, absent, sizeof(absent));
	bool fail = false;

	if (!n) {
		if (inv->nlist == 1)
			missing(c, na, nal, inv->list[0]);
		else
			str_setf(na, nal, "%s has none of %s", c->s->name, absent);
		return V_NA;
	}
	ok[0] = '\0';
	for (int i = 0; i < n; i++) {
		const struct lay_field *f = fs[i], *alias = lay_alias_of(c->s, f);
		uint64_t pos = c->base + f->offset, line = pos / c->L;

		if (alias && alias != f && in_list(inv, alias))
			continue;	/* the same counter under its other union name */
		field_text(c, f, false, ft, sizeof(ft));
		for (int j = i + 1; j < n; j++)
			if (lay_alias_of(c->s, fs[j]) == f)
				str_appendf(ft, sizeof(ft), " (= %s)", fs[j]->name);
		if (pos % c->L == 0) {
			str_appendf(ok, okl, "%s%s starts cacheline %" PRIu64, ok[0] ? ", " : "", ft, line);
			continue;
		}
		/* The members before it on its first line are the ones it shares with. */
		before[0] = '\0';
		for (int j = 0; j < c->s->nfields; j++) {
			const struct lay_field *o = &c->s->fields[j];
			char ot[300];

			if (!shares_line(c, o, line) || lay_related(o, f->name) || o->offset >= f->offset ||
			    lay_alias_of(c->s, o))
				continue;
			field_text(c, o, true, ot, sizeof(ot));
			str_appendf(before, sizeof(before), "%s%s", before[0] ? " " : "", ot);
		}
		line_text(c, line, lt, sizeof(lt));
		detail(c, "struct %s: %s is %" PRIu64 " bytes into %s, which it shares with %s", c->s->name, ft,
		       pos % c->L, lt, before[0] ? before : "nothing but padding");
		fail = true;
	}
	return fail ? V_FAIL : pass_noting_absent(ok, okl, absent);
}

static enum verdict eval_same_length(struct ctx *c, const struct rule_inv *inv, char *na, size_t nal,
				     char *ok, size_t okl)
{
	const struct lay_field *fs[64];
	char absent[256], list[RESULT_TEXT / 2] = "";
	int n = present_list(c, inv, fs, absent, sizeof(absent));
	bool same = true, arrays = true;

	if (n < inv->nlist) {
		missing(c, na, nal, absent);
		return V_NA;
	}
	for (int i = 0; i < n; i++) {
		str_appendf(list, sizeof(list), "%s%s %s", i ? ", " : "", fs[i]->name, fs[i]->type);
		arrays &= fs[i]->nelems > 0;
		same &= fs[i]->nelems == fs[0]->nelems;
	}
	if (arrays && same && fs[0]->nelems >= 2) {
		str_setf(ok, okl, "%u slots: %s", fs[0]->nelems, list);
		return V_PASS;
	}
	detail(c, "struct %s: %s: expected arrays of one length N >= 2", c->s->name, list);
	return V_FAIL;
}

static enum verdict eval_percpu(struct ctx *c, const struct rule_inv *inv, char *na, size_t nal,
				char *ok, size_t okl)
{
	const struct lay_struct *owner = NULL;
	int64_t off;

	for (int i = 0; i < LAYOUT_NSTRUCTS; i++)
		if (!strcmp(c->lay->s[i].percpu_var, inv->a))
			owner = &c->lay->s[i];
	if (!owner) {
		if (!c->lay->percpu_datasec)
			str_setf(na, nal, "this BTF has no .data..percpu DATASEC (per-cpu VARs not encoded: "
				 "pahole < 1.18 or --skip_encoding_btf_vars)");
		else
			str_setf(na, nal, "no per-cpu VAR %s of a captured struct in .data..percpu", inv->a);
		return V_NA;
	}
	off = owner->percpu_offset;
	if (off % c->L == 0) {
		str_setf(ok, okl, "%s at .data..percpu+%" PRId64 " = %d * %" PRId64, inv->a, off, c->L, off / c->L);
		return V_PASS;
	}
	detail(c, "per-cpu %s (struct %s) at .data..percpu+%" PRId64 " is %" PRId64 " bytes into a cacheline: "
	       "its line 0 is split across two cachelines (DEFINE_PER_CPU_ALIGNED expected)", inv->a, owner->name,
	       off, off % c->L);
	return V_FAIL;
}

/*
 * The fields (their own bytes, holes not counted) lie on no more cachelines
 * than those bytes need, placed as the struct really is: with a 1-byte lock
 * that is one line for the stocks, with PREEMPT_RT's 32-byte lock two; a
 * cold member between them, or a misplaced start, makes a third.
 */
static enum verdict eval_fewest_lines(struct ctx *c, const struct rule_inv *inv, char *na, size_t nal,
				      char *ok, size_t okl)
{
	const struct lay_field *fs[64];
	char absent[256], names[RESULT_TEXT / 2];
	int n = present_list(c, inv, fs, absent, sizeof(absent));
	uint64_t lo = UINT64_MAX, hi = 0, bytes = 0, need, first, last;

	if (n < 2) {
		str_setf(na, nal, "%s has %d of the %d fields (absent: %s)", c->s->name, n, inv->nlist, absent);
		return V_NA;
	}
	for (int i = 0; i < n; i++) {
		lo = fs[i]->offset < lo ? fs[i]->offset : lo;
		hi = fs[i]->offset + fs[i]->size > hi ? fs[i]->offset + fs[i]->size : hi;
		bytes += fs[i]->size;
	}
	need = (bytes + c->L - 1) / c->L;
	first = (c->base + lo) / c->L;
	last = (c->base + hi - 1) / c->L;
	names_text(fs, n, names, sizeof(names));
	if (last - first + 1 <= need) {
		str_setf(ok, okl, "%s: %" PRIu64 " B in bytes %" PRIu64 "-%" PRIu64 " on cacheline%s %" PRIu64,
			 names, bytes, lo, hi - 1, need > 1 ? "s" : "", first);
		if (last > first)
			str_appendf(ok, okl, "-%" PRIu64, last);
		str_appendf(ok, okl, ", the fewest %" PRIu64 " B can take", bytes);
		return pass_noting_absent(ok, okl, absent);
	}
	detail(c, "struct %s: %s: %" PRIu64 " B in bytes %" PRIu64 "-%" PRIu64 " span cachelines %" PRIu64 "-%" PRIu64
	       ", %" PRIu64 " would do", c->s->name, names, bytes, lo, hi - 1, first, last, need);
	return V_FAIL;
}

static enum verdict eval_inv(struct ctx *c, const struct rule_inv *inv, char *na, size_t nal, char *ok, size_t okl)
{
	char nt[64];

	switch (inv->op) {
	case INV_ALONE:
		return eval_alone(c, inv, na, nal, ok, okl);
	case INV_APART:
		return eval_apart(c, inv, na, nal, ok, okl);
	case INV_TOGETHER:
	case INV_ON_LINE:
	case INV_NOT_ON_LINE:
		return eval_lines(c, inv, na, nal, ok, okl);
	case INV_OFFSET:
	case INV_DISTANCE:
	case INV_ELEM_SIZE:
		return eval_offsets(c, inv, na, nal, ok, okl);
	case INV_AFTER:
	case INV_BETWEEN:
		return eval_ranges(c, inv, na, nal, ok, okl);
	case INV_ALIGNED:
		return eval_aligned(c, inv, na, nal, ok, okl);
	case INV_SAME_LENGTH:
		return eval_same_length(c, inv, na, nal, ok, okl);
	case INV_PERCPU_ALIGNED:
		return eval_percpu(c, inv, na, nal, ok, okl);
	case INV_FEWEST_LINES:
		return eval_fewest_lines(c, inv, na, nal, ok, okl);
	case INV_SIZE:
		if ((long)c->s->size == num_bytes(c, inv->num)) {
			str_setf(ok, okl, "%" PRIu64 " B", c->s->size);
			return V_PASS;
		}
		detail(c, "struct %s: %" PRIu64 " B (%" PRIu64 " cachelines), expected %s", c->s->name, c->s->size,
		       lay_ncachelines(c->s->size, c->L), num_text(c, inv->num, nt, sizeof(nt)));
		return V_FAIL;
	}
	return V_NA;
}

/* A failed condition makes the rule n/a for this struct; the reason goes to na. */
static bool conds_hold(struct ctx *c, char *na, size_t n)
{
	for (int i = 0; i < c->r->nconds; i++) {
		const struct rule_cond *cd = &c->r->conds[i];
		const struct lay_field *f = cd->field ? lay_find(c->s, cd->field) : NULL;
		bool hold = true;

		switch (cd->op) {
		case COND_HAS:
			if ((hold = f != NULL) == false)
				str_setf(na, n, "%s has no %s", c->s->name, cd->field);
			break;
		case COND_LACKS:
			if ((hold = f == NULL) == false)
				str_setf(na, n, "%s has %s", c->s->name, cd->field);
			break;
		case COND_ARRAY:
		case COND_SCALAR:
			if (!f) {
				hold = false;
				str_setf(na, n, "%s has no %s", c->s->name, cd->field);
			} else if ((f->nelems > 0) != (cd->op == COND_ARRAY)) {
				hold = false;
				str_setf(na, n, "%s.%s is %s, %s", c->s->name, cd->field, f->type,
				     f->nelems ? "an array" : "not an array");
			}
			break;
		case COND_NO_LOCK_DEBUG:
			if ((hold = !c->lay->lock_debug) == false)
				str_setf(na, n, "lock-debugging build: %s; the stock invariants assume a "
					 "non-debug lock (0/1 byte, or PREEMPT_RT's spinlock_t)", c->lay->lock_debug_evidence);
			break;
		case COND_RT_LOCK:
			if ((hold = c->lay->lock_rt) == false)
				str_setf(na, n, "not a PREEMPT_RT build (%s)", c->lay->lock_debug_evidence);
			break;
		case COND_NO_RT_LOCK:
			if ((hold = !c->lay->lock_rt) == false)
				str_setf(na, n, "PREEMPT_RT build: %s", c->lay->lock_debug_evidence);
			break;
		}
		if (!hold) {
			if (cd->reason)
				str_appendf(na, n, ": %s", cd->reason);
			return false;
		}
	}
	return true;
}

static void set_base(struct ctx *c, char *note, size_t n)
{
	c->base = 0;
	note[0] = '\0';
	if (!c->r->placed_at)
		return;
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++) {
		const struct lay_struct *o = &c->lay->s[i];

		if (strcmp(o->percpu_var, c->r->placed_at) || o->percpu_offset < 0)
			continue;
		c->base = (uint64_t)o->percpu_offset % c->L;
		if (c->base)
			str_setf(note, n, " [placed as per-cpu %s: starts %" PRIu64 " bytes into a cacheline]",
				 c->r->placed_at, c->base);
		return;
	}
	str_setf(note, n, " [no per-cpu %s in this BTF: lines counted from the struct's start]", c->r->placed_at);
}

void rule_eval(const struct rule *r, const struct layout *lay, const struct lay_tags *tags,
	       struct rule_result *res)
{
	char na_all[RESULT_TEXT] = "", pass_all[RESULT_TEXT] = "", notes[RESULT_TEXT] = "";
	bool any_pass = false, any_fail = false;

	memset(res, 0, sizeof(*res));
	for (int si = 0; si < r->nstructs; si++) {
		struct ctx c = { .lay = lay, .tags = tags, .r = r, .L = lay->cacheline, .res = res };
		char na[RESULT_TEXT] = "", oks[RESULT_TEXT] = "", note[160];
		int npass = 0, nfail = 0;

		c.s = layout_struct(lay, r->structs[si]);
		if (!c.s->present) {
			str_setf(na, sizeof(na), "no struct %s in this kernel", c.s->name);
			if (r->if_absent)
				str_appendf(na, sizeof(na), " (%s)", r->if_absent);
			str_appendf(na_all, sizeof(na_all), "%s%s", na_all[0] ? "; " : "", na);
			continue;
		}
		if (!conds_hold(&c, na, sizeof(na))) {
			str_appendf(na_all, sizeof(na_all), "%s%s", na_all[0] ? "; " : "", na);
			continue;
		}
		set_base(&c, note, sizeof(note));
		for (int i = 0; i < r->ninvs; i++) {
			char ina[RESULT_TEXT / 2] = "", iok[RESULT_TEXT / 2] = "";
			enum verdict v = eval_inv(&c, &r->invs[i], ina, sizeof(ina), iok, sizeof(iok));

			if (v == V_PASS) {
				npass++;
				str_appendf(oks, sizeof(oks), "%s%s", oks[0] ? "; " : "", iok);
			} else if (v == V_FAIL) {
				nfail++;
			} else {
				str_appendf(na, sizeof(na), "%s%s", na[0] ? "; " : "", ina);
			}
		}
		if (nfail) {
			any_fail = true;
			str_appendf(notes, sizeof(notes), "%s", note);
		} else if (npass) {
			any_pass = true;
			str_appendf(pass_all, sizeof(pass_all), "%s%s%s%s%s%s", pass_all[0] ? "; " : "",
			     r->nstructs > 1 ? c.s->name : "", r->nstructs > 1 ? ": " : "", oks, note,
			     na[0] ? " (n/a parts: " : "");
			if (na[0])
				str_appendf(pass_all, sizeof(pass_all), "%s)", na);
		} else {
			str_appendf(na_all, sizeof(na_all), "%s%s", na_all[0] ? "; " : "", na);
		}
	}
	if (any_fail) {
		res->v = V_FAIL;
		str_setf(res->summary, sizeof(res->summary), "%d violation%s%s", res->ndetails,
		     res->ndetails == 1 ? "" : "s", notes);
	} else if (any_pass) {
		res->v = V_PASS;
		str_setf(res->summary, sizeof(res->summary), "%s", pass_all);
		if (na_all[0])	/* another of the rule's structs did not apply */
			str_appendf(res->summary, sizeof(res->summary), "; n/a: %s", na_all);
	} else {
		res->v = V_NA;
		str_setf(res->summary, sizeof(res->summary), "%s", na_all);
	}
}

/* ---- sharing a rule allows ----------------------------------------------- */

/*
 * f's name within struct type T: its own name when s is T, the rest of its
 * nested name when f is a member of an embedded T ("usage" of mem_cgroup's
 * "memory.usage"), else NULL; *plen is the length of the prefix cut off.
 */
static const char *name_in(const struct lay_struct *s, const struct lay_field *f, const char *T, size_t *plen)
{
	const char *dot;

	*plen = 0;
	if (!strcmp(s->name, T))
		return f->name;
	if (f->depth == 0 || strcmp(f->owner, T) || !(dot = strrchr(f->name, '.')))
		return NULL;
	*plen = (size_t)(dot + 1 - f->name);
	return dot + 1;
}

/* name is entry, or a member nested below it. */
static bool names_entry(const char *name, const char *entry)
{
	size_t n = strlen(entry);

	return !strncmp(name, entry, n) && (name[n] == '\0' || name[n] == '.');
}

static bool listed(char *const *list, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names_entry(name, list[i]))
			return true;
	return false;
}

/* Does the invariant allow (alone ... allow) or demand (together, on-line,
 * fewest-lines) that a and b share a line? */
static bool inv_allows(const struct rule_inv *inv, const char *a, const char *b)
{
	switch (inv->op) {
	case INV_ALONE:
		return (names_entry(a, inv->a) && listed(inv->list, inv->nlist, b)) ||
		       (names_entry(b, inv->a) && listed(inv->list, inv->nlist, a));
	case INV_TOGETHER:
	case INV_ON_LINE:
	case INV_FEWEST_LINES:
		return listed(inv->list, inv->nlist, a) && listed(inv->list, inv->nlist, b);
	default:
		return false;
	}
}

const char *rules_allowing(const struct rules *rs, const struct layout *lay, const struct lay_struct *s,
			   const struct lay_field *h, const struct lay_field *o)
{
	for (int i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->r[i];

		for (int si = 0; si < r->nstructs; si++) {
			struct rule_result res;
			struct ctx c = { .lay = lay, .r = r, .L = lay->cacheline, .res = &res };
			const char *hn, *on;
			size_t hp, op;
			char na[RESULT_TEXT];
			bool allows = false;

			hn = name_in(s, h, r->structs[si], &hp);
			on = name_in(s, o, r->structs[si], &op);
			/* Both of one instance: memory.usage with memory.failcnt, not swap.failcnt. */
			if (!hn || !on || hp != op || strncmp(h->name, o->name, hp))
				continue;
			for (int j = 0; j < r->ninvs && !allows; j++)
				allows = inv_allows(&r->invs[j], hn, on);
			c.s = layout_struct(lay, r->structs[si]);
			if (!allows || !c.s || !c.s->present)
				continue;
			/* The rule must apply to this kernel (its when lines). */
			if (conds_hold(&c, na, sizeof(na)))
				return r->name;
		}
	}
	return NULL;
}

const char *rule_verdict_word(const struct rule *r, const struct rule_result *res)
{
	switch (res->v) {
	case V_PASS: return "pass";
	case V_FAIL: return r->sev == RULE_HARD ? "FAIL" : "warn";
	case V_NA: return "n/a";
	}
	return "?";
}
