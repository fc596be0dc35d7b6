// SPDX-License-Identifier: GPL-2.0
/* memcg-lab lines predict TRACE --layout ...: another layout's cacheline transfers, from a recorded trace. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "c2c/lines_predict.h"
#include "cmd/builtin.h"
#include "plot/plot.h"
#include "report/lines_fields.h"
#include "report/lines_predicted.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/options.h"
#include "util/run.h"
#include "util/tsv.h"

static const struct options_cmd predict_cmd = {
	.name = "lines predict",
	.usage =
	"usage: memcg-lab lines predict TRACE [--layout BTF|VMLINUX] [--struct S]\n"
	"           [--move M=OFF]... [--align M=64|128]... [--pad-after M]... [--line-size 64|128]\n"
	"\n"
	"TRACE is a run of `memcg-lab vm --lines --trace` (RESULTS, RESULTS/lines or\n"
	"RESULTS/lines/trace.bin): every access of the guest's windows to the objects\n"
	"the lab follows, in order, with the objects of each window and the guest\n"
	"kernel's BTF beside it.  predict replays those accesses through the lines\n"
	"model twice: on the layout they were recorded with, and on the new one, each\n"
	"access moved to where the new layout puts its field (matched by its nested\n"
	"name, memory.usage), each object on lines of its own.  It prints per field the\n"
	"HITMs (false and true sharing) of both and the change, writes the predicted\n"
	"rows as OUT/" LINES_PREDICTED_FILE " (fields.tsv's columns, after lines naming the\n"
	"trace and the layout) and draws the coloured cacheline map of the new layout.\n"
	"\n"
	"The new layout: another build's struct (--layout), today's edited (--move,\n"
	"--align, --pad-after: members of --struct S, applied in the order given;\n"
	"S may be a struct inside the traced ones, page_counter in mem_cgroup), and\n"
	"either at --line-size 128 (adjacent-line prefetch pairs, as perf c2c\n"
	"--double-cl).  Exit 2 with one line: a trace of another format or cut off, a\n"
	"layout without a traced struct, an edit naming no member, an offset over\n"
	"another member.\n"
	"\n",
};

struct edits {
	struct ll_edit *v;
	size_t n;
};

static void add_edit(const struct lab_option *opt, const char *arg)
{
	struct edits *e = opt->value;
	struct ll_edit ed = { .arg = arg };
	const char *eq = strchr(arg, '=');

	if (!strcmp(opt->long_name, "pad-after")) {
		ed.kind = LL_PAD_AFTER;
		if (!arg[0] || eq)
			option_bad(opt, arg, "want a member of the struct");
		ed.name = xstrdup(arg);
	} else {
		char *end;

		ed.kind = !strcmp(opt->long_name, "move") ? LL_MOVE : LL_ALIGN;
		if (!eq || eq == arg || !eq[1])
			option_bad(opt, arg, "want MEMBER=%s", ed.kind == LL_MOVE ? "OFFSET" : "64|128");
		errno = 0;
		ed.value = strtoull(eq + 1, &end, 0);
		if (*end || errno || eq[1] == '-')
			option_bad(opt, arg, "want MEMBER=%s", ed.kind == LL_MOVE ? "OFFSET (bytes)" : "64|128");
		if (ed.kind == LL_ALIGN && ed.value != 64 && ed.value != 128)
			option_bad(opt, arg, "want MEMBER=64 or MEMBER=128");
		if (ed.kind == LL_MOVE && ed.value >= (1u << 20))
			option_bad(opt, arg, "want an offset below 1 MiB");
		ed.name = xasprintf("%.*s", (int)(eq - arg), arg);
	}
	e->v = xrealloc(e->v, (e->n + 1) * sizeof(*e->v));
	e->v[e->n++] = ed;
}

static void cgroup_opt(const struct lab_option *opt, const char *arg)
{
	enum field_cgroup *cg = opt->value;

	if (!arg[0] || field_cgroup_parse(arg, cg) < 0)
		option_bad(opt, arg, "want v1 or v2");
}

/*
 * The recorded replay against the run's own fields.tsv, the plugin's
 * counts of the same windows: fields of the traced structs with HITMs in
 * either, how many agree, the one most apart.  They differ by what the
 * replay leaves out (neighbours outside the objects) and, under MTTCG, by
 * the order the plugin's callbacks saw the accesses in.
 */
static void check_measured(const struct lp_run *r, const struct lr_type *types, const struct lr_result *rec)
{
	char *path = xasprintf("%s/" LINES_FIELDS_FILE, r->lines_dir), err[512];
	struct lines_fields lf;
	size_t n = 0, same = 0;
	double worst = -1, wa = 0, wb = 0;
	const char *wname = NULL, *wst = NULL;

	if (access(path, R_OK)) {
		printf("no %s: the recorded replay is not checked against the plugin's own counts\n", path);
		free(path);
		return;
	}
	if (lines_fields_load(path, &lf, err, sizeof(err))) {
		printf("%s\n", err);
		free(path);
		return;
	}
	for (size_t t = 0; t < r->ntypes; t++) {
		const struct ll_layout *l = types[t].old;

		for (size_t i = 0; i < l->nf; i++) {
			double a = (double)lines_replay_events(&rec->counts[t].c[i]), b = 0;

			for (size_t k = 0; k < lf.n; k++)
				if (!strcmp(lf.r[k].st, l->st) && !strcmp(lf.r[k].field, l->f[i].name))
					b += lf.r[k].hitm_loads + lf.r[k].hitm_stores;
			if (!a && !b)
				continue;
			n++;
			same += a == b;
			if (fabs(a - b) > worst) {
				worst = fabs(a - b);
				wa = a;
				wb = b;
				wname = l->f[i].name;
				wst = l->st;
			}
		}
	}
	printf("recorded replay against %s (the plugin's counts of the same windows): %zu of %zu fields with HITMs "
	       "alike", path, same, n);
	if (n && same < n)
		printf("; most apart: %s.%s, %.0f replayed against %.0f (neighbours outside the objects, and under MTTCG "
		       "the callbacks' order, make them differ)", wst, wname, wa, wb);
	printf("\n");
	lines_fields_free(&lf);
	free(path);
}

/* The map of each struct with a predicted HITM, printed after its files. */
static void draw_maps(const struct lp_run *r, const struct lr_type *types, const struct lr_result *pred,
		      const char *fields, const char *out, unsigned line, bool quiet)
{
	char *dir = xasprintf("%s/plots", out), err[512];

	if (!program_on_path("gnuplot")) {
		printf("\nno map: gnuplot is not on PATH (Debian package gnuplot-nox)\n");
		free(dir);
		return;
	}
	if (mkdir_p(dir, 0755) < 0)
		die("lines predict: %s: cannot create: %s", dir, strerror(errno));
	for (size_t t = 0; t < r->ntypes; t++) {
		const struct lr_counts *c = &pred->counts[t];
		uint64_t ev = 0;
		char *name, *title;

		for (size_t i = 0; c->c && i < c->nf; i++)
			ev += lines_replay_events(&c->c[i]);
		if (!ev || !types[t].new)
			continue;
		name = xasprintf("predicted-linesmap-%s", types[t].st);
		title = xasprintf("struct %s: predicted cacheline transfers per field (%u-byte lines)", types[t].st, line);
		if (plot_lines_file_map(fields, types[t].st, (int)line, name, title, dir, quiet, stdout, err,
					sizeof(err)) < 0)
			die("lines predict: %s", err);
		free(name);
		free(title);
	}
	free(dir);
}

int cmd_lines_predict(int argc, char **argv)
{
	struct edits ed = { 0 };
	const char *out = NULL, *measured = NULL;
	struct lp_opts o = { 0 };
	enum field_cgroup cg = FIELD_CG_UNKNOWN;
	int line = 64;
	bool no_map = false, quiet = false;
	const struct lab_option opts[] = {
		OPT_STRING(0, "layout", &o.layout, "FILE", NULL, "another build's raw BTF or vmlinux (ELF with .BTF, "
			   "else DWARF through pahole): each traced struct as it lays it out"),
		OPT_STRING(0, "struct", &o.st, "S", "the one traced struct", "the struct the edits name: a traced one "
			   "or one inside them (page_counter)"),
		OPT_CALLBACK(0, "move", &ed, "M=OFF", NULL, "member M (or a block A..B) to byte OFF; the rest stays "
			     "(consecutive moves are one edit: a swap)", add_edit),
		OPT_CALLBACK(0, "align", &ed, "M=N", NULL, "member M on an N-byte boundary (64 or 128), the members "
			     "after it laid out again", add_edit),
		OPT_CALLBACK(0, "pad-after", &ed, "M", NULL, "the member after M starts a new line "
			     "(CACHELINE_PADDING)", add_edit),
		OPT_INT(0, "line-size", &line, "N", "64", "64, or 128: adjacent-line prefetch pairs, as perf c2c "
			"--double-cl", 64, 128),
		OPT_CALLBACK(0, "cgroup", &cg, "V", "the run's", "v1 or v2: names mem_cgroup's swap|memsw union "
			     "where the run's guest.txt does not", cgroup_opt),
		OPT_STRING('o', "out", &out, "DIR", "the run's lines directory", "where " LINES_PREDICTED_FILE
			   " and plots/ go"),
		OPT_STRING(0, "measured", &measured, "DIR", NULL, "a run of the layout predicted (DIR, DIR/lines): the "
			   "prediction beside its fields.tsv, per field and per 1000 operations, the class and the error"),
		OPT_FLAG(0, "no-map", &no_map, "no cacheline map (no gnuplot run)"),
		OPT_FLAG('q', "quiet", &quiet, "no plot: lines"),
		OPT_END(),
	};
	int i = options_parse(&predict_cmd, opts, argc, argv);
	char err[1024];
	struct lp_run r;
	struct ll_layout *news;
	struct lr_type *types;
	struct lr_result rec, pred;
	char *desc, *path, *c_trace, *c_layout, *c_line, *c_ops;

	if (i != argc - 1)
		options_usage_error();
	if (line != 64 && line != 128)
		die("lines predict: --line-size %d: want 64 or 128", line);
	o.line = (unsigned)line;
	o.edits = ed.v;
	o.nedits = ed.n;
	if (o.st && !o.nedits && !o.layout)
		die("lines predict: --struct %s: without --move, --align or --pad-after it changes nothing", o.st);
	if (lp_run_load(&r, argv[i], cg, err, sizeof(err)) < 0)
		die("lines predict: %s", err);
	news = xcalloc(r.ntypes, sizeof(*news));
	types = xcalloc(r.ntypes, sizeof(*types));
	if (lp_new_layouts(&r, &o, news, &desc, err, sizeof(err)) < 0)
		die("lines predict: %s", err);
	lp_types(&r, news, types);
	{
		struct lr_input in = { &r.trace, &r.objs, types, r.ntypes, 64, true, NULL };

		if (lines_replay(&in, &rec, err, sizeof(err)) < 0)
			die("lines predict: %s", err);
		in.line = o.line;
		in.recorded = false;
		if (lines_replay(&in, &pred, err, sizeof(err)) < 0)
			die("lines predict: %s", err);
	}
	lp_print(stdout, &r, types, r.ntypes, &rec, &pred, o.line, desc);
	printf("\n");
	check_measured(&r, types, &rec);
	if (!out)
		out = r.lines_dir;
	if (mkdir_p(out, 0755) < 0)
		die("lines predict: %s: cannot create: %s", out, strerror(errno));
	path = xasprintf("%s/" LINES_PREDICTED_FILE, out);
	c_trace = tsv_asprintf("# trace\t%s", r.trace_path);
	c_layout = tsv_asprintf("# layout\t%s", desc);
	c_line = xasprintf("# line_size\t%u", o.line);
	c_ops = r.ops > 0 ? tsv_asprintf("# ops\t%.0f\t%s", r.ops, r.unit) : xstrdup("# ops\t-\t-");
	{
		const char *comments[] = { LINES_PREDICTED_MAGIC, c_trace, c_layout, c_line, c_ops, NULL };

		if (lp_write_fields(types, r.ntypes, &pred, false, path, comments, err, sizeof(err)) < 0)
			die("lines predict: %s", err);
	}
	printf("\npredicted rows: %s\n", path);
	if (measured) {
		/* DIR or DIR/lines: where its fields.tsv is. */
		char *a = xasprintf("%s/lines/" LINES_FIELDS_FILE, measured), *b = xasprintf("%s/" LINES_FIELDS_FILE, measured);
		char *md = !access(a, R_OK) ? xasprintf("%s/lines/", measured) : !access(b, R_OK) ? xasprintf("%s/", measured) : NULL;

		if (!md)
			die("lines predict: --measured %s: no fields.tsv in it nor in its lines/ (a vm --lines run, converted)",
			    measured);
		lines_predicted_table(stdout, path, md, measured, 80);
		free(md);
		free(a);
		free(b);
	}
	if (!no_map)
		draw_maps(&r, types, &pred, path, out, o.line, quiet);
	free(path);
	free(c_trace);
	free(c_layout);
	free(c_line);
	free(c_ops);
	free(desc);
	lines_replay_free(&rec);
	lines_replay_free(&pred);
	for (size_t t = 0; t < r.ntypes; t++)
		lines_layout_free(&news[t]);
	free(news);
	free(types);
	for (size_t k = 0; k < ed.n; k++)
		free((char *)ed.v[k].name);
	free(ed.v);
	lp_run_free(&r);
	return 0;
}
