// SPDX-License-Identifier: GPL-2.0
/* The directories to plot, their legend labels, and the order of the plots. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "plot/guard.h"
#include "plot/index.h"
#include "plot/kinds.h"
#include "plot/plot.h"
#include "report/labels.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/gnuplot.h"

/* What a legend says of a run's status: nothing when complete. */
static const char *status_note(const char *status)
{
	if (!status || !strcmp(status, "complete"))
		return "";
	if (!strcmp(status, "complete-with-failures"))
		return " (with failures)";
	if (!strcmp(status, "failed"))
		return " (failed)";
	return " (incomplete)";
}

/* d's legend: "A: <label><status>" (report/labels.h says what a side is
 * called); whether it was made in a guest. */
static void label_of(struct plot_dir *d, char tag, const char *label, const char *status_as)
{
	char *mp = xasprintf("%s/meta.json", d->dir);
	json_object *meta = json_object_from_file(mp), *k, *st;
	const char *status = "";

	if (!meta)
		die("%s: cannot read or parse (not a results directory?)", mp);
	if (status_as)
		status = status_note(status_as);
	else if (json_object_object_get_ex(meta, "status", &st))
		status = status_note(json_object_get_string(st));
	snprintf(d->label, sizeof(d->label), "%c: %s%s", tag, label, status);
	d->in_vm = json_object_object_get_ex(meta, "vm", &k);
	json_object_put(meta);
	free(mp);
}

/* A directory's path with "." and ".." resolved (malloc'd); as given
 * where it cannot be (the caller's reading of it then says why). */
static char *resolved(const char *dir)
{
	char *r = realpath(dir, NULL);

	return r ? r : xstrdup(dir);
}

char *plot_default_out(const char *const *dirs, int ndirs)
{
	char *a, *ra, *name, *parent, *out;
	size_t plen;

	if (ndirs < 2)
		return xasprintf("%s/plots", dirs[0]);
	/* Resolved: "plot . ../b" from inside A still goes beside A. */
	ra = resolved(dirs[0]);
	a = path_last_name(ra);
	name = xasprintf("compare-%s", a);
	for (int i = 1; i < ndirs; i++) {
		char *rb = resolved(dirs[i]), *b = path_last_name(rb), *n = xasprintf("%s-vs-%s", name, b);

		free(rb);
		free(b);
		free(name);
		name = n;
	}
	/* A's parent: the path before its last component, or "." */
	plen = strlen(ra);
	while (plen > 1 && ra[plen - 1] == '/')
		plen--;
	while (plen && ra[plen - 1] != '/')
		plen--;
	parent = plen ? xasprintf("%.*s", (int)plen, ra) : xstrdup("./");
	out = xasprintf("%s%s/plots", parent, name);
	free(parent);
	free(name);
	free(a);
	free(ra);
	return out;
}

int plot_dirs(const char *const *names, int ndirs, const struct plot_request *req)
{
	struct plot_dir *dirs;
	struct plot_target t = { NULL, req->width, req->height, NULL, 0, NULL };
	char why[256], *outdir, *rest, (*labels)[LABEL_LEN];
	int nplots;

	if (ndirs < 1)
		die("plot: needs at least one results directory");
	if (!gnuplot_available(why, sizeof(why)))
		die("plot: %s", why);
	if (ndirs > LABELS_MAX)
		die("plot: at most %d results directories (got %d)", LABELS_MAX, ndirs);
	dirs = xcalloc(ndirs, sizeof(*dirs));
	labels = xcalloc(ndirs, sizeof(*labels));
	labels_of(req->labels, names, ndirs, labels);
	for (int i = 0; i < ndirs; i++) {
		char err[512];

		dirs[i].dir = names[i];
		label_of(&dirs[i], 'A' + i, labels[i], i == 0 ? req->status_as : NULL);
		dirs[i].have_metrics = !metrics_load(dirs[i].dir, &dirs[i].m, err, sizeof(err));
		if (!dirs[i].have_metrics && errno != ENOENT && !strstr(err, "No such file"))
			die("%s", err);
	}
	outdir = req->out ? xstrdup(req->out) : plot_default_out(names, ndirs);
	if (mkdir_p(outdir, 0755))
		die("%s: cannot create: %s", outdir, strerror(errno));
	t.out = outdir;
	/* The headline plots stay in outdir, the rest go below it. */
	t.nheadlines = plot_headlines_of(dirs[0].dir, &t.headlines);
	rest = xasprintf("%s/" PLOT_REST_DIR, outdir);
	t.rest = rest;
	if (t.nheadlines && mkdir_p(rest, 0755))
		die("%s: cannot create: %s", rest, strerror(errno));
	/* A run's own plots/ (never an A/B's: it goes beside A). */
	if (!req->out && !req->status_as && ndirs == 1)
		plot_guard_begin(dirs[0].dir);
	plot_set_quiet(req->quiet);
	nplots = plot_series(dirs, ndirs, &t);
	nplots += plot_bars(dirs, ndirs, &t);
	nplots += plot_cdfs(dirs, ndirs, &t);
	nplots += plot_layout_maps(&dirs[0], &t);
	nplots += plot_fieldmaps(&dirs[0], &t);
	nplots += plot_linesmaps(dirs, ndirs, &t);
	nplots += plot_linesbars(dirs, ndirs, &t);
	if (!nplots && !req->quiet)
		printf("plot: nothing to plot in %s (no metrics in data/metrics.tsv, no data/hist-*.tsv)\n",
		       dirs[0].dir);
	else
		plot_index_write(&t, names, ndirs);
	plot_guard_end();
	plot_headlines_free(t.headlines, t.nheadlines);
	free(rest);
	for (int i = 0; i < ndirs; i++)
		metrics_free(&dirs[i].m);
	free(dirs);
	free(labels);
	free(outdir);
	return nplots;
}
