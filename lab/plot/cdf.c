// SPDX-License-Identifier: GPL-2.0
/*
 * cdf-<group>: the latency histograms data/hist-<group>.<series>.tsv as
 * CDFs, one line per series (e.g. read latency per level, lock wait and
 * hold); their "# title:" lines name the lock and the method.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/hist.h"
#include "plot/guard.h"
#include "plot/legend.h"
#include "plot/kinds.h"
#include "plot/time_axis.h"
#include "util/err.h"
#include "util/gnuplot.h"
#include "util/outfile.h"

#define MAX_SERIES 128

/* Adds a histogram file into h; returns its "# title:" line (malloc'd) or NULL. */
static char *read_hist(const char *hist_path, struct hist *h)
{
	FILE *in = fopen(hist_path, "re");
	char line[512], err[512], *title = NULL;

	if (!in)
		die("%s: cannot read: %s", hist_path, strerror(errno));
	while (fgets(line, sizeof(line), in) && line[0] == '#')
		if (!strncmp(line, "# title:", 8) && !title) {
			line[strcspn(line, "\n")] = '\0';
			title = xstrdup(line + 8 + strspn(line + 8, " "));
		}
	rewind(in);
	if (hist_read_tsv(h, in, hist_path, err, sizeof(err)))
		die("%s", err);
	fclose(in);
	return title;
}

/* The upper bound of a histogram's last bucket in use: where its CDF ends. */
static double cdf_end(int i)
{
	return (double)hist_bucket_high(i) + (i == HIST_NBUCKETS - 1 ? 0 : 1);
}

/* Where a histogram's CDF starts and ends (its first and last points). */
static void cdf_span(const struct hist *h, double *lo, double *hi)
{
	for (int i = 0; i < HIST_NBUCKETS; i++)
		if (h->bucket[i]) {
			*lo = *lo < cdf_end(i) ? *lo : cdf_end(i);
			break;
		}
	for (int i = HIST_NBUCKETS - 1; i >= 0; i--)
		if (h->bucket[i]) {
			*hi = *hi > cdf_end(i) ? *hi : cdf_end(i);
			break;
		}
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
		fprintf(out, "%.0f\t%.9f\n", cdf_end(i), (double)seen / (double)h->count);
	}
	if (outfile_close(out))
		plot_guard_unwritten(out_path);
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

/* Groups: the part of hist-<group>.<series>.tsv before the dot, sorted. */
static int find_groups(struct plot_dir *dirs, int ndirs, char **groups, int max)
{
	int ngroups = 0;

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
			if (!seen && ngroups < max)
				groups[ngroups++] = g;
			else
				free(g);
		}
		if (dp)
			closedir(dp);
		free(data);
	}
	qsort(groups, ngroups, sizeof(groups[0]), cmp_str);
	return ngroups;
}

/* One directory's series of a group, their repeats merged: keys[] and
 * merged[] (malloc'd); the first "# title:" seen goes to *title. */
static int read_group(const struct plot_dir *d, const char *group, char **keys, struct hist **merged,
		      char **title)
{
	char *data = xasprintf("%s/data", d->dir);
	struct dirent **ents;
	int n = scandir(data, &ents, NULL, versionsort), nkeys = 0;
	size_t gl = strlen(group);

	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		size_t len = strlen(nm);

		if (!strncmp(nm, "hist-", 5) && !strncmp(nm + 5, group, gl) && nm[5 + gl] == '.' &&
		    len > 5 + gl + 5 && !strcmp(nm + len - 4, ".tsv")) {
			char *src = xasprintf("%s/%s", data, nm), *key = series_key(nm, gl), *t;
			int k;

			for (k = 0; k < nkeys && strcmp(keys[k], key); k++)
				;
			if (k == nkeys && nkeys < MAX_SERIES) {
				keys[nkeys] = key;
				merged[nkeys] = xmalloc(sizeof(struct hist));
				hist_init(merged[nkeys++]);
			} else {
				free(key);
			}
			if (k < nkeys) {
				t = read_hist(src, merged[k]);
				if (t && !*title)
					*title = t;
				else
					free(t);
			}
			free(src);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	free(data);
	return nkeys;
}

static void plot_group(struct plot_dir *dirs, int ndirs, const char *group, const struct plot_target *t)
{
	char *vars = NULL, *title = NULL, *base, *full, *tics, *what, *name = xasprintf("cdf-%s", group);
	char *keys[ndirs][MAX_SERIES];
	struct hist *merged[ndirs][MAX_SERIES];
	int nkeys[ndirs], nfiles = 0;
	double lo = 1e30, hi = 0;

	for (int d = 0; d < ndirs; d++) {
		nkeys[d] = read_group(&dirs[d], group, keys[d], merged[d], &title);
		for (int k = 0; k < nkeys[d]; k++)
			cdf_span(merged[d][k], &lo, &hi);
	}
	for (int d = 0; d < ndirs; d++) {
		for (int k = 0; k < nkeys[d]; k++) {
			char *dst = xasprintf("%s/%s.%d.%d.tsv", plot_out(t, name), name, d, nfiles + 1);
			char *words = legend_of_series(keys[d][k]);
			char *lab = ndirs > 1 ? xasprintf("%s %s", dirs[d].label, words) : xstrdup(words);

			write_cdf(merged[d][k], dst);
			plot_add_file(&vars, ++nfiles, dst, lab);
			free(lab);
			free(words);
			free(dst);
			free(keys[d][k]);
			free(merged[d][k]);
		}
	}
	full = xasprintf("%s%s%s", title ? title : group, ndirs == 1 ? " - " : "", ndirs == 1 ? dirs[0].label + 3 : "");
	/* The data stay in ns; each decade's tic is in its own unit. */
	tics = time_axis_log_tics(lo, hi);
	gnuplot_var_int(&vars, "nfiles", nfiles);
	gnuplot_var(&vars, "title", full);
	gnuplot_var(&vars, "xlabel", "latency");
	gnuplot_var(&vars, "xtics", tics);
	base = xasprintf("%s/%s", plot_out(t, name), name);
	what = xasprintf("%s: the cumulative share of events at or below each latency, one line per %s", full,
			 ndirs > 1 ? "series and run" : "series");
	plot_render("cdf", vars, base, t->w, t->h, 0, what);
	free(what);
	free(name);
	free(full);
	free(tics);
	free(base);
	free(vars);
	free(title);
}

int plot_cdfs(struct plot_dir *dirs, int ndirs, const struct plot_target *t)
{
	char *groups[64];
	int ngroups = find_groups(dirs, ndirs, groups, 64);

	for (int g = 0; g < ngroups; g++) {
		plot_group(dirs, ndirs, groups[g], t);
		free(groups[g]);
	}
	return ngroups;
}
