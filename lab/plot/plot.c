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

/* A lab kernel's patches, from the guest run's kernel_package ("lab kernel:
 * linux-source-7.3 7.3.4-1, patches: 0001-a.patch 0002-b.patch + ..."):
 * " +a +b", or " unpatched"; "" for any other kernel.  Both sides of a lab
 * kernel's A/B have one release: this tells them apart. */
static void lab_patches(json_object *meta, char *buf, size_t n)
{
	json_object *vm, *pkg;
	const char *p, *end;
	size_t len = 0;

	buf[0] = '\0';
	if (!json_object_object_get_ex(meta, "vm", &vm) || !json_object_object_get_ex(vm, "kernel_package", &pkg))
		return;
	p = json_object_get_string(pkg);
	if (strncmp(p, "lab kernel:", 11))
		return;
	if (strstr(p, ", unpatched")) {
		snprintf(buf, n, " unpatched");
		return;
	}
	p = strstr(p, ", patches: ");
	if (!p)
		return;
	p += strlen(", patches: ");
	end = strstr(p, " + ");
	while (p < (end ? end : p + strlen(p)) && len + 2 < n) {
		size_t w = strcspn(p, " ");
		const char *name = p, *dot = memmem(p, w, ".patch", 6);

		/* "0001-" off the front, ".patch" off the end. */
		if (w > 5 && name[4] == '-' && strspn(name, "0123456789") == 4)
			name += 5;
		len += snprintf(buf + len, n - len, " +%.*s", (int)((dot ? dot : p + w) - name), name);
		p += w;
		while (*p == ' ')
			p++;
	}
}

static void label_of(struct plot_dir *d, char tag, const char *status_as)
{
	char *mp = xasprintf("%s/meta.json", d->dir);
	json_object *meta = json_object_from_file(mp), *probe, *k, *st;
	const char *kernel = "kernel ?", *status = "";

	if (!meta)
		die("%s: cannot read or parse (not a results directory?)", mp);
	if (json_object_object_get_ex(meta, "probe", &probe) && json_object_object_get_ex(probe, "kernel", &k))
		kernel = json_object_get_string(k);
	else if (json_object_object_get_ex(meta, "uname", &k))
		kernel = json_object_get_string(k);	/* a driver's own run: the host's kernel */
	if (status_as)
		status = status_note(status_as);
	else if (json_object_object_get_ex(meta, "status", &st))
		status = status_note(json_object_get_string(st));
	{
		char patches[96];

		lab_patches(meta, patches, sizeof(patches));
		snprintf(d->label, sizeof(d->label), "%c: %s%s%s", tag, kernel, patches, status);
	}
	d->in_vm = json_object_object_get_ex(meta, "vm", &k);
	json_object_put(meta);
	free(mp);
}

int plot_dirs(const char *const *names, int ndirs, const struct plot_request *req)
{
	struct plot_dir *dirs;
	struct plot_target t = { NULL, req->width, req->height, NULL, 0, NULL };
	char why[256], *outdir, *rest;
	int nplots;

	if (ndirs < 1)
		die("plot: needs at least one results directory");
	if (!gnuplot_available(why, sizeof(why)))
		die("plot: %s", why);
	dirs = xcalloc(ndirs, sizeof(*dirs));
	for (int i = 0; i < ndirs; i++) {
		char err[512];

		dirs[i].dir = names[i];
		label_of(&dirs[i], 'A' + (i < 26 ? i : 25), i == 0 ? req->status_as : NULL);
		dirs[i].have_metrics = !metrics_load(dirs[i].dir, &dirs[i].m, err, sizeof(err));
		if (!dirs[i].have_metrics && errno != ENOENT && !strstr(err, "No such file"))
			die("%s", err);
	}
	outdir = req->out ? xstrdup(req->out) : xasprintf("%s/plots", dirs[0].dir);
	if (mkdir_p(outdir, 0755))
		die("%s: cannot create: %s", outdir, strerror(errno));
	t.out = outdir;
	/* The headline plots stay in outdir, the rest go below it. */
	t.nheadlines = plot_headlines_of(dirs[0].dir, &t.headlines);
	rest = xasprintf("%s/" PLOT_REST_DIR, outdir);
	t.rest = rest;
	if (t.nheadlines && mkdir_p(rest, 0755))
		die("%s: cannot create: %s", rest, strerror(errno));
	if (!req->out && !req->status_as)
		plot_guard_begin(dirs[0].dir);
	nplots = plot_series(dirs, ndirs, &t);
	nplots += plot_bars(dirs, ndirs, &t);
	nplots += plot_cdfs(dirs, ndirs, &t);
	nplots += plot_layout_maps(&dirs[0], &t);
	nplots += plot_fieldmaps(&dirs[0], &t);
	nplots += plot_linesmaps(dirs, ndirs, &t);
	nplots += plot_linesbars(dirs, ndirs, &t);
	if (!nplots)
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
	free(outdir);
	return nplots;
}
