// SPDX-License-Identifier: GPL-2.0
/*
 * The cacheline-aware layout diff: what codiff does not show.  Sharing
 * changes of hot-written fields come first in each struct, then the
 * fields added, removed, moved or retyped, with their cachelines.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "layout/layout.h"
#include "layout/layout_eval.h"
#include "layout/layout_rules.h"
#include "util/err.h"
#include "util/strfmt.h"
#include "util/wrap.h"

/* Where the diff goes: the file, its width (0: no wrapping), and the rules. */
struct dout {
	FILE *f;
	int width;
	const struct rules *rs;
	const struct lay_tags *tags;
	int new_sharing;	/* new sharers of a hot-written field no rule allows */
};

/* One item of the diff: prefix as it is, the rest wrapped at indent. */
static void emit(struct dout *o, int indent, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void emit(struct dout *o, int indent, const char *prefix, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	wrap_words(o->f, buf, fprintf(o->f, "%s", prefix), indent, o->width);
	fputc('\n', o->f);
}

static void lines_text(const struct lay_field *f, int L, char *buf, size_t n)
{
	uint64_t a, b;

	if (!lay_lines(f, 0, L, &a, &b))
		snprintf(buf, n, "no line");
	else if (a == b)
		snprintf(buf, n, "line %" PRIu64, a);
	else
		snprintf(buf, n, "lines %" PRIu64 "-%" PRIu64, a, b);
}

/* Leaves that share a cacheline with f (union aliases of f or of each other excluded). */
static int sharers(const struct lay_struct *s, const struct lay_field *f, int L, const struct lay_field **out, int max)
{
	uint64_t a, b;
	int n = 0;

	if (!lay_lines(f, 0, L, &a, &b))
		return 0;
	for (int i = 0; i < s->nfields && n < max; i++) {
		const struct lay_field *o = &s->fields[i];
		uint64_t oa, ob;

		if (!lay_is_leaf(o) || lay_related(o, f->name) || lay_alias_of(s, o) ||
		    !lay_lines(o, 0, L, &oa, &ob))
			continue;
		if (o->offset < f->offset + f->size && f->offset < o->offset + o->size)
			continue;	/* overlaps f: the same bytes under another name */
		if (oa <= b && a <= ob)
			out[n++] = o;
	}
	return n;
}

static bool has_name(const struct lay_field *const *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i]->name, name))
			return true;
	return false;
}

/*
 * A pair of hot-written fields is reported once: under the one that comes
 * first in the new struct (a partner that is gone cannot report it).
 */
static bool hot_pair_reported(const struct lay_tags *tags, const struct lay_struct *ns, const struct lay_field *h,
			      const char *partner)
{
	const struct lay_field *o = lay_find(ns, partner);

	return o && o < h && lay_tag_of(tags, ns, o) == LAY_TAG_HOT;
}

#define MAX_SHARERS 256

static int diff_sharing(struct dout *out, const struct layout *old, const struct lay_struct *os,
			const struct layout *new, const struct lay_struct *ns)
{
	static const struct lay_field *was[MAX_SHARERS], *now[MAX_SHARERS];
	const struct lay_tags *tags = out->tags;
	int count = 0;

	for (int i = 0; i < ns->nfields; i++) {
		const struct lay_field *h = &ns->fields[i], *oh;
		char lt[48], list[2048], allowed[2048];
		int nw, nn;

		if (!lay_is_leaf(h) || lay_alias_of(ns, h) || lay_tag_of(tags, ns, h) != LAY_TAG_HOT)
			continue;
		oh = lay_find(os, h->name);
		nn = sharers(ns, h, new->cacheline, now, MAX_SHARERS);
		nw = oh ? sharers(os, oh, old->cacheline, was, MAX_SHARERS) : 0;
		lines_text(h, new->cacheline, lt, sizeof(lt));

		/* A sharer a rule allows (alone ... allow, or one the rules want on
		 * the line) is no regression: listed, without the '!' (--check
		 * calls it allowed). */
		list[0] = allowed[0] = '\0';
		for (int j = 0; j < nn; j++) {
			const char *rule = out->rs ? rules_allowing(out->rs, new, ns, h, now[j]) : NULL;
			char *to = rule ? allowed : list;

			if (has_name(was, nw, now[j]->name) || hot_pair_reported(tags, ns, h, now[j]->name))
				continue;
			str_appendf(to, sizeof(list), "%s%s@%" PRIu64 "%s%s", to[0] ? ", " : "", now[j]->name,
				    now[j]->offset, lay_tag_of(tags, ns, now[j]) == LAY_TAG_NONE ? "" : " ",
				    lay_tag_name(lay_tag_of(tags, ns, now[j])));
			if (rule)
				str_appendf(to, sizeof(allowed), " (allowed: %s)", rule);
		}
		if (list[0]) {
			emit(out, 6, "  ! ", "new sharing: %s@%" PRIu64 " (hot-written, %s) now shares its cacheline "
			     "with %s", h->name, h->offset, lt, list);
			out->new_sharing++;
			count++;
		}
		if (allowed[0]) {
			emit(out, 6, "    ", "new sharing: %s@%" PRIu64 " (hot-written, %s) now shares its cacheline "
			     "with %s", h->name, h->offset, lt, allowed);
			count++;
		}

		list[0] = '\0';
		for (int j = 0; oh && j < nw; j++) {
			const struct lay_field *o = lay_find(ns, was[j]->name);
			char ol[48];

			if (has_name(now, nn, was[j]->name) || hot_pair_reported(tags, ns, h, was[j]->name))
				continue;
			if (o)
				lines_text(o, new->cacheline, ol, sizeof(ol));
			str_appendf(list, sizeof(list), "%s%s (%s%s)", list[0] ? ", " : "",
				 was[j]->name, o ? "now " : "gone", o ? ol : "");
		}
		if (list[0]) {
			emit(out, 6, "  ! ", "ended sharing: %s (hot-written, was @%" PRIu64 ", now %s) no longer "
			     "shares a cacheline with %s", h->name, oh->offset, lt, list);
			count++;
		}
	}
	/* A hot-written field that went away ends all of its sharing. */
	for (int i = 0; i < os->nfields; i++) {
		const struct lay_field *h = &os->fields[i];

		if (!lay_is_leaf(h) || lay_alias_of(os, h) || lay_tag_of(tags, os, h) != LAY_TAG_HOT ||
		    lay_find(ns, h->name))
			continue;
		emit(out, 6, "  ! ", "gone: hot-written %s@%" PRIu64, h->name, h->offset);
		count++;
	}
	return count;
}

/*
 * Members of an embedded captured struct (mem_cgroup's memory.usage) are
 * diffed in that struct's own section; here only their sharing counts.
 */
static bool embedded_captured(const struct lay_field *f)
{
	if (f->depth == 0)
		return false;
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++)
		if (!strcmp(f->owner, layout_struct_names[i]))
			return true;
	return false;
}

static void field_line(struct dout *out, char sign, const struct lay_field *f, int L)
{
	char lt[48], prefix[400], type[sizeof(f->type)];

	lines_text(f, L, lt, sizeof(lt));
	snprintf(prefix, sizeof(prefix), "  %c %-28s @%-5" PRIu64 " +%-4" PRIu64 " %-11s ", sign, f->name, f->offset,
		 f->size, lt);
	snprintf(type, sizeof(type), "%s", f->type);
	wrap_nobreak(type);
	emit(out, 6, prefix, "%s", type);
}

static int diff_fields(struct dout *out, const struct layout *old, const struct lay_struct *os,
		       const struct layout *new, const struct lay_struct *ns)
{
	int count = 0, skipped = 0;

	for (int i = 0; i < os->nfields; i++) {
		const struct lay_field *f = &os->fields[i];

		if (embedded_captured(f)) {
			skipped += !lay_find(ns, f->name);
			continue;
		}
		if (!lay_find(ns, f->name)) {
			field_line(out, '-', f, old->cacheline);
			count++;
		}
	}
	for (int i = 0; i < ns->nfields; i++) {
		const struct lay_field *f = &ns->fields[i], *o = lay_find(os, f->name);
		char ol[48], nl[48], buf[512] = "", prefix[300];
		size_t len = 0;

		if (embedded_captured(f)) {
			skipped += !o || o->offset != f->offset;
			continue;
		}
		if (!o) {
			field_line(out, '+', f, new->cacheline);
			count++;
			continue;
		}
		lines_text(o, old->cacheline, ol, sizeof(ol));
		lines_text(f, new->cacheline, nl, sizeof(nl));
		if (o->offset != f->offset)
			len += snprintf(buf + len, sizeof(buf) - len, ", @%" PRIu64 " -> @%" PRIu64, o->offset, f->offset);
		if (strcmp(ol, nl))
			len += snprintf(buf + len, sizeof(buf) - len, ", %s -> %s", ol, nl);
		if (o->size != f->size)
			len += snprintf(buf + len, sizeof(buf) - len, ", size %" PRIu64 " -> %" PRIu64, o->size, f->size);
		if (strcmp(o->type, f->type)) {
			char ot[sizeof(o->type)], nt[sizeof(f->type)];

			snprintf(ot, sizeof(ot), "%s", o->type);
			snprintf(nt, sizeof(nt), "%s", f->type);
			wrap_nobreak(ot);
			wrap_nobreak(nt);
			len += snprintf(buf + len, sizeof(buf) - len, ", type %s -> %s", ot, nt);
			if (o->nelems != f->nelems)
				len += snprintf(buf + len, sizeof(buf) - len, " (%u -> %u elements)",
						o->nelems ? o->nelems : 1, f->nelems ? f->nelems : 1);
		}
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		if (!len)
			continue;
		snprintf(prefix, sizeof(prefix), "  ~ %-28s ", f->name);
		emit(out, 6, prefix, "%s", buf + 2);
		count++;
	}
	if (skipped)
		emit(out, 3, "  ", "(%d change%s inside embedded structs are listed under those structs)", skipped,
		     skipped == 1 ? "" : "s");
	return count;
}

static void percpu_text(const struct layout *lay, const struct lay_struct *s, char *buf, size_t n)
{
	if (s->percpu_offset < 0)
		snprintf(buf, n, "none");
	else
		snprintf(buf, n, "%s at .data..percpu+%" PRId64 " (%" PRId64 " mod %d)", s->percpu_var,
			 s->percpu_offset, s->percpu_offset % lay->cacheline, lay->cacheline);
}

int layout_diff(FILE *f, const struct layout *old, const struct layout *new, const struct rules *rs, int width,
		int *new_sharing)
{
	struct dout o = { .f = f, .width = width, .rs = rs, .tags = &rs->tags }, *out = &o;
	int total = 0;

	emit(out, 4, "--- ", "%s (%s)", old->release ? old->release : "release unknown", old->origin);
	emit(out, 4, "+++ ", "%s (%s)", new->release ? new->release : "release unknown", new->origin);
	if (old->cacheline != new->cacheline)
		emit(out, 2, "", "cacheline size %d -> %d B (%s)", old->cacheline, new->cacheline,
		     new->cacheline_evidence);
	if (old->lock_debug != new->lock_debug)
		emit(out, 2, "", "lock debugging %s -> %s (%s)", old->lock_debug ? "yes" : "no",
		     new->lock_debug ? "yes" : "no", new->lock_debug_evidence);
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++) {
		const struct lay_struct *os = &old->s[i], *ns = &new->s[i];
		uint64_t oc = lay_ncachelines(os->size, old->cacheline), nc = lay_ncachelines(ns->size, new->cacheline);
		char op[160], np[160];
		int n = 0;

		if (!os->present && !ns->present)
			continue;
		fputc('\n', f);
		if (!os->present || !ns->present) {
			const struct lay_struct *s = ns->present ? ns : os;
			uint64_t c = ns->present ? nc : oc;

			emit(out, 2, ns->present ? "+ " : "- ", "struct %s: %s (%" PRIu64 " B, %" PRIu64 " cacheline%s, "
			     "%d fields)", s->name, ns->present ? "appears" : "is gone", s->size, c, c == 1 ? "" : "s",
			     s->nfields);
			total++;
			continue;
		}
		if (os->size != ns->size || oc != nc)
			emit(out, 2, "", "struct %s: %" PRIu64 " -> %" PRIu64 " B, %" PRIu64 " -> %" PRIu64 " cachelines",
			     ns->name, os->size, ns->size, oc, nc);
		else
			emit(out, 2, "", "struct %s: %" PRIu64 " B, %" PRIu64 " cachelines (unchanged)", ns->name, ns->size,
			     nc);
		n += os->size != ns->size || oc != nc;
		percpu_text(old, os, op, sizeof(op));
		percpu_text(new, ns, np, sizeof(np));
		if (strcmp(op, np)) {
			emit(out, 4, "  ", "per-cpu: %s -> %s", op, np);
			n++;
		}
		n += diff_sharing(out, old, os, new, ns);
		n += diff_fields(out, old, os, new, ns);
		if (!n)
			fprintf(f, "  no change\n");
		total += n;
	}
	if (new_sharing)
		*new_sharing = o.new_sharing;
	return total;
}
