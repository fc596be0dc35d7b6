// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab plot: gnuplot renderings of one or more results directories,
 * each as PNG, SVG and an ASCII (dumb terminal) text to paste into a mail.
 *
 *  - series-<metric>: every metric measured at numeric schedule steps
 *    (data/metrics.tsv), one line per directory (A vs B), stddev bars;
 *  - cdf-<group>: latency histograms data/hist-<group>.<series>.tsv as
 *    CDFs, one line per series (e.g. read latency per level, lock wait and
 *    hold); their "# title:" lines name the lock and the method;
 *  - cachelines-<struct>: the cacheline map of each struct of a layout
 *    capture (data/layout/cachelines.txt), hot-written and read-mostly
 *    fields coloured;
 *  - falsesharing-<struct>: c2c's HITMs per field of a struct, split into
 *    reading and writing functions (fieldmap-<struct>.tsv of a c2c window).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "analyze/hist.h"
#include "analyze/plotmaps.h"
#include "analyze/stats.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/gnuplot.h"
#include "util/metrics.h"
#include "util/outfile.h"

static const char usage_text[] =
"usage: memcg-lab plot DIR [DIR...] [--out DIR] [--size WIDTHxHEIGHT]\n"
"\n"
"Plots results directories with the gnuplot templates in plots/: each plot as\n"
"PNG, SVG and a 79x24 ASCII rendering (.txt) to paste into a mail.  With\n"
"several directories the series are drawn against each other (A vs B).\n"
"Plots: every stepped metric (series-*), every latency histogram as a CDF\n"
"(cdf-*: stat-read levels, lock waits and holds), the cacheline map of each\n"
"captured struct layout (cachelines-*), and c2c's false-sharing map per\n"
"struct field (falsesharing-*).\n"
"\n"
"  --out DIR     where to write (default: the first DIR's plots/)\n"
"  --size WxH    PNG/SVG size in pixels (default 800x500)\n"
"  --status S    label the first DIR with status S instead of its meta.json's\n"
"                (run passes the status it is finishing with)\n"
"  -h, --help    this text\n";

struct pdir {
	const char *dir;
	char label[160];
	struct metrics m;
	bool have_metrics;
};

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

static void label_of(struct pdir *d, char tag, const char *status_as)
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
	snprintf(d->label, sizeof(d->label), "%c: %s%s", tag, kernel, status);
	json_object_put(meta);
	free(mp);
}

/*
 * The results directory whose own plots/ this plot rewrites (NULL when the
 * runner started it, --status: the runner owns meta.json, or --out is
 * elsewhere), and its meta.json.  While plots/ is being rewritten the run
 * says "incomplete" (its status before is kept in "status_before_plot"),
 * and only once every plot was written in full does it get that status
 * back: a plot cut short by a full disk, or killed, leaves no "complete"
 * run behind it.
 */
static const char *plots_of_run;
static json_object *run_meta;

static int run_meta_write(void)
{
	const char *s = json_object_to_json_string_ext(run_meta, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	char *mp = xasprintf("%s/meta.json", plots_of_run), *text = xasprintf("%s\n", s);
	int r = outfile_write(mp, text, strlen(text));

	free(mp);
	free(text);
	return r;
}

static void plots_begin(const char *dir)
{
	char *mp = xasprintf("%s/meta.json", dir);
	json_object *st, *before;

	plots_of_run = dir;
	run_meta = json_object_from_file(mp);
	if (!run_meta)
		die("%s: cannot read or parse (not a results directory?)", mp);
	free(mp);
	if (!json_object_object_get_ex(run_meta, "status_before_plot", &before)) {
		if (!json_object_object_get_ex(run_meta, "status", &st))
			return;		/* a directory without a status: nothing to guard */
		json_object_object_add(run_meta, "status_before_plot", json_object_get(st));
	}
	json_object_object_add(run_meta, "status", json_object_new_string("incomplete"));
	if (run_meta_write())
		exit(EXIT_LAB_ERR);	/* nothing is rewritten yet; the line is printed */
}

static void plots_end(void)
{
	json_object *before;

	if (!run_meta || !json_object_object_get_ex(run_meta, "status_before_plot", &before))
		return;
	/* A run that was complete: what an earlier plot left unwritten is
	 * written now. */
	if (!strcmp(json_object_get_string(before), "complete"))
		json_object_object_del(run_meta, "unwritten");
	json_object_object_add(run_meta, "status", json_object_get(before));
	json_object_object_del(run_meta, "status_before_plot");
	run_meta_write();	/* if this fails, the run stays "incomplete" */
}

/*
 * A file of the plots could not be written; its one line is printed
 * (util/outfile.h).  The file cut short is removed; the run's status stays
 * "incomplete" (plots_begin).  The plots after it would go to the same
 * full disk: plot stops here.
 */
static void __attribute__((noreturn)) plots_unwritten(const char *partial)
{
	if (partial)
		unlink(partial);
	if (run_meta) {
		json_object_object_add(run_meta, "unwritten", json_object_new_string(outfile_first_failure()));
		run_meta_write();	/* best effort: the status on disk says incomplete already */
	}
	exit(EXIT_LAB_ERR);
}

/* gnuplot_render's err: a plot it could not write is a file unwritten. */
static void __attribute__((noreturn)) render_failed(const char *err)
{
	if (outfile_failed())
		plots_unwritten(NULL);
	die("plot: %s", err);
}

static char *safe_name(const char *s)
{
	char *o = xstrdup(s);

	for (char *p = o; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '_' || *p == '-'))
			*p = '_';
	return o;
}

/* Writes "step_value mean stddev" rows of one metric; false if none. */
static bool write_series(const struct pdir *d, const char *metric, const char *path, char *xname, size_t xn)
{
	FILE *f = outfile_open(path, "w");
	double steps[256];
	size_t nsteps = 0;

	fprintf(f, "step\tmean\tstddev\n");
	for (size_t i = 0; i < d->m.n && nsteps < 256; i++) {
		double x;
		bool seen = false;

		if (strcmp(d->m.rows[i].metric, metric) || !metrics_step_value(d->m.rows[i].step, xname, xn, &x))
			continue;
		for (size_t s = 0; s < nsteps; s++)
			seen |= steps[s] == x;
		if (!seen)
			steps[nsteps++] = x;
	}
	for (size_t s = 0; s < nsteps; s++) {
		double v[1024];
		size_t n = 0;
		struct sample_stats st;
		char tmp[64];
		double x;

		for (size_t i = 0; i < d->m.n && n < 1024; i++)
			if (!strcmp(d->m.rows[i].metric, metric) &&
			    metrics_step_value(d->m.rows[i].step, tmp, sizeof(tmp), &x) && x == steps[s])
				v[n++] = d->m.rows[i].value;
		sample_stats(v, n, &st);
		fprintf(f, "%.17g\t%.17g\t%.17g\n", steps[s], st.mean, st.stddev);
	}
	if (outfile_close(f))
		plots_unwritten(path);
	return nsteps > 0;
}

/* file<i>=PATH and label<i>=LABEL for the templates' loops over series. */
static void add_file(char **vars, int i, const char *path, const char *label)
{
	char name[32];

	snprintf(name, sizeof(name), "file%d", i);
	gnuplot_var(vars, name, path);
	snprintf(name, sizeof(name), "label%d", i);
	gnuplot_var(vars, name, label);
}

static int plot_series(struct pdir *dirs, int ndirs, const char *out, int w, int h)
{
	int nplots = 0;

	for (size_t i = 0; i < dirs[0].m.n; i++) {
		const struct metric_row *r = &dirs[0].m.rows[i];
		char xname[64], err[512], *vars, *base, *sm;
		double x;
		bool first = true;
		int nfiles = 0;

		/* Every stepped metric: counts such as the stock's holders show
		 * a cliff as well as rates do. */
		if (!metrics_step_value(r->step, xname, sizeof(xname), &x))
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(dirs[0].m.rows[j].metric, r->metric) ||
				!metrics_step_value(dirs[0].m.rows[j].step, xname, sizeof(xname), &x);
		if (!first)
			continue;
		sm = safe_name(r->metric);
		vars = NULL;
		for (int d = 0; d < ndirs; d++) {
			char *path = xasprintf("%s/series-%s.%d.tsv", out, sm, d);

			if (!dirs[d].have_metrics || !write_series(&dirs[d], r->metric, path, xname, sizeof(xname))) {
				unlink(path);
				free(path);
				continue;
			}
			add_file(&vars, ++nfiles, path, dirs[d].label);
			free(path);
		}
		{
			char *title = xasprintf("%s vs %s", r->metric, xname);
			char *ylabel = xasprintf("%s [%s]", r->metric, r->unit);

			gnuplot_var_int(&vars, "nfiles", nfiles);
			gnuplot_var(&vars, "title", title);
			gnuplot_var(&vars, "xlabel", xname);
			gnuplot_var(&vars, "ylabel", ylabel);
			free(title);
			free(ylabel);
		}
		base = xasprintf("%s/series-%s", out, sm);
		if (gnuplot_render("series", vars, base, w, h, err, sizeof(err)))
			render_failed(err);
		printf("plot: %s.{png,svg,txt}\n", base);
		nplots++;
		free(base);
		free(vars);
		free(sm);
	}
	return nplots;
}

/* Adds a histogram file into h; returns its "# title:" line (malloc'd) or NULL. */
static char *read_hist(const char *hist_path, struct hist *h)
{
	FILE *in = fopen(hist_path, "re");
	char line[512], *title = NULL;
	int bad;

	if (!in)
		die("%s: cannot read: %s", hist_path, strerror(errno));
	while (fgets(line, sizeof(line), in) && line[0] == '#')
		if (!strncmp(line, "# title:", 8) && !title) {
			line[strcspn(line, "\n")] = '\0';
			title = xstrdup(line + 8 + strspn(line + 8, " "));
		}
	rewind(in);
	bad = hist_read_tsv(h, in);
	if (bad)
		die("%s:%d: not a lab histogram row (want low_ns high_ns count, with the lab's bucket bounds)",
		    hist_path, bad);
	fclose(in);
	return title;
}

/* "value cumulative_fraction" rows of a histogram. */
static void write_cdf(const struct hist *h, const char *out_path)
{
	FILE *out = outfile_open(out_path, "w");
	uint64_t seen = 0;

	fprintf(out, "value_ns\tcdf\n");
	for (int i = 0; i < HIST_NBUCKETS && h->count; i++) {
		if (!h->bucket[i])
			continue;
		seen += h->bucket[i];
		fprintf(out, "%llu\t%.9f\n", (unsigned long long)hist_bucket_high(i) + (i == HIST_NBUCKETS - 1 ? 0 : 1),
			(double)seen / (double)h->count);
	}
	if (outfile_close(out))
		plots_unwritten(out_path);
}

/* The series of hist-<group>.<series>.tsv without a trailing ".r<repeat>":
 * the repeats of one series are merged into one line. */
static char *series_key(const char *name, size_t gl)
{
	const char *start = name + 5 + gl + 1;
	size_t len = strlen(start) - 4;		/* ".tsv" */
	const char *dot = memrchr(start, '.', len);

	if (dot && dot[1] == 'r' && dot + 2 < start + len && strspn(dot + 2, "0123456789") == (size_t)(start + len - dot - 2))
		len = dot - start;
	return xasprintf("%.*s", (int)len, start);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int plot_cdfs(struct pdir *dirs, int ndirs, const char *out, int w, int h)
{
	char *groups[64];
	int ngroups = 0, nplots = 0;

	/* Groups: the part of hist-<group>.<series>.tsv before the dot. */
	for (int d = 0; d < ndirs; d++) {
		char *data = xasprintf("%s/data", dirs[d].dir);
		DIR *dp = opendir(data);
		struct dirent *e;

		while (dp && (e = readdir(dp))) {
			const char *dot;
			char *g;
			bool seen = false;

			if (strncmp(e->d_name, "hist-", 5) || !strstr(e->d_name, ".tsv"))
				continue;
			dot = strchr(e->d_name + 5, '.');
			g = xasprintf("%.*s", (int)(dot - (e->d_name + 5)), e->d_name + 5);
			for (int i = 0; i < ngroups && !seen; i++)
				seen = !strcmp(groups[i], g);
			if (!seen && ngroups < 64)
				groups[ngroups++] = g;
			else
				free(g);
		}
		if (dp)
			closedir(dp);
		free(data);
	}
	qsort(groups, ngroups, sizeof(groups[0]), cmp_str);
	for (int g = 0; g < ngroups; g++) {
		char *vars = NULL, *title = NULL, *base, err[512];
		int nfiles = 0;

		for (int d = 0; d < ndirs; d++) {
			char *data = xasprintf("%s/data", dirs[d].dir);
			struct dirent **ents;
			int n = scandir(data, &ents, NULL, versionsort);
			char *keys[128];
			struct hist *merged[128];
			int nkeys = 0;
			size_t gl = strlen(groups[g]);

			for (int i = 0; i < n; i++) {
				const char *nm = ents[i]->d_name;
				size_t len = strlen(nm);

				if (!strncmp(nm, "hist-", 5) && !strncmp(nm + 5, groups[g], gl) && nm[5 + gl] == '.' &&
				    len > 5 + gl + 5 && !strcmp(nm + len - 4, ".tsv")) {
					char *src = xasprintf("%s/%s", data, nm), *key = series_key(nm, gl), *t;
					int k;

					for (k = 0; k < nkeys && strcmp(keys[k], key); k++)
						;
					if (k == nkeys && nkeys < 128) {
						keys[nkeys] = key;
						merged[nkeys] = xmalloc(sizeof(struct hist));
						hist_init(merged[nkeys++]);
					} else {
						free(key);
					}
					if (k < nkeys) {
						t = read_hist(src, merged[k]);
						if (t && !title)
							title = t;
						else
							free(t);
					}
					free(src);
				}
				free(ents[i]);
			}
			if (n >= 0)
				free(ents);
			for (int k = 0; k < nkeys; k++) {
				char *dst = xasprintf("%s/cdf-%s.%d.%d.tsv", out, groups[g], d, nfiles + 1);
				char *lab = ndirs > 1 ? xasprintf("%s %s", dirs[d].label, keys[k]) : xstrdup(keys[k]);

				write_cdf(merged[k], dst);
				add_file(&vars, ++nfiles, dst, lab);
				free(lab);
				free(dst);
				free(keys[k]);
				free(merged[k]);
			}
			free(data);
		}
		{
			char *full = xasprintf("%s%s%s", title ? title : groups[g], ndirs == 1 ? " - " : "",
					       ndirs == 1 ? dirs[0].label + 3 : "");

			gnuplot_var_int(&vars, "nfiles", nfiles);
			gnuplot_var(&vars, "title", full);
			gnuplot_var(&vars, "xlabel", "latency [ns]");
			free(full);
		}
		base = xasprintf("%s/cdf-%s", out, groups[g]);
		if (gnuplot_render("cdf", vars, base, w, h, err, sizeof(err)))
			render_failed(err);
		printf("plot: %s.{png,svg,txt}\n", base);
		nplots++;
		free(base);
		free(vars);
		free(title);
		free(groups[g]);
	}
	return nplots;
}

/* Files named name (or name*suffix when suffix is set) anywhere below dir. */
static void find_files(const char *dir, const char *name, const char *suffix, char ***out, int *n)
{
	struct dirent **ents;
	int ne = scandir(dir, &ents, NULL, versionsort);

	for (int i = 0; i < ne; i++) {
		const char *nm = ents[i]->d_name;
		char *p = xasprintf("%s/%s", dir, nm);
		size_t ln = strlen(nm), ls = suffix ? strlen(suffix) : 0;

		if (ents[i]->d_type == DT_DIR && nm[0] != '.')
			find_files(p, name, suffix, out, n);
		else if (suffix ? (!strncmp(nm, name, strlen(name)) && ln > ls && !strcmp(nm + ln - ls, suffix))
				: !strcmp(nm, name)) {
			*out = xrealloc(*out, (*n + 1) * sizeof(**out));
			(*out)[(*n)++] = p;
			p = NULL;
		}
		free(p);
		free(ents[i]);
	}
	if (ne >= 0)
		free(ents);
}

struct map_ctx {
	const char *out, *label;
	int w, h, nplots;
};

static void emit_cachelines(const char *st, int size, int lines, const char *tsv, void *arg)
{
	struct map_ctx *m = arg;
	char *data = xasprintf("%s/cachelines-%s.tsv", m->out, st), *base = xasprintf("%s/cachelines-%s", m->out, st);
	char *title = xasprintf("struct %s: %d B, %d cachelines (%s)", st, size, lines, m->label);
	char *vars = NULL, err[512];

	if (outfile_write(data, tsv, strlen(tsv)))
		plots_unwritten(NULL);
	gnuplot_var(&vars, "title", title);
	gnuplot_var(&vars, "file", data);
	gnuplot_var_int(&vars, "nlines", lines);
	gnuplot_var_int(&vars, "linesize", 64);
	/* Tall enough for a readable row per cacheline (mem_cgroup has ~35). */
	if (gnuplot_render("cachelines", vars, base, m->w, m->h > 60 + 22 * lines ? m->h : 60 + 22 * lines,
			   err, sizeof(err)))
		render_failed(err);
	printf("plot: %s.{png,svg,txt}\n", base);
	m->nplots++;
	free(data);
	free(base);
	free(title);
	free(vars);
}

/* Cacheline maps of every layout capture in the first directory. */
static int plot_layout_maps(struct pdir *d, const char *out, int w, int h)
{
	struct map_ctx m = { out, d->label + 3, w, h, 0 };
	char **files = NULL, err[512];
	int n = 0;

	find_files(d->dir, "cachelines.txt", NULL, &files, &n);
	for (int i = 0; i < n; i++) {
		if (plotmap_cachelines(files[i], emit_cachelines, &m, err, sizeof(err)) < 0)
			die("%s", err);
		free(files[i]);
	}
	free(files);
	return m.nplots;
}

/* False-sharing maps: every fieldmap-<struct>.tsv of the c2c windows. */
static int plot_fieldmaps(struct pdir *d, const char *out, int w, int h)
{
	char **files = NULL, err[512];
	int n = 0, nplots = 0;

	find_files(d->dir, "fieldmap-", ".tsv", &files, &n);
	for (int i = 0; i < n; i++) {
		const char *nm = strrchr(files[i], '/') + 1, *metric;
		char *st = xasprintf("%.*s", (int)(strlen(nm) - strlen("fieldmap-") - 4), nm + strlen("fieldmap-"));
		char *tsv = plotmap_fieldmap(files[i], &metric, err, sizeof(err)), *data, *base, *title, *ylabel;
		char *vars = NULL;

		if (!tsv)
			die("%s", err);
		/* One plot per struct and window: the window's directory tags it. */
		data = xasprintf("%s/falsesharing-%s.%d.tsv", out, st, i);
		base = xasprintf("%s/falsesharing-%s%s%.0d", out, st, i ? "." : "", i);
		if (outfile_write(data, tsv, strlen(tsv)))
			plots_unwritten(NULL);
		title = xasprintf("struct %s: %s per field, by reading and writing functions (%s)", st, metric,
				  d->label + 3);
		ylabel = xasprintf("%s (perf c2c)", metric);
		gnuplot_var(&vars, "title", title);
		gnuplot_var(&vars, "file", data);
		gnuplot_var(&vars, "ylabel", ylabel);
		if (gnuplot_render("fieldmap", vars, base, w, h, err, sizeof(err)))
			render_failed(err);
		printf("plot: %s.{png,svg,txt}\n", base);
		nplots++;
		free(st);
		free(tsv);
		free(data);
		free(base);
		free(title);
		free(ylabel);
		free(vars);
		free(files[i]);
	}
	free(files);
	return nplots;
}

int cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "status", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *out = NULL, *status_as = NULL;
	int c, w = 800, h = 500, ndirs, nplots;
	char why[256], *outdir;
	struct pdir *dirs;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 's':
			if (sscanf(optarg, "%dx%d", &w, &h) != 2 || w < 100 || h < 100 || w > 10000 || h > 10000)
				die("plot: --size '%s': want WIDTHxHEIGHT in pixels, 100..10000 (e.g. 800x500)", optarg);
			break;
		case 'S':
			if (strcmp(optarg, "complete") && strcmp(optarg, "complete-with-failures") &&
			    strcmp(optarg, "incomplete") && strcmp(optarg, "failed"))
				die("plot: --status '%s': want complete, complete-with-failures, incomplete or failed",
				    optarg);
			status_as = optarg;
			break;
		case 'h': usage_exit(usage_text, 0);
		default: usage_exit(usage_text, EXIT_LAB_ERR);
		}
	}
	ndirs = argc - optind;
	if (ndirs < 1)
		die("plot: needs at least one results directory");
	if (!gnuplot_available(why, sizeof(why)))
		die("plot: %s", why);
	dirs = xcalloc(ndirs, sizeof(*dirs));
	for (int i = 0; i < ndirs; i++) {
		char err[512];

		dirs[i].dir = argv[optind + i];
		label_of(&dirs[i], 'A' + (i < 26 ? i : 25), i == 0 ? status_as : NULL);
		dirs[i].have_metrics = !metrics_load(dirs[i].dir, &dirs[i].m, err, sizeof(err));
		if (!dirs[i].have_metrics && errno != ENOENT && !strstr(err, "No such file"))
			die("%s", err);
	}
	outdir = out ? xstrdup(out) : xasprintf("%s/plots", dirs[0].dir);
	if (mkdir_p(outdir, 0755))
		die("%s: cannot create: %s", outdir, strerror(errno));
	if (!out && !status_as)
		plots_begin(dirs[0].dir);
	nplots = plot_series(dirs, ndirs, outdir, w, h);
	nplots += plot_cdfs(dirs, ndirs, outdir, w, h);
	nplots += plot_layout_maps(&dirs[0], outdir, w, h);
	nplots += plot_fieldmaps(&dirs[0], outdir, w, h);
	if (!nplots)
		printf("plot: nothing to plot in %s (no stepped metrics in data/metrics.tsv, no data/hist-*.tsv)\n",
		       dirs[0].dir);
	plots_end();
	json_object_put(run_meta);
	for (int i = 0; i < ndirs; i++)
		metrics_free(&dirs[i].m);
	free(dirs);
	free(outdir);
	return 0;
}
