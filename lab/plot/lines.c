// SPDX-License-Identifier: GPL-2.0
/*
 * The plots of a guest run's exact cacheline counts (the lines plugin's
 * lines/fields.tsv, report/lines_fields.h):
 *
 *   linesmap-<struct>[.B ...]  the struct's cacheline map, each field
 *              coloured by its measured HITMs: false sharing, true
 *              sharing, none; one per run (A's without a suffix);
 *   linesbars-<struct>  per field with HITMs, a bar per run (A, B, ...):
 *              false sharing below, true sharing above, per 1000
 *              operations of the windows where every run counted them;
 *   linesmap-<struct>[.B].predicted  beside a run's maps, those its trace
 *              predicted (`lines predict` wrote predicted-fields.tsv in its
 *              lines/), at the prediction's line size;
 *   linessteps-<struct>  where the windows carry numeric labels (the
 *              stock sweep's K=1..N): the struct's HITMs per 1000
 *              operations of each label's windows, one line per run.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plot/kinds.h"
#include "plot/plot.h"
#include "plot/plotmaps.h"
#include "plot/guard.h"
#include "report/lines_fields.h"
#include "report/lines_predicted.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/gnuplot.h"
#include "util/outfile.h"
#include "util/tsv.h"

#define LINESIZE 64
#define MAX_STRUCTS 32

/* A run's counts: every window (lines/), and its operations. */
struct lrun {
	char *dir;		/* lines/ (with its '/') */
	struct lines_fields lf;
	double ops;		/* -1: not counted */
	char unit[32];
};

static bool load_run(const struct plot_dir *d, struct lrun *r, const char *sub)
{
	char err[512], why[512], *f;

	memset(r, 0, sizeof(*r));
	r->ops = -1;
	r->dir = lines_dir_of(d->dir, d->in_vm, sub);
	if (!r->dir)
		return false;
	f = xasprintf("%s" LINES_FIELDS_FILE, r->dir);
	if (lines_fields_load(f, &r->lf, err, sizeof(err)))
		die("%s", err);
	if (!lines_ops_of(f, &r->ops, r->unit, sizeof(r->unit), why, sizeof(why)))
		r->ops = -1;
	free(f);
	return true;
}

static void free_run(struct lrun *r)
{
	lines_fields_free(&r->lf);
	free(r->dir);
}

/* The structs of a run's rows, in their order (at most MAX_STRUCTS). */
static int structs_of(const struct lines_fields *lf, const char **st, int n)
{
	for (size_t i = 0; i < lf->n; i++) {
		bool seen = false;

		for (int k = 0; k < n && !seen; k++)
			seen = !strcmp(st[k], lf->r[i].st);
		if (!seen && n < MAX_STRUCTS)
			st[n++] = lf->r[i].st;
	}
	return n;
}

/* Do all runs count the same unit of operations? */
static bool per_ops(const struct lrun *r, int n)
{
	for (int i = 0; i < n; i++)
		if (r[i].ops <= 0 || strcmp(r[i].unit, r[0].unit))
			return false;
	return n > 0;
}

/*
 * Beside a run's measured maps, the maps its trace predicted (lines
 * predict wrote predicted-fields.tsv into its lines/): linesmap-<struct>.predicted,
 * at the prediction's line size, per 1000 operations of the trace's windows.
 */
static int emit_predicted(const struct plot_dir *d, const struct lrun *r, const char *sfx, const struct plot_target *t)
{
	char *path = xasprintf("%s" LINES_PREDICTED_TSV, r->dir), err[512];
	struct lines_fields pl;
	struct lines_pred_meta pm;
	const char *st[MAX_STRUCTS];
	int nst, nplots = 0;
	struct plot_target beside = *t;

	beside.nheadlines = 0;
	if (access(path, R_OK)) {
		free(path);
		return 0;
	}
	if (lines_predicted_load(path, &pl, &pm, err, sizeof(err)))
		die("%s", err);
	nst = structs_of(&pl, st, 0);
	for (int k = 0; k < nst; k++) {
		struct cl_struct s;
		char *notes, *name, *title, *what;
		int ls = pm.line_size == 128 ? 128 : LINESIZE;

		if (plotmap_lines_struct(&pl, st[k], ls, pm.ops, &s, &notes) < 0)
			continue;
		name = xasprintf("linesmap-%s%s.predicted", st[k], sfx);
		/* Where the measured map goes (a headline's beside it). */
		{
			char *measured = xasprintf("linesmap-%s%s", st[k], sfx);

			beside.out = plot_out(t, measured);
			free(measured);
		}
		title = xasprintf("struct %s: predicted from %s's trace, %s", st[k], d->label,
				  pm.layout[0] ? pm.layout : "a layout the file does not name");
		what = xasprintf("%s: beside the measured map, each field coloured by its predicted HITMs (lines predict "
				 "replayed the run's trace on that layout)%s%s", title, pm.ops > 0 ? ", over " : "",
				 pm.ops > 0 ? pm.unit : "");
		{
			struct map_spec m = { "linesmap", name, title, what, notes };

			plot_map(&s, &m, &beside);
		}
		nplots++;
		plotmap_struct_free(&s);
		free(notes);
		free(name);
		free(title);
		free(what);
	}
	lines_fields_free(&pl);
	free(path);
	return nplots;
}

static int emit_maps(const struct plot_dir *d, int idx, const struct plot_target *t)
{
	struct lrun r;
	const char *st[MAX_STRUCTS];
	int nst, nplots = 0;

	if (!load_run(d, &r, NULL))
		return 0;
	nst = structs_of(&r.lf, st, 0);
	for (int k = 0; k < nst; k++) {
		struct cl_struct s;
		char *notes, *name, *title, *what, *sfx = idx ? xasprintf(".%c", 'A' + (idx < 26 ? idx : 25)) : xstrdup("");

		if (plotmap_lines_struct(&r.lf, st[k], LINESIZE, r.ops, &s, &notes) < 0) {
			free(sfx);
			continue;
		}
		name = xasprintf("linesmap-%s%s", st[k], sfx);
		title = xasprintf("struct %s: measured cacheline transfers per field (%s)", st[k], d->label);
		what = xasprintf("%s: each line the lines plugin followed a row, each field's bytes a box coloured by "
				 "its HITMs in the windows (false sharing, true sharing, none)%s%s", title,
				 r.ops > 0 ? ", over " : "", r.ops > 0 ? r.unit : "");
		{
			struct map_spec m = { "linesmap", name, title, what, notes };

			plot_map(&s, &m, t);
		}
		nplots++;
		plotmap_struct_free(&s);
		free(notes);
		free(name);
		free(title);
		free(what);
		free(sfx);
	}
	{
		char *sfx = idx ? xasprintf(".%c", 'A' + (idx < 26 ? idx : 25)) : xstrdup("");

		nplots += emit_predicted(d, &r, sfx, t);
		free(sfx);
	}
	free_run(&r);
	return nplots;
}

int plot_lines_file_map(const char *fields_tsv, const char *st, int linesize, const char *name, const char *title,
			const char *out, bool quiet, FILE *text_out, char *err, size_t errlen)
{
	struct lines_fields lf;
	struct plot_target t = { .out = out, .w = 900, .h = 400 };
	struct cl_struct s;
	char *notes, *what, *txt, *text;

	if (lines_fields_load(fields_tsv, &lf, err, errlen))
		return -1;
	if (plotmap_lines_struct(&lf, st, linesize, -1, &s, &notes) < 0) {
		lines_fields_free(&lf);
		return 0;
	}
	what = xasprintf("%s: each line a row (%d bytes), each field's bytes a box coloured by its HITMs (false "
			 "sharing, true sharing, none)", title, linesize);
	{
		struct map_spec m = { "linesmap", name, title, what, notes };

		plot_set_quiet(quiet);
		plot_map(&s, &m, &t);
	}
	txt = xasprintf("%s/%s.txt", out, name);
	text = text_out ? read_text(txt, NULL) : NULL;
	if (text)
		fprintf(text_out, "\n%s", text);
	free(text);
	free(txt);
	plotmap_struct_free(&s);
	free(notes);
	free(what);
	lines_fields_free(&lf);
	return 1;
}

int plot_linesmaps(struct plot_dir *dirs, int ndirs, const struct plot_target *t)
{
	int n = 0;

	for (int i = 0; i < ndirs; i++)
		n += emit_maps(&dirs[i], i, t);
	return n;
}

/* A field's HITMs in a run: false, true (0 without its row). */
static void field_counts(const struct lines_fields *lf, const char *st, const char *field, double *f, double *tr)
{
	*f = *tr = 0;
	for (size_t i = 0; i < lf->n; i++)
		if (!strcmp(lf->r[i].st, st) && !strcmp(lf->r[i].field, field)) {
			*f += lf->r[i].false_hitm;
			*tr += lf->r[i].true_hitm;
		}
}

struct bfield {
	const char *field;
	long offset;
};

static int by_offset(const void *a, const void *b)
{
	const struct bfield *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return strcmp(x->field, y->field);
}

static int emit_bars(struct lrun *r, const struct plot_dir *dirs, int ndirs, const char *st,
		     const struct plot_target *t)
{
	struct bfield *f = NULL;
	size_t nf = 0;
	bool per = per_ops(r, ndirs);
	char *name, *data, *base, *title, *ylabel, *what, *vars = NULL, *labels = xstrdup("");
	FILE *tsv;

	/* The fields with a HITM in any run, in offset order. */
	for (int d = 0; d < ndirs; d++)
		for (size_t i = 0; i < r[d].lf.n; i++) {
			const struct lines_row *x = &r[d].lf.r[i];
			bool seen = false;

			if (strcmp(x->st, st) || x->hitm_loads + x->hitm_stores == 0)
				continue;
			for (size_t k = 0; k < nf && !seen; k++)
				seen = !strcmp(f[k].field, x->field);
			if (!seen) {
				f = xrealloc(f, (nf + 1) * sizeof(*f));
				f[nf++] = (struct bfield){ x->field, x->offset };
			}
		}
	if (!nf) {
		free(labels);
		return 0;
	}
	qsort(f, nf, sizeof(*f), by_offset);
	name = xasprintf("linesbars-%s", st);
	data = xasprintf("%s/%s.tsv", plot_out(t, name), name);
	base = xasprintf("%s/%s", plot_out(t, name), name);
	tsv = outfile_open(data, "w");
	fprintf(tsv, "field");
	for (int d = 0; d < ndirs; d++)
		fprintf(tsv, "\tfalse_%c\ttrue_%c", 'A' + d, 'A' + d);
	fprintf(tsv, "\n");
	for (size_t k = 0; k < nf; k++) {
		fprintf(tsv, "%s", f[k].field);
		for (int d = 0; d < ndirs; d++) {
			double fa, tr, s = per ? 1000 / r[d].ops : 1;

			field_counts(&r[d].lf, st, f[k].field, &fa, &tr);
			fprintf(tsv, "\t%.6g\t%.6g", fa * s, tr * s);
		}
		fprintf(tsv, "\n");
	}
	if (outfile_close(tsv))
		plot_guard_unwritten(data);
	for (int d = 0; d < ndirs; d++) {
		char *l = xasprintf("%s%s%s", labels, d ? "|" : "", dirs[d].label);

		free(labels);
		labels = l;
	}
	title = xasprintf("struct %s: HITMs per field, false and true sharing (lines plugin)", st);
	ylabel = per ? xasprintf("HITMs per 1000 %s", r[0].unit) : xstrdup("HITMs in the windows");
	what = xasprintf("%s: a bar per run and field with HITMs (%s), false sharing below, true sharing above%s", title,
			 labels, per ? ", per 1000 operations of the windows" : "");
	gnuplot_var(&vars, "title", title);
	gnuplot_var(&vars, "file", data);
	gnuplot_var(&vars, "ylabel", ylabel);
	for (int d = 0; d < ndirs; d++) {
		char v[32];

		snprintf(v, sizeof(v), "label%d", d + 1);
		gnuplot_var(&vars, v, dirs[d].label);
	}
	gnuplot_var_int(&vars, "nruns", ndirs);
	gnuplot_var_int(&vars, "nfields", (int)nf);
	plot_render("linesbars", vars, base, t->w, t->h, 0, what);
	free(f);
	free(name);
	free(data);
	free(base);
	free(title);
	free(ylabel);
	free(what);
	free(vars);
	free(labels);
	return 1;
}

/* The labels with a fields.tsv under a lines directory, PARAM=NUMBER only,
 * in numeric order; their PARAM in param. */
static int numeric_labels(const char *dir, char ***out, char *param, size_t plen)
{
	struct dirent **ents;
	int ne = scandir(dir, &ents, NULL, versionsort), n = 0;

	*out = NULL;
	for (int i = 0; i < ne; i++) {
		const char *nm = ents[i]->d_name, *eq = strchr(nm, '=');
		char *f = xasprintf("%s%s/" LINES_FIELDS_FILE, dir, nm), *end;

		if (eq && eq > nm && eq[1] && (strtol(eq + 1, &end, 10), !*end) && !access(f, F_OK) &&
		    (!param[0] || !strncmp(param, nm, (size_t)(eq - nm)))) {
			snprintf(param, plen, "%.*s", (int)(eq - nm), nm);
			*out = xrealloc(*out, (n + 1) * sizeof(**out));
			(*out)[n++] = xstrdup(nm);
		}
		free(f);
		free(ents[i]);
	}
	if (ne >= 0)
		free(ents);
	return n;
}

/* linessteps-<struct>: per numeric label, the struct's HITMs per 1000
 * operations of its windows, one line per run. */
static int emit_steps(const struct plot_dir *dirs, int ndirs, const char *st, const struct plot_target *t)
{
	char *vars = NULL, param[64] = "", *name = xasprintf("linessteps-%s", st), *title, *ylabel, *what, unit[32] = "";
	int nfiles = 0;

	for (int d = 0; d < ndirs; d++) {
		char *top = lines_dir_of(dirs[d].dir, dirs[d].in_vm, NULL), **labels = NULL, *path;
		int nl = top ? numeric_labels(top, &labels, param, sizeof(param)) : 0, rows = 0;
		FILE *f;

		if (nl < 2) {
			for (int i = 0; i < nl; i++)
				free(labels[i]);
			free(labels);
			free(top);
			continue;
		}
		path = xasprintf("%s/%s.%c.tsv", plot_out(t, name), name, 'A' + d);
		f = outfile_open(path, "w");
		fprintf(f, "step\tmean\tstddev\n");
		for (int i = 0; i < nl; i++) {
			struct lrun r;
			double v = 0;

			if (load_run(&dirs[d], &r, labels[i]) && r.ops > 0) {
				for (size_t k = 0; k < r.lf.n; k++)
					if (!strcmp(r.lf.r[k].st, st))
						v += r.lf.r[k].hitm_loads + r.lf.r[k].hitm_stores;
				tsv_write_row(f, "%s\t%.6g\t0\n", strchr(labels[i], '=') + 1, v * 1000 / r.ops);
				snprintf(unit, sizeof(unit), "%s", r.unit);
				rows++;
			}
			if (r.dir)
				free_run(&r);
			free(labels[i]);
		}
		free(labels);
		free(top);
		if (outfile_close(f))
			plot_guard_unwritten(path);
		if (rows)
			plot_add_file(&vars, ++nfiles, path, dirs[d].label);
		free(path);
	}
	if (!nfiles) {
		free(vars);
		free(name);
		return 0;
	}
	title = xasprintf("struct %s: HITMs per 1000 %s at each %s (lines plugin)", st, unit, param);
	ylabel = xasprintf("HITMs per 1000 %s", unit);
	what = xasprintf("%s: each %s's windows, the struct's HITMs over the operations they counted, one line per run",
			 title, param);
	{
		char *base = xasprintf("%s/%s", plot_out(t, name), name);

		gnuplot_var(&vars, "xlabel", param);
		gnuplot_var_int(&vars, "nfiles", nfiles);
		gnuplot_var(&vars, "title", title);
		gnuplot_var(&vars, "ylabel", ylabel);
		plot_render("series", vars, base, t->w, t->h, 0, what);
		free(base);
	}
	free(vars);
	free(title);
	free(ylabel);
	free(what);
	free(name);
	return 1;
}

int plot_linesbars(struct plot_dir *dirs, int ndirs, const struct plot_target *t)
{
	struct lrun *r = xcalloc(ndirs, sizeof(*r));
	const char *st[MAX_STRUCTS];
	int nst = 0, nplots = 0, have = 0;

	for (int d = 0; d < ndirs; d++)
		have += load_run(&dirs[d], &r[d], NULL);
	/* Every run has counts, or none is drawn: a bar of zeros would say 0. */
	if (have == ndirs) {
		for (int d = 0; d < ndirs; d++)
			nst = structs_of(&r[d].lf, st, nst);
		for (int k = 0; k < nst; k++) {
			nplots += emit_bars(r, dirs, ndirs, st[k], t);
			nplots += emit_steps(dirs, ndirs, st[k], t);
		}
	} else if (have) {
		printf("plot: cacheline counts (lines/fields.tsv) in %d of the %d runs: no linesbars\n", have, ndirs);
	}
	for (int d = 0; d < ndirs; d++)
		if (r[d].dir)
			free_run(&r[d]);
	free(r);
	return nplots;
}
