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
#include "report/insns_note.h"
#include "report/compare.h"
#include "report/labels.h"
#include "report/lines_compare.h"
#include "report/lines_predicted.h"
#include "report/stats.h"
#include "report/verdict.h"
#include "util/err.h"
#include "util/humanize.h"
#include "util/metrics.h"
#include "util/tsv.h"

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

static void print_side(const char *tag, const char *label, const struct run *r)
{
	const char *k = meta_str(r->meta, "probe.kernel");
	const char *split = meta_str(r->meta, "probe.features.cacheline_split");
	const char *slots = meta_str(r->meta, "probe.features.stock_slots");
	const char *oslots = meta_str(r->meta, "probe.features.obj_stock_slots");
	const char *flush = meta_str(r->meta, "probe.features.flush_scheme");
	const char *pkg = meta_str(r->meta, "vm.kernel_package");

	if (label)
		printf("%s (%s): %s\n", tag, label, r->dir);
	else
		printf("%s: %s\n", tag, r->dir);
	printf("   experiment %s, kernel %s%s\n", r->experiment, k ? k : "unknown",
	       strcmp(r->status, "complete") ? "   ** INCOMPLETE RUN **" : "");
	if (meta_str(r->meta, "vm.accel") && meta_str(r->meta, "vm.icount"))
		printf("   in a qemu guest (%s, -icount): times are guest instructions, 1 ns each\n",
		       meta_str(r->meta, "vm.accel"));
	else if (meta_str(r->meta, "vm.accel"))
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

/* "± 12%"; "-" where the runs give no spread to show (fewer than 2). */
static void fmt_sd(char *buf, size_t n, const struct sample_stats *s)
{
	if (s->n < 2 || s->mean == 0)
		snprintf(buf, n, "%s", "-");
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

/* A TSV number, "-" for NAN. */
static void tsv_num(const char *fmt, double v)
{
	if (isnan(v))
		fputs("-\t", stdout);
	else
		printf(fmt, v);
}

static void compare_tsv(const struct run *a, const struct run *b, regex_t *filter)
{
	static struct key keys[MAXKEYS];
	static double va[MAXV], vb[MAXV];
	size_t only_a, only_b, nkeys = keys_of(a, b, filter, keys, MAXKEYS, &only_a, &only_b);

	printf("step\tmetric\tn_a\tmean_a\tsd_a\tn_b\tmean_b\tsd_b\tchange_pct\tt\tdf\tp\tsignificant\n");
	for (size_t k = 0; k < nkeys; k++) {
		struct sample_stats sa, sb;
		struct change ch;

		sample_stats(va, values_of(a, keys[k].step, keys[k].metric, va, MAXV), &sa);
		sample_stats(vb, values_of(b, keys[k].step, keys[k].metric, vb, MAXV), &sb);
		change_of(&sa, &sb, STATS_ALPHA, &ch);
		/* What the data cannot give is "-", never a 0 (verdicts.tsv's way). */
		tsv_write_row(stdout, "%s\t%s\t%zu\t%.10g\t", keys[k].step, keys[k].metric, sa.n, sa.mean);
		tsv_num("%.10g\t", sa.n >= 2 ? sa.stddev : NAN);
		printf("%zu\t%.10g\t", sb.n, sb.mean);
		tsv_num("%.10g\t", sb.n >= 2 ? sb.stddev : NAN);
		tsv_num("%.6g\t", ch.pct);
		tsv_num("%.10g\t", ch.w.t);
		tsv_num("%.10g\t", ch.w.df);
		tsv_num("%.6g\t", ch.w.p);
		printf("%s\n", ch.kind == CHANGE_SIGNIFICANT ? "yes" : ch.kind == CHANGE_NOT_SIGNIFICANT ? "no" : "-");
	}
}

/* The most repeats of any row (repeats count from 0). */
static size_t runs_of(const struct run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->m.n; i++)
		if ((size_t)r->m.rows[i].repeat + 1 > n)
			n = r->m.rows[i].repeat + 1;
	return n;
}

/* The text after the cells, on the row or, too long for it, on its own
 * lines below, indented, wrapped at width. */
static void put_name(FILE *out, const char *name, int avail, int width)
{
	if ((int)strlen(name) <= avail) {
		fprintf(out, "  %s\n", name);
		return;
	}
	fprintf(out, "\n");
	while (*name) {
		int cut = (int)strlen(name) > width - 4 ? width - 4 : (int)strlen(name);

		fprintf(out, "    %.*s\n", cut, name);
		name += cut;
	}
}

/*
 * The 0-day robot's block and the seeds' scaling layout, within width
 * columns: per metric mean ±stddev% of A, %change, of B; then, for one
 * stepped metric, "number of K | A | B (words)" with report/stats.h's
 * words for the change.
 */
static void compare_changes(FILE *out, const struct run *a, const struct run *b, regex_t *filter,
			    const char *series, int width)
{
	static struct key keys[MAXKEYS];
	static double va[MAXV], vb[MAXV];
	size_t nkeys, only_a, only_b, runs_a = runs_of(a), runs_b = runs_of(b);
	const char *last_step = NULL;
	bool insns_shown = false;
	/* The numbers' columns: 12 wide in 80 columns, 11 in a mail's 72. */
	int wn = width >= 79 ? 12 : 11, before = 2 * wn + 2 * 5 + 11 + 4, avail = width - before - 2;
	char line[256], why[64];

	fprintf(out, "runs: A %zu, B %zu   (* = Welch's t-test p < %.2g)\n", runs_a, runs_b, STATS_ALPHA);
	if (change_untested_why(runs_a, runs_b, why, sizeof(why)))
		fprintf(out, "%s: no change below is tested (Welch's t needs 2 runs a side)\n", why);
	fprintf(out, "\n");
	nkeys = keys_of(a, b, filter, keys, MAXKEYS, &only_a, &only_b);
	fprintf(out, "%*s %5s %11s %*s %5s  %s\n", wn, "A", "±sd", "%change", wn, "B", "±sd", "metric");
	memset(line, '-', width);
	line[width] = '\0';
	fprintf(out, "%s\n", line);
	for (size_t k = 0; k < nkeys; k++) {
		struct sample_stats sa, sb;
		struct change ch;
		char ma[24], mb[24], sda[16], sdb[16], chg[24], name[160];
		size_t na = values_of(a, keys[k].step, keys[k].metric, va, MAXV);
		size_t nb = values_of(b, keys[k].step, keys[k].metric, vb, MAXV);

		if (!last_step || strcmp(last_step, keys[k].step)) {
			if (strcmp(keys[k].step, "-"))
				fprintf(out, "[%s]\n", keys[k].step);
			last_step = keys[k].step;
		}
		sample_stats(va, na, &sa);
		sample_stats(vb, nb, &sb);
		change_of(&sa, &sb, STATS_ALPHA, &ch);
		format_number(ma, sizeof(ma), sa.mean);
		format_number(mb, sizeof(mb), sb.mean);
		fmt_sd(sda, sizeof(sda), &sa);
		fmt_sd(sdb, sizeof(sdb), &sb);
		if (ch.kind != CHANGE_UNDEFINED)
			snprintf(chg, sizeof(chg), "%+.1f%%%s", ch.pct, ch.kind == CHANGE_SIGNIFICANT ? " *" : "  ");
		else
			snprintf(chg, sizeof(chg), "%s", "n/a  ");
		if (na != runs_a || nb != runs_b)
			snprintf(name, sizeof(name), "%s (n=%zu/%zu)", keys[k].metric, na, nb);
		else
			snprintf(name, sizeof(name), "%s", keys[k].metric);
		fprintf(out, "%*s %5s %11s %*s %5s", wn, ma, sda, chg, wn, mb, sdb);
		put_name(out, name, avail, width);
		insns_shown |= insns_metric(keys[k].metric);
	}
	insns_note(out, insns_shown);
	if (only_a || only_b)
		fprintf(out, "\n%zu metric rows only in A, %zu only in B (not compared)\n", only_a, only_b);
	if (strcmp(a->status, "complete") || strcmp(b->status, "complete"))
		fprintf(out, "\nNOTE: %s%s%s did not finish; its numbers may be partial.\n",
			strcmp(a->status, "complete") ? "A" : "",
			strcmp(a->status, "complete") && strcmp(b->status, "complete") ? " and " : "",
			strcmp(b->status, "complete") ? "B" : "");

	/* The seeds' scaling layout for one headline metric. */
	{
		const char *metric = series;
		char sname[64] = "", tmp[64];
		double x;
		int cw = 9;

		for (size_t i = 0; !metric && i < a->m.n; i++)
			if (metrics_step_value(a->m.rows[i].step, tmp, sizeof(tmp), &x) &&
			    (!filter || !regexec(filter, a->m.rows[i].metric, 0, NULL, 0)))
				metric = a->m.rows[i].metric;
		if (!metric)
			return;
		/* Columns as wide as the widest mean and three blanks: room for the words. */
		for (size_t k = 0; k < nkeys; k++) {
			struct sample_stats st;
			char num[24];

			if (strcmp(keys[k].metric, metric) || !metrics_step_value(keys[k].step, tmp, sizeof(tmp), &x))
				continue;
			sample_stats(va, values_of(a, keys[k].step, metric, va, MAXV), &st);
			if ((int)strlen(format_number(num, sizeof(num), st.mean)) + 3 > cw)
				cw = (int)strlen(num) + 3;
			sample_stats(vb, values_of(b, keys[k].step, metric, vb, MAXV), &st);
			if ((int)strlen(format_number(num, sizeof(num), st.mean)) + 3 > cw)
				cw = (int)strlen(num) + 3;
		}
		fprintf(out, "\n%s\n", metric);
		for (size_t k = 0; k < nkeys; k++) {
			struct sample_stats sa, sb;
			struct change ch;
			const struct metric_row *r;
			char ma[24], mb[24], words[64];
			size_t na, nb;

			if (strcmp(keys[k].metric, metric) || !metrics_step_value(keys[k].step, tmp, sizeof(tmp), &x))
				continue;
			if (!sname[0]) {
				snprintf(sname, sizeof(sname), "%s", tmp);
				fprintf(out, "%*s%s |%*s |%*s\n", (int)(strlen(sname) < 7 ? 7 - strlen(sname) : 0),
					"number of ", sname, cw, "A", cw, "B");
			}
			na = values_of(a, keys[k].step, metric, va, MAXV);
			nb = values_of(b, keys[k].step, metric, vb, MAXV);
			sample_stats(va, na, &sa);
			sample_stats(vb, nb, &sb);
			change_of(&sa, &sb, STATS_ALPHA, &ch);
			format_number(ma, sizeof(ma), sa.mean);
			format_number(mb, sizeof(mb), sb.mean);
			r = find_row(a, keys[k].step, metric);
			/* The one place that may name a direction (report/stats.h). */
			change_words(&ch, r->better, words, sizeof(words));
			snprintf(line, sizeof(line), "%*g |%*s |%*s", (int)strlen("number of ") + (int)strlen(sname), x,
				 cw, ma, cw, mb);
			/* The words under the row where they would pass the width. */
			if ((int)(strlen(line) + 1 + strlen(words)) <= width)
				fprintf(out, "%s %s\n", line, words);
			else
				fprintf(out, "%s\n%*s%s\n", line, width - (int)strlen(words) > 0 ?
					width - (int)strlen(words) : 0, "", words);
		}
	}
}

static void compare_pair(const struct run *a, const struct run *b, const char *const labels[2], regex_t *filter,
			 const char *series)
{
	print_side("A", labels[0], a);
	print_side("B", labels[1], b);
	compare_changes(stdout, a, b, filter, series, WIDTH - 1);
}

void compare_changes_of(FILE *out, const char *a, const char *b, int width)
{
	struct run ra, rb;

	load_run(&ra, a);
	load_run(&rb, b);
	compare_changes(out, &ra, &rb, NULL, NULL, width);
	metrics_free(&ra.m);
	metrics_free(&rb.m);
	json_object_put(ra.meta);
	json_object_put(rb.meta);
}

size_t compare_runs_of(const char *dir)
{
	struct run r;
	char err[512];
	size_t n;

	if (metrics_load(dir, &r.m, err, sizeof(err)))
		return 0;
	n = runs_of(&r);
	metrics_free(&r.m);
	return n;
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
		const char *labels[2] = { o->labels ? o->labels->given[0] : NULL,
					  o->labels && i < LABELS_MAX ? o->labels->given[i] : NULL };

		if (o->tsv) {
			compare_tsv(&runs[0], &runs[i], o->metric_re ? &re : NULL);
			continue;
		}
		if (i > 1)
			printf("\n");
		compare_pair(&runs[0], &runs[i], labels, o->metric_re ? &re : NULL, o->series);
		lines_compare(stdout, runs[0].dir, meta_str(runs[0].meta, "vm") != NULL, runs[i].dir,
			      meta_str(runs[i].meta, "vm") != NULL, WIDTH - 1);
		/* A run with a prediction (lines predict of its trace) beside the other's measured counts. */
		lines_predicted_beside(stdout, runs[0].dir, meta_str(runs[0].meta, "vm") != NULL, runs[i].dir,
				       meta_str(runs[i].meta, "vm") != NULL, "B", WIDTH - 1);
		lines_predicted_beside(stdout, runs[i].dir, meta_str(runs[i].meta, "vm") != NULL, runs[0].dir,
				       meta_str(runs[0].meta, "vm") != NULL, "A", WIDTH - 1);
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
