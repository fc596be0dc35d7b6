// SPDX-License-Identifier: GPL-2.0
/*
 * Verdicts, printed (report/verdict.h): the words of a verdict's kind, the
 * count line, the one-line-per-claim table, report.txt's verdict section
 * (wrapped to a width), the seeds' tables of an A/B and verdicts.tsv.
 * It reads struct verdicts as verdict.c judged them; nothing here decides.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/claim.h"
#include "report/verdict.h"
#include "report/verdict_measure.h"
#include "util/err.h"
#include "util/strfmt.h"
#include "util/tsv.h"

const char *verdict_kind_name(enum verdict_kind k)
{
	switch (k) {
	case VERDICT_REPRODUCED:
		return "reproduced";
	case VERDICT_NOT_REPRODUCED:
		return "not reproduced";
	case VERDICT_NOT_MEASURABLE:
		return "not measurable here";
	case VERDICT_NOT_REACHED:
		return "not reached";
	}
	return "?";
}

void verdicts_count_text(const struct verdicts *vs, char *buf, size_t n)
{
	int count[4] = { 0 };
	bool first = true;

	buf[0] = '\0';
	for (int i = 0; i < vs->n; i++)
		count[vs->v[i].kind]++;
	for (int k = 0; k < 4; k++) {
		if (!count[k])
			continue;
		str_appendf(buf, n, "%s%d %s", first ? "" : ", ", count[k], verdict_kind_name(k));
		first = false;
	}
}

/* ---- printing ---- */

/* Text wrapped to width after a label column: the label on the first line. */
static void wrap(FILE *out, int indent, int labelw, const char *label, const char *text, int width)
{
	int avail = width - indent - (labelw ? labelw + 1 : 0);
	const char *p = text;

	if (avail < 20)
		avail = 20;
	do {
		size_t len = strlen(p), cut = len;

		if ((int)len > avail) {
			cut = avail;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			/* A word longer than the room (a quantity's fields,
			 * "page_counter.max+parent+..."): after its last '+'
			 * that fits, else whole. */
			for (size_t c = avail; !cut && c > 0; c--)
				if (p[c - 1] == '+')
					cut = c;
			if (!cut)
				cut = strcspn(p, " ");
		}
		if (labelw)
			fprintf(out, "%*s%-*s %.*s\n", indent, "", labelw, label, (int)cut, p);
		else
			fprintf(out, "%*s%.*s\n", indent, "", (int)cut, p);
		label = "";
		p += cut;
		while (*p == ' ')
			p++;
	} while (*p);
}

static const char *claim_title(const struct verdict *v, char *buf, size_t n)
{
	if (v->side)
		str_setf(buf, n, "%s [%c]", claim_label(v->c), v->side);
	else
		str_setf(buf, n, "%s", claim_label(v->c));
	return buf;
}

/* A cell cut to w columns (bytes: the texts are ASCII but for µ and ±). */
static void put_cell(FILE *out, const char *s, int w, bool last)
{
	int len = (int)strlen(s), vis = 0;

	/* UTF-8 continuation bytes take no column. */
	for (int i = 0; i < len; i++)
		vis += ((unsigned char)s[i] & 0xc0) != 0x80;
	if (vis <= w) {
		fprintf(out, last ? "%s" : "%s%*s", s, last ? 0 : w - vis, "");
	} else {
		int cut = 0, cols = 0;

		while (cut < len && cols < w - 2) {
			cut++;
			while (cut < len && ((unsigned char)s[cut] & 0xc0) == 0x80)
				cut++;
			cols++;
		}
		fprintf(out, "%.*s..", cut, s);
	}
	if (!last)
		fputc(' ', out);
}

void verdicts_print_table(FILE *out, const struct verdicts *vs, int width)
{
	int wc = 17, wv = 19, wp = width >= 79 ? 14 : 13, wm = width - 2 - wc - wv - wp - 3;

	if (vs->none[0]) {
		wrap(out, 2, 0, "", vs->none, width);
		return;
	}
	fprintf(out, "  ");
	put_cell(out, "claim", wc, false);
	put_cell(out, "verdict", wv, false);
	put_cell(out, "published", wp, false);
	put_cell(out, "measured", wm, true);
	fputc('\n', out);
	for (int i = 0; i < vs->n; i++) {
		const struct verdict *v = &vs->v[i];
		char title[96], pub[64], meas[96] = "";

		if (v->npts == 1) {
			str_setf(pub, sizeof(pub), "%s", v->pt[0].published);
			const struct verdict_point *p = &v->pt[0];

			if (p->a_n && p->b_n) {
				/* An A/B: each side's figure (the cliff's highest repeat). */
				char a[32], b[32];

				verdict_fmt_num(a, sizeof(a), p->a_mean);
				verdict_fmt_num(b, sizeof(b), p->b_mean);
				str_setf(meas, sizeof(meas), "A %s, B %s %s", a, b, v->c->munit);
			} else {
				/* The figure and its spread; the test's words are below. */
				str_setf(meas, sizeof(meas), "%.*s", (int)strcspn(p->measured, ":"),
					 p->measured[0] ? p->measured : "-");
			}
		} else {
			int count[4] = { 0 };

			str_setf(pub, sizeof(pub), "%d steps", v->npts);
			for (int k = 0; k < v->npts; k++)
				count[v->pt[k].kind]++;
			if (count[VERDICT_REPRODUCED] + count[VERDICT_NOT_REPRODUCED])
				str_setf(meas, sizeof(meas), "%d of %d steps reproduced", count[VERDICT_REPRODUCED],
					 v->npts);
			else
				str_setf(meas, sizeof(meas), "%d steps %s", v->npts, verdict_kind_name(v->pt[0].kind));
		}
		fprintf(out, "  ");
		put_cell(out, claim_title(v, title, sizeof(title)), wc, false);
		put_cell(out, verdict_kind_name(v->kind), wv, false);
		put_cell(out, pub, wp, false);
		put_cell(out, meas, wm, true);
		fputc('\n', out);
	}
}

void verdicts_print(FILE *out, const struct verdicts *vs, int width)
{
	char count[160], title[96];

	if (vs->none[0]) {
		wrap(out, 2, 0, "", vs->none, width);
		return;
	}
	verdicts_count_text(vs, count, sizeof(count));
	wrap(out, 2, 0, "", count, width);
	fputc('\n', out);
	verdicts_print_table(out, vs, width);
	if (vs->nnext) {
		fputc('\n', out);
		verdicts_print_next(out, vs, width);
	}
	for (int i = 0; i < vs->n; i++) {
		const struct verdict *v = &vs->v[i];
		const struct claim *c = v->c;
		char *kind = xasprintf("%s", verdict_kind_name(v->kind));

		for (char *k = kind; v->kind != VERDICT_NOT_MEASURABLE && v->kind != VERDICT_NOT_REACHED && *k; k++)
			*k = *k >= 'a' && *k <= 'z' ? *k - 32 : *k;
		fprintf(out, "\n");
		wrap(out, 2, 0, "", claim_title(v, title, sizeof(title)), width);
		wrap(out, 4, 10, "verdict", kind, width);
		free(kind);
		{
			char *pub = xasprintf("%s: %s", c->published, v->npts == 1 ? v->pt[0].published : "per step below");

			wrap(out, 4, 10, "published", pub, width);
			free(pub);
		}
		{
			char *where = xasprintf("%s; %s; %s", c->machine, c->condition, c->source);

			wrap(out, 4, 10, "seed", where, width);
			free(where);
		}
		wrap(out, 4, 10, "quantity", c->quantity, width);
		if (v->npts == 1) {
			wrap(out, 4, 10, "measured", v->pt[0].measured[0] ? v->pt[0].measured : "-", width);
			wrap(out, 4, 10, v->pt[0].kind == VERDICT_NOT_MEASURABLE || v->pt[0].kind == VERDICT_NOT_REACHED ?
			     "why" : "rule", v->pt[0].why, width);
		} else {
			for (int k = 0; k < v->npts; k++) {
				char *line = xasprintf("%s: %s; published %s; measured %s; %s", v->pt[k].label,
						       verdict_kind_name(v->pt[k].kind), v->pt[k].published,
						       v->pt[k].measured[0] ? v->pt[k].measured : "-", v->pt[k].why);

				/* The reasons shared by every step are said once. */
				if (k && !strcmp(v->pt[k].why, v->pt[0].why) && v->pt[k].kind == v->pt[0].kind &&
				    v->pt[k].kind != VERDICT_REPRODUCED && v->pt[k].kind != VERDICT_NOT_REPRODUCED) {
					free(line);
					line = xasprintf("%s: %s; published %s; measured %s (as above)", v->pt[k].label,
							 verdict_kind_name(v->pt[k].kind), v->pt[k].published,
							 v->pt[k].measured[0] ? v->pt[k].measured : "-");
				}
				wrap(out, 4, 10, k ? "" : "by step", line, width);
				free(line);
			}
		}
		for (int k = 0; k < v->nnotes; k++)
			wrap(out, 4, 10, k ? "" : "note", v->notes[k], width);
	}
}

void verdicts_print_next(FILE *out, const struct verdicts *vs, int width)
{
	for (int i = 0; i < vs->nnext; i++)
		wrap(out, 2, 5, "next:", vs->next[i], width);
}

/* A number for a table cell: "-" for NAN. */
static void cell(char *buf, size_t n, double v)
{
	if (isnan(v))
		str_setf(buf, n, "-");
	else
		verdict_fmt_num(buf, n, v);
}

/* One row of the seeds' table, trailing blanks dropped. */
static void table_row(FILE *out, int sw, int w, const char *step, const char *base, const char *patched,
		      const char *sch, const char *a, const char *b, const char *mch)
{
	char line[256];
	size_t n;

	str_setf(line, sizeof(line), "%*s |%*s |%*s %9s |%*s |%*s %9s", sw, step, w, base, w, patched, sch, w, a, w, b,
		 mch);
	for (n = strlen(line); n && line[n - 1] == ' '; n--)
		line[n - 1] = '\0';
	fprintf(out, "%s\n", line);
}

void verdicts_table(FILE *out, const struct verdicts *vs, int width)
{
	bool any = false;

	if (vs->none[0])
		return;
	for (int i = 0; i < vs->n; i++) {
		const struct verdict *v = &vs->v[i];
		const struct claim *c = v->c;
		char head[256], title[96], param[16] = "";
		int sw, w;

		if (!c->ab || !c->have_base)
			continue;
		if (!any)
			wrap(out, 0, 0, "", vs->pair ? "The seeds' tables: base and patched as published, A (the base) and "
			     "B (the patched kernel) as measured" : "The seeds' tables: base and patched as published, A "
			     "and B as measured (one run: an A/B needs two kernels)", width);
		any = true;
		str_setf(head, sizeof(head), "%s: %s [%s]", claim_title(v, title, sizeof(title)), c->src == CQ_METRIC ?
			 c->metric : c->quantity, c->unit);
		fprintf(out, "\n");
		wrap(out, 0, 0, "", head, width);
		if (c->src == CQ_METRIC && c->npoints > 1)
			str_setf(param, sizeof(param), "%.*s", (int)strcspn(claim_point_label(c, 0), "="),
				 claim_point_label(c, 0));
		/* step | base | patched (change) | A | B (change) in width columns */
		sw = strlen(param) > 5 ? (int)strlen(param) : 5;
		w = (width - sw - 28) / 4;
		w = w > 12 ? 12 : w < 8 ? 8 : w;
		table_row(out, sw, w, param, "base", "patched", "", "A", "B", "");
		for (int k = 0; k < v->npts; k++) {
			const struct verdict_point *p = &v->pt[k];
			char a[32], b[32], sch[16] = "", mch[16] = "";
			const char *lab = strchr(p->label, '=') ? strchr(p->label, '=') + 1 : p->label;

			if (c->have_change && c->rule != RULE_SIDES)
				str_setf(sch, sizeof(sch), "(%+.1f%%)", c->change_lo[k]);
			cell(a, sizeof(a), p->a_mean);
			cell(b, sizeof(b), p->b_mean);
			if (!isnan(p->change) && c->rule != RULE_SIDES)
				str_setf(mch, sizeof(mch), "(%+.1f%%)", p->change);
			table_row(out, sw, w, strcmp(lab, "-") ? lab : "", c->base[k].text, c->patched[k].text, sch, a, b,
				  mch);
		}
	}
}

/* A number of verdicts.tsv: "-" where there is none, never a 0. */
static const char *tsv_num(char *buf, double v)
{
	if (isnan(v))
		return "-";
	snprintf(buf, 32, "%.10g", v);
	return buf;
}

static const char *const verdict_cols[] = {
	"claim", "side", "point", "verdict", "published", "measured", "a_mean", "a_sd", "a_n", "b_mean", "b_sd", "b_n",
	"change_pct", "p", "quantity", "source", "why", NULL
};

void verdicts_tsv(FILE *out, const struct verdicts *vs)
{
	tsv_write_header(out, verdict_cols);
	for (int i = 0; i < vs->n; i++) {
		const struct verdict *v = &vs->v[i];
		char side[2] = { v->side ? v->side : '-', '\0' };

		for (int k = 0; k < v->npts; k++) {
			const struct verdict_point *p = &v->pt[k];
			char am[32], asd[32], bm[32], bsd[32], ch[32], pv[32];

			tsv_write_row(out, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n",
				      claim_label(v->c), side, p->label, verdict_kind_name(p->kind), p->published,
				      p->measured[0] ? p->measured : "-", tsv_num(am, p->a_mean), tsv_num(asd, p->a_sd),
				      p->a_n, tsv_num(bm, p->b_mean), tsv_num(bsd, p->b_sd), p->b_n, tsv_num(ch, p->change),
				      tsv_num(pv, p->p), v->c->quantity, v->c->source, p->why);
		}
	}
}
