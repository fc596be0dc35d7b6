// SPDX-License-Identifier: GPL-2.0
/*
 * The report of a results directory (report.txt, and what `memcg-lab
 * report DIR` prints): one text a reviewer can read top to bottom: the
 * kernel and its features, what was skipped and why, the layout verdicts,
 * the driver tables (mean, stddev and runs per step and metric), and the
 * tables the collectors left (lock waits and holds, c2c fields).
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "report/report.h"
#include "report/report_summary.h"
#include "report/stats.h"
#include "report/verdict.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/humanize.h"
#include "util/json_path.h"
#include "util/metrics.h"
#include "util/outfile.h"
#include "util/results.h"

static void section(FILE *out, const char *title)
{
	fprintf(out, "\n%s\n", title);
	for (size_t i = 0; i < strlen(title); i++)
		fputc('-', out);
	fputc('\n', out);
}

/*
 * Copies the text files data/<stem>.txt and data/<stem>.<step>.r<n>.txt (as
 * drivers write them under the runner) into the report, indented, under
 * one title; each tagged file gets its step and repeat as a sub-heading.
 */
static bool include_files(FILE *out, const char *dir, const char *stem, const char *title)
{
	char *data = xasprintf("%s/data", dir);
	struct dirent **ents;
	int n = scandir(data, &ents, NULL, versionsort), shown = 0;
	size_t sl = strlen(stem);

	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		size_t len = strlen(nm);
		char *p, *text;

		if (strncmp(nm, stem, sl) || (nm[sl] != '.') || len < sl + 4 || strcmp(nm + len - 4, ".txt"))
			goto next;
		p = xasprintf("%s/%s", data, nm);
		text = read_text(p, NULL);
		free(p);
		if (!text)
			goto next;
		if (!shown++)
			section(out, title);
		if (len > sl + 4)
			fprintf(out, "  [%.*s]\n", (int)(len - sl - 5), nm + sl + 1);
		for (char *line = text, *nl; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			fprintf(out, "  %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
			if (!nl)
				break;
		}
		free(text);
next:
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	free(data);
	return shown > 0;
}

static void metrics_table(FILE *out, const char *dir)
{
	struct metrics m;
	char err[512];
	static double v[1024];

	if (metrics_load(dir, &m, err, sizeof(err)))
		return;
	section(out, "Driver results (mean, stddev%, runs)");
	fprintf(out, "  %-16s %-34s %14s %6s %4s  %s\n", "step", "metric", "mean", "sd%", "runs", "unit");
	for (size_t i = 0; i < m.n; i++) {
		struct sample_stats st;
		size_t n = 0;
		bool first = true;
		char num[32], sd[16];

		for (size_t j = 0; j < i && first; j++)
			first = strcmp(m.rows[j].step, m.rows[i].step) || strcmp(m.rows[j].metric, m.rows[i].metric);
		if (!first)
			continue;
		for (size_t j = i; j < m.n && n < 1024; j++)
			if (!strcmp(m.rows[j].step, m.rows[i].step) && !strcmp(m.rows[j].metric, m.rows[i].metric))
				v[n++] = m.rows[j].value;
		sample_stats(v, n, &st);
		format_number(num, sizeof(num), st.mean);
		/* One run has no spread to show: "-", not a measured 0. */
		fprintf(out, "  %-16s %-34s %14s %6s %4zu  %s\n", m.rows[i].step, m.rows[i].metric, num,
			stats_sd_pct(&st, sd, sizeof(sd)), n, m.rows[i].unit);
	}
	metrics_free(&m);
}

static int report_write_as(const char *dir, FILE *out, const char *final_status, char *err, size_t errlen)
{
	char *mp = xasprintf("%s/meta.json", dir);
	json_object *meta = json_object_from_file(mp), *skipped, *feat;
	struct report_summary summary;
	const char *status, *v;

	if (!meta) {
		snprintf(err, errlen, "%s: cannot read or parse (not a results directory?)", mp);
		free(mp);
		return -1;
	}
	free(mp);
	status = final_status ? final_status : json_path_str(meta, "status");
	fprintf(out, "memcg-lab report: %s\n", dir);
	if (!status || strcmp(status, "complete"))
		fprintf(out, "** INCOMPLETE RUN (status: %s): the numbers below may be partial **\n",
			status ? status : "unknown");
	/* The file a run could not write (meta.json's, or this process's). */
	if ((v = final_status && outfile_failed() ? outfile_first_failure() : json_path_str(meta, "unwritten")))
		fprintf(out, "** not written in full: %s **\n", v);
	fprintf(out, "experiment %s, started %s, ended %s, lab %s\n", json_path_or(meta, "name", "?"),
		json_path_or(meta, "start", "?"), json_path_or(meta, "end", "(not finished)"),
		json_path_or(meta, "lab_revision", "?"));
	{
		struct verdicts vs;

		verdicts_of_dir(&vs, dir);
		section(out, "Verdicts: the seed's claims against this run");
		verdicts_print(out, &vs, 80);
		verdicts_free(&vs);
	}
	report_summary_build(&summary, dir, meta);
	section(out, "Summary");
	report_summary_print(out, &summary);
	report_summary_free(&summary);

	section(out, "Kernel");
	fprintf(out, "  release          %s\n", (v = json_path_str(meta, "probe.kernel")) ? v : "unknown (no probe)");
	if (json_object_object_get_ex(meta, "probe", &feat) && json_object_object_get_ex(feat, "features", &feat)) {
		static const char *const keys[] = { "cacheline_split", "stock_slots", "stock_class", "user_flush_mutex",
						    "obj_stock_split", "obj_stock_slots", "cacheline_size", "flush_scheme" };

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			char ev[128];

			snprintf(ev, sizeof(ev), "evidence.%s", keys[i]);
			json_object *val;
			bool has = json_object_object_get_ex(feat, keys[i], &val);

			/* Keys added with 7.x support are left out of older runs' reports;
			 * obj_stock_slots is null without obj_stock_pcp. */
			if (!has && (!strcmp(keys[i], "stock_class") || !strcmp(keys[i], "obj_stock_slots")))
				continue;
			fprintf(out, "  %-16s %s\n", keys[i], !has ? "?" : val ? json_object_get_string(val) : "none");
			if ((v = json_path_str(feat, ev)) && strcmp(keys[i], "flush_scheme"))
				fprintf(out, "  %-16s   (%s)\n", "", v);
		}
	}
	if ((v = json_path_str(meta, "runtime.charge_batch")))
		fprintf(out, "  charge batch     %s pages (runtime probe)\n", v);
	if ((v = json_path_str(meta, "runtime.stock_slots")))
		fprintf(out, "  stock slots      %s (runtime probe; agrees with BTF: %s)\n", v,
			json_path_or(meta, "runtime.agrees_with_btf", "?"));
	if ((v = json_path_str(meta, "runtime.obj_stock_slots")))
		fprintf(out, "  obj stock slots  %s (runtime probe; agrees with BTF: %s)\n", v,
			json_path_or(meta, "runtime.obj_stock_slots_agree_with_btf", "?"));
	if ((v = json_path_str(meta, "scaled")))
		fprintf(out, "  scaled down      %s\n", v);
	if ((v = json_path_str(meta, "vm.kernel_spec")))
		fprintf(out, "  measured in      a qemu guest (kernel %s, accelerator %s)\n", v,
			json_path_or(meta, "vm.accel", "?"));
	if ((v = json_path_str(meta, "vm.note")))
		fprintf(out, "  NOTE             %s\n", v);

	if (json_object_object_get_ex(meta, "skipped", &skipped) && json_object_array_length(skipped)) {
		section(out, "Skipped (not measured)");
		for (size_t i = 0; i < json_object_array_length(skipped); i++) {
			json_object *s = json_object_array_get_idx(skipped, i);

			fprintf(out, "  %s: %s\n", json_path_or(s, "what", "?"),
				json_path_or(s, "why", "?"));
		}
	}
	include_files(out, dir, "layout-check", "Layout verdicts");
	metrics_table(out, dir);
	include_files(out, dir, "statread", "Stat reads: memory.stat latency per level");
	include_files(out, dir, "lock-report", "Locks: waits and holds");
	include_files(out, dir, "c2c-fields", "perf c2c: fields behind shared cachelines");
	json_object_put(meta);
	return 0;
}

int report_write(const char *dir, FILE *out, char *err, size_t errlen)
{
	return report_write_as(dir, out, NULL, err, errlen);
}

#define MAIL_WIDTH 72

/* The headline plots' ASCII renderings (plots/index.txt's entries in
 * plots/ itself), each under its name and what it shows. */
static void mail_plots(FILE *out, const char *dir)
{
	char *idx = xasprintf("%s/plots/index.txt", dir), *text = read_text(idx, NULL), line[2048];
	const char *pos = text;
	int shown = 0;

	fprintf(out, "\nPlots (ASCII; PNG, SVG and gnuplot scripts are in the run's plots/)\n");
	while (pos && text_next_line(&pos, line, sizeof(line))) {
		char *tab = strchr(line, '\t'), *txt, *ascii;
		size_t len;

		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		if (strchr(line, '/'))
			continue;	/* not a headline plot: in plots/all/ */
		len = strlen(line);
		if (len < 5 || strcmp(line + len - 4, ".png"))
			continue;
		txt = xasprintf("%s/plots/%.*s.txt", dir, (int)len - 4, line);
		ascii = read_text(txt, NULL);
		free(txt);
		if (!ascii)
			continue;
		fprintf(out, "\n");
		{
			/* The caption wrapped to the mail's width. */
			char *cap = xasprintf("%.*s: %s", (int)len - 4, line, tab + 1);
			const char *p = cap;

			while (*p) {
				size_t n = strlen(p), cut = n;

				if (n > MAIL_WIDTH) {
					cut = MAIL_WIDTH;
					while (cut && p[cut] != ' ')
						cut--;
					if (!cut)
						cut = strcspn(p, " ");
				}
				fprintf(out, "%.*s\n", (int)cut, p);
				p += cut;
				while (*p == ' ')
					p++;
			}
			free(cap);
		}
		/* gnuplot's dumb terminal pads its lines: a mail needs no trailing blanks. */
		for (const char *l = ascii, *nl; *l; l = nl ? nl + 1 : l + strlen(l)) {
			size_t len = (nl = strchr(l, '\n')) ? (size_t)(nl - l) : strlen(l);

			while (len && l[len - 1] == ' ')
				len--;
			fprintf(out, "%.*s\n", (int)len, l);
		}
		free(ascii);
		shown++;
	}
	if (!text)
		fprintf(out, "  none: %s has no plots/index.txt (plot it: memcg-lab plot %s)\n", dir, dir);
	else if (!shown)
		fprintf(out, "  none: the experiment names no headline plots ([plot] headline)\n");
	free(text);
	free(idx);
}

int report_mail(const char *dir, const char *b, FILE *out, char *err, size_t errlen)
{
	char *mp = xasprintf("%s/meta.json", dir);
	json_object *meta = json_object_from_file(mp), *mb = NULL;
	struct verdicts vs;

	free(mp);
	if (!meta)
		return set_err(err, errlen, "%s/meta.json: cannot read or parse (not a results directory?)", dir);
	if (b) {
		mp = xasprintf("%s/meta.json", b);
		mb = json_object_from_file(mp);
		free(mp);
		if (!mb) {
			json_object_put(meta);
			return set_err(err, errlen, "%s/meta.json: cannot read or parse (not a results directory?)", b);
		}
	}
	fprintf(out, "memcg-lab %s, kernel %s%s\n", json_path_or(meta, "name", "?"),
		json_path_or(meta, "probe.kernel", json_path_or(meta, "uname", "?")), b ? " (A)" : "");
	if (b)
		fprintf(out, "against kernel %s (B)\n", json_path_or(mb, "probe.kernel", json_path_or(mb, "uname", "?")));
	if (json_path_str(meta, "vm.accel"))
		fprintf(out, "in a qemu guest (%s)\n", json_path_str(meta, "vm.accel"));
	if (b)
		verdicts_of_pair(&vs, dir, b);
	else
		verdicts_of_dir(&vs, dir);
	fprintf(out, "\nVerdicts\n");
	verdicts_print(out, &vs, MAIL_WIDTH);
	if (!vs.none[0]) {
		fprintf(out, "\n");
		verdicts_table(out, &vs, MAIL_WIDTH);
	}
	verdicts_free(&vs);
	mail_plots(out, dir);
	json_object_put(meta);
	json_object_put(mb);
	return 0;
}

/* report.txt as the run stands with status (NULL: meta.json's), through a
 * temporary file, so that a report is there in full or not at all; 0 or -1
 * (reported). */
static int write_report(const char *dir, const char *final, const char *status)
{
	char *tmp = xasprintf("%s.tmp", final), err[512];
	FILE *f = outfile_open(tmp, "w");
	int ret = 0;

	if (report_write_as(dir, f, status, err, sizeof(err))) {
		outfile_failure_line(err);
		ret = -1;
	}
	if (outfile_close(f))
		ret = -1;
	if (!ret && rename(tmp, final)) {
		outfile_failure(final, "cannot rename into place", errno);
		ret = -1;
	}
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* verdicts.tsv beside report.txt: one row per claim and step (none
 * without claims: the report says why); 0 or -1 (reported). */
static int write_verdicts(const char *dir)
{
	char *path = xasprintf("%s/" VERDICTS_FILE, dir);
	struct verdicts vs;
	int ret = 0;

	verdicts_of_dir(&vs, dir);
	if (!vs.none[0]) {
		FILE *f = outfile_open(path, "w");

		verdicts_tsv(f, &vs);
		ret = outfile_close(f);
	}
	verdicts_free(&vs);
	free(path);
	return ret;
}

void report_finish(struct results *r, const char *status)
{
	char *final = xasprintf("%s/report.txt", r->dir), when[32];
	bool reported;

	if (r->attached) {
		results_finish(r, status);
		goto out;
	}
	iso_time_now(when, sizeof(when));
	results_meta_set(r, "end", json_object_new_string(when));
	/* verdicts.tsv first: a failure to write it is in the status the
	 * report states. */
	write_verdicts(r->dir);
	status = results_final_status(status);
	reported = write_report(r->dir, final, status) == 0;
	results_finish(r, status);
	if (reported && strcmp(results_final_status(status), status)) {
		/* meta.json could not take the status and still says
		 * "incomplete": no report may say otherwise. */
		unlink(final);
		write_report(r->dir, final, results_final_status(status));
	}
out:
	free(final);
}

int report_rewrite(const char *dir)
{
	char *final = xasprintf("%s/report.txt", dir);
	int ret = path_exists(final) ? (write_verdicts(dir) | write_report(dir, final, NULL)) : 0;

	free(final);
	return ret;
}
