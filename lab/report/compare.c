// SPDX-License-Identifier: GPL-2.0
/*
 * The comparison `memcg-lab compare` prints: the table kernel developers
 * know from the 0-day robot (mean ±stddev% of A, %change, mean ±stddev% of
 * B per metric), with the run counts, a Welch t-test marker on significant
 * changes, and, for scaling series, the seeds' "clients | A | B (x%
 * improvement)" layout.  Plain text no wider than 80 columns, to paste into
 * a mail.
 */
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/compare.h"
#include "report/lines_compare.h"
#include "report/stats.h"
#include "report/verdict.h"
#include "util/err.h"
#include "util/humanize.h"
#include "util/metrics.h"

#define WIDTH 80

struct run {
	const char *dir;
	json_object *meta;
	const char *experiment;
	const char *status;
	struct metrics m;
};

static void load_run(struct run *r, const char *dir)
{
	char err[512], *meta_path = xasprintf("%s/meta.json", dir);
	json_object *v;

	r->dir = dir;
	r->meta = json_object_from_file(meta_path);
	if (!r->meta)
		die("%s: cannot read or parse (not a results directory?)", meta_path);
	free(meta_path);
	r->experiment = json_object_object_get_ex(r->meta, "name", &v) ? json_object_get_string(v) : "?";
	r->status = json_object_object_get_ex(r->meta, "status", &v) ? json_object_get_string(v) : "unknown";
	if (metrics_load(dir, &r->m, err, sizeof(err)))
		die("%s", err);
}

static const char *meta_str(json_object *meta, const char *path)
{
	char buf[256], *save = NULL;
	json_object *o = meta;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
		if (!o || !json_object_object_get_ex(o, k, &o))
			return NULL;
	return o ? json_object_get_string(o) : NULL;
}

static void print_side(const char *tag, const struct run *r)
{
	const char *k = meta_str(r->meta, "probe.kernel");
	const char *split = meta_str(r->meta, "probe.features.cacheline_split");
	const char *slots = meta_str(r->meta, "probe.features.stock_slots");
	const char *oslots = meta_str(r->meta, "probe.features.obj_stock_slots");
	const char *flush = meta_str(r->meta, "probe.features.flush_scheme");
	const char *pkg = meta_str(r->meta, "vm.kernel_package");

	printf("%s: %s\n", tag, r->dir);
	printf("   experiment %s, kernel %s%s\n", r->experiment, k ? k : "unknown",
	       strcmp(r->status, "complete") ? "   ** INCOMPLETE RUN **" : "");
	if (meta_str(r->meta, "vm.accel"))
		printf("   in a qemu guest (%s)%s\n", meta_str(r->meta, "vm.accel"),
		       meta_str(r->meta, "vm.note") ? ": throughput and latency mean nothing, counts do" : "");
	/* The lab kernel's sides share a release: its patches tell them apart. */
	if (pkg && !strncmp(pkg, "lab kernel: ", 12)) {
		const char *end = strstr(pkg + 12, " + ");
		int len = end ? (int)(end - pkg - 12) : (int)strlen(pkg + 12);

		printf("   %.*s\n", len < WIDTH - 4 ? len : WIDTH - 4, pkg + 12);
	}
	if (split || slots)
		printf("   cacheline split %s, stock slots %s%s%s\n", split ? (!strcmp(split, "true") ? "yes" : "no") : "?",
		       slots ? slots : "?", oslots ? ", obj stock slots " : "", oslots ? oslots : "");
	/* The flush scheme, wrapped at a comma to stay within 80 columns. */
	for (bool first = true; flush && *flush; first = false) {
		size_t len = strlen(flush), cut = len;

		if (len > 68) {
			cut = 68;
			while (cut > 20 && flush[cut] != ',')
				cut--;
			cut++;
		}
		printf("   %s%.*s\n", first ? "flush: " : "       ", (int)cut, flush);
		flush += cut;
		while (*flush == ' ')
			flush++;
	}
}

/* Values of one (step, metric) in a run. */
static size_t values_of(const struct run *r, const char *step, const char *metric, double *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->m.n && n < max; i++)
		if (!strcmp(r->m.rows[i].step, step) && !strcmp(r->m.rows[i].metric, metric))
			out[n++] = r->m.rows[i].value;
	return n;
}

static const struct metric_row *find_row(const struct run *r, const char *step, const char *metric)
{
	for (size_t i = 0; i < r->m.n; i++)
		if (!strcmp(r->m.rows[i].step, step) && !strcmp(r->m.rows[i].metric, metric))
			return &r->m.rows[i];
	return NULL;
}

static void fmt_sd(char *buf, size_t n, const struct sample_stats *s)
{
	if (s->n < 2 || s->mean == 0)
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, "±%3.0f%%", 100 * s->stddev / fabs(s->mean));
}

struct key {
	const char *step, *metric;
};

#define MAXV 1024
#define MAXKEYS 4096

static size_t keys_of(const struct run *a, const struct run *b, regex_t *filter, struct key *keys, size_t max,
		      size_t *only_a, size_t *only_b)
{
	size_t n = 0;

	*only_a = *only_b = 0;
	for (size_t i = 0; i < a->m.n; i++) {
		const struct metric_row *r = &a->m.rows[i];
		bool seen = false;

		if (filter && regexec(filter, r->metric, 0, NULL, 0))
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(keys[k].step, r->step) && !strcmp(keys[k].metric, r->metric);
		if (seen)
			continue;
		if (!find_row(b, r->step, r->metric)) {
			(*only_a)++;
			continue;
		}
		if (n < max)
			keys[n++] = (struct key){ r->step, r->metric };
	}
	for (size_t i = 0; i < b->m.n; i++)
		if (!find_row(a, b->m.rows[i].step, b->m.rows[i].metric) &&
		    (!filter || !regexec(filter, b->m.rows[i].metric, 0, NULL, 0)))
			(*only_b)++;
	return n;
}

static void compare_tsv(const struct run *a, const struct run *b, regex_t *filter)
{
	static struct key keys[MAXKEYS];
	static double va[MAXV], vb[MAXV];
	size_t only_a, only_b, nkeys = keys_of(a, b, filter, keys, MAXKEYS, &only_a, &only_b);

	printf("step\tmetric\tn_a\tmean_a\tsd_a\tn_b\tmean_b\tsd_b\tchange_pct\tt\tdf\tp\tsignificant\n");
	for (size_t k = 0; k < nkeys; k++) {
		struct sample_stats sa, sb;
		struct welch w;

		sample_stats(va, values_of(a, keys[k].step, keys[k].metric, va, MAXV), &sa);
		sample_stats(vb, values_of(b, keys[k].step, keys[k].metric, vb, MAXV), &sb);
		welch_test(&sa, &sb, &w);
		printf("%s\t%s\t%zu\t%.10g\t%.10g\t%zu\t%.10g\t%.10g\t%.6g\t%.10g\t%.10g\t%.6g\t%s\n",
		       keys[k].step, keys[k].metric, sa.n, sa.mean, sa.stddev, sb.n, sb.mean, sb.stddev,
		       sa.mean != 0 ? 100 * (sb.mean - sa.mean) / fabs(sa.mean) : NAN, w.t, w.df, w.p,
		       w.valid && w.p < 0.05 ? "yes" : "no");
	}
}

static void compare_pair(const struct run *a, const struct run *b, regex_t *filter, const char *series)
{
	static struct key keys[MAXKEYS];
	static double va[MAXV], vb[MAXV];
	size_t nkeys, only_a, only_b, runs_a = 0, runs_b = 0;
	const char *last_step = NULL;
	char line[WIDTH * 2];

	for (size_t i = 0; i < a->m.n; i++)
		if ((size_t)a->m.rows[i].repeat + 1 > runs_a)
			runs_a = a->m.rows[i].repeat + 1;
	for (size_t i = 0; i < b->m.n; i++)
		if ((size_t)b->m.rows[i].repeat + 1 > runs_b)
			runs_b = b->m.rows[i].repeat + 1;

	print_side("A", a);
	print_side("B", b);
	printf("runs: A %zu, B %zu   (* = Welch's t-test p < 0.05)\n\n", runs_a, runs_b);
	nkeys = keys_of(a, b, filter, keys, MAXKEYS, &only_a, &only_b);
	printf("%12s %5s %11s %12s %5s  %s\n", "A", "±sd", "%change", "B", "±sd", "metric");
	memset(line, '-', WIDTH - 1);
	line[WIDTH - 1] = '\0';
	puts(line);
	for (size_t k = 0; k < nkeys; k++) {
		struct sample_stats sa, sb;
		struct welch w;
		char ma[24], mb[24], sda[16], sdb[16], chg[24], name[64];
		size_t na = values_of(a, keys[k].step, keys[k].metric, va, MAXV);
		size_t nb = values_of(b, keys[k].step, keys[k].metric, vb, MAXV);

		if (!last_step || strcmp(last_step, keys[k].step)) {
			if (strcmp(keys[k].step, "-"))
				printf("[%s]\n", keys[k].step);
			last_step = keys[k].step;
		}
		sample_stats(va, na, &sa);
		sample_stats(vb, nb, &sb);
		welch_test(&sa, &sb, &w);
		format_number(ma, sizeof(ma), sa.mean);
		format_number(mb, sizeof(mb), sb.mean);
		fmt_sd(sda, sizeof(sda), &sa);
		fmt_sd(sdb, sizeof(sdb), &sb);
		if (sa.mean != 0)
			snprintf(chg, sizeof(chg), "%+.1f%%%s", 100 * (sb.mean - sa.mean) / fabs(sa.mean),
				 w.valid && w.p < 0.05 ? " *" : "  ");
		else
			snprintf(chg, sizeof(chg), "%s", "n/a  ");
		if (na != runs_a || nb != runs_b)
			snprintf(name, sizeof(name), "%s (n=%zu/%zu)", keys[k].metric, na, nb);
		else
			snprintf(name, sizeof(name), "%s", keys[k].metric);
		/* 12+1+5+1+11+1+12+1+5+2 = 51 columns before the name. */
		printf("%12s %5s %11s %12s %5s  %.*s\n", ma, sda, chg, mb, sdb, WIDTH - 1 - 51 - 2, name);
	}
	if (only_a || only_b)
		printf("\n%zu metric rows only in A, %zu only in B (not compared)\n", only_a, only_b);
	if (strcmp(a->status, "complete") || strcmp(b->status, "complete"))
		printf("\nNOTE: %s%s%s did not finish; its numbers may be partial.\n",
		       strcmp(a->status, "complete") ? "A" : "",
		       strcmp(a->status, "complete") && strcmp(b->status, "complete") ? " and " : "",
		       strcmp(b->status, "complete") ? "B" : "");

	/* The seeds' scaling layout for one headline metric. */
	{
		const char *metric = series;
		char sname[64] = "", tmp[64];
		double x;

		for (size_t i = 0; !metric && i < a->m.n; i++)
			if (metrics_step_value(a->m.rows[i].step, tmp, sizeof(tmp), &x) &&
			    (!filter || !regexec(filter, a->m.rows[i].metric, 0, NULL, 0)))
				metric = a->m.rows[i].metric;
		if (!metric)
			return;
		printf("\n%s\n", metric);
		for (size_t k = 0; k < nkeys; k++) {
			struct sample_stats sa, sb;
			const struct metric_row *r;
			char ma[24], mb[24], verdict[48] = "";
			size_t na, nb;

			if (strcmp(keys[k].metric, metric) || !metrics_step_value(keys[k].step, tmp, sizeof(tmp), &x))
				continue;
			if (!sname[0]) {
				snprintf(sname, sizeof(sname), "%s", tmp);
				printf("%*s%s |%13s |%13s\n", (int)(strlen(sname) < 7 ? 7 - strlen(sname) : 0), "number of ",
				       sname, "A", "B");
			}
			na = values_of(a, keys[k].step, metric, va, MAXV);
			nb = values_of(b, keys[k].step, metric, vb, MAXV);
			sample_stats(va, na, &sa);
			sample_stats(vb, nb, &sb);
			format_number(ma, sizeof(ma), sa.mean);
			format_number(mb, sizeof(mb), sb.mean);
			r = find_row(a, keys[k].step, metric);
			if (sa.mean != 0 && r->better != '-') {
				double pct = 100 * (sb.mean - sa.mean) / fabs(sa.mean);
				bool better = r->better == 'h' ? pct > 0 : pct < 0;

				snprintf(verdict, sizeof(verdict), " (%.1f%% %s)", fabs(pct),
					 fabs(pct) < 0.05 ? "no change" : better ? "improvement" : "regression");
			}
			printf("%*g |%13s |%13s%s\n", (int)strlen("number of ") + (int)strlen(sname), x, ma, mb, verdict);
		}
	}
}

/* The seed's claims judged on both sides, and its tables beside ours. */
static void compare_verdicts(const struct run *a, const struct run *b)
{
	struct verdicts vs;

	verdicts_of_pair(&vs, a->dir, b->dir);
	printf("\nVerdicts: the seed's claims, A the base and B the patched kernel\n");
	verdicts_print(stdout, &vs, WIDTH - 1);
	if (!vs.none[0]) {
		printf("\n");
		verdicts_table(stdout, &vs, WIDTH - 1);
	}
	verdicts_free(&vs);
}

int compare_dirs(char **dirs, int ndirs, const struct compare_opts *o)
{
	regex_t re;
	struct run *runs;

	if (o->metric_re && regcomp(&re, o->metric_re, REG_EXTENDED | REG_NOSUB))
		die("compare: --metric '%s' is not a valid regular expression", o->metric_re);
	runs = xcalloc(ndirs, sizeof(*runs));
	for (int i = 0; i < ndirs; i++)
		load_run(&runs[i], dirs[i]);
	for (int i = 1; i < ndirs; i++) {
		if (strcmp(runs[0].experiment, runs[i].experiment) && !o->common)
			die("compare: %s is experiment '%s' but %s is '%s'; use --common to compare the metrics they share",
			    runs[0].dir, runs[0].experiment, runs[i].dir, runs[i].experiment);
	}
	for (int i = 1; i < ndirs; i++) {
		if (o->tsv) {
			compare_tsv(&runs[0], &runs[i], o->metric_re ? &re : NULL);
			continue;
		}
		if (i > 1)
			printf("\n");
		compare_pair(&runs[0], &runs[i], o->metric_re ? &re : NULL, o->series);
		lines_compare(stdout, runs[0].dir, meta_str(runs[0].meta, "vm") != NULL, runs[i].dir,
			      meta_str(runs[i].meta, "vm") != NULL, WIDTH - 1);
		compare_verdicts(&runs[0], &runs[i]);
	}
	for (int i = 0; i < ndirs; i++) {
		metrics_free(&runs[i].m);
		json_object_put(runs[i].meta);
	}
	free(runs);
	if (o->metric_re)
		regfree(&re);
	return 0;
}
