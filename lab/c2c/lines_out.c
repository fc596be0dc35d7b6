// SPDX-License-Identifier: GPL-2.0
/* A guest run under the lines plugin, as fields, perf.data and c2c.txt (c2c/lines_out.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/c2c.h"
#include "c2c/c2c_report_pass.h"
#include "c2c/lines_guest.h"
#include "c2c/lines_out.h"
#include "c2c/lines_perf.h"
#include "c2c/lines_table.h"
#include "c2c/lines_trace_read.h"
#include "util/err.h"
#include "util/metrics.h"
#include "util/rawdir.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/run.h"
#include "util/tsv.h"

static unsigned long long meta_u(const struct lines_file *f, const char *key)
{
	uint64_t v = 0;

	lines_meta_u64(f, key, &v);
	return (unsigned long long)v;
}

char *lines_status_problem(const struct lines_file *f, const char *path)
{
	const char *st = lines_meta(f, "status");

	if (!st)
		return xasprintf("%s: no status line: not the lines plugin's output", path);
	if (!strcmp(st, "ok"))
		return NULL;
	if (strstr(st, "window-never-opened"))
		return xasprintf("%s: the plugin's window never opened, so nothing was counted (the lab in the guest "
				 "opens it around a driver's measured phase or an experiment's c2c window; around a "
				 "--shell command of your own: vm --lines-window command, and for that program's own "
				 "accesses --lines-opts scope=user)", path);
	if (strstr(st, "window-open-at-exit"))
		return xasprintf("%s: a window was still open when qemu exited (%llu opened, %llu closed): its counts "
				 "are cut short", path, meta_u(f, "windows_opened"), meta_u(f, "windows_closed"));
	if (strstr(st, "table-full"))
		return xasprintf("%s: the plugin's line table filled: %llu lines in %llu slots; %llu accesses to at "
				 "least %llu more lines were dropped (a bigger table: --lines-opts lines=N, or a "
				 "narrower scope: pc=, addr=)", path, meta_u(f, "lines_used"), meta_u(f, "capacity"),
				 meta_u(f, "dropped_accesses"), meta_u(f, "dropped_lines_min"));
	if (strstr(st, "detail-pool-full"))
		return xasprintf("%s: the plugin's detail pool filled: %llu records; %llu more lines and their %llu "
				 "events kept only totals, no offsets nor code addresses (more records: --lines-opts "
				 "ext=N)", path, meta_u(f, "ext_capacity"), meta_u(f, "ext_dropped_lines"),
				 meta_u(f, "ext_dropped_events"));
	return xasprintf("%s: the plugin's status is %s", path, st);
}

/* A label as a directory name: [A-Za-z0-9._=+-], the rest '_'; never one
 * of the files beside it. */
static char *label_dir(const char *label)
{
	char *d = xasprintf("%s", label);

	for (char *p = d; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      strchr("._=+-", *p)))
			*p = '_';
	if (!*d || !strcmp(d, ".") || !strcmp(d, "..") || !strcmp(d, "c2c") || !strcmp(d, "buildid")) {
		char *x = xasprintf("label-%s", d);

		free(d);
		d = x;
	}
	return d;
}

/* The guest's memory in bytes, from vm.env's mem_mb (0: unknown). */
static uint64_t guest_mem(const char *dir)
{
	char *p = xasprintf("%s/vm.env", dir), *t = read_text(p, NULL), *m = t ? strstr(t, "mem_mb=") : NULL;
	uint64_t v = m ? strtoull(m + 7, NULL, 10) << 20 : 0;

	free(t);
	free(p);
	return v;
}

struct out_ctx {
	const struct lines_out_opts *o;
	struct lines_file lf;
	struct lines_guest g;
	char *lines_dir, *buildid;	/* buildid: NULL when perf cannot name kernel code */
	unsigned vcpus;
	uint64_t mem;
	bool insns_only;	/* the plugin's mode=insns */
};

static bool in_set(const struct out_ctx *x, const struct lines_pline *l, const char *label)
{
	const char *wl;

	if (!label)
		return true;
	wl = l->window >= 0 ? lines_guest_label(&x->g, l->window) : NULL;
	return wl && !strcmp(wl, label);
}

/* The objects of the windows of label (NULL: all), each once. */
static void set_objects(const struct out_ctx *x, const char *label, struct c2c_objects *objs)
{
	objs->cgroup = x->g.cgroup;
	for (size_t i = 0; i < x->g.nobj; i++) {
		const struct lines_gobject *go = &x->g.obj[i];
		const char *wl = lines_guest_label(&x->g, go->window);
		bool dup = false;
		struct c2c_object *ob;

		if (label && (!wl || strcmp(wl, label)))
			continue;
		for (size_t j = 0; j < objs->n && !dup; j++)
			dup = objs->v[j].base == go->o.base && !strcmp(objs->v[j].type, go->o.type);
		if (dup)
			continue;
		if (objs->n == objs->cap) {
			objs->cap = objs->cap ? 2 * objs->cap : 16;
			objs->v = xrealloc(objs->v, objs->cap * sizeof(*objs->v));
		}
		ob = &objs->v[objs->n++];
		*ob = go->o;
		ob->label = xstrdup(go->o.label);
		ob->type = xstrdup(go->o.type);
		ob->source = xstrdup(go->o.source);
	}
}

/* perf c2c report of dir/perf.data into dir/c2c.txt (one streamed pass,
 * c2c/c2c_report_pass.h: --no-source unless asked, a time limit), and the
 * lab's parse and attribution of it into dir/c2c/. */
static int c2c_of(const struct out_ctx *x, const char *dir, const char *label, char *err, size_t errlen)
{
	char *data = xasprintf("%s/perf.data", dir), *txt = xasprintf("%s/c2c.txt", dir);
	char *log = xasprintf("%s/c2c.log", dir), *sub = xasprintf("%s/c2c", dir);
	const char *extra[] = { "--buildid-dir", x->buildid, NULL };
	struct c2c_report_pass pass = { .perf = x->o->perf, .data = data, .txt = txt, .log = log,
					.source = x->o->source, .show_all = true,
					.timeout_s = x->o->report_timeout_s > 0 ? x->o->report_timeout_s :
						     C2C_REPORT_TIMEOUT_DEFAULT,
					.extra = x->buildid ? extra : NULL };
	struct c2c_objects objs = { 0 };
	struct c2c_report r;
	bool timed_out;
	int rc = -1;

	if (c2c_report_pass_run(&pass, &r, &timed_out, err, errlen) < 0 ||
	    c2c_report_write_dir(&r, sub, err, errlen) < 0)
		goto out;
	set_objects(x, label, &objs);
	{
		size_t n;
		struct c2c_attr_row *rows = c2c_attribute(&r, x->g.have_btf ? &x->g.btf : NULL, &objs, &n);
		char *p = xasprintf("%s/attribution.txt", sub);

		if (c2c_write_attribution_dir(sub, rows, n, &objs, err, errlen) == 0) {
			FILE *f = outfile_open(p, "w");

			c2c_print_attribution(&r, rows, n, &objs, f);
			if (outfile_close(f))
				set_err(err, errlen, "%s: cannot write: %s", p, strerror(errno));
			else
				rc = 0;
		}
		free(p);
		free(rows);
	}
out:
	c2c_report_free(&r);
	c2c_objects_free(&objs);
	free(data);
	free(txt);
	free(log);
	free(sub);
	return rc;
}

/* The plugin's row of window w (each window on its own: its own row). */
static const struct lines_window_row *row_of(const struct out_ctx *x, int64_t w)
{
	for (size_t i = 0; i < x->lf.nwindows; i++)
		if ((int64_t)x->lf.windows[i].index == w && x->lf.windows[i].windows == 1)
			return &x->lf.windows[i];
	return NULL;
}

/* The instructions of window w, when the plugin counted them. */
static bool insns_of(const struct out_ctx *x, int64_t w, uint64_t *insns)
{
	const struct lines_window_row *r = row_of(x, w);

	if (!r || !r->insns_counted)
		return false;
	*insns = r->insns;
	return true;
}

/* What the plugin's instruction counts are, in words for a reader. */
static const char *insns_how(const struct out_ctx *x)
{
	const char *c = lines_meta(&x->lf, "insns_counted");

	if (!c)
		return "-";
	return !strcmp(c, "per-vcpu") ? "exact, per vCPU" : !strcmp(c, "total") ? "exact (single-threaded TCG)" :
	       !strcmp(c, "total-racy") ? "a lower bound (MTTCG, qemu 7.2: the vCPUs' adds race)" : c;
}

/*
 * ops.tsv: the operations the windows of label (NULL: all) counted, what
 * the claims divide their transfers by (report/lines_fields.h reads it),
 * and the guest instructions of the windows that counted both: insns and
 * insns_per_op ("-" where none did); insns.tsv: each window's.
 */
static int write_ops(const struct out_ctx *x, const char *dir, const char *label, char *err, size_t errlen)
{
	char *p = xasprintf("%s/" LINES_OPS_OUT, dir), *pi = xasprintf("%s/" LINES_INSNS_OUT, dir), unit[64] = "";
	size_t nwin = 0, counted = 0, both = 0;
	uint64_t ops = 0, iops = 0, insns = 0;
	FILE *f, *fi;
	int rc = 0;

	fi = outfile_open(pi, "w");
	tsv_write_row(fi, "# memcg-lab lines-insns 1\n# guest instructions: %s; a proxy for time that leaves out "
		      "cache misses\n", insns_how(x));
	tsv_write_header(fi, (const char *const[]){ "window", "label", "repeat", "ops", "unit", "insns", "insns_per_op",
						    "insns_vcpu", NULL });
	for (size_t i = 0; i < x->g.nwin; i++) {
		const struct lines_gwindow *w = &x->g.win[i];
		const struct lines_window_row *r = row_of(x, w->index);
		uint64_t n = 0;
		bool have = insns_of(x, w->index, &n);

		if (label && strcmp(w->label, label))
			continue;
		nwin++;
		tsv_write_row(fi, "%lld\t%s\t%d\t", (long long)w->index, w->label, w->repeat);
		if (w->ops >= 0)
			tsv_write_row(fi, "%lld\t%s\t", (long long)w->ops, w->unit);
		else
			fputs("-\t-\t", fi);
		if (have)
			fprintf(fi, "%llu\t", (unsigned long long)n);
		else
			fputs("-\t", fi);
		if (have && w->ops > 0)
			fprintf(fi, "%.1f\t", (double)n / (double)w->ops);
		else
			fputs("-\t", fi);
		for (unsigned v = 0; have && r->insns_per_vcpu && v < x->vcpus; v++)
			fprintf(fi, "%s%llu", v ? "," : "", (unsigned long long)r->insns_vcpu[v]);
		fputs(have && r->insns_per_vcpu ? "\n" : "-\n", fi);
		if (w->ops < 0)
			continue;
		counted++;
		ops += (uint64_t)w->ops;
		if (!unit[0])
			snprintf(unit, sizeof(unit), "%s", w->unit);
		else if (strcmp(unit, w->unit))
			snprintf(unit, sizeof(unit), "mixed");
		if (have) {
			both++;
			iops += (uint64_t)w->ops;
			insns += n;
		}
	}
	if (outfile_close(fi))
		rc = set_err(err, errlen, "%s: cannot write: %s", pi, strerror(errno));
	f = outfile_open(p, "w");
	fputs("# memcg-lab lines-ops 1\n", f);
	tsv_write_header(f, (const char *const[]){ "windows", "counted", "ops", "unit", "insns_windows", "insns",
						   "insns_per_op", NULL });
	fprintf(f, "%zu\t%zu\t", nwin, counted);
	if (counted)
		tsv_write_row(f, "%llu\t%s\t", (unsigned long long)ops, unit);
	else
		fprintf(f, "-\t-\t");
	/* Over the windows that counted both, never a made-up 0. */
	if (both && iops)
		fprintf(f, "%zu\t%llu\t%.1f\n", both, (unsigned long long)insns, (double)insns / (double)iops);
	else
		fprintf(f, "%zu\t-\t-\n", both);
	if (outfile_close(f) && !rc)
		rc = set_err(err, errlen, "%s: cannot write: %s", p, strerror(errno));
	free(p);
	free(pi);
	return rc;
}

/* fields.tsv, perf.data and c2c.txt of the windows of label (NULL: all) into dir. */
static int out_set(struct out_ctx *x, const char *dir, const char *label, char *err, size_t errlen)
{
	struct lines_ftable t = { 0 };
	struct lines_perf_sel sel = { .lf = &x->lf, .g = &x->g, .label = label, .vcpus = x->vcpus, .mem_bytes = x->mem };
	char *fields = xasprintf("%s/fields.tsv", dir), *data = xasprintf("%s/perf.data", dir);
	size_t nsamples = 0;
	uint64_t period = 1;
	int rc = -1, e = mkdir_p(dir, 0755);

	if (e < 0) {
		set_err(err, errlen, "%s: cannot create: %s", dir, strerror(-e));
		goto out;
	}
	if (write_ops(x, dir, label, err, errlen) < 0)
		goto out;
	/* mode=insns followed no line: the instructions are all there is. */
	if (x->insns_only) {
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < x->lf.nlines; i++)
		if (in_set(x, &x->lf.lines[i], label))
			lines_table_add(&t, &x->g, &x->lf.lines[i]);
	if (lines_table_write(&t, fields, err, errlen) < 0)
		goto out;
	if (lines_perf_write(&sel, data, &nsamples, &period, err, errlen) < 0)
		goto out;
	if (!x->o->quiet && period > 1)
		note("lines: %s: %zu samples, each for %llu events (PERIOD; fields.tsv has every event)", data,
		     nsamples, (unsigned long long)period);
	if (x->o->perf && c2c_of(x, dir, label, err, errlen) < 0)
		goto out;
	rc = 0;
out:
	lines_table_free(&t);
	free(fields);
	free(data);
	return rc;
}

/* The driver and mode a run's metrics carry at step ("charge.anon" of
 * charge.anon.total), NULL when none does (the lab's own runtime.* and
 * lock.* rows are no driver's). */
static const char *prefix_at(const struct metrics *m, const char *step, char *buf, size_t n)
{
	for (size_t i = 0; i < m->n; i++) {
		const char *name = m->rows[i].metric, *d1 = strchr(name, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;

		if (strcmp(m->rows[i].step, step) || !d2 || !strncmp(name, "runtime.", 8) || !strncmp(name, "lock.", 5) ||
		    strstr(name, ".insns_per_op"))
			continue;
		snprintf(buf, n, "%.*s", (int)(d2 - name), name);
		return buf;
	}
	return NULL;
}

static bool has_metric(const struct metrics *m, const char *step, int repeat, const char *metric)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->rows[i].repeat == repeat && !strcmp(m->rows[i].step, step) && !strcmp(m->rows[i].metric, metric))
			return true;
	return false;
}

struct metrics_ctx {
	const struct out_ctx *x;
	int added;
};

/* One run of the guest (DIR/results/NAME): per step and repeat whose
 * windows counted operations and instructions, <driver>.<mode>.insns_per_op. */
static int run_metrics(const char *dir, const char *name, bool is_dir, void *arg)
{
	struct metrics_ctx *c = arg;
	const struct out_ctx *x = c->x;
	char *run = xasprintf("%s/%s", dir, name), err[512], prefix[96], metric[128];
	struct metrics m;
	FILE *f = NULL;

	if (!is_dir || name[0] == '.' || metrics_load(run, &m, err, sizeof(err)) < 0) {
		free(run);
		return 0;
	}
	for (size_t i = 0; i < x->g.nwin; i++) {
		const struct lines_gwindow *w = &x->g.win[i];
		uint64_t ops = 0, insns = 0, n;
		bool seen = false, all = true;

		/* Each (label, repeat) once: its windows add up. */
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(x->g.win[j].label, w->label) && x->g.win[j].repeat == w->repeat;
		if (seen || !prefix_at(&m, w->label, prefix, sizeof(prefix)))
			continue;
		for (size_t j = i; j < x->g.nwin; j++) {
			const struct lines_gwindow *v = &x->g.win[j];

			if (strcmp(v->label, w->label) || v->repeat != w->repeat)
				continue;
			if (v->ops <= 0 || !insns_of(x, v->index, &n)) {
				all = false;
				break;
			}
			ops += (uint64_t)v->ops;
			insns += n;
		}
		snprintf(metric, sizeof(metric), "%s.insns_per_op", prefix);
		if (!all || !ops || has_metric(&m, w->label, w->repeat, metric))
			continue;
		if (!f)
			f = metrics_open(run);
		metrics_emit(f, w->label, w->repeat, metric, (double)insns / (double)ops, "insns/op", "lower");
		c->added++;
	}
	if (f && outfile_close(f))
		note("lines: %s/" METRICS_FILE ": cannot write: %s", run, strerror(errno));
	metrics_free(&m);
	free(run);
	return 0;
}

/*
 * The guest instructions per operation as the runs' metrics (compare
 * shows them): each run of the guest (DIR/results/<run>/) whose metrics
 * have the step a window was labelled with.  A bare driver writes no
 * metrics: its figures stay in lines/insns.tsv.
 */
static void insns_metrics(const struct out_ctx *x)
{
	char *runs = xasprintf("%s/results", x->o->dir);
	struct metrics_ctx c = { .x = x };

	if (path_exists(runs))
		rawdir_foreach(runs, run_metrics, &c);
	free(runs);
}

/*
 * lines/trace.bin (vm --trace), checked as its readers will read it: a bad
 * one fails the run in one line; a full one is said; its size per window,
 * said.
 */
static int trace_check(const struct out_ctx *x, char *err, size_t errlen)
{
	char *p = xasprintf("%s/trace.bin", x->lines_dir), note_[512];
	struct lines_trace t;
	const struct lines_trace_rec *r;
	uint64_t windows = 0, last = UINT64_MAX;

	if (!path_exists(p)) {
		free(p);
		return 0;
	}
	if (lines_trace_open(&t, p, err, errlen) < 0) {
		free(p);
		return -1;
	}
	while ((r = lines_trace_next(&t)))
		if (r->window != last) {
			windows++;
			last = r->window;
		}
	if (lines_trace_full(&t, note_, sizeof(note_)))
		note("lines: %s", note_);
	if (!x->o->quiet)
		note("lines: %s: %llu records (%.1f MiB), %llu window(s), about %llu a window", p,
		     (unsigned long long)t.hdr.nrecords, t.hdr.nrecords * 24.0 / 1048576, (unsigned long long)windows,
		     (unsigned long long)(windows ? t.hdr.nrecords / windows : 0));
	lines_trace_close(&t);
	free(p);
	return 0;
}

/*
 * Ranges asked for in detail (--lines-opts detail=) that no access in a
 * window touched: a zero the counts cannot tell from "nothing ran" (the
 * plugin's detail_seen; runs before it have no such line and get none).
 * Under qemu 7.2 a program's loop translated before the window's one
 * flush now and then runs without the plugin's callbacks (vm-lines.sh:
 * 3 runs in 9 of its --lines-window command case, the loop at ~1.6x its
 * counted speed): its line is then absent, and this says so.
 */
static void detail_unseen(const struct lines_file *f, const char *path)
{
	uint64_t ranges = 0, seen = 1;

	if (lines_meta_u64(f, "detail_ranges", &ranges) || !ranges || lines_meta_u64(f, "detail_seen", &seen) ||
	    seen)
		return;
	note("lines: %s: no access to the detail range%s (--lines-opts detail=) was counted in any window: nothing "
	     "in scope touched %s while a window was open, or its code ran without the plugin's callbacks (qemu "
	     "7.2 now and then runs a loop translated before the window's flush so: lab/c2c/README); its lines' "
	     "zero is not a measurement", path, ranges > 1 ? "s" : "", ranges > 1 ? "them" : "it");
}

int lines_out(const struct lines_out_opts *o, char *err, size_t errlen)
{
	struct out_ctx x = { .o = o };
	char *path = xasprintf("%s/lines/lines.tsv", o->dir), *why;
	uint64_t v;
	int rc = -1;

	x.lines_dir = xasprintf("%s/lines", o->dir);
	if (lines_parse_file(path, &x.lf, err, errlen) < 0)
		goto out_path;
	why = lines_status_problem(&x.lf, path);
	if (why) {
		set_err(err, errlen, "%s", why);
		free(why);
		goto out_lf;
	}
	detail_unseen(&x.lf, path);
	if (lines_guest_load(&x.g, o->dir, err, errlen) < 0)
		goto out_g;
	x.vcpus = lines_meta_u64(&x.lf, "vcpus", &v) == 0 ? (unsigned)v : 1;
	x.insns_only = lines_meta(&x.lf, "collect") && !strcmp(lines_meta(&x.lf, "collect"), "insns");
	x.mem = guest_mem(o->dir);
	if (!x.insns_only) {
		char *b = xasprintf("%s/buildid", x.lines_dir);
		int e = lines_perf_buildid(&x.g, b, err, errlen);

		if (e < 0) {
			free(b);
			goto out_g;
		}
		if (e > 0) {
			if (!o->quiet)
				note("lines: the guest sent no kallsyms or build ID: perf names no kernel code");
			free(b);
		} else {
			x.buildid = b;
		}
	}
	if (out_set(&x, x.lines_dir, NULL, err, errlen) < 0)
		goto out_g;
	/* Each label once, in the order its first window opened. */
	for (size_t i = 0; i < x.g.nwin; i++) {
		bool seen = false;
		char *name, *dir;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(x.g.win[j].label, x.g.win[i].label);
		if (seen)
			continue;
		name = label_dir(x.g.win[i].label);
		dir = xasprintf("%s/%s", x.lines_dir, name);
		free(name);
		rc = out_set(&x, dir, x.g.win[i].label, err, errlen);
		free(dir);
		if (rc < 0)
			goto out_g;
	}
	insns_metrics(&x);
	if (trace_check(&x, err, errlen) < 0)
		goto out_g;
	rc = 0;
out_g:
	lines_guest_free(&x.g);
out_lf:
	lines_file_free(&x.lf);
out_path:
	free(path);
	free(x.lines_dir);
	free(x.buildid);
	return rc;
}

int lines_out_dir(const char *dir, char *err, size_t errlen)
{
	struct lines_out_opts o = { .dir = dir, .perf = program_on_path("perf") ? "perf" : NULL };

	if (!o.perf)
		note("lines: no perf on PATH (Debian package linux-perf): no c2c.txt; fields.tsv and perf.data are written");
	return lines_out(&o, err, errlen);
}
