// SPDX-License-Identifier: GPL-2.0
/*
 * The rules file read: parsing (with FILE:LINE errors) into struct rules,
 * and validation against the known kernels (a name no kernel has is an
 * error).  What a rule says of a layout is layout_eval.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "layout/layout_rules.h"
#include "util/err.h"
#include "util/fileio.h"

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
