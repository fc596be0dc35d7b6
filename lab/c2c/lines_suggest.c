// SPDX-License-Identifier: GPL-2.0
/* `memcg-lab lines suggest`: a layout of S with the fewest predicted false-sharing transfers (c2c/lines_suggest.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_suggest.h"
#include "util/err.h"

#define U(x) ((unsigned long long)(x))
#define DEFAULT_EVALS 200

static uint64_t roundup_u64(uint64_t x, uint64_t a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

struct ctx {
	const struct lp_run *r;
	const struct ls_opts *o;
	struct ls_result *res;
	bool *only;			/* per traced type: it holds S */
	int self;			/* the traced type that is S, or -1 */
	unsigned line;
};

/* Each traced struct with S' in it (news[], freed by the caller). */
static void news_for(const struct ctx *x, const struct ll_layout *s, struct ll_layout *news)
{
	const struct lp_run *r = x->r;

	for (size_t t = 0; t < r->ntypes; t++) {
		int n;

		if ((int)t == x->self)
			lines_layout_copy(&news[t], s);
		else if (x->only[t])
			lines_layout_embed(&r->old[t], &x->res->kernel, s, &news[t], &n);
		else
			lines_layout_copy(&news[t], &r->old[t]);
	}
}

static void free_news(struct ll_layout *news, size_t n)
{
	for (size_t t = 0; t < n; t++)
		lines_layout_free(&news[t]);
	free(news);
}

/* Replays S' (or the kernel's layout, recorded); its false events and events in the structs holding S. */
static int evaluate(struct ctx *x, const struct ll_layout *s, bool kernel, uint64_t *fe, uint64_t *ev,
		    char *err, size_t errlen)
{
	const struct lp_run *r = x->r;
	struct ll_layout *news = xcalloc(r->ntypes, sizeof(*news));
	struct lr_type *types = xcalloc(r->ntypes, sizeof(*types));
	struct lr_result res;
	struct lr_input in = { (struct lines_trace *)&r->trace, &r->objs, types, r->ntypes, x->line, kernel, x->only };
	int rc;

	news_for(x, s, news);
	lp_types(r, news, types);
	rc = lines_replay(&in, &res, err, errlen);
	*fe = *ev = 0;
	if (!rc)
		for (size_t t = 0; t < r->ntypes; t++) {
			const struct lr_counts *c = &res.counts[t];

			for (size_t i = 0; x->only[t] && c->c && i < c->nf; i++) {
				*fe += c->c[i].false_sharing;
				*ev += lines_replay_events(&c->c[i]);
			}
		}
	x->res->evals++;
	lines_replay_free(&res);
	free(types);
	free_news(news, r->ntypes);
	return rc;
}

static int add_candidate(struct ctx *x, const char *name, struct ll_layout *s, bool kernel, char *err, size_t errlen)
{
	struct ls_result *res = x->res;
	struct ls_candidate *c;

	res->c = xrealloc(res->c, (res->nc + 1) * sizeof(*res->c));
	c = &res->c[res->nc];
	memset(c, 0, sizeof(*c));
	c->name = xstrdup(name);
	c->s = *s;
	c->lines = lines_layout_lines(s, x->line);
	c->fits = c->lines <= res->max_lines;
	res->nc++;
	return evaluate(x, &c->s, kernel, &c->false_events, &c->events, err, errlen);
}

/* Is a better than b (both fitting or not alike)? */
static bool better(const struct ls_candidate *a, const struct ls_candidate *b)
{
	if (a->fits != b->fits)
		return a->fits;
	if (a->false_events != b->false_events)
		return a->false_events < b->false_events;
	if (a->events != b->events)
		return a->events < b->events;
	return a->lines < b->lines;
}

/* ---- groups ---- */

struct group {
	size_t *u;
	size_t n;
	uint64_t acc;		/* accesses, for the order of groups */
};

static void group_add(struct group *g, size_t u, uint64_t acc)
{
	g->u = xrealloc(g->u, (g->n + 1) * sizeof(*g->u));
	g->u[g->n++] = u;
	g->acc += acc;
}

static void groups_free(struct group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].u);
	free(g);
}

static int cmp_size_t(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* The bytes a group takes from a line's start, its units at natural alignment. */
static uint64_t group_bytes(const struct ll_layout *s, const size_t *u, size_t n)
{
	uint64_t sz = 0;

	for (size_t i = 0; i < n; i++)
		sz = roundup_u64(sz, s->u[u[i]].align) + s->u[u[i]].size;
	return sz;
}

/*
 * S laid out as the groups, each from a new line (none when pad is false
 * for a group: its flag), the cold units filling the groups' last lines
 * where they fit and the rest at the end.
 */
static void build(const struct ctx *x, const struct group *g, size_t ng, const size_t *cold, size_t ncold,
		  bool fill, struct ll_layout *out)
{
	const struct ll_layout *s = &x->res->kernel;
	struct group *gg = xcalloc(ng ? ng : 1, sizeof(*gg));
	size_t *order = xmalloc((s->nu + 1) * sizeof(*order)), n = 0;
	bool *brk = xcalloc(s->nu + 1, sizeof(*brk));
	bool *placed = xcalloc(ncold + 1, sizeof(*placed));

	for (size_t i = 0; i < ng; i++)
		for (size_t k = 0; k < g[i].n; k++)
			group_add(&gg[i], g[i].u[k], 0);
	for (size_t c = 0; fill && c < ncold; c++) {
		const struct ll_unit *u = &s->u[cold[c]];

		if (!u->size)
			continue;
		for (size_t i = 0; i < ng && !placed[c]; i++) {
			uint64_t cur = group_bytes(s, gg[i].u, gg[i].n);
			uint64_t at = roundup_u64(cur, u->align);

			if (cur && at + u->size <= roundup_u64(cur, x->line)) {
				group_add(&gg[i], cold[c], 0);
				placed[c] = true;
			}
		}
	}
	for (size_t i = 0; i < ng; i++)
		for (size_t k = 0; k < gg[i].n; k++) {
			brk[n] = k == 0 && n > 0;
			order[n++] = gg[i].u[k];
		}
	/* The rest of the cold ones at the end, zero-size ones (flexible arrays) last. */
	for (int zero = 0; zero < 2; zero++)
		for (size_t c = 0; c < ncold; c++)
			if (!placed[c] && (s->u[cold[c]].size == 0) == zero) {
				brk[n] = false;
				order[n++] = cold[c];
			}
	lines_layout_arrange(s, order, brk, n, x->line, out);
	free(order);
	free(brk);
	free(placed);
	groups_free(gg, ng);
}

static int cmp_group_acc(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->acc != y->acc)
		return x->acc > y->acc ? -1 : 1;
	return x->u[0] < y->u[0] ? -1 : x->u[0] > y->u[0];
}

/* ---- members ---- */

/* Per traced struct: byte -> unit of S (-1). */
static int32_t *unit_map(const struct ctx *x, size_t t)
{
	const struct ll_layout *l = &x->r->old[t], *s = &x->res->kernel;
	int32_t *m = xmalloc((l->size ? l->size : 1) * sizeof(*m));

	for (uint64_t b = 0; b < l->size; b++)
		m[b] = -1;
	for (size_t i = 0; i < l->nu; i++) {
		const struct ll_unit *u = &l->u[i];

		if ((int)t == x->self) {
			/* S traced itself: its own layout. */
			for (uint64_t b = 0; b < s->size && b < l->size; b++) {
				int32_t f = lines_layout_field_at(s, b);

				m[b] = f >= 0 ? (int32_t)s->f[f].unit : -1;
			}
			break;
		}
		if (u->marker || strcmp(u->type, s->st))
			continue;
		for (uint64_t b = 0; b < u->size && b < s->size; b++) {
			int32_t f = lines_layout_field_at(s, b);

			if (f >= 0)
				m[u->off + b] = (int32_t)s->f[f].unit;
		}
	}
	return m;
}

static void member_stats(struct ctx *x)
{
	const struct lp_run *r = x->r;
	struct ls_result *res = x->res;
	int32_t **maps = xcalloc(r->ntypes, sizeof(*maps));
	const struct lines_trace_rec *rec;
	struct lines_trace *tr = (struct lines_trace *)&r->trace;

	res->m = xcalloc(res->kernel.nu ? res->kernel.nu : 1, sizeof(*res->m));
	for (size_t t = 0; t < r->ntypes; t++)
		if (x->only[t])
			maps[t] = unit_map(x, t);
	lines_trace_rewind(tr);
	while ((rec = lines_trace_next(tr))) {
		uint64_t off;
		const struct lines_trace_obj *o = lines_trace_obj_of(&r->objs, rec->window, rec->vaddr, &off);
		int32_t last = -1;
		int t;

		if (!o || o->range)
			continue;
		for (t = 0; t < (int)r->ntypes && strcmp(r->types[t], o->type); t++)
			;
		if (t == (int)r->ntypes || !maps[t])
			continue;
		for (uint64_t b = off; b < off + rec->size && b < r->old[t].size; b++) {
			int32_t u = maps[t][b];
			struct ls_member *m;

			if (u < 0 || u == last)
				continue;
			last = u;
			m = &res->m[u];
			if (rec->flags & LINES_TRACE_STORE) {
				m->stores++;
				m->writers |= 1ULL << rec->vcpu;
			} else {
				m->loads++;
				m->readers |= 1ULL << rec->vcpu;
			}
		}
	}
	lines_trace_rewind(tr);
	for (size_t t = 0; t < r->ntypes; t++)
		free(maps[t]);
	free(maps);
}

/* ---- the search ---- */

static int merge_search(struct ctx *x, struct group *g, size_t ng, const size_t *cold, size_t ncold, char *err,
			size_t errlen)
{
	struct ls_result *res = x->res;
	unsigned cap = x->o->max_evals ? x->o->max_evals : DEFAULT_EVALS;
	size_t round = 0;

	while (ng > 1) {
		size_t bi = SIZE_MAX, bj = 0, bc = SIZE_MAX;

		round++;
		for (size_t i = 0; i < ng; i++)
			for (size_t j = i + 1; j < ng; j++) {
				struct group *m = xcalloc(ng - 1, sizeof(*m));
				struct ll_layout s;
				char name[64];
				size_t k = 0;

				if (res->evals >= cap) {
					res->evals_capped = true;
					free(m);
					goto done;
				}
				for (size_t a = 0; a < ng; a++) {
					if (a == j)
						continue;
					for (size_t q = 0; q < g[a].n; q++)
						group_add(&m[k], g[a].u[q], 0);
					if (a == i)
						for (size_t q = 0; q < g[j].n; q++)
							group_add(&m[k], g[j].u[q], 0);
					if (a == i)
						qsort(m[k].u, m[k].n, sizeof(*m[k].u), cmp_size_t);
					k++;
				}
				build(x, m, ng - 1, cold, ncold, true, &s);
				snprintf(name, sizeof(name), "writer sets, %zu merge%s", round, round > 1 ? "s" : "");
				groups_free(m, ng - 1);
				if (add_candidate(x, name, &s, false, err, errlen) < 0)
					return -1;
				if (bc == SIZE_MAX || better(&res->c[res->nc - 1], &res->c[bc])) {
					bc = res->nc - 1;
					bi = i;
					bj = j;
				}
			}
		if (bi == SIZE_MAX)
			break;
		/* Keep the best merge and go on while it does not fit. */
		for (size_t q = 0; q < g[bj].n; q++)
			group_add(&g[bi], g[bj].u[q], g[bj].acc);
		qsort(g[bi].u, g[bi].n, sizeof(*g[bi].u), cmp_size_t);
		free(g[bj].u);
		memmove(&g[bj], &g[bj + 1], (ng - bj - 1) * sizeof(*g));
		ng--;
		if (res->c[bc].fits)
			break;
	}
done:
	return 0;
}

int lines_suggest(const struct lp_run *r, const struct ls_opts *o, struct ls_result *res, char *err, size_t errlen)
{
	struct ctx x = { r, o, res, NULL, -1, o->line == 128 ? 128 : 64 };
	char why[1024];
	size_t *hot = NULL, *ro = NULL, *cold = NULL, nhot = 0, nro = 0, ncold = 0, holders = 0;
	uint64_t min_size = 0, sum = 0;
	unsigned maxal = 1;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	res->max_lines = UINT64_MAX;
	if (lines_layout_from_btf(&res->kernel, &r->g.btf, o->st, r->g.cgroup, why, sizeof(why)) < 0)
		return set_err(err, errlen, "--struct %s: %s", o->st, why);
	x.only = xcalloc(r->ntypes, sizeof(*x.only));
	for (size_t t = 0; t < r->ntypes; t++) {
		char *how = NULL;

		if (!strcmp(r->types[t], o->st)) {
			x.self = (int)t;
			x.only[t] = true;
			how = xasprintf("%s (traced itself)", o->st);
		}
		for (size_t i = 0; !x.only[t] && i < r->old[t].nu; i++)
			if (!r->old[t].u[i].marker && !strcmp(r->old[t].u[i].type, o->st))
				x.only[t] = true;
		if (x.only[t] && !how) {
			how = xasprintf("%s:", r->types[t]);
			for (size_t i = 0; i < r->old[t].nu; i++)
				if (!r->old[t].u[i].marker && !strcmp(r->old[t].u[i].type, o->st)) {
					char *n = xasprintf("%s %s", how, r->old[t].u[i].name);

					free(how);
					how = n;
				}
		}
		if (how) {
			res->holders = xrealloc(res->holders, (res->nholders + 1) * sizeof(*res->holders));
			res->holders[res->nholders++] = how;
			holders++;
		}
	}
	if (!holders) {
		char *tl = xstrdup("");

		for (size_t t = 0; t < r->ntypes; t++) {
			char *n = xasprintf("%s%s%s", tl, t ? ", " : "", r->types[t]);

			free(tl);
			tl = n;
		}
		rc = set_err(err, errlen, "--struct %s: neither a traced struct nor inside one (the trace's structs: %s)",
			     o->st, tl);
		free(tl);
		goto out;
	}
	/* The budget, and the fewest lines any order of S's members takes. */
	for (size_t i = 0; i < res->kernel.nu; i++) {
		const struct ll_unit *u = &res->kernel.u[i];

		if (u->marker)
			continue;
		sum += u->size;
		if (u->align > maxal)
			maxal = u->align;
	}
	min_size = roundup_u64(sum, maxal);
	if (o->budget_set) {
		int64_t lines = (int64_t)lines_layout_lines(&res->kernel, x.line) + o->budget;
		uint64_t need = (min_size + x.line - 1) / x.line;

		if (lines < 0 || (uint64_t)lines < need) {
			rc = set_err(err, errlen, "--budget %+d: struct %s takes %llu lines of %u bytes in the run's kernel, "
				     "so the budget is %lld; its members need at least %llu (%llu bytes)", o->budget, o->st,
				     U(lines_layout_lines(&res->kernel, x.line)), x.line, (long long)lines, U(need),
				     U(sum));
			goto out;
		}
		res->max_lines = (uint64_t)lines;
	}
	member_stats(&x);
	for (size_t i = 0; i < res->kernel.nu; i++) {
		const struct ll_unit *u = &res->kernel.u[i];
		const struct ls_member *m = &res->m[i];

		if (u->marker)
			continue;
		if (m->writers) {
			hot = xrealloc(hot, (nhot + 1) * sizeof(*hot));
			hot[nhot++] = i;
		} else if (m->readers) {
			ro = xrealloc(ro, (nro + 1) * sizeof(*ro));
			ro[nro++] = i;
		} else {
			cold = xrealloc(cold, (ncold + 1) * sizeof(*cold));
			cold[ncold++] = i;
		}
	}
	{
		struct ll_layout k;

		lines_layout_copy(&k, &res->kernel);
		if (add_candidate(&x, "the kernel's", &k, true, err, errlen) < 0) {
			rc = -1;
			goto out;
		}
	}
	{
		/* writer sets */
		struct group *g = NULL;
		size_t ng = 0;
		struct ll_layout s;

		for (size_t k = 0; k < nhot; k++) {
			const struct ls_member *m = &res->m[hot[k]];
			size_t i;

			for (i = 0; i < ng; i++)
				if (res->m[g[i].u[0]].writers == m->writers)
					break;
			if (i == ng) {
				g = xrealloc(g, (ng + 1) * sizeof(*g));
				memset(&g[ng++], 0, sizeof(*g));
			}
			group_add(&g[i], hot[k], m->loads + m->stores);
		}
		if (ng)
			qsort(g, ng, sizeof(*g), cmp_group_acc);
		if (nro) {
			g = xrealloc(g, (ng + 1) * sizeof(*g));
			memset(&g[ng], 0, sizeof(*g));
			for (size_t k = 0; k < nro; k++)
				group_add(&g[ng], ro[k], 0);
			ng++;
		}
		build(&x, g, ng, cold, ncold, true, &s);
		if (add_candidate(&x, "writer sets", &s, false, err, errlen) < 0) {
			groups_free(g, ng);
			rc = -1;
			goto out;
		}
		/* each */
		{
			struct group *e = xcalloc(nhot + 1, sizeof(*e));
			size_t ne = 0;

			for (size_t k = 0; k < nhot; k++)
				group_add(&e[ne++], hot[k], res->m[hot[k]].loads + res->m[hot[k]].stores);
			if (ne)
				qsort(e, ne, sizeof(*e), cmp_group_acc);
			for (size_t k = 0; k < nro; k++)
				group_add(&e[ne], ro[k], 0);
			ne += nro > 0;
			build(&x, e, ne, cold, ncold, true, &s);
			groups_free(e, ne);
			if (add_candidate(&x, "each written member alone", &s, false, err, errlen) < 0) {
				groups_free(g, ng);
				rc = -1;
				goto out;
			}
		}
		/* together */
		{
			struct group t[2] = { { 0 }, { 0 } };
			size_t nt = 0;

			for (size_t k = 0; k < nhot; k++)
				group_add(&t[0], hot[k], 0);
			nt += nhot > 0;
			for (size_t k = 0; k < nro; k++)
				group_add(&t[nt], ro[k], 0);
			nt += nro > 0;
			build(&x, t, nt, cold, ncold, true, &s);
			free(t[0].u);
			free(t[1].u);
			if (add_candidate(&x, "written together, read-only apart", &s, false, err, errlen) < 0) {
				groups_free(g, ng);
				rc = -1;
				goto out;
			}
		}
		/* pad: the kernel's order, broken around runs of written members */
		{
			struct group *p = NULL;
			size_t np = 0;
			int prev = -1;

			for (size_t i = 0; i < res->kernel.nu; i++) {
				int h;

				if (res->kernel.u[i].marker || !res->kernel.u[i].size)
					continue;
				h = res->m[i].writers != 0;
				if (h != prev) {
					p = xrealloc(p, (np + 1) * sizeof(*p));
					memset(&p[np++], 0, sizeof(*p));
					prev = h;
				}
				group_add(&p[np - 1], i, 0);
			}
			{
				size_t zc[64] = { 0 }, nz = 0;

				for (size_t i = 0; i < res->kernel.nu && nz < 64; i++)
					if (!res->kernel.u[i].marker && !res->kernel.u[i].size)
						zc[nz++] = i;
				build(&x, p, np, zc, nz, false, &s);
			}
			groups_free(p, np);
			if (add_candidate(&x, "the kernel's order, padded around written members", &s, false, err,
					  errlen) < 0) {
				groups_free(g, ng);
				rc = -1;
				goto out;
			}
		}
		/* Over the budget: merge the writer sets' groups. */
		{
			bool any = false;

			for (size_t c = 1; c < res->nc; c++)
				any |= res->c[c].fits;
			if (!any && merge_search(&x, g, ng, cold, ncold, err, errlen) < 0) {
				groups_free(g, ng);
				rc = -1;
				goto out;
			}
		}
		groups_free(g, ng);
	}
	res->best = 0;
	for (size_t c = 1; c < res->nc; c++)
		if (better(&res->c[c], &res->c[res->best]))
			res->best = c;
	/* A proposal has fewer false-sharing events than the kernel's layout
	 * (fewer lines alone are no reason to move members). */
	if (res->c[0].fits && res->c[res->best].false_events >= res->c[0].false_events)
		res->best = 0;
	/* The kernel's and the best layout, replayed for their counts per field. */
	{
		struct lr_input in = { (struct lines_trace *)&r->trace, &r->objs, NULL, r->ntypes, x.line, true, x.only };

		res->ntypes = r->ntypes;
		res->news_kernel = xcalloc(r->ntypes, sizeof(*res->news_kernel));
		res->news_best = xcalloc(r->ntypes, sizeof(*res->news_best));
		res->types_kernel = xcalloc(r->ntypes, sizeof(*res->types_kernel));
		res->types_best = xcalloc(r->ntypes, sizeof(*res->types_best));
		for (size_t t = 0; t < r->ntypes; t++)
			lines_layout_copy(&res->news_kernel[t], &r->old[t]);
		news_for(&x, &res->c[res->best].s, res->news_best);
		lp_types(r, res->news_kernel, res->types_kernel);
		lp_types(r, res->news_best, res->types_best);
		in.types = res->types_best;
		if (lines_replay(&in, &res->rep_kernel, err, errlen) < 0) {
			rc = -1;
			goto out;
		}
		in.recorded = false;
		if (lines_replay(&in, &res->rep_best, err, errlen) < 0) {
			rc = -1;
			goto out;
		}
	}
out:
	free(hot);
	free(ro);
	free(cold);
	free(x.only);
	return rc;
}

void lines_suggest_free(struct ls_result *res)
{
	lines_layout_free(&res->kernel);
	free(res->m);
	for (size_t c = 0; c < res->nc; c++) {
		free(res->c[c].name);
		lines_layout_free(&res->c[c].s);
	}
	free(res->c);
	if (res->news_kernel)
		for (size_t t = 0; t < res->ntypes; t++) {
			lines_layout_free(&res->news_kernel[t]);
			lines_layout_free(&res->news_best[t]);
		}
	free(res->news_kernel);
	free(res->news_best);
	free(res->types_kernel);
	free(res->types_best);
	if (res->rep_kernel.counts)
		lines_replay_free(&res->rep_kernel);
	if (res->rep_best.counts)
		lines_replay_free(&res->rep_best);
	for (size_t i = 0; i < res->nholders; i++)
		free(res->holders[i]);
	free(res->holders);
	memset(res, 0, sizeof(*res));
}

/* ---- printing ---- */

static void vcpus(char *buf, size_t n, uint64_t mask)
{
	size_t len = 0;

	buf[0] = '\0';
	if (!mask) {
		snprintf(buf, n, "-");
		return;
	}
	for (unsigned v = 0; v < 64; v++) {
		unsigned e = v;

		if (!(mask >> v & 1))
			continue;
		while (e + 1 < 64 && mask >> (e + 1) & 1)
			e++;
		if (e > v)
			len += (size_t)snprintf(buf + len, n > len ? n - len : 0, "%s%u-%u", len ? "," : "", v, e);
		else
			len += (size_t)snprintf(buf + len, n > len ? n - len : 0, "%s%u", len ? "," : "", v);
		v = e;
	}
}

/* The member part of a definition's line (before its offset comment). */
static char **def_lines(const struct ll_layout *l, size_t *n)
{
	char *d = lines_layout_definition(l), *save = NULL, **v = NULL;

	*n = 0;
	for (char *ln = strtok_r(d, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		v = xrealloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = xstrdup(ln);
	}
	free(d);
	return v;
}

static size_t key_len(const char *s)
{
	const char *c = strstr(s, "/*");
	size_t n = c ? (size_t)(c - s) : strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n;
}

static bool same_key(const char *a, const char *b)
{
	size_t la = key_len(a), lb = key_len(b);

	/* A proposal's CACHELINE_PADDING lines are its own. */
	return la == lb && !strncmp(a, b, la) && !strstr(a, "CACHELINE_PADDING(_pad") == !strstr(b, "CACHELINE_PADDING(_pad");
}

char *lines_suggest_diff(const struct ll_layout *a, const struct ll_layout *b)
{
	size_t na, nb;
	char **x = def_lines(a, &na), **y = def_lines(b, &nb);
	size_t *L = xcalloc((na + 1) * (nb + 1), sizeof(*L));
	char *out = xstrdup("");
	size_t i = 0, j = 0;

#define AT(p, q) L[(p) * (nb + 1) + (q)]
	for (size_t p = na; p-- > 0;)
		for (size_t q = nb; q-- > 0;)
			AT(p, q) = same_key(x[p], y[q]) ? AT(p + 1, q + 1) + 1 :
				   AT(p + 1, q) > AT(p, q + 1) ? AT(p + 1, q) : AT(p, q + 1);
	while (i < na || j < nb) {
		char *t;

		if (i < na && j < nb && same_key(x[i], y[j])) {
			t = xasprintf("%s %s\n", out, y[j]);
			i++;
			j++;
		} else if (j < nb && (i == na || AT(i, j + 1) >= AT(i + 1, j))) {
			t = xasprintf("%s+%s\n", out, y[j]);
			j++;
		} else {
			t = xasprintf("%s-%s\n", out, x[i]);
			i++;
		}
		free(out);
		out = t;
	}
#undef AT
	for (size_t p = 0; p < na; p++)
		free(x[p]);
	for (size_t q = 0; q < nb; q++)
		free(y[q]);
	free(x);
	free(y);
	free(L);
	return out;
}

void lines_suggest_print(FILE *f, const struct lp_run *r, const struct ls_opts *o, const struct ls_result *res)
{
	const struct ls_candidate *best = &res->c[res->best];
	unsigned line = o->line == 128 ? 128 : 64;
	char *diff;

	lp_print_trace(f, r);
	fprintf(f, "struct %s: %llu B, %llu lines of %u B in the run's kernel (%s); in the trace:", o->st,
		U(res->kernel.size), U(lines_layout_lines(&res->kernel, line)), line, r->g.btf.path);
	for (size_t i = 0; i < res->nholders; i++)
		fprintf(f, "%s %s", i ? ";" : "", res->holders[i]);
	fputc('\n', f);
	if (res->max_lines != UINT64_MAX)
		fprintf(f, "budget: %+d lines, at most %llu lines of %u B\n", o->budget, U(res->max_lines), line);
	else
		fprintf(f, "budget: none (--budget +N sets one)\n");
	fprintf(f, "\nmembers, over every instance (vCPUs that wrote and read them in the trace):\n");
	fprintf(f, "  %-28s %9s %9s  %-12s %-12s %s\n", "member", "loads", "stores", "written by", "read by", "class");
	for (size_t i = 0; i < res->kernel.nu; i++) {
		const struct ll_unit *u = &res->kernel.u[i];
		const struct ls_member *m = &res->m[i];
		char w[64], rd[64];

		if (u->marker)
			continue;
		vcpus(w, sizeof(w), m->writers);
		vcpus(rd, sizeof(rd), m->readers);
		fprintf(f, "  %-28s %9llu %9llu  %-12s %-12s %s\n", u->name, U(m->loads), U(m->stores), w, rd,
			m->writers ? "written" : m->readers ? "read-only" : "untouched");
	}
	fprintf(f, "\nlayouts replayed (%u replays%s): false-sharing events and all HITM events in the structs "
		"holding %s\n", res->evals, res->evals_capped ? ", capped: the search stopped there" : "", o->st);
	fprintf(f, "  %-50s %5s %9s %9s\n", "layout", "lines", "false", "HITM");
	for (size_t c = 0; c < res->nc; c++) {
		const struct ls_candidate *x = &res->c[c];

		fprintf(f, "  %-50s %5llu %9llu %9llu%s%s\n", x->name, U(x->lines), U(x->false_events), U(x->events),
			x->fits ? "" : "  over the budget", c && c == res->best ? "  <- proposed" : "");
	}
	if (res->best == 0) {
		fprintf(f, "\nno layout tried predicts fewer false-sharing transfers than the kernel's own: nothing "
			"proposed\n");
		for (size_t i = 0; i < res->kernel.nu; i++)
			if (res->m[i].writers && res->kernel.u[i].type[0])
				fprintf(f, "member %s (struct %s) is written: its own fields move with --struct %s\n",
					res->kernel.u[i].name, res->kernel.u[i].type, res->kernel.u[i].type);
		return;
	}
	fprintf(f, "\nproposed: %s, %llu B (%llu lines), against the kernel's %llu B:\n", best->name, U(best->s.size),
		U(best->lines), U(res->kernel.size));
	diff = lines_suggest_diff(&res->kernel, &best->s);
	fputs(diff, f);
	free(diff);
	lp_print_granules(f, res->types_best, res->ntypes, line);
	fputc('\n', f);
	lp_print_notes(f, &res->rep_best, "proposal's replay");
	{
		bool *only = xcalloc(res->ntypes, sizeof(*only));

		for (size_t t = 0; t < res->ntypes; t++) {
			bool holds = !strcmp(res->types_best[t].st, o->st);

			for (size_t i = 0; !holds && i < res->types_best[t].old->nu; i++)
				holds = !strcmp(res->types_best[t].old->u[i].type, o->st);
			only[t] = holds;
		}
		lp_print_tables(f, r, res->types_best, res->ntypes, &res->rep_kernel, &res->rep_best, "kernel's layout",
				"proposal", only);
		free(only);
	}
}
