// SPDX-License-Identifier: GPL-2.0
/*
 * cachelines-<struct>: the cacheline map of each struct of a layout
 * capture (data/layout/cachelines.txt), hot-written and read-mostly
 * fields coloured; falsesharing-<struct>: per field of a struct, the
 * HITMs of the functions that read it beside the stores of those that
 * write it (fieldmap-<struct>.tsv of a c2c window).
 *
 * The map's margins are set here, not left to gnuplot, so the width of a
 * byte is known and each box label is checked against its box before it
 * is drawn (plot/plotmaps.h): a name that does not fit becomes a key
 * into the list under the map.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plot/plotmaps.h"
#include "plot/guard.h"
#include "plot/kinds.h"
#include "util/err.h"
#include "util/gnuplot.h"
#include "util/outfile.h"
#include "util/tsv.h"

/* pngcairo draws a font of N points N * 4/3 pixels to the em. */
#define PX_PER_PT (4.0 / 3.0)
#define LABEL_PT 7	/* the box labels (plots/cachelines.gp) */
#define TICS_PT 10	/* the terminal's font: line numbers and prefixes */
#define LIST_PT 8	/* the key list under the map */
#define ROW_PX 22	/* one cacheline */
#define TEXT_COLS 72	/* the ASCII rendering (util/gnuplot.h) */

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

/* The longest line prefix in ems (0 without any), and the y2tics naming them. */
static double prefix_tics(const struct cl_struct *s, int monospace, char **tics)
{
	double widest = 0;

	*tics = xstrdup("");
	for (int l = 0; l < s->nlines; l++) {
		char *t;

		if (!s->prefix[l][0])
			continue;
		widest = fmax(widest, plotmap_label_ems(s->prefix[l], monospace));
		t = xasprintf("%s%s\"%s\" %d", *tics, (*tics)[0] ? ", " : "", s->prefix[l], l);
		free(*tics);
		*tics = t;
	}
	return widest;
}

/* "set label" commands for the key list: columns of rows from the top
 * y (screen fraction) down by dy, x from x0 by dx. */
static char *list_labels(const char *keys, int rows, double x0, double dx, double y, double dy,
			 int first_tag, const char *font)
{
	char *cmds = xstrdup(""), *copy = xstrdup(keys), *save = NULL;
	int i = 0;

	/* Double quotes: the commands go into a single-quoted variable, and
	 * field names hold no quotes. */
	for (char *ln = strtok_r(copy, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save), i++) {
		char *t = xasprintf("%sset label %d \"%s\" at screen %.4f, %.4f left%s%s%s; ", cmds, first_tag + i, ln,
				    x0 + dx * (i / rows), y - dy * (i % rows), font[0] ? " font \"" : "", font,
				    font[0] ? "\"" : "");

		free(cmds);
		cmds = t;
	}
	free(copy);
	return cmds;
}

static int list_lines(const char *keys, double *widest_ems, int monospace)
{
	char *copy = xstrdup(keys), *save = NULL;
	int n = 0;

	*widest_ems = 0;
	for (char *ln = strtok_r(copy, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save), n++)
		*widest_ems = fmax(*widest_ems, plotmap_label_ems(ln, monospace));
	free(copy);
	return n;
}

/*
 * Rows of a map's ASCII rendering: the title's 3, two per cacheline
 * between the borders (each line's boxes on a row of their own, a blank
 * row between two lines: yrange nlines-0.5 .. -0.5 puts line l at
 * (l + 0.5) * 2 rows below the top border), the bottom border, and the
 * bottom margin: the x tics, the x label, the key list, a last blank row
 * (bm_txt = 3 + list rows, as plot_map sets it).
 */
int map_text_rows(int nlines, int list_rows)
{
	return 3 + 2 * nlines + 1 + 3 + list_rows;
}

/* "|label" plus '*' hot-written, '~' read-mostly, '!' false sharing or '#'
 * true sharing: the ASCII box. */
static char *ascii_box(const char *label, int tag)
{
	return xasprintf("|%s%s", label, tag == 1 ? "*" : tag == 2 ? "~" : tag == 3 ? "!" : tag == 4 ? "#" : "");
}

/* keys plus notes, one list. */
static char *with_notes(char *keys, const char *notes)
{
	char *k;

	if (!notes || !*notes)
		return keys;
	k = xasprintf("%s%s", keys, notes);
	free(keys);
	return k;
}

/* The left tics naming each row's cacheline where rows skip lines. */
static char *row_tics(const struct cl_struct *s)
{
	char *tics = xstrdup("");

	for (int l = 0; s->line_no && l < s->nlines; l++) {
		char *t = xasprintf("%s%s\"%d\" %d", tics, l ? ", " : "", s->line_no[l], l);

		free(tics);
		tics = t;
	}
	return tics;
}

void plot_map(const struct cl_struct *s, const struct map_spec *m, const struct plot_target *t)
{
	const char *name = m->name;
	char *data = xasprintf("%s/%s.tsv", plot_out(t, name), name), *base = xasprintf("%s/%s", plot_out(t, name), name);
	const char *title = m->title;
	char *vars = NULL, *tics, *tics_txt, **labels, **labels_txt, *keys, *keys_txt, *cmds, *cmds_txt, *rowtics = row_tics(s);
	double pre_px = prefix_tics(s, 0, &tics) * TICS_PT * PX_PER_PT, pre_cols = prefix_tics(s, 1, &tics_txt);
	int w = t->w, lm = 45, rm = (int)ceil(24 + pre_px), lm_txt = 5, rm_txt = (int)pre_cols + 3;
	double byte_px = (double)(w - lm - rm) / s->linesize, byte_cols = (double)(TEXT_COLS - lm_txt - rm_txt) / s->linesize;
	struct cl_geometry png = { LABEL_PT * PX_PER_PT / byte_px, 1.5 / byte_px, 0 };
	struct cl_geometry txt = { 1 / byte_cols, 1 / byte_cols, 1 };
	int nlist = plotmap_cachelines_label(s, &png, &labels, &keys);
	int nlist_txt = plotmap_cachelines_label(s, &txt, &labels_txt, &keys_txt);
	double widest, widest_txt;
	int cols, rows, cols_txt, rows_txt, h, text_rows, list_px;
	FILE *tsv = outfile_open(data, "w");

	/* The key list in as many columns as fit under the map, the notes after it. */
	keys = with_notes(keys, m->notes);
	keys_txt = with_notes(keys_txt, m->notes);
	nlist = list_lines(keys, &widest, 0);
	nlist_txt = list_lines(keys_txt, &widest_txt, 1);
	cols = nlist ? fmax(1, floor((w - lm) / (widest * LIST_PT * PX_PER_PT + 16))) : 1;
	rows = (nlist + cols - 1) / cols;
	cols_txt = nlist_txt ? fmax(1, floor((TEXT_COLS - 2) / (widest_txt + 2))) : 1;
	rows_txt = (nlist_txt + cols_txt - 1) / cols_txt;
	list_px = rows * (int)ceil(LIST_PT * PX_PER_PT * 1.25);
	h = 75 + 65 + ROW_PX * s->nlines + list_px;
	h = t->h > h ? t->h : h;
	text_rows = map_text_rows(s->nlines, rows_txt);

	fprintf(tsv, "line\tstart\tend\ttag\tname\tlabel\tlabel_txt\n");
	for (size_t i = 0; i < s->nboxes; i++) {
		const struct cl_box *bx = &s->boxes[i];
		char *a = labels_txt[i][0] ? ascii_box(labels_txt[i], bx->tag) : xstrdup("|");

		tsv_write_row(tsv, "%d\t%d\t%d\t%d\t%s\t%s\t%s\n", bx->line, bx->start, bx->end, bx->tag, bx->name,
			      labels[i], a);
		free(a);
		free(labels[i]);
		free(labels_txt[i]);
	}
	free(labels);
	free(labels_txt);
	if (outfile_close(tsv))
		plot_guard_unwritten(data);
	cmds = list_labels(keys, rows, (double)lm / w, (w - lm) / (double)cols / w,
			   (double)(list_px + 8) / h, LIST_PT * PX_PER_PT * 1.25 / h, 1000, ",8");
	/* The list's first row under the x label, its last one above the
	 * text's last (blank) row. */
	cmds_txt = list_labels(keys_txt, rows_txt, 1.0 / TEXT_COLS, (TEXT_COLS - 2) / (double)cols_txt / TEXT_COLS,
			       (double)rows_txt / text_rows, 1.0 / text_rows, 1000, "");
	gnuplot_var(&vars, "title", title);
	gnuplot_var(&vars, "file", data);
	gnuplot_var_int(&vars, "nlines", s->nlines);
	gnuplot_var_int(&vars, "linesize", s->linesize);
	gnuplot_var(&vars, "prefixes", tics);
	gnuplot_var(&vars, "prefixes_txt", tics_txt);
	gnuplot_var(&vars, "rows", rowtics);
	gnuplot_var(&vars, "keys", cmds);
	gnuplot_var(&vars, "keys_txt", cmds_txt);
	/* Margins: pixels as screen fractions for PNG and SVG, character cells for text. */
	{
		char *mg = xasprintf("lm=%.6f\nrm=%.6f\ntm=%.6f\nbm=%.6f\nlm_txt=%d\nrm_txt=%d\nbm_txt=%d\n",
				    (double)lm / w, 1 - (double)rm / w, 1 - 75.0 / h, (65.0 + list_px) / h,
				    lm_txt, rm_txt, 3 + rows_txt);
		char *v = xasprintf("%s%s", vars, mg);

		free(vars);
		free(mg);
		vars = v;
	}
	plot_render(m->tmpl, vars, base, w, h, text_rows, m->what);
	free(rowtics);
	free(cmds);
	free(cmds_txt);
	free(keys);
	free(keys_txt);
	free(tics);
	free(tics_txt);
	free(data);
	free(base);
	free(vars);
}

static void emit_cachelines(const struct cl_struct *s, const char *run_label, const struct plot_target *t)
{
	char *name = xasprintf("cachelines-%s", s->name);
	char *title = xasprintf("struct %s: %d B, %d cachelines (%s)", s->name, s->size, s->nlines, run_label);
	char *what = xasprintf("%s: each 64-byte line a row, one box per field's byte range (* hot-written, ~ "
			       "read-mostly)", title);
	struct map_spec m = { "cachelines", name, title, what, NULL };

	plot_map(s, &m, t);
	free(name);
	free(title);
	free(what);
}

int plot_layout_maps(struct plot_dir *d, const struct plot_target *t)
{
	char **files = NULL, err[512];
	int n = 0, nplots = 0;

	find_files(d->dir, "cachelines.txt", NULL, &files, &n);
	for (int i = 0; i < n; i++) {
		struct cl_struct *st;
		int ns;

		if (plotmap_cachelines_read(files[i], &st, &ns, err, sizeof(err)) < 0)
			die("%s", err);
		for (int k = 0; k < ns; k++)
			emit_cachelines(&st[k], d->label + 3, t);
		nplots += ns;
		plotmap_cachelines_free(st, ns);
		free(files[i]);
	}
	free(files);
	return nplots;
}

int plot_fieldmaps(struct plot_dir *d, const struct plot_target *t)
{
	char **files = NULL, err[512];
	int n = 0, nplots = 0;

	find_files(d->dir, "fieldmap-", ".tsv", &files, &n);
	for (int i = 0; i < n; i++) {
		const char *nm = strrchr(files[i], '/') + 1;
		char *st = xasprintf("%.*s", (int)(strlen(nm) - strlen("fieldmap-") - 4), nm + strlen("fieldmap-"));
		struct fieldmap_info fi;
		char *tsv = plotmap_fieldmap(files[i], &fi, err, sizeof(err)), *data, *base, *title, *title_txt;
		char *vars = NULL, *name, *what, *ylabel, *y2label, *readers, *writers;

		if (!tsv)
			die("%s", err);
		/* One plot per struct and window: the window's directory tags it. */
		name = xasprintf("falsesharing-%s%s%.0d", st, i ? "." : "", i);
		data = xasprintf("%s/falsesharing-%s.%d.tsv", plot_out(t, name), st, i);
		base = xasprintf("%s/%s", plot_out(t, name), name);
		if (outfile_write(data, tsv, strlen(tsv)))
			plot_guard_unwritten(NULL);
		/*
		 * Readers and writers side by side, each on its axis: a reading
		 * function's HITMs (loads that found the line modified in
		 * another core) and a writing function's store samples are
		 * counts of different events.
		 */
		title = xasprintf("struct %s: %s of the reading functions, stores of the writing ones, per field (%s)%s",
				  st, fi.metric, d->label + 3, fi.store_rows ? "" : "; no store samples");
		title_txt = xasprintf("struct %s per field (%s)%s", st, d->label + 3,
				      fi.store_rows ? "" : ": no stores");
		ylabel = xasprintf("%s of reading functions (perf c2c)", fi.metric);
		y2label = xasprintf("stores of writing functions (perf c2c)");
		readers = xasprintf("readers: %s (left axis)", fi.metric);
		writers = xstrdup("writers: stores (right axis)");
		gnuplot_var(&vars, "title", title);
		gnuplot_var(&vars, "title_txt", title_txt);
		gnuplot_var(&vars, "file", data);
		gnuplot_var(&vars, "ylabel", ylabel);
		gnuplot_var(&vars, "y2label", y2label);
		gnuplot_var(&vars, "readers", readers);
		gnuplot_var(&vars, "writers", writers);
		gnuplot_var_int(&vars, "nfields", fi.nfields);
		gnuplot_var_int(&vars, "has_stores", fi.store_rows > 0);
		what = xasprintf("%s: each field's readers (their %s) beside its writers (their stores)", title,
				 fi.metric);
		plot_render("fieldmap", vars, base, t->w, t->h, 0, what);
		free(what);
		free(name);
		nplots++;
		free(st);
		free(tsv);
		free(data);
		free(base);
		free(title);
		free(title_txt);
		free(ylabel);
		free(y2label);
		free(readers);
		free(writers);
		free(vars);
		free(files[i]);
	}
	free(files);
	return nplots;
}
