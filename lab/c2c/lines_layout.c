// SPDX-License-Identifier: GPL-2.0
/* A struct's layout for the trace replay, from BTF and edits (c2c/lines_layout.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "c2c/lines_layout.h"
#include "util/err.h"

#define MAX_ALIGN 4096

static uint64_t roundup_u64(uint64_t x, uint64_t a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

static unsigned eff_align(const struct ll_unit *u)
{
	unsigned a = u->align ? u->align : 1;

	return u->xalign > a ? u->xalign : a;
}

static uint64_t unit_end(const struct ll_unit *u)
{
	return u->off + u->size;
}

/* ---- building ---- */

struct members {
	struct kbtf_field *v;
	size_t n;
};

static int collect(const struct kbtf_field *f, void *arg)
{
	struct members *m = arg;

	m->v = xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
	m->v[m->n++] = *f;
	return 0;
}

/* "struct page_counter memory", "atomic_long_t vmstats[40]", "unsigned int x:1". */
static char *member_decl(const struct kbtf *k, const struct kbtf_field *f)
{
	char t[256], *br;

	kbtf_type_name(k, f->type_id, t, sizeof(t));
	br = strchr(t, '[');
	if (br) {
		char dims[128];
		size_t len = (size_t)(br - t);

		snprintf(dims, sizeof(dims), "%s", br);
		while (len && t[len - 1] == ' ')
			len--;
		t[len] = '\0';
		return xasprintf("%s %s%s;", t, f->name, dims);
	}
	if (f->bit_size)
		return xasprintf("%s %s:%u;", t, f->name, f->bit_size);
	/* "struct page_counter *parent" */
	if (t[0] && t[strlen(t) - 1] == '*')
		return xasprintf("%s%s;", t, f->name);
	return xasprintf("%s %s;", t, f->name);
}

static const char *struct_name(const struct kbtf *k, int id)
{
	const struct btf_type *t = btf__type_by_id(k->btf, id);

	return t && btf_is_struct(t) ? btf__name_by_offset(k->btf, t->name_off) : NULL;
}

static int cmp_unit(const void *a, const void *b)
{
	const struct ll_unit *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* At one offset a zero-size member (a marker) comes first. */
	if ((x->size > 0) != (y->size > 0))
		return x->size > 0 ? 1 : -1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Units sorted by offset, fields grouped by unit in that order, the byte index. */
static void normalize(struct ll_layout *l)
{
	struct ll_field *f = l->nf ? xmalloc(l->nf * sizeof(*f)) : NULL;
	size_t n = 0;

	/* Fields no unit holds any more (an embedded struct's old ones) are dropped. */
	for (size_t i = 0; i < l->nf; i++) {
		bool held = false;

		for (size_t k = 0; k < l->nu && !held; k++)
			held = i >= l->u[k].first && i < l->u[k].first + l->u[k].n;
		if (!held)
			free(l->f[i].name);
	}
	qsort(l->u, l->nu, sizeof(*l->u), cmp_unit);
	for (size_t i = 0; i < l->nu; i++) {
		struct ll_unit *u = &l->u[i];

		for (size_t j = 0; j < u->n; j++) {
			f[n] = l->f[u->first + j];
			f[n].unit = i;
			n++;
		}
		u->first = n - u->n;
	}
	free(l->f);
	l->f = f;
	l->nf = n;
	lines_layout_index(l);
}

void lines_layout_index(struct ll_layout *l)
{
	free(l->at);
	l->at = xmalloc((l->size ? l->size : 1) * sizeof(*l->at));
	for (uint64_t b = 0; b < l->size; b++)
		l->at[b] = -1;
	for (size_t i = 0; i < l->nf; i++) {
		uint64_t o = lines_layout_off(l, i);

		for (uint64_t b = o; b < o + l->f[i].size && b < l->size; b++)
			if (l->at[b] < 0)
				l->at[b] = (int32_t)i;
	}
}

/* The alignment (or kept hole) that explains where each unit sits, and the struct's. */
static void infer(struct ll_layout *l)
{
	uint64_t prev_end = 0, end;
	unsigned top = 1;

	for (size_t i = 0; i < l->nu; i++) {
		struct ll_unit *u = &l->u[i];
		unsigned a = u->align ? u->align : 1;
		uint64_t c = roundup_u64(prev_end, a);

		u->xalign = 0;
		u->gap = 0;
		if (u->off > c) {
			for (unsigned x = a * 2; x <= MAX_ALIGN; x *= 2)
				if (roundup_u64(prev_end, x) == u->off) {
					u->xalign = x;
					break;
				}
			if (!u->xalign)
				u->gap = u->off - c;
		}
		if (eff_align(u) > top && !u->gap)
			top = eff_align(u);
		if (unit_end(u) > prev_end)
			prev_end = unit_end(u);
	}
	end = prev_end;
	if (l->align > top)
		top = l->align;
	l->tail = 0;
	for (unsigned x = top; x <= MAX_ALIGN; x *= 2)
		if (roundup_u64(end, x) == l->size) {
			l->align = x;
			return;
		}
	l->align = top;
	l->tail = l->size > roundup_u64(end, top) ? l->size - roundup_u64(end, top) : 0;
}

/* Units from..: each at the first offset its alignment allows after those before. */
static void relayout(struct ll_layout *l, size_t from)
{
	uint64_t prev_end = 0;

	for (size_t i = 0; i < l->nu; i++) {
		struct ll_unit *u = &l->u[i];

		if (i >= from)
			u->off = roundup_u64(prev_end, eff_align(u)) + u->gap;
		if (unit_end(u) > prev_end)
			prev_end = unit_end(u);
	}
	l->size = roundup_u64(prev_end, l->align) + l->tail;
	normalize(l);
}

int lines_layout_from_btf(struct ll_layout *l, const struct kbtf *k, const char *st, enum field_cgroup cg,
			  char *err, size_t errlen)
{
	int id = kbtf_find_struct(k, st);
	struct members m = { 0 };
	long size;

	memset(l, 0, sizeof(*l));
	if (id < 0)
		return set_err(err, errlen, "%s has no struct %s", k->path, st);
	size = kbtf_type_size(k, id);
	l->st = xstrdup(st);
	l->origin = xasprintf("BTF %s", k->path);
	l->size = size > 0 ? (uint64_t)size : 0;
	l->align = 1;
	kbtf_walk_fields(k, id, 0, collect, &m);
	for (size_t i = 0; i < m.n;) {
		const struct kbtf_field *f = &m.v[i];
		uint64_t lo = f->offset, hi = f->offset + f->size;
		size_t j = i + 1;
		struct ll_unit *u;
		char names[512] = "", decl[1024] = "";
		const char *type = struct_name(k, f->resolved_id);
		bool bits = false;

		/* The members that overlap this one: a union's, bitfields of one byte. */
		while (f->size && j < m.n && m.v[j].size && m.v[j].offset < hi) {
			if (m.v[j].offset + m.v[j].size > hi)
				hi = m.v[j].offset + m.v[j].size;
			j++;
		}
		l->u = xrealloc(l->u, (l->nu + 1) * sizeof(*l->u));
		u = &l->u[l->nu];
		memset(u, 0, sizeof(*u));
		u->ord = (unsigned)l->nu;
		u->off = lo;
		u->size = hi - lo;
		for (size_t x = i; x < j; x++) {
			const char *tn = struct_name(k, m.v[x].resolved_id);
			char *d = member_decl(k, &m.v[x]);
			int al = btf__align_of(k->btf, (unsigned)m.v[x].type_id);
			size_t len = strlen(names);

			snprintf(names + len, sizeof(names) - len, "%s%s", x > i ? "|" : "", m.v[x].name);
			len = strlen(decl);
			snprintf(decl + len, sizeof(decl) - len, "%s%s", x > i ? " " : "", d);
			free(d);
			if (al > (int)u->align)
				u->align = (unsigned)al;
			if (!tn || !type || strcmp(tn, type))
				type = NULL;
			bits |= m.v[x].bit_size != 0;
		}
		u->name = xstrdup(names);
		u->type = xstrdup(type ? type : "");
		u->marker = !f->size && j == i + 1 && struct_name(k, f->resolved_id);
		if (u->marker)
			u->align = LL_MARKER_ALIGN;
		if (!u->align)
			u->align = 1;
		if (j > i + 1 && !bits)
			u->decl = xasprintf("union { %s };", decl);
		else
			u->decl = xstrdup(decl);
		/* Its fields, as field_at names them. */
		u->first = l->nf;
		for (uint64_t b = lo; b < hi;) {
			struct field_hit hit;
			uint64_t next;

			if (field_at(k, id, b, cg, &hit) < 0)
				break;
			next = hit.offset + hit.size > b ? hit.offset + hit.size : b + 1;
			if (!hit.hole && hit.size) {
				l->f = xrealloc(l->f, (l->nf + 1) * sizeof(*l->f));
				l->f[l->nf].name = xstrdup(hit.name);
				l->f[l->nf].rel = hit.offset - lo;
				l->f[l->nf].size = hit.size;
				l->f[l->nf].unit = l->nu;
				l->nf++;
			}
			b = next > hi && !hit.hole ? hi : next;
		}
		u->n = l->nf - u->first;
		l->nu++;
		i = j;
	}
	free(m.v);
	for (size_t i = 0; i < l->nu; i++)
		if (l->u[i].marker && l->align < LL_MARKER_ALIGN)
			l->align = LL_MARKER_ALIGN;
	normalize(l);
	infer(l);
	return 0;
}

void lines_layout_simple(struct ll_layout *l, const char *st, const char *const *names, const uint64_t *offs,
			 const uint64_t *sizes, size_t n, uint64_t size)
{
	memset(l, 0, sizeof(*l));
	l->st = xstrdup(st);
	l->origin = xasprintf("struct %s by hand", st);
	l->size = size;
	l->align = 1;
	l->u = xcalloc(n ? n : 1, sizeof(*l->u));
	l->f = xcalloc(n ? n : 1, sizeof(*l->f));
	for (size_t i = 0; i < n; i++) {
		struct ll_unit *u = &l->u[i];
		unsigned a = 1;

		while (a < 8 && a * 2 <= sizes[i] && !(sizes[i] % (a * 2)))
			a *= 2;
		u->name = xstrdup(names[i]);
		u->type = xstrdup("");
		u->decl = xasprintf("char %s[%llu];", names[i], (unsigned long long)sizes[i]);
		u->off = offs[i];
		u->size = sizes[i];
		u->align = a;
		u->ord = (unsigned)i;
		u->first = i;
		u->n = 1;
		l->f[i] = (struct ll_field){ xstrdup(names[i]), 0, sizes[i], i };
	}
	l->nu = l->nf = n;
	normalize(l);
	infer(l);
}

void lines_layout_copy(struct ll_layout *dst, const struct ll_layout *src)
{
	*dst = *src;
	dst->st = xstrdup(src->st);
	dst->origin = xstrdup(src->origin);
	dst->u = src->nu ? xmalloc(src->nu * sizeof(*dst->u)) : NULL;
	dst->f = src->nf ? xmalloc(src->nf * sizeof(*dst->f)) : NULL;
	for (size_t i = 0; i < src->nu; i++) {
		dst->u[i] = src->u[i];
		dst->u[i].name = xstrdup(src->u[i].name);
		dst->u[i].type = xstrdup(src->u[i].type);
		dst->u[i].decl = xstrdup(src->u[i].decl);
	}
	for (size_t i = 0; i < src->nf; i++) {
		dst->f[i] = src->f[i];
		dst->f[i].name = xstrdup(src->f[i].name);
	}
	dst->at = NULL;
	lines_layout_index(dst);
}

void lines_layout_free(struct ll_layout *l)
{
	for (size_t i = 0; i < l->nu; i++) {
		free(l->u[i].name);
		free(l->u[i].type);
		free(l->u[i].decl);
	}
	for (size_t i = 0; i < l->nf; i++)
		free(l->f[i].name);
	free(l->u);
	free(l->f);
	free(l->at);
	free(l->st);
	free(l->origin);
	memset(l, 0, sizeof(*l));
}

int lines_layout_find_field(const struct ll_layout *l, const char *name)
{
	for (size_t i = 0; i < l->nf; i++)
		if (!strcmp(l->f[i].name, name))
			return (int)i;
	return -1;
}

/* ---- names ---- */

/* Does unit name un ("swap|memsw") name member want ("memsw")? */
static bool unit_is(const char *un, const char *want)
{
	size_t n = strlen(want);

	for (const char *p = un; *p;) {
		size_t len = strcspn(p, "|");

		if (len == n && !strncmp(p, want, n))
			return true;
		p += len;
		if (*p == '|')
			p++;
	}
	return false;
}

static int one_unit(const struct ll_layout *l, const char *name, size_t *at, char *err, size_t errlen)
{
	size_t dot = strcspn(name, ".[");

	for (size_t i = 0; i < l->nu; i++)
		if (unit_is(l->u[i].name, name)) {
			*at = i;
			return 0;
		}
	/* A field inside a member: its struct is the one to edit. */
	if (name[dot]) {
		char head[256];

		snprintf(head, sizeof(head), "%.*s", (int)dot, name);
		for (size_t i = 0; i < l->nu; i++) {
			const struct ll_unit *u = &l->u[i];

			if (!unit_is(u->name, head))
				continue;
			if (u->type[0])
				return set_err(err, errlen, "%s is inside member %s (struct %s) of struct %s: an edit "
					       "moves whole members; edit struct %s with --struct %s", name, u->name,
					       u->type, l->st, u->type, u->type);
			return set_err(err, errlen, "%s is inside member %s of struct %s: an edit moves whole members",
				       name, u->name, l->st);
		}
	}
	{
		char list[512] = "";

		for (size_t i = 0, len = 0; i < l->nu && len + 64 < sizeof(list); i++) {
			if (l->u[i].marker || !l->u[i].size)
				continue;
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", l->u[i].name);
		}
		return set_err(err, errlen, "struct %s has no member %s (its members: %s)", l->st, name, list);
	}
}

int lines_layout_units(const struct ll_layout *l, const char *name, size_t *lo, size_t *hi, char *err,
		       size_t errlen)
{
	const char *dots = strstr(name, "..");

	if (!dots)
		return one_unit(l, name, lo, err, errlen) < 0 ? -1 : (*hi = *lo, 0);
	{
		char a[256];

		snprintf(a, sizeof(a), "%.*s", (int)(dots - name), name);
		if (one_unit(l, a, lo, err, errlen) < 0 || one_unit(l, dots + 2, hi, err, errlen) < 0)
			return -1;
		if (*hi < *lo)
			return set_err(err, errlen, "%s: %s comes after %s in struct %s", name, a, dots + 2, l->st);
	}
	return 0;
}

/* ---- edits ---- */

static int do_moves(struct ll_layout *l, const struct ll_edit *e, size_t n, char *err, size_t errlen)
{
	int64_t *delta = xcalloc(l->nu ? l->nu : 1, sizeof(*delta));
	bool *moved = xcalloc(l->nu ? l->nu : 1, sizeof(*moved));
	const struct ll_edit **by = xcalloc(l->nu ? l->nu : 1, sizeof(*by));
	uint64_t end = 0;
	int rc = 0;

	for (size_t k = 0; k < n && !rc; k++) {
		size_t lo, hi;
		char why[512];

		if (lines_layout_units(l, e[k].name, &lo, &hi, why, sizeof(why)) < 0) {
			rc = set_err(err, errlen, "--move %s: %s", e[k].arg, why);
			break;
		}
		for (size_t i = lo; i <= hi; i++) {
			unsigned a = l->u[i].align ? l->u[i].align : 1;
			uint64_t to = e[k].value + (l->u[i].off - l->u[lo].off);

			if (moved[i]) {
				rc = set_err(err, errlen, "--move %s: member %s is moved twice (also by --move %s)",
					     e[k].arg, l->u[i].name, by[i]->arg);
				break;
			}
			if (to % a) {
				rc = set_err(err, errlen, "--move %s: member %s would sit at %llu, not a multiple of its "
					     "alignment (%u)", e[k].arg, l->u[i].name, (unsigned long long)to, a);
				break;
			}
			moved[i] = true;
			by[i] = &e[k];
			delta[i] = (int64_t)to - (int64_t)l->u[i].off;
		}
	}
	for (size_t i = 0; i < l->nu && !rc; i++)
		l->u[i].off = (uint64_t)((int64_t)l->u[i].off + delta[i]);
	/* Nothing may overlap now. */
	for (size_t i = 0; i < l->nu && !rc; i++) {
		struct ll_unit *a = &l->u[i];

		if (!moved[i] || !a->size)
			continue;
		for (size_t j = 0; j < l->nu; j++) {
			struct ll_unit *b = &l->u[j];

			if (j == i || !b->size || a->off >= unit_end(b) || b->off >= unit_end(a))
				continue;
			rc = set_err(err, errlen, "--move %s: member %s at %llu..%llu overlaps member %s at %llu..%llu",
				     by[i]->arg, a->name, (unsigned long long)a->off,
				     (unsigned long long)unit_end(a) - 1, b->name, (unsigned long long)b->off,
				     (unsigned long long)unit_end(b) - 1);
			break;
		}
	}
	if (!rc) {
		for (size_t i = 0; i < l->nu; i++)
			if (unit_end(&l->u[i]) > end)
				end = unit_end(&l->u[i]);
		if (roundup_u64(end, l->align) > l->size)
			l->size = roundup_u64(end, l->align);
		normalize(l);
		infer(l);
	}
	free(delta);
	free(moved);
	free(by);
	return rc;
}

int lines_layout_edit(struct ll_layout *l, const struct ll_edit *e, size_t n, unsigned line, char *err,
		      size_t errlen)
{
	for (size_t k = 0; k < n;) {
		size_t lo, hi;
		char why[512];
		char *o;

		if (e[k].kind == LL_MOVE) {
			size_t run = 1;

			while (k + run < n && e[k + run].kind == LL_MOVE)
				run++;
			if (do_moves(l, e + k, run, err, errlen) < 0)
				return -1;
			for (size_t r = 0; r < run; r++) {
				o = xasprintf("%s --move %s", l->origin, e[k + r].arg);
				free(l->origin);
				l->origin = o;
			}
			k += run;
			continue;
		}
		if (lines_layout_units(l, e[k].name, &lo, &hi, why, sizeof(why)) < 0)
			return set_err(err, errlen, "--%s %s: %s", e[k].kind == LL_ALIGN ? "align" : "pad-after",
				       e[k].arg, why);
		if (e[k].kind == LL_ALIGN) {
			unsigned a = (unsigned)e[k].value;

			if (a > l->u[lo].xalign)
				l->u[lo].xalign = a;
			if (a > l->align)
				l->align = a;
			relayout(l, lo);
			o = xasprintf("%s --align %s", l->origin, e[k].arg);
		} else {
			/* A marker after the block: the next member starts a line. */
			struct ll_unit mk = { 0 };
			size_t at = hi + 1;

			mk.name = xasprintf("_pad_after_%s", l->u[hi].name);
			mk.type = xstrdup("cacheline_padding");
			mk.decl = xasprintf("CACHELINE_PADDING(_pad_after_%s);", l->u[hi].name);
			mk.off = unit_end(&l->u[hi]);
			mk.align = line;
			mk.marker = true;
			mk.first = l->nf;
			mk.ord = l->u[hi].ord;
			/* Declared right after the member: later ones move down one. */
			for (size_t i = 0; i < l->nu; i++)
				if (l->u[i].ord > mk.ord)
					l->u[i].ord++;
			mk.ord++;
			l->u = xrealloc(l->u, (l->nu + 1) * sizeof(*l->u));
			memmove(l->u + at + 1, l->u + at, (l->nu - at) * sizeof(*l->u));
			l->u[at] = mk;
			l->nu++;
			if (line > l->align)
				l->align = line;
			/* Keep the unit indices of the fields right (units after at moved up). */
			for (size_t i = 0; i < l->nf; i++)
				if (l->f[i].unit >= at)
					l->f[i].unit++;
			relayout(l, at);
			o = xasprintf("%s --pad-after %s", l->origin, e[k].arg);
		}
		free(l->origin);
		l->origin = o;
		infer(l);
		k++;
	}
	return 0;
}

/* ---- embedding ---- */

/* "memory." of container field "memory.usage" named "usage" in the inner struct. */
static char *prefix_of(const char *outer, const char *inner, const char *unit)
{
	size_t lo = strlen(outer), li = strlen(inner);

	if (lo > li + 1 && !strcmp(outer + lo - li, inner) && outer[lo - li - 1] == '.')
		return xasprintf("%.*s", (int)(lo - li), outer);
	return xasprintf("%s.", unit);
}

void lines_layout_embed(const struct ll_layout *c, const struct ll_layout *old_inner,
			const struct ll_layout *new_inner, struct ll_layout *out, int *count)
{
	size_t first = SIZE_MAX;

	lines_layout_copy(out, c);
	*count = 0;
	for (size_t i = 0; i < out->nu; i++) {
		struct ll_unit *u = &out->u[i];
		char *prefix;
		size_t base;

		if (strcmp(u->type, new_inner->st) || u->marker)
			continue;
		/* The prefix from the old fields' names ("swap|memsw."). */
		{
			const char *inner = NULL;

			if (u->n)
				for (size_t j = 0; j < old_inner->nf && !inner; j++)
					if (lines_layout_off(old_inner, j) == out->f[u->first].rel)
						inner = old_inner->f[j].name;
			prefix = inner ? prefix_of(out->f[u->first].name, inner, u->name) : xasprintf("%s.", u->name);
		}
		/* Its fields: the new layout's, appended (normalize regroups them). */
		base = out->nf;
		out->f = xrealloc(out->f, (out->nf + new_inner->nf) * sizeof(*out->f));
		for (size_t j = 0; j < new_inner->nf; j++) {
			struct ll_field *f = &out->f[out->nf++];

			f->name = xasprintf("%s%s", prefix, new_inner->f[j].name);
			f->rel = lines_layout_off(new_inner, j);
			f->size = new_inner->f[j].size;
			f->unit = i;
		}
		free(prefix);
		u->first = base;
		u->n = new_inner->nf;
		u->size = new_inner->size;
		u->align = new_inner->align;
		if (u->xalign && u->xalign <= u->align)
			u->xalign = 0;
		if (i < first)
			first = i;
		(*count)++;
	}
	if (!*count)
		return;
	/* The old fields are no unit's now: normalize (in relayout) drops them. */
	if (new_inner->align > out->align)
		out->align = new_inner->align;
	{
		char *o = xasprintf("%s with struct %s from %s", out->origin, new_inner->st, new_inner->origin);

		free(out->origin);
		out->origin = o;
	}
	relayout(out, first);
	infer(out);
}

/* ---- arranging ---- */

void lines_layout_arrange(const struct ll_layout *l, const size_t *order, const bool *brk, size_t n, unsigned line,
			  struct ll_layout *out)
{
	uint64_t prev_end = 0;
	bool any = false;

	memset(out, 0, sizeof(*out));
	out->st = xstrdup(l->st);
	out->origin = xstrdup("proposed");
	out->align = 1;
	for (size_t k = 0; k < n; k++) {
		const struct ll_unit *s = &l->u[order[k]];
		struct ll_unit *u;
		unsigned a;

		out->u = xrealloc(out->u, (out->nu + 1) * sizeof(*out->u));
		u = &out->u[out->nu];
		*u = *s;
		u->name = xstrdup(s->name);
		u->type = xstrdup(s->type);
		u->decl = xstrdup(s->decl);
		u->xalign = brk[k] && k ? line : 0;
		u->brk = brk[k] && k;
		u->gap = 0;
		u->ord = (unsigned)out->nu;
		a = eff_align(u);
		u->off = roundup_u64(prev_end, a);
		any |= brk[k] && k;
		if (a > out->align)
			out->align = a;
		prev_end = unit_end(u) > prev_end ? unit_end(u) : prev_end;
		u->first = out->nf;
		out->f = xrealloc(out->f, (out->nf + s->n) * sizeof(*out->f));
		for (size_t j = 0; j < s->n; j++) {
			out->f[out->nf] = l->f[s->first + j];
			out->f[out->nf].name = xstrdup(l->f[s->first + j].name);
			out->f[out->nf].unit = out->nu;
			out->nf++;
		}
		out->nu++;
	}
	if (any && out->align < line)
		out->align = line;
	out->size = roundup_u64(prev_end, out->align);
	normalize(out);
}

/* ---- printing ---- */

char *lines_layout_definition(const struct ll_layout *l)
{
	char *s = xasprintf("struct %s {\n", l->st);
	unsigned pads = 0;

	for (size_t i = 0; i < l->nu; i++) {
		const struct ll_unit *u = &l->u[i];
		char *line, *t;
		/* A proposal's line breaks as the kernel writes them. */
		if (u->brk) {
			t = xasprintf("%s\tCACHELINE_PADDING(_pad%u_);\n", s, ++pads);
			free(s);
			s = t;
		}
		line = xasprintf("\t%s", u->decl);
		t = xasprintf("%s%-52s /* %5llu %5llu */\n", s, line, (unsigned long long)u->off,
			      (unsigned long long)u->size);
		free(line);
		free(s);
		s = t;
	}
	{
		char *t = xasprintf("%s};%50s /* size %llu */\n", s, "", (unsigned long long)l->size);

		free(s);
		s = t;
	}
	return s;
}

uint64_t lines_layout_lines(const struct ll_layout *l, unsigned line)
{
	return (l->size + line - 1) / line;
}
