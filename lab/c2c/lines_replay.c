// SPDX-License-Identifier: GPL-2.0
/* The access trace replayed through the lines model on another layout (c2c/lines_replay.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_replay.h"
#include "util/err.h"

#define REGION_SHIFT 24		/* objects 16 MiB apart */
#define MAX_NAMED 64		/* distinct names kept per list (the rest counted in the last) */
#define MAX_PIECES 64

struct region {
	int ty;
	uint64_t base;		/* recorded */
	uint64_t at;		/* replayed: its first byte */
	const struct lines_trace_obj *o;
};

struct replay {
	const struct lr_input *in;
	struct lr_result *res;
	struct lines_model *m;
	int32_t **map;			/* per type: recorded field -> replayed field */
	const struct ll_layout **rl;	/* per type: the replayed layout (NULL: none) */
	int *obj_ty;			/* per object entry */
	size_t *obj_region;		/* per object entry */
	struct region *reg;
	size_t nreg;
	unsigned line;
};

int lines_replay_type(const struct lr_input *in, const char *st)
{
	for (size_t i = 0; i < in->ntypes; i++)
		if (!strcmp(in->types[i].st, st))
			return (int)i;
	return -1;
}

static void named_add(struct lr_list *l, const char *name, uint64_t n, uint64_t pc)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name)) {
			l->v[i].n += n;
			return;
		}
	if (l->n == MAX_NAMED) {
		l->v[l->n - 1].n += n;
		if (strcmp(l->v[l->n - 1].name, "(others)")) {
			free(l->v[l->n - 1].name);
			l->v[l->n - 1].name = xstrdup("(others)");
		}
		return;
	}
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = (struct lr_named){ xstrdup(name), n, pc };
}

static int cmp_named(const void *a, const void *b)
{
	const struct lr_named *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct byname {
	const char *name;
	int32_t i;
};

static int cmp_byname(const void *a, const void *b)
{
	return strcmp(((const struct byname *)a)->name, ((const struct byname *)b)->name);
}

/* Recorded field -> replayed field of the same name (-1: none). */
static int32_t *field_map(const struct ll_layout *old, const struct ll_layout *new)
{
	int32_t *map = xmalloc((old->nf ? old->nf : 1) * sizeof(*map));
	struct byname *idx = xmalloc((new->nf ? new->nf : 1) * sizeof(*idx));

	for (size_t i = 0; i < new->nf; i++)
		idx[i] = (struct byname){ new->f[i].name, (int32_t)i };
	qsort(idx, new->nf, sizeof(*idx), cmp_byname);
	for (size_t i = 0; i < old->nf; i++) {
		struct byname key = { old->f[i].name, 0 };
		struct byname *hit = new->nf ? bsearch(&key, idx, new->nf, sizeof(*idx), cmp_byname) : NULL;

		map[i] = hit ? hit->i : -1;
	}
	free(idx);
	return map;
}

static int cmp_region(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->ty != y->ty)
		return x->ty < y->ty ? -1 : 1;
	return x->base < y->base ? -1 : x->base > y->base;
}

static uint64_t roundup_u64(uint64_t x, uint64_t a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

/* One region per (struct, recorded base); each object entry's region. */
static void make_regions(struct replay *p)
{
	const struct lines_trace_objs *objs = p->in->objs;

	p->obj_ty = xmalloc((objs->n ? objs->n : 1) * sizeof(*p->obj_ty));
	p->obj_region = xmalloc((objs->n ? objs->n : 1) * sizeof(*p->obj_region));
	for (size_t i = 0; i < objs->n; i++) {
		const struct lines_trace_obj *o = &objs->v[i];
		int ty = o->range ? -1 : lines_replay_type(p->in, o->type);
		struct region key = { ty, o->base, 0, o };

		p->obj_ty[i] = ty;
		p->obj_region[i] = SIZE_MAX;
		if (ty < 0 || !p->rl[ty] || (p->in->only && !p->in->only[ty]))
			continue;
		{
			bool seen = false;

			for (size_t r = 0; r < p->nreg && !seen; r++)
				seen = !cmp_region(&p->reg[r], &key);
			if (!seen) {
				p->reg = xrealloc(p->reg, (p->nreg + 1) * sizeof(*p->reg));
				p->reg[p->nreg++] = key;
			}
		}
	}
	qsort(p->reg, p->nreg, sizeof(*p->reg), cmp_region);
	for (size_t r = 0; r < p->nreg; r++) {
		const struct ll_layout *l = p->rl[p->reg[r].ty];

		p->reg[r].at = ((uint64_t)(r + 1) << REGION_SHIFT) + roundup_u64(p->reg[r].base & 4095, l->align);
		if (p->reg[r].at % p->line || (p->reg[r].at + l->size) % p->line) {
			char *what = xasprintf("%s (%s): from byte %llu of its first line to byte %llu of its last",
					       l->st, p->reg[r].o->label, (unsigned long long)(p->reg[r].at % p->line),
					       (unsigned long long)((p->reg[r].at + l->size - 1) % p->line));

			named_add(&p->res->edges, what, 1, 0);
			free(what);
		}
	}
	for (size_t i = 0; i < objs->n; i++) {
		struct region key = { p->obj_ty[i], objs->v[i].base, 0, NULL };
		struct region *hit;

		if (p->obj_ty[i] < 0 || !p->rl[p->obj_ty[i]] || (p->in->only && !p->in->only[p->obj_ty[i]]))
			continue;
		hit = bsearch(&key, p->reg, p->nreg, sizeof(*p->reg), cmp_region);
		p->obj_region[i] = hit ? (size_t)(hit - p->reg) : SIZE_MAX;
	}
}

/* The model's address of replayed byte a (line 128: pairs folded). */
static uint64_t model_addr(const struct replay *p, uint64_t a)
{
	return p->line == 128 ? (a / 128) * 64 + (a % 128) / 2 : a;
}

static void counts_add(struct lines_counts *a, const struct lines_counts *now, const struct lines_counts *then)
{
	a->loads += now->loads - then->loads;
	a->stores += now->stores - then->stores;
	a->load_hitm += now->load_hitm - then->load_hitm;
	a->store_hitm += now->store_hitm - then->store_hitm;
	a->store_inval += now->store_inval - then->store_inval;
	a->false_sharing += now->false_sharing - then->false_sharing;
	a->true_sharing += now->true_sharing - then->true_sharing;
}

/*
 * One contiguous run of replayed bytes [a, a + len) of region rg, split
 * at the replay's lines; each part's counts go to the field of its first
 * byte.
 */
static void issue(struct replay *p, const struct region *rg, const struct lines_trace_rec *r, uint64_t rel,
		  uint64_t len)
{
	const struct ll_layout *l = p->rl[rg->ty];
	struct lr_counts *cnt = &p->res->counts[rg->ty];
	unsigned flags = LINES_DETAIL | (r->flags & LINES_TRACE_STORE ? LINES_STORE : 0);

	while (len) {
		uint64_t a = rg->at + rel, part = p->line - a % p->line;
		uint64_t pa, psize;
		int32_t f = lines_layout_field_at(l, rel);
		const struct lines_ext *e;
		struct lines_counts before = { 0 };

		if (part > len)
			part = len;
		pa = model_addr(p, a);
		psize = p->line == 128 ? (a % 128 + part + 1) / 2 - (a % 128) / 2 : part;
		e = lines_model_ext(p->m, pa);
		if (e)
			before = e->c;
		lines_model_access(p->m, r->vcpu, r->pc, pa, pa, (unsigned)psize, flags);
		e = lines_model_ext(p->m, pa);
		if (e && f >= 0)
			counts_add(&cnt->c[f], &e->c, &before);
		rel += part;
		len -= part;
	}
}

struct piece {
	uint64_t at, len;	/* replayed offset in the object */
	int32_t f;		/* recorded field */
};

static void replay_record(struct replay *p, const struct lines_trace_rec *r, const struct lines_trace_obj *o,
			  size_t oi, uint64_t off)
{
	struct lr_result *res = p->res;
	int ty = p->obj_ty[oi];
	size_t ri = p->obj_region[oi];
	const struct ll_layout *old, *rl;
	const int32_t *map;
	struct piece pc[MAX_PIECES];
	size_t np = 0;
	uint64_t end = off + r->size;

	if (o->range) {
		res->ranges++;
		return;
	}
	if (ty < 0 || (p->in->only && !p->in->only[ty])) {
		res->skipped++;
		return;
	}
	if (!p->rl[ty]) {
		named_add(&res->missing_structs, o->type, 1, r->pc);
		res->missing++;
		return;
	}
	old = p->in->types[ty].old;
	rl = p->rl[ty];
	map = p->map[ty];
	if (end > o->size) {
		res->outside++;
		end = o->size;
	}
	for (uint64_t b = off; b < end;) {
		int32_t f = lines_layout_field_at(old, b);
		uint64_t fo, len, inoff;
		int32_t nf;

		if (f < 0) {
			uint64_t h = b;
			char name[64];

			while (h < end && lines_layout_field_at(old, h) < 0)
				h++;
			snprintf(name, sizeof(name), "%s bytes %llu..%llu", old->st, (unsigned long long)b,
				 (unsigned long long)h - 1);
			named_add(&res->hole_fields, name, 1, r->pc);
			res->holes++;
			b = h;
			continue;
		}
		fo = lines_layout_off(old, (size_t)f);
		inoff = b - fo;
		len = (fo + old->f[f].size < end ? fo + old->f[f].size : end) - b;
		nf = map[f];
		if (nf < 0) {
			named_add(&res->missing_fields, old->f[f].name, 1, r->pc);
			res->missing++;
		} else if (inoff + len > rl->f[nf].size) {
			named_add(&res->truncated_fields, old->f[f].name, 1, r->pc);
			res->truncated++;
		} else if (np < MAX_PIECES) {
			uint64_t at = lines_layout_off(rl, (size_t)nf) + inoff;

			if (np && pc[np - 1].at + pc[np - 1].len == at) {
				pc[np - 1].len += len;
			} else {
				pc[np].at = at;
				pc[np].len = len;
				pc[np].f = f;
				np++;
			}
		}
		b += len;
	}
	if (!np)
		return;
	res->replayed++;
	if (np > 1) {
		char name[512] = "";

		for (size_t i = 0; i < np; i++) {
			size_t n = strlen(name);

			snprintf(name + n, sizeof(name) - n, "%s%s", i ? "+" : "", old->f[pc[i].f].name);
		}
		named_add(&res->split_accesses, name, 1, r->pc);
		res->split_remap++;
	}
	for (size_t i = 0; i < np; i++)
		issue(p, &p->reg[ri], r, pc[i].at, pc[i].len);
}

/* ---- where objects meet ---- */

struct objline {
	uint64_t line;
	size_t oi;
};

static int cmp_objline(const void *a, const void *b)
{
	const struct objline *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->oi < y->oi ? -1 : x->oi > y->oi;
}

static struct lr_meet *meet_of(struct lr_result *res, uint64_t line, const char *what)
{
	for (size_t i = 0; i < res->nmeet; i++)
		if (res->meet[i].line == line)
			return &res->meet[i];
	res->meet = xrealloc(res->meet, (res->nmeet + 1) * sizeof(*res->meet));
	res->meet[res->nmeet] = (struct lr_meet){ line, xstrdup(what), 0 };
	return &res->meet[res->nmeet++];
}

static char *obj_bytes(const struct lines_trace_obj *o, uint64_t line, unsigned L)
{
	uint64_t lo = o->base > line ? o->base : line;
	uint64_t hi = o->base + o->size < line + L ? o->base + o->size : line + L;

	return xasprintf("%s (%s) bytes %llu..%llu", o->type, o->label, (unsigned long long)(lo - o->base),
			 (unsigned long long)(hi - o->base - 1));
}

/* The lines of the objects (recorded), and those two objects share. */
static struct objline *object_lines(struct replay *p, size_t *n)
{
	const struct lines_trace_objs *objs = p->in->objs;
	unsigned L = p->line;
	struct objline *v = NULL;

	*n = 0;
	for (size_t i = 0; i < objs->n; i++) {
		const struct lines_trace_obj *o = &objs->v[i];

		if (o->range || p->obj_region[i] == SIZE_MAX)
			continue;
		for (uint64_t a = o->base / L * L; a < o->base + o->size; a += L) {
			v = xrealloc(v, (*n + 1) * sizeof(*v));
			v[(*n)++] = (struct objline){ a, i };
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_objline);
	for (size_t i = 0; i + 1 < *n; i++) {
		const struct lines_trace_obj *a = &objs->v[v[i].oi], *b = &objs->v[v[i + 1].oi];

		if (v[i].line == v[i + 1].line && a->window == b->window && a->base != b->base) {
			char *x = obj_bytes(a, v[i].line, L), *y = obj_bytes(b, v[i].line, L);
			char *what = xasprintf("%s and %s", x, y);

			meet_of(p->res, v[i].line, what);
			free(what);
			free(x);
			free(y);
		}
	}
	return v;
}

static void outside_access(struct replay *p, const struct objline *ol, size_t n, const struct lines_trace_rec *r)
{
	struct objline key = { r->vaddr / p->line * p->line, 0 };
	size_t lo = 0, hi = n;

	p->res->outside++;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ol[mid].line < key.line)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && ol[lo].line == key.line; lo++) {
		const struct lines_trace_obj *o = &p->in->objs->v[ol[lo].oi];

		if (o->window != r->window)
			continue;
		{
			char *x = obj_bytes(o, key.line, p->line), *what = xasprintf("%s and bytes outside it", x);
			struct lr_meet *m = meet_of(p->res, key.line, what);

			m->outside++;
			free(x);
			free(what);
		}
		break;
	}
}

/* ---- after the replay: the other side, the fields on touched lines ---- */

static void other_sides(struct replay *p)
{
	for (size_t r = 0; r < p->nreg; r++) {
		const struct region *rg = &p->reg[r];
		const struct ll_layout *l = p->rl[rg->ty];
		struct lr_counts *cnt = &p->res->counts[rg->ty];

		for (uint64_t a = rg->at / p->line * p->line; a < rg->at + l->size; a += p->line) {
			uint64_t pa = model_addr(p, a), loads, stores;
			const struct lines_ext *e;

			if (!lines_model_line_counts(p->m, pa, &loads, &stores))
				continue;
			/* Every field on a line the replay touched has its row. */
			for (size_t f = 0; f < l->nf; f++) {
				uint64_t fo = rg->at + lines_layout_off(l, f);

				if (fo < a + p->line && fo + l->f[f].size > a)
					cnt->on_line[f] = true;
			}
			e = lines_model_ext(p->m, pa);
			if (!e)
				continue;
			p->res->other_unnamed += lines_replay_events(&e->other_shapes);
			for (unsigned s = 0; s < e->nshapes; s++) {
				const struct lines_shape *sh = &e->shapes[s];
				uint64_t first = p->line == 128 ? a + sh->off * 2u : a + sh->off;
				int32_t f;

				if (!lines_replay_events(&sh->c) || first < rg->at)
					continue;
				f = lines_layout_field_at(l, first - rg->at);
				if (f < 0)
					continue;
				for (unsigned b = 0; b < 64; b++) {
					for (unsigned k = 0; k < (p->line == 128 ? 2u : 1u); k++) {
						uint64_t byte = p->line == 128 ? a + b * 2u + k : a + b;
						int32_t g;

						if (!(sh->other_mask >> b & 1) || byte < rg->at || byte - rg->at >= l->size)
							continue;
						g = lines_layout_field_at(l, byte - rg->at);
						if (g >= 0)
							cnt->other[(size_t)f * cnt->words + (size_t)g / 64] |= 1ULL << (g % 64);
					}
				}
			}
		}
	}
}

int lines_replay(const struct lr_input *in, struct lr_result *res, char *err, size_t errlen)
{
	struct replay p = { .in = in, .res = res, .line = in->line == 128 ? 128 : 64 };
	struct lines_config cfg = { 0 };
	uint64_t want = 0;
	struct objline *ol;
	size_t nol;
	const struct lines_trace_rec *r;
	int64_t window = -1;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	res->ntypes = in->ntypes;
	res->counts = xcalloc(in->ntypes ? in->ntypes : 1, sizeof(*res->counts));
	p.map = xcalloc(in->ntypes ? in->ntypes : 1, sizeof(*p.map));
	p.rl = xcalloc(in->ntypes ? in->ntypes : 1, sizeof(*p.rl));
	for (size_t t = 0; t < in->ntypes; t++) {
		const struct ll_layout *l = in->recorded ? in->types[t].old : in->types[t].new;
		struct lr_counts *c = &res->counts[t];

		p.rl[t] = l;
		if (!l)
			continue;
		p.map[t] = field_map(in->types[t].old, l);
		c->nf = l->nf;
		c->words = (l->nf + 63) / 64;
		c->c = xcalloc(l->nf ? l->nf : 1, sizeof(*c->c));
		c->on_line = xcalloc(l->nf ? l->nf : 1, sizeof(*c->on_line));
		c->other = xcalloc((l->nf ? l->nf : 1) * (c->words ? c->words : 1), sizeof(*c->other));
	}
	make_regions(&p);
	res->regions = p.nreg;
	for (size_t i = 0; i < p.nreg; i++)
		want += p.rl[p.reg[i].ty]->size / 64 + 3;
	cfg.vcpus = in->trace->hdr.vcpus;
	cfg.ext_lines = (uint32_t)(want < (1u << 24) ? (want > 64 ? want : 64) : (1u << 24));
	cfg.lines = 64;
	while (cfg.lines < 4 * want && cfg.lines < (1ULL << 32))
		cfg.lines <<= 1;
	p.m = lines_model_new(&cfg, err, errlen);
	if (!p.m) {
		rc = -1;
		goto out;
	}
	ol = object_lines(&p, &nol);
	lines_trace_rewind(in->trace);
	while ((r = lines_trace_next(in->trace))) {
		uint64_t off;
		const struct lines_trace_obj *o;

		res->records++;
		if ((int64_t)r->window != window) {
			if (window >= 0)
				lines_model_window(p.m, 0, false);
			lines_model_window(p.m, 0, true);
			window = r->window;
		}
		o = lines_trace_obj_of(in->objs, r->window, r->vaddr, &off);
		if (!o) {
			outside_access(&p, ol, nol, r);
			continue;
		}
		replay_record(&p, r, o, (size_t)(o - in->objs->v), off);
	}
	if (window >= 0)
		lines_model_window(p.m, 0, false);
	free(ol);
	lines_model_totals(p.m, &res->totals);
	if (res->totals.ext_dropped_lines || res->totals.dropped_accesses)
		rc = set_err(err, errlen, "the replay's model was full (%llu lines without detail, %llu accesses "
			     "dropped): a bug in its sizing", (unsigned long long)res->totals.ext_dropped_lines,
			     (unsigned long long)res->totals.dropped_accesses);
	other_sides(&p);
	{
		struct lr_list *lists[] = { &res->missing_fields, &res->missing_structs, &res->hole_fields,
					    &res->truncated_fields, &res->split_accesses };

		for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
			if (lists[i]->n)
				qsort(lists[i]->v, lists[i]->n, sizeof(*lists[i]->v), cmp_named);
	}
out:
	lines_model_free(p.m);
	for (size_t t = 0; t < in->ntypes; t++)
		free(p.map[t]);
	free(p.map);
	free(p.rl);
	free(p.obj_ty);
	free(p.obj_region);
	free(p.reg);
	return rc;
}

static void list_free(struct lr_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
}

void lines_replay_free(struct lr_result *r)
{
	for (size_t t = 0; t < r->ntypes; t++) {
		free(r->counts[t].c);
		free(r->counts[t].other);
		free(r->counts[t].on_line);
	}
	free(r->counts);
	list_free(&r->missing_fields);
	list_free(&r->missing_structs);
	list_free(&r->hole_fields);
	list_free(&r->truncated_fields);
	list_free(&r->split_accesses);
	list_free(&r->edges);
	for (size_t i = 0; i < r->nmeet; i++)
		free(r->meet[i].what);
	free(r->meet);
	memset(r, 0, sizeof(*r));
}

char *lines_replay_granules(const struct ll_layout *l)
{
	char *s = NULL;

	for (uint64_t b = 0; b + 1 < l->size; b += 2) {
		int32_t x = lines_layout_field_at(l, b), y = lines_layout_field_at(l, b + 1);

		if (x >= 0 && y >= 0 && x != y) {
			char *t = xasprintf("%s%s%s+%s", s ? s : "", s ? ", " : "", l->f[x].name, l->f[y].name);

			free(s);
			s = t;
		}
	}
	return s;
}
