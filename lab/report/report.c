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
#include "report/compare.h"
#include "report/labels.h"
#include "report/lines_predicted.h"
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
#include "util/tsv.h"

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
	include_files(out, dir, "c2c-windows", "perf c2c: windows (samples, lost, throttled; what the data cannot "
		      "show)");
	include_files(out, dir, "c2c-fields", "perf c2c: fields behind shared cachelines");
	json_object_put(meta);
	return 0;
}

int report_write(const char *dir, FILE *out, char *err, size_t errlen)
{
	return report_write_as(dir, out, NULL, err, errlen);
}

#define MAIL_WIDTH 72

/* text wrapped at spaces to the mail's width: the first line after first
 * (already printed, its columns), the rest indented by indent. */
static void mail_wrap(FILE *out, int first, int indent, const char *text)
{
	const char *p = text;
	int avail = MAIL_WIDTH - first;

	while (*p) {
		size_t n = strlen(p), cut = n;

		if ((int)n > avail) {
			cut = avail;
			while (cut && p[cut] != ' ')
				cut--;
			if (!cut)
				cut = strcspn(p, " ");
		}
		fprintf(out, "%.*s\n", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(out, "%*s", indent, "");
		avail = MAIL_WIDTH - indent;
	}
	if (!*text)
		fputc('\n', out);
}

/* The headline plots' ASCII renderings (index.txt's entries in plotdir
 * itself, not in all/), each under its name and what it shows; -1 with
 * err on an index.txt that is not plot/index.c's. */
static int mail_plots(FILE *out, const char *plotdir, const char *where, const char *plot_cmd, char *err,
		      size_t errlen)
{
	/* index.txt: "PLOT<TAB>WHAT" rows, no header (plot/index.c). */
	static const char *const cols[] = { "plot", "what", NULL };
	char *idx = xasprintf("%s/index.txt", plotdir);
	bool have = path_exists(idx), blank_top;
	struct tsv t = { 0 };
	int shown = 0, r = have ? tsv_open(&t, idx, cols, TSV_NO_HEADER, err, errlen) : 0;

	fprintf(out, "\nPlots (ASCII; PNG, SVG and gnuplot scripts %s)\n", where);
	while (!r && have && (r = tsv_next(&t)) == TSV_ROW) {
		const char *plot = tsv_get(&t, 0);
		char *txt, *ascii, *cap;
		size_t len = strlen(plot);

		r = 0;
		if (strchr(plot, '/'))
			continue;	/* not a headline plot: in all/ */
		if (len < 5 || strcmp(plot + len - 4, ".png"))
			continue;
		txt = xasprintf("%s/%.*s.txt", plotdir, (int)len - 4, plot);
		ascii = read_text(txt, NULL);
		free(txt);
		if (!ascii)
			continue;
		fprintf(out, "\n");
		blank_top = true;
		cap = xasprintf("%.*s: %s", (int)len - 4, plot, tsv_get(&t, 1));
		mail_wrap(out, 0, 0, cap);
		fprintf(out, "\n");
		free(cap);
		/* gnuplot's dumb terminal pads its lines and starts each plot
		 * with a form feed: a mail needs neither. */
		for (const char *l = ascii, *nl; *l; l = nl ? nl + 1 : l + strlen(l)) {
			size_t n = (nl = strchr(l, '\n')) ? (size_t)(nl - l) : strlen(l);

			while (n && (l[n - 1] == ' ' || l[n - 1] == '\r'))
				n--;
			while (n && *l == '\f') {
				l++;
				n--;
			}
			if (!n && (l == ascii || (!nl || !nl[1]) || blank_top))
				continue;	/* no blank lines above or below */
			blank_top = false;
			fprintf(out, "%.*s\n", (int)n, l);
		}
		free(ascii);
		shown++;
	}
	tsv_close(&t);
	if (r < 0) {
		free(idx);
		return -1;
	}
	if (!have)
		fprintf(out, "  none: %s has no index.txt (plot it: %s)\n", plotdir, plot_cmd);
	else if (!shown)
		fprintf(out, "  none: the experiment names no headline plots ([plot] headline)\n");
	free(idx);
	return 0;
}

/* One side's context: what it ran on and how, in one line (wrapped). */
static void mail_context(FILE *out, char tag, const char *label, const char *dir, json_object *meta)
{
	const char *v, *cg = json_path_str(meta, "probe.machine.cgroup.mode"), *status = json_path_str(meta, "status");
	size_t runs = compare_runs_of(dir);
	char *text, cpus[48] = "CPUs ?", head[LABEL_LEN + 8];

	if ((v = json_path_str(meta, "vm.cpus")) || (v = json_path_str(meta, "probe.machine.topology.cpus")))
		snprintf(cpus, sizeof(cpus), "%s CPU%s", v, strcmp(v, "1") ? "s" : "");
	text = xasprintf("kernel %s%s%s%s, %s, %zu repeat%s, %s%s%s, cgroup %s%s, lab %s%s%s%s",
			 json_path_or(meta, "probe.kernel", json_path_or(meta, "uname", "?")),
			 json_path_str(meta, "vm.accel") ? " in a qemu guest (" : "",
			 json_path_or(meta, "vm.accel", ""), json_path_str(meta, "vm.accel") ? ")" : "", cpus, runs,
			 runs == 1 ? "" : "s", json_path_str(meta, "scaled") ? "the [small] shape (" : "the full shape",
			 json_path_or(meta, "scaled", ""), json_path_str(meta, "scaled") ? ")" : "", cg ? cg : "?",
			 cg && !strcmp(cg, "hybrid") ? (!strcmp(json_path_or(meta, "probe.machine.cgroup.memory_v2",
							"false"), "true") ? " (memory on v2)" : " (memory on v1)") : "",
			 json_path_or(meta, "lab_revision", "?"), status && strcmp(status, "complete") ? "; " : "",
			 status && strcmp(status, "complete") ? "DID NOT FINISH: " : "",
			 status && strcmp(status, "complete") ? status : "");
	snprintf(head, sizeof(head), "%c: %s", tag, label);
	fprintf(out, "%s\n   ", head);
	mail_wrap(out, 3, 3, text);
	free(text);
}

/* A side's layout verdicts (data/layout-check.txt), if it checked them:
 * the result, and each rule that failed or warned. */
static bool mail_layout(FILE *out, char tag, const char *dir, json_object *meta)
{
	char *path = xasprintf("%s/data/layout-check.txt", dir), *text = read_text(path, NULL), line[2048];
	const char *verdict = json_path_str(meta, "layout_check"), *pos = text, *result = NULL;
	char *head;

	free(path);
	if (!verdict && !text)
		return false;
	while (pos && text_next_line(&pos, line, sizeof(line)))
		if (!strncmp(line, "result: ", 8)) {
			head = xasprintf("%c: %s (%s)", tag, verdict ? verdict : "?", line + 8);
			fprintf(out, "  ");
			mail_wrap(out, 2, 5, head);
			free(head);
			result = "";
		}
	if (!result)
		fprintf(out, "  %c: %s (no data/layout-check.txt)\n", tag, verdict ? verdict : "?");
	for (pos = text; pos && text_next_line(&pos, line, sizeof(line));) {
		char kind[8], name[128], sev[16];
		int off = 0;

		/* "FAIL  name  hard  detail" */
		if ((strncmp(line, "FAIL ", 5) && strncmp(line, "warn ", 5)) ||
		    sscanf(line, "%7s %127s %15s %n", kind, name, sev, &off) != 3 || !off)
			continue;
		head = xasprintf("%s %s (%s): %s", kind, name, sev, line + off);
		fprintf(out, "     ");
		mail_wrap(out, 5, 7, head);
		free(head);
	}
	free(text);
	return true;
}

static int mail_body(const char *dir, const char *b, const struct mail_opts *o, FILE *out, char *err,
		     size_t errlen)
{
	char *mp = xasprintf("%s/meta.json", dir);
	json_object *meta = json_object_from_file(mp), *mb = NULL;
	struct verdicts vs;
	bool layout;
	int r = 0;

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
	fprintf(out, "memcg-lab %s%s\n\n", json_path_or(meta, "name", "?"), b ? ": A against B" : "");
	mail_context(out, 'A', o->labels[0], dir, meta);
	if (b)
		mail_context(out, 'B', o->labels[1], b, mb);
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
	if (b) {
		fprintf(out, "\nMeasured: B against A, per metric (compare)\n");
		compare_changes_of(out, dir, b, MAIL_WIDTH);
	}
	/* A prediction (lines predict of a run's trace) beside the measured counts. */
	lines_predicted_beside(out, dir, json_object_object_get_ex(meta, "vm", NULL), b ? b : dir,
			       json_object_object_get_ex(b ? mb : meta, "vm", NULL), b ? "B" : "this run", MAIL_WIDTH);
	if (b)
		lines_predicted_beside(out, b, json_object_object_get_ex(mb, "vm", NULL), dir,
				       json_object_object_get_ex(meta, "vm", NULL), "A", MAIL_WIDTH);
	fprintf(out, "\nLayout verdicts\n");
	layout = mail_layout(out, 'A', dir, meta);
	if (b)
		layout |= mail_layout(out, 'B', b, mb);
	if (!layout)
		fprintf(out, "  none: %s checked no layouts ([collect] layout = check)\n", b ? "the runs" : "the run");
	if (o->plots) {
		char *cmd = b ? xasprintf("memcg-lab plot %s %s", dir, b) : xasprintf("memcg-lab plot %s", dir);

		r = mail_plots(out, o->plots, b ? "beside the runs" : "in the run's plots/", cmd, err, errlen);
		free(cmd);
	} else {
		fprintf(out, "\nPlots\n  none: %s\n", o->no_plots ? o->no_plots : "not drawn");
	}
	json_object_put(meta);
	json_object_put(mb);
	return r;
}

int report_mail_check(const char *a, const char *b, char *err, size_t errlen)
{
	char *pa = xasprintf("%s/meta.json", a), *pb = xasprintf("%s/meta.json", b);
	json_object *ma = json_object_from_file(pa), *mb = json_object_from_file(pb);
	int ret = 0;

	if (!ma || !mb)
		ret = set_err(err, errlen, "%s: cannot read or parse (not a results directory?)", ma ? pb : pa);
	/* Two experiments' runs do not make one mail's A/B (compare refuses
	 * them too, without --common). */
	else if (strcmp(json_path_or(ma, "name", "?"), json_path_or(mb, "name", "?")))
		ret = set_err(err, errlen, "report --mail: %s is experiment '%s' but %s is '%s': a mail compares two "
			      "runs of one experiment", a, json_path_or(ma, "name", "?"), b, json_path_or(mb, "name", "?"));
	json_object_put(ma);
	json_object_put(mb);
	free(pa);
	free(pb);
	return ret;
}

int report_mail(const char *dir, const char *b, const struct mail_opts *o, FILE *out, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int ret;

	if (!mem)
		return set_err(err, errlen, "report --mail: cannot allocate: %s", strerror(errno));
	ret = mail_body(dir, b, o, mem, err, errlen);
	fclose(mem);
	/* Plain text: no byte below 0x20 but the newline (a tab is a blank),
	 * no DEL, no blank at a line's end, whatever a file gave. */
	for (size_t i = 0, blanks = 0; !ret && i < len; i++) {
		unsigned char c = text[i];

		if (c == '\t')
			c = ' ';
		if (c == ' ') {
			blanks++;
			continue;
		}
		if ((c < 0x20 && c != '\n') || c == 0x7f)
			continue;
		if (c != '\n')
			while (blanks) {
				fputc(' ', out);
				blanks--;
			}
		blanks = 0;
		fputc(c, out);
	}
	free(text);
	return ret;
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
