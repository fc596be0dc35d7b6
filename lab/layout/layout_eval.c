// SPDX-License-Identifier: GPL-2.0
/*
 * The rules of layouts/rules.conf (parsed by layout_rules.c) held against
 * one kernel's layout: each invariant's verdict (pass, FAIL, n/a with the
 * reason) and the details a reviewer reads, and which rule allows two
 * fields to share a cacheline (layout_diff.c's '!').
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout/layout_eval.h"
#include "util/strfmt.h"

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
