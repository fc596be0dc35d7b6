// SPDX-License-Identifier: GPL-2.0
/* `memcg-lab lines predict`: a trace replayed against another layout (c2c/lines_predict.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "c2c/lines_predict.h"
#include "c2c/lines_session.h"
#include "c2c/lines_table.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/tsv.h"

#define U(x) ((unsigned long long)(x))
#define TRACE_FILE "trace.bin"

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static char *dir_of(const char *p)
{
	const char *s = strrchr(p, '/');

	if (!s)
		return xstrdup(".");
	if (s == p)
		return xstrdup("/");
	return xasprintf("%.*s", (int)(s - p), p);
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The operations of the trace's windows (window-ops.tsv), when all were counted. */
static void trace_ops(struct lp_run *r)
{
	uint32_t *seen = NULL;
	size_t n = 0;
	const struct lines_trace_rec *rec;

	r->ops = -1;
	r->unit[0] = '\0';
	lines_trace_rewind(&r->trace);
	while ((rec = lines_trace_next(&r->trace)))
		if (!n || seen[n - 1] != rec->window) {
			bool have = false;

			for (size_t i = 0; i < n && !have; i++)
				have = seen[i] == rec->window;
			if (!have) {
				seen = xrealloc(seen, (n + 1) * sizeof(*seen));
				seen[n++] = rec->window;
			}
		}
	lines_trace_rewind(&r->trace);
	if (!n) {
		free(seen);
		return;
	}
	r->ops = 0;
	for (size_t i = 0; i < n && r->ops >= 0; i++) {
		const struct lines_gwindow *w = NULL;

		for (size_t k = 0; k < r->g.nwin && !w; k++)
			if (r->g.win[k].index == (int64_t)seen[i])
				w = &r->g.win[k];
		if (!w || w->ops < 0 || !w->unit || (r->unit[0] && strcmp(r->unit, w->unit))) {
			r->ops = -1;
			break;
		}
		snprintf(r->unit, sizeof(r->unit), "%s", w->unit);
		r->ops += (double)w->ops;
	}
	if (r->ops <= 0)
		r->ops = -1;
	free(seen);
}

int lp_run_load(struct lp_run *r, const char *path, enum field_cgroup cg, char *err, size_t errlen)
{
	char *results, why[1024];

	memset(r, 0, sizeof(*r));
	r->ops = -1;
	if (is_dir(path)) {
		char *a = xasprintf("%s/" TRACE_FILE, path), *b = xasprintf("%s/lines/" TRACE_FILE, path);

		if (path_exists(a)) {
			r->lines_dir = xstrdup(path);
			r->trace_path = a;
			free(b);
		} else if (path_exists(b)) {
			r->lines_dir = xasprintf("%s/lines", path);
			r->trace_path = b;
			free(a);
		} else {
			free(a);
			free(b);
			return set_err(err, errlen, "%s: no " TRACE_FILE " in it nor in its lines/ (a run of `memcg-lab vm "
				       "--lines --trace`)", path);
		}
	} else {
		r->trace_path = xstrdup(path);
		r->lines_dir = dir_of(path);
	}
	if (strcmp(base_of(r->lines_dir), "lines"))
		return set_err(err, errlen, "%s: the trace must be in a run's lines directory (RESULTS/lines/" TRACE_FILE
			       ", beside window-objects.tsv and vmlinux.btf)", r->trace_path);
	results = dir_of(r->lines_dir);
	if (lines_guest_load(&r->g, results, why, sizeof(why)) < 0) {
		free(results);
		return set_err(err, errlen, "%s", why);
	}
	free(results);
	if (!r->g.have_btf)
		return set_err(err, errlen, "%s/vmlinux.btf: missing: the guest kernel's BTF names the traced structs' "
			       "fields", r->lines_dir);
	if (cg != FIELD_CG_UNKNOWN)
		r->g.cgroup = cg;
	if (lines_trace_open(&r->trace, r->trace_path, err, errlen) < 0)
		return -1;
	if (!lines_trace_full(&r->trace, r->full, sizeof(r->full)))
		r->full[0] = '\0';
	if (lines_trace_objs_load(&r->objs, r->lines_dir, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < r->objs.n; i++) {
		const struct lines_trace_obj *o = &r->objs.v[i];
		bool seen = false;

		if (o->range)
			continue;
		for (size_t t = 0; t < r->ntypes && !seen; t++)
			seen = !strcmp(r->types[t], o->type);
		if (seen)
			continue;
		r->types = xrealloc(r->types, (r->ntypes + 1) * sizeof(*r->types));
		r->old = xrealloc(r->old, (r->ntypes + 1) * sizeof(*r->old));
		r->types[r->ntypes] = xstrdup(o->type);
		if (lines_layout_from_btf(&r->old[r->ntypes], &r->g.btf, o->type, r->g.cgroup, why, sizeof(why)) < 0) {
			free(r->types[r->ntypes]);
			return set_err(err, errlen, "%s: %s (a struct of the trace's objects)", r->lines_dir, why);
		}
		r->ntypes++;
	}
	if (!r->ntypes)
		return set_err(err, errlen, "%s/" LINES_OBJECTS_FILE ": no objects: nothing in the trace can be named",
			       r->lines_dir);
	trace_ops(r);
	return 0;
}

void lp_run_free(struct lp_run *r)
{
	for (size_t t = 0; t < r->ntypes; t++) {
		free(r->types[t]);
		lines_layout_free(&r->old[t]);
	}
	free(r->types);
	free(r->old);
	lines_trace_objs_free(&r->objs);
	lines_trace_close(&r->trace);
	if (r->g.btf.btf || r->g.nwin || r->g.nobj)
		lines_guest_free(&r->g);
	free(r->lines_dir);
	free(r->trace_path);
	memset(r, 0, sizeof(*r));
}

/* A raw BTF file starts with its magic, 0xeB9F (little-endian). */
static bool raw_btf(const char *path)
{
	unsigned char m[2];
	FILE *f = fopen(path, "re");
	bool raw = f && fread(m, 1, 2, f) == 2 && m[0] == 0x9f && m[1] == 0xeb;

	if (f)
		fclose(f);
	return raw;
}

static int type_index(const struct lp_run *r, const char *st)
{
	for (size_t t = 0; t < r->ntypes; t++)
		if (!strcmp(r->types[t], st))
			return (int)t;
	return -1;
}

static char *type_list(const struct lp_run *r)
{
	char *s = xstrdup("");

	for (size_t t = 0; t < r->ntypes; t++) {
		char *n = xasprintf("%s%s%s", s, t ? ", " : "", r->types[t]);

		free(s);
		s = n;
	}
	return s;
}

int lp_new_layouts(const struct lp_run *r, const struct lp_opts *o, struct ll_layout *news, char **desc,
		   char *err, size_t errlen)
{
	struct kbtf nb;
	bool have_nb = false;
	const struct kbtf *base = &r->g.btf;
	char why[1024];
	int rc = 0;
	size_t made = 0;

	*desc = NULL;
	memset(news, 0, r->ntypes * sizeof(*news));
	if (o->layout) {
		bool raw = raw_btf(o->layout);

		if (kbtf_open(&nb, raw ? o->layout : NULL, raw ? NULL : o->layout, why, sizeof(why)) < 0)
			return set_err(err, errlen, "--layout %s: %s", o->layout, why);
		have_nb = true;
		base = &nb;
	}
	for (; made < r->ntypes; made++) {
		if (!have_nb) {
			lines_layout_copy(&news[made], &r->old[made]);
			continue;
		}
		if (lines_layout_from_btf(&news[made], &nb, r->types[made], r->g.cgroup, why, sizeof(why)) < 0) {
			char *tl = type_list(r);

			rc = set_err(err, errlen, "--layout %s: %s, a struct of the trace's objects (%s)", o->layout, why,
				     tl);
			free(tl);
			goto out;
		}
	}
	if (o->nedits) {
		const char *st = o->st;
		int t;

		if (!st && r->ntypes > 1) {
			char *tl = type_list(r);

			rc = set_err(err, errlen, "--%s %s: say which struct the edits name with --struct (the trace's "
				     "structs: %s, or one inside them)", o->edits[0].kind == LL_MOVE ? "move" :
				     o->edits[0].kind == LL_ALIGN ? "align" : "pad-after", o->edits[0].arg, tl);
			free(tl);
			goto out;
		}
		if (!st)
			st = r->types[0];
		t = type_index(r, st);
		if (t >= 0 && lines_layout_edit(&news[t], o->edits, o->nedits, o->line, err, errlen) < 0) {
			rc = -1;
			goto out;
		}
		{
			/* Inside the traced structs: every member of type st takes the edit. */
			struct ll_layout inner, edited;
			int total = t >= 0 ? 1 : 0;

			if (lines_layout_from_btf(&inner, base, st, r->g.cgroup, why, sizeof(why)) < 0) {
				rc = set_err(err, errlen, "--struct %s: %s", st, why);
				goto out;
			}
			lines_layout_copy(&edited, &inner);
			if (t < 0 && lines_layout_edit(&edited, o->edits, o->nedits, o->line, err, errlen) < 0) {
				lines_layout_free(&inner);
				lines_layout_free(&edited);
				rc = -1;
				goto out;
			}
			if (t >= 0) {
				/* The same edit as applied to the traced struct itself. */
				lines_layout_free(&edited);
				lines_layout_copy(&edited, &news[t]);
			}
			for (size_t k = 0; k < r->ntypes; k++) {
				struct ll_layout out;
				int n;

				if ((int)k == t)
					continue;
				lines_layout_embed(&news[k], &inner, &edited, &out, &n);
				lines_layout_free(&news[k]);
				news[k] = out;
				total += n;
			}
			lines_layout_free(&inner);
			lines_layout_free(&edited);
			if (!total) {
				char *tl = type_list(r);

				rc = set_err(err, errlen, "--struct %s: neither a traced struct nor inside one (the trace's "
					     "structs: %s)", st, tl);
				free(tl);
				goto out;
			}
		}
	}
	{
		char *e = xstrdup("");

		for (size_t k = 0; k < o->nedits; k++) {
			char *n = xasprintf("%s --%s %s", e, o->edits[k].kind == LL_MOVE ? "move" :
					    o->edits[k].kind == LL_ALIGN ? "align" : "pad-after", o->edits[k].arg);

			free(e);
			e = n;
		}
		*desc = xasprintf("%s%s%s%s%s%s, %u-byte lines", o->layout ? "the layout of " : "the recorded layout",
				  o->layout ? o->layout : "", o->nedits ? " edited (struct " : "",
				  o->nedits ? (o->st ? o->st : r->types[0]) : "", e, o->nedits ? ")" : "", o->line);
		free(e);
	}
out:
	if (rc < 0) {
		for (size_t k = 0; k < r->ntypes; k++)
			if (news[k].st)
				lines_layout_free(&news[k]);
	}
	if (have_nb)
		kbtf_close(&nb);
	return rc;
}

void lp_types(const struct lp_run *r, const struct ll_layout *news, struct lr_type *types)
{
	for (size_t t = 0; t < r->ntypes; t++)
		types[t] = (struct lr_type){ r->types[t], &r->old[t], news ? &news[t] : NULL };
}

/* ---- fields.tsv rows ---- */

static int cmp_type_name(const void *a, const void *b, void *arg)
{
	const struct lr_type *t = arg;

	return strcmp(t[*(const size_t *)a].st, t[*(const size_t *)b].st);
}

static size_t *type_order(const struct lr_type *types, size_t n)
{
	size_t *o = xmalloc((n ? n : 1) * sizeof(*o));

	for (size_t i = 0; i < n; i++)
		o[i] = i;
	qsort_r(o, n, sizeof(*o), cmp_type_name, (void *)types);
	return o;
}

static void put_other(FILE *f, const struct ll_layout *l, const struct lr_counts *c, size_t fi)
{
	bool any = false;

	if (lines_replay_events(&c->c[fi]))
		for (size_t g = 0; g < c->nf; g++)
			if (c->other[fi * c->words + g / 64] >> (g % 64) & 1) {
				tsv_write_row(f, "%s%s", any ? "+" : "", l->f[g].name);
				any = true;
			}
	if (!any)
		fputc('-', f);
}

int lp_write_fields(const struct lr_type *types, size_t ntypes, const struct lr_result *res, bool recorded,
		    const char *path, const char *const *comments, char *err, size_t errlen)
{
	FILE *f = outfile_open(path, "w");
	size_t *ord = type_order(types, ntypes);

	for (size_t i = 0; comments && comments[i]; i++)
		fprintf(f, "%s\n", comments[i]);
	tsv_write_header(f, lines_table_cols);
	for (size_t k = 0; k < ntypes; k++) {
		size_t t = ord[k];
		const struct ll_layout *l = recorded ? types[t].old : types[t].new;
		const struct lr_counts *c = &res->counts[t];

		if (!l || !c->c)
			continue;
		for (size_t i = 0; i < l->nf; i++) {
			const struct lines_counts *x = &c->c[i];

			if (!c->on_line[i] && !x->loads && !x->stores)
				continue;
			tsv_write_row(f, "%s\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t", l->st, l->f[i].name,
				U(lines_layout_off(l, i)), U(l->f[i].size), U(x->loads), U(x->stores), U(x->load_hitm),
				U(x->store_hitm + x->store_inval), U(x->false_sharing), U(x->true_sharing));
			put_other(f, l, c, i);
			fputc('\n', f);
		}
	}
	free(ord);
	if (outfile_close(f))
		return set_err(err, errlen, "%s: cannot write: %s", path, strerror(errno));
	return 0;
}

/* ---- printing ---- */

static void print_list(FILE *f, const struct lr_list *l, const char *what, unsigned max)
{
	if (!l->n)
		return;
	fprintf(f, "  %s:", what);
	for (size_t i = 0; i < l->n && i < max; i++)
		fprintf(f, "%s %s (%llu%s%llx)", i ? "," : "", l->v[i].name, U(l->v[i].n),
			l->v[i].pc ? ", e.g. pc 0x" : "", U(l->v[i].pc));
	if (l->n > max)
		fprintf(f, ", and %zu more", l->n - max);
	fputc('\n', f);
}

void lp_print_notes(FILE *f, const struct lr_result *res, const char *which)
{
	fprintf(f, "%s: %llu of %llu records replayed on %llu objects", which, U(res->replayed), U(res->records),
		U(res->regions));
	if (res->outside)
		fprintf(f, "; %llu outside every object (neighbours on traced lines), not replayed", U(res->outside));
	if (res->ranges)
		fprintf(f, "; %llu in the lab's own ranges, not replayed", U(res->ranges));
	if (res->skipped)
		fprintf(f, "; %llu in structs this replay leaves out", U(res->skipped));
	fputc('\n', f);
	print_list(f, &res->missing_structs, "structs the layout lacks (their accesses not replayed)", 8);
	print_list(f, &res->missing_fields, "fields missing from the layout (accesses not replayed)", 8);
	print_list(f, &res->truncated_fields, "fields too small in the layout for an access (not replayed)", 8);
	print_list(f, &res->split_accesses, "accesses the layout splits (replayed as their parts)", 8);
	print_list(f, &res->hole_fields, "accesses to padding (not replayed)", 4);

	if (res->other_unnamed)
		fprintf(f, "  %llu events on lines with more than %d access shapes: their other side is not named\n",
			U(res->other_unnamed), LINES_SHAPES);
}

static void print_meet(FILE *f, const struct lr_result *res, unsigned line)
{
	if (res->edges.n) {
		fprintf(f, "objects of the new layout that would share their first or last line with what lies beside "
			"them at their recorded place (%u-byte lines; the replay gives them lines of their own):\n", line);
		for (size_t i = 0; i < res->edges.n && i < 8; i++)
			fprintf(f, "  %s\n", res->edges.v[i].name);
		if (res->edges.n > 8)
			fprintf(f, "  and %zu more\n", res->edges.n - 8);
	}
	if (!res->nmeet)
		return;
	fprintf(f, "where objects meet in the run (%u-byte lines; the replay gives each object lines of its own):\n",
		line);
	for (size_t i = 0; i < res->nmeet && i < 12; i++) {
		fprintf(f, "  line 0x%llx: %s", U(res->meet[i].line), res->meet[i].what);
		if (res->meet[i].outside)
			fprintf(f, ", %llu accesses outside", U(res->meet[i].outside));
		fputc('\n', f);
	}
	if (res->nmeet > 12)
		fprintf(f, "  and %zu more lines\n", res->nmeet - 12);
}

struct prow {
	const char *name;
	int64_t roff, poff;		/* -1: no such field */
	const struct lines_counts *rc, *pc;
};

static int cmp_prow(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;
	int64_t ox = x->poff >= 0 ? x->poff : x->roff, oy = y->poff >= 0 ? y->poff : y->roff;

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void put_counts(FILE *f, int64_t off, const struct lines_counts *c)
{
	if (off < 0 || !c) {
		fprintf(f, "  %5s %7s %7s %7s", "-", "-", "-", "-");
		return;
	}
	fprintf(f, "  %5lld %7llu %7llu %7llu", (long long)off, U(lines_replay_events(c)), U(c->false_sharing),
		U(c->true_sharing));
}

void lp_print_trace(FILE *f, const struct lp_run *r)
{
	fprintf(f, "trace %s: %llu records, %u vCPUs, status %s\n", r->trace_path, U(r->trace.hdr.nrecords),
		r->trace.hdr.vcpus, lines_trace_status_name(r->trace.hdr.status));
	if (r->full[0])
		fprintf(f, "%s: the prediction covers the records written\n", r->full);
}

void lp_print_granules(FILE *f, const struct lr_type *types, size_t ntypes, unsigned line)
{
	if (line != 128)
		return;
	for (size_t t = 0; t < ntypes; t++) {
		char *g = types[t].new ? lines_replay_granules(types[t].new) : NULL;

		if (g)
			fprintf(f, "at 128-byte lines true and false sharing are told apart per 2 bytes: in struct %s "
				"these fields share 2 bytes and count as one: %s\n", types[t].st, g);
		free(g);
	}
}

void lp_print(FILE *f, const struct lp_run *r, const struct lr_type *types, size_t ntypes,
	      const struct lr_result *rec, const struct lr_result *pred, unsigned line, const char *desc)
{
	lp_print_trace(f, r);
	fprintf(f, "recorded: the guest's own layout (%s), replayed at 64-byte lines\n", r->g.btf.path);
	fprintf(f, "predicted: %s\n", desc);
	lp_print_notes(f, rec, "recorded replay");
	lp_print_notes(f, pred, "predicted replay");
	print_meet(f, pred, line);
	lp_print_granules(f, types, ntypes, line);
	lp_print_tables(f, r, types, ntypes, rec, pred, "recorded layout", "predicted", NULL);
}

void lp_print_tables(FILE *f, const struct lp_run *r, const struct lr_type *types, size_t ntypes,
		     const struct lr_result *rec, const struct lr_result *pred, const char *ta, const char *tb,
		     const bool *only)
{
	size_t *ord = type_order(types, ntypes);

	for (size_t k = 0; k < ntypes; k++) {
		size_t t = ord[k];
		const struct ll_layout *ol = types[t].old, *nl = types[t].new;
		const struct lr_counts *rc = &rec->counts[t], *pc = &pred->counts[t];
		struct prow *rows = NULL;
		size_t n = 0;
		struct lines_counts rs = { 0 }, ps = { 0 };

		if (only && !only[t])
			continue;
		for (size_t i = 0; i < ol->nf; i++)
			if (rc->c && lines_replay_events(&rc->c[i])) {
				rows = xrealloc(rows, (n + 1) * sizeof(*rows));
				rows[n++] = (struct prow){ ol->f[i].name, (int64_t)lines_layout_off(ol, i), -1, &rc->c[i], NULL };
			}
		for (size_t i = 0; nl && pc->c && i < nl->nf; i++) {
			bool found = false;

			for (size_t j = 0; j < n && !found; j++)
				if (!strcmp(rows[j].name, nl->f[i].name)) {
					rows[j].poff = (int64_t)lines_layout_off(nl, i);
					rows[j].pc = &pc->c[i];
					found = true;
				}
			if (!found && lines_replay_events(&pc->c[i])) {
				int oi = lines_layout_find_field(ol, nl->f[i].name);

				rows = xrealloc(rows, (n + 1) * sizeof(*rows));
				rows[n++] = (struct prow){ nl->f[i].name, oi >= 0 ? (int64_t)lines_layout_off(ol, (size_t)oi) : -1,
							   (int64_t)lines_layout_off(nl, i), oi >= 0 ? &rc->c[oi] : NULL,
							   &pc->c[i] };
			}
		}
		for (size_t i = 0; rc->c && i < ol->nf; i++)
			lines_counts_add(&rs, &rc->c[i]);
		for (size_t i = 0; nl && pc->c && i < nl->nf; i++)
			lines_counts_add(&ps, &pc->c[i]);
		fprintf(f, "\nstruct %s: %llu B in the %s, %llu B in the %s%s\n", types[t].st, U(ol->size), ta,
			U(nl ? nl->size : 0), tb, nl ? "" : " (not in it)");
		if (!n) {
			fprintf(f, "  no field has a HITM in either replay\n");
			free(rows);
			continue;
		}
		qsort(rows, n, sizeof(*rows), cmp_prow);
		fprintf(f, "  %-34s  %-29s  %-29s  %s\n", "", ta, tb, "change");
		fprintf(f, "  %-34s  %5s %7s %7s %7s  %5s %7s %7s %7s  %s\n", "field", "off", "HITM", "false", "true", "off",
			"HITM", "false", "true", "HITM");
		for (size_t i = 0; i < n; i++) {
			long long a = rows[i].rc ? (long long)lines_replay_events(rows[i].rc) : 0;
			long long b = rows[i].pc ? (long long)lines_replay_events(rows[i].pc) : 0;

			fprintf(f, "  %-34s", rows[i].name);
			put_counts(f, rows[i].roff, rows[i].rc);
			put_counts(f, rows[i].poff, rows[i].pc);
			if (rows[i].poff < 0)
				fprintf(f, "  (not in the layout)\n");
			else if (a)
				fprintf(f, "  %+lld (%+.0f%%)\n", b - a, 100.0 * (double)(b - a) / (double)a);
			else
				fprintf(f, "  %+lld\n", b - a);
		}
		fprintf(f, "  %-34s  %5s %7llu %7llu %7llu  %5s %7llu %7llu %7llu  %+lld\n", "total", "",
			U(lines_replay_events(&rs)), U(rs.false_sharing), U(rs.true_sharing), "",
			U(lines_replay_events(&ps)), U(ps.false_sharing), U(ps.true_sharing),
			(long long)lines_replay_events(&ps) - (long long)lines_replay_events(&rs));
		if (r->ops > 0)
			fprintf(f, "  per 1000 %s: recorded %.3g HITMs (%.3g false), predicted %.3g (%.3g false)\n",
				r->unit, 1000.0 * (double)lines_replay_events(&rs) / r->ops,
				1000.0 * (double)rs.false_sharing / r->ops, 1000.0 * (double)lines_replay_events(&ps) / r->ops,
				1000.0 * (double)ps.false_sharing / r->ops);
		free(rows);
	}
	free(ord);
}
