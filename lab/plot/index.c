// SPDX-License-Identifier: GPL-2.0
/* The headline plots and the index of all (plot/index.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "plot/guard.h"
#include "plot/index.h"
#include "report/verdict.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/fileio.h"
#include "util/json_path.h"
#include "util/outfile.h"
#include "util/tsv.h"
#include "util/strfmt.h"

#define MAX_HEADLINES 32

/* The kinds a plot's name starts with (plot/plot.h). */
static const char *const kinds[] = { "series-", "bars-", "cdf-", "cachelines-", "falsesharing-", "linesmap-",
				     "linesbars-", "linessteps-", NULL };

int plot_names_check(const char *list, char *why, size_t n)
{
	char buf[1024], *save = NULL;
	int count = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool kind = false;

		while (*tok == ' ')
			tok++;
		for (size_t l = strlen(tok); l && tok[l - 1] == ' '; l--)
			tok[l - 1] = '\0';
		for (int k = 0; kinds[k]; k++)
			kind |= !strncmp(tok, kinds[k], strlen(kinds[k])) && tok[strlen(kinds[k])];
		if (!kind)
			return set_err(why, n, "'%s' is no plot's name (series-, bars-, cdf-, cachelines-, "
				       "falsesharing-, linesmap-, linesbars- or linessteps- and the metric, group or struct)", tok);
		for (const char *p = tok; *p; p++)
			if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
				return set_err(why, n, "'%s': a plot's name has only [A-Za-z0-9._-]", tok);
		if (++count > MAX_HEADLINES)
			return set_err(why, n, "more than %d headline plots", MAX_HEADLINES);
	}
	return count ? 0 : set_err(why, n, "no plot named");
}

int plot_headlines_of(const char *dir, char ***names)
{
	char *path = xasprintf("%s/experiment.exp", dir), err[512], why[256], *save = NULL, *list;
	struct expfile f;
	const char *v;
	int n = 0;

	*names = NULL;
	memset(&f, 0, sizeof(f));
	if (!path_exists(path) || expfile_parse(path, &f, err, sizeof(err)) ||
	    !(v = expfile_value(&f, "plot", "headline", NULL)) || plot_names_check(v, why, sizeof(why))) {
		expfile_free(&f);
		free(path);
		return 0;
	}
	list = xstrdup(v);
	*names = xcalloc(MAX_HEADLINES, sizeof(**names));
	for (char *tok = strtok_r(list, ", ", &save); tok && n < MAX_HEADLINES; tok = strtok_r(NULL, ", ", &save))
		(*names)[n++] = xstrdup(tok);
	free(list);
	expfile_free(&f);
	free(path);
	return n;
}

void plot_headlines_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- what was drawn ---- */

static struct drawn {
	char *base, *what;
} *drawn;
static int ndrawn;

void plot_index_note(const char *base, const char *what)
{
	drawn = xrealloc(drawn, (ndrawn + 1) * sizeof(*drawn));
	drawn[ndrawn].base = xstrdup(base);
	drawn[ndrawn].what = xstrdup(what);
	ndrawn++;
}

/* A plot's path below out ("all/bars-x"), its name ("bars-x"). */
static const char *rel_of(const char *base, const char *out)
{
	size_t l = strlen(out);

	return !strncmp(base, out, l) && base[l] == '/' ? base + l + 1 : base;
}

static const char *name_of(const char *rel)
{
	const char *slash = strrchr(rel, '/');

	return slash ? slash + 1 : rel;
}

static int cmp_drawn(const void *a, const void *b)
{
	return strcmp(((const struct drawn *)a)->base, ((const struct drawn *)b)->base);
}

/* index.txt's columns: no header row, "# " comments (util/tsv.h). */
static const char *const index_cols[] = { "plot", "what", NULL };

/* One line of index.txt: "PATH<TAB>WHAT", each a cell (util/tsv.h). */
static void index_line(FILE *f, const char *rel, const char *what)
{
	tsv_write_row(f, "%s\t%s\n", rel, what);
}

void plot_index_write(const struct plot_target *t, const char *const *dirs, int ndirs)
{
	char *path = xasprintf("%s/" PLOT_INDEX_TXT, t->out);
	FILE *f = outfile_open(path, "w");

	qsort(drawn, ndrawn, sizeof(*drawn), cmp_drawn);
	tsv_write_row(f, "# the plots of %s%s%s: %s, each PNG, SVG, ASCII (.txt) and its gnuplot script (.gp)\n", dirs[0],
		ndirs > 1 ? " against " : "", ndirs > 1 ? dirs[1] : "",
		t->nheadlines ? "the experiment's headline plots ([plot] headline) first, then every other plot "
		"(" PLOT_REST_DIR "/)" : "every plot (the experiment names no headline plots)");
	for (int h = 0; h < t->nheadlines; h++) {
		bool found = false;

		for (int i = 0; i < ndrawn && !found; i++)
			if (!strcmp(name_of(rel_of(drawn[i].base, t->out)), t->headlines[h]) &&
			    !strchr(rel_of(drawn[i].base, t->out), '/')) {
				char *rel = xasprintf("%s.png", rel_of(drawn[i].base, t->out));

				index_line(f, rel, drawn[i].what);
				free(rel);
				found = true;
			}
		if (!found)
			tsv_write_row(f, "# %s: a headline plot this run did not draw (no data for it)\n",
				      t->headlines[h]);
		/* A map's prediction (plot/lines.c) goes beside it, after it. */
		for (int i = 0; i < ndrawn; i++) {
			const char *rel = rel_of(drawn[i].base, t->out);
			char *pred = xasprintf("%s.predicted", t->headlines[h]);

			if (!strcmp(rel, pred)) {
				char *png = xasprintf("%s.png", rel);

				index_line(f, png, drawn[i].what);
				free(png);
			}
			free(pred);
		}
	}
	for (int i = 0; i < ndrawn; i++) {
		const char *rel = rel_of(drawn[i].base, t->out);
		char *png;

		if (t->nheadlines && !strchr(rel, '/'))
			continue;	/* listed above */
		png = xasprintf("%s.png", rel);
		index_line(f, png, drawn[i].what);
		free(png);
	}
	if (outfile_close(f))
		plot_guard_unwritten(path);
	free(path);
	for (int i = 0; i < ndrawn; i++) {
		free(drawn[i].base);
		free(drawn[i].what);
	}
	free(drawn);
	drawn = NULL;
	ndrawn = 0;
	if (plot_index_html(t->out, dirs, ndirs))
		plot_guard_unwritten(NULL);
}

/* ---- index.html ---- */

static void html(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A path of index.txt as an attribute: it holds only [A-Za-z0-9._/-] (plot
 * names are made so); anything else is escaped as HTML. */
static void attr(FILE *f, const char *s)
{
	html(f, s);
}

static const char *kind_class(enum verdict_kind k)
{
	return k == VERDICT_REPRODUCED ? "rep" : k == VERDICT_NOT_REPRODUCED ? "not" : "na";
}

static void html_verdicts(FILE *f, const struct verdicts *vs)
{
	char count[256];

	fputs("<h2>Verdicts</h2>\n", f);
	if (vs->none[0]) {
		fputs("<p class=\"none\">", f);
		html(f, vs->none);
		fputs("</p>\n", f);
		return;
	}
	verdicts_count_text(vs, count, sizeof(count));
	fputs("<p>", f);
	html(f, count);
	fputs("</p>\n<table>\n<tr><th>claim</th><th>step</th><th>verdict</th><th>published</th><th>measured</th>"
	      "<th>rule, or why not</th></tr>\n", f);
	for (int i = 0; i < vs->n; i++) {
		const struct verdict *v = &vs->v[i];

		for (int k = 0; k < v->npts; k++) {
			const struct verdict_point *p = &v->pt[k];

			fprintf(f, "<tr class=\"%s\"><td>", kind_class(p->kind));
			html(f, claim_label(v->c));
			if (v->side)
				fprintf(f, " [%c]", v->side);
			fputs("</td><td>", f);
			html(f, p->label);
			fputs("</td><td>", f);
			html(f, verdict_kind_name(p->kind));
			fputs("</td><td>", f);
			html(f, p->published);
			fputs("</td><td>", f);
			html(f, p->measured[0] ? p->measured : "-");
			fputs("</td><td>", f);
			html(f, p->why);
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
	for (int i = 0; i < vs->n; i++) {
		fputs("<p class=\"src\"><b>", f);
		html(f, claim_label(vs->v[i].c));
		fputs("</b>: ", f);
		html(f, vs->v[i].c->published);
		fputs(" (", f);
		html(f, vs->v[i].c->machine);
		fputs("; ", f);
		html(f, vs->v[i].c->source);
		fputs(")", f);
		for (int k = 0; k < vs->v[i].nnotes; k++) {
			fputs("<br>", f);
			html(f, vs->v[i].notes[k]);
		}
		fputs("</p>\n", f);
	}
}

int plot_index_html(const char *plotdir, const char *const *dirs, int ndirs)
{
	char *txt = xasprintf("%s/" PLOT_INDEX_TXT, plotdir), *out = xasprintf("%s/" PLOT_INDEX_HTML, plotdir);
	char *mp = xasprintf("%s/meta.json", dirs[0]), err[512];
	json_object *meta = json_object_from_file(mp);
	size_t len;
	char *text = read_text(txt, &len);
	struct verdicts vs;
	struct tsv t;
	FILE *f;
	int ret, r, nrest = 0;

	if (!text) {
		outfile_failure(txt, "cannot read", errno);
		free(txt);
		free(out);
		free(mp);
		json_object_put(meta);
		return -1;
	}
	/* index_line wrote it just now: a refusal is the lab's own bug. */
	if (tsv_open_text(&t, txt, text, len, index_cols, TSV_NO_HEADER | TSV_COMMENTS, err, sizeof(err)))
		die("%s", err);
	if (ndirs > 1)
		verdicts_of_pair(&vs, dirs[0], dirs[1]);
	else
		verdicts_of_dir(&vs, dirs[0]);
	f = outfile_open(out, "w");
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>memcg-lab: ", f);
	html(f, json_path_or(meta, "name", "?"));
	fputs("</title>\n<style>\nbody { font-family: sans-serif; margin: 1em 2em; }\n"
	      "table { border-collapse: collapse; font-size: 90%; }\n"
	      "td, th { border: 1px solid #bbb; padding: 2px 6px; vertical-align: top; text-align: left; }\n"
	      "tr.rep td:nth-child(3) { background: #cfc; }\ntr.not td:nth-child(3) { background: #fcc; }\n"
	      "tr.na td:nth-child(3) { background: #eee; }\n.src { font-size: 85%; color: #333; }\n"
	      "figure { display: inline-block; margin: 0 1em 1em 0; max-width: 48%; vertical-align: top; }\n"
	      "figure img { max-width: 100%; border: 1px solid #ccc; }\nfigcaption { font-size: 85%; }\n"
	      "</style>\n</head>\n<body>\n<h1>", f);
	html(f, json_path_or(meta, "name", "?"));
	fputs(": ", f);
	html(f, json_path_or(meta, "probe.kernel", json_path_or(meta, "uname", "?")));
	if (ndirs > 1)
		fputs(" (A) against B", f);
	fputs("</h1>\n<p>", f);
	html(f, dirs[0]);
	for (int i = 1; i < ndirs; i++) {
		fputs(" against ", f);
		html(f, dirs[i]);
	}
	fputs("</p>\n", f);
	html_verdicts(f, &vs);
	fputs("<h2>Headline plots</h2>\n", f);
	while ((r = tsv_next(&t)) != TSV_END) {
		const char *plot = tsv_get(&t, 0), *what = tsv_get(&t, 1);
		char *stem;

		if (r < 0)
			die("%s", err);
		if (r == TSV_COMMENT) {
			if (strstr(tsv_cell(&t, 0), "a headline plot this run did not draw")) {
				fputs("<p class=\"none\">", f);
				html(f, tsv_cell(&t, 0) + 2);
				fputs("</p>\n", f);
			}
			continue;
		}
		if (strchr(plot, '/')) {
			if (!nrest++)
				fputs("<h2>Every other plot</h2>\n<ul>\n", f);
			fputs("<li><a href=\"", f);
			attr(f, plot);
			fputs("\">", f);
			html(f, name_of(plot));
			fputs("</a>: ", f);
			html(f, what);
			fputs("</li>\n", f);
			continue;
		}
		stem = xstrdup(plot);
		if (strlen(stem) > 4)
			stem[strlen(stem) - 4] = '\0';	/* ".png" */
		fputs("<figure><a href=\"", f);
		attr(f, plot);
		fputs("\"><img src=\"", f);
		attr(f, plot);
		fputs("\" alt=\"", f);
		attr(f, stem);
		fputs("\"></a><figcaption><b>", f);
		html(f, stem);
		fputs("</b>: ", f);
		html(f, what);
		fputs(" (<a href=\"", f);
		attr(f, stem);
		fputs(".svg\">SVG</a>, <a href=\"", f);
		attr(f, stem);
		fputs(".txt\">ASCII</a>)</figcaption></figure>\n", f);
		free(stem);
	}
	if (nrest)
		fputs("</ul>\n", f);
	fputs("</body>\n</html>\n", f);
	ret = outfile_close(f);
	verdicts_free(&vs);
	json_object_put(meta);
	tsv_close(&t);
	free(text);
	free(txt);
	free(out);
	free(mp);
	return ret;
}
