// SPDX-License-Identifier: GPL-2.0
/* The predicted cacheline counts beside the measured (report/lines_predicted.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/lines_predicted.h"
#include "util/err.h"
#include "util/humanize.h"
#include "util/tsv.h"

#define NAME_W 18
#define PER 1000.0
#define MIN_HITM 20	/* fields with fewer measured HITMs are not classified */

/* The "# KEY<TAB>VALUE..." comments before the header (c2c/lines_predict.h
 * writes them; util/tsv.h splits them), any columns after. */
static const char *const meta_cols[] = { "?struct", NULL };

int lines_predicted_load(const char *path, struct lines_fields *lf, struct lines_pred_meta *m, char *err,
			 size_t errlen)
{
	struct tsv t;

	memset(m, 0, sizeof(*m));
	m->ops = -1;
	memset(lf, 0, sizeof(*lf));
	if (tsv_open(&t, path, meta_cols, TSV_COMMENTS, err, errlen)) {
		tsv_close(&t);
		return -1;
	}
	while (tsv_next(&t) == TSV_COMMENT) {
		const char *k = tsv_cell(&t, 0), *v = tsv_cell(&t, 1);

		if (tsv_ncells(&t) < 2)
			continue;
		if (!strcmp(k, "# trace"))
			snprintf(m->trace, sizeof(m->trace), "%s", v);
		else if (!strcmp(k, "# layout"))
			snprintf(m->layout, sizeof(m->layout), "%s", v);
		else if (!strcmp(k, "# line_size"))
			m->line_size = atoi(v);
		else if (!strcmp(k, "# ops")) {
			m->ops = strtod(v, NULL);
			if (tsv_ncells(&t) > 2)
				snprintf(m->unit, sizeof(m->unit), "%s", tsv_cell(&t, 2));
			if (!(m->ops > 0))
				m->ops = -1;
		}
	}
	tsv_close(&t);
	/* The rows, and what is wrong with them, as fields.tsv's reader says it. */
	return lines_fields_load(path, lf, err, errlen);
}

/* DIR/lines/predicted-fields.tsv, or the guest run's for a run made in one. */
static char *pred_path(const char *dir, bool in_vm)
{
	const char *where[] = { "%s/lines/" LINES_PREDICTED_TSV, "%s/../../lines/" LINES_PREDICTED_TSV };

	for (int i = 0; i < (in_vm ? 2 : 1); i++) {
		char *p = xasprintf(where[i], dir);

		if (!access(p, R_OK))
			return p;
		free(p);
	}
	return NULL;
}

static const char *cls(const double *v)
{
	return v[0] == 0 ? "-" : v[1] > v[2] ? "false" : "true";
}

static void cell(char *buf, size_t n, double v, double ops)
{
	double x = ops > 0 ? v * PER / ops : v;

	if (ops > 0 && x < 1000)
		snprintf(buf, n, "%.3g", x);
	else
		format_si(buf, (int)n, x);
}

void lines_predicted_beside(FILE *out, const char *pred_dir, bool in_vm_p, const char *meas_dir, bool in_vm_m,
			    const char *tag, int width)
{
	char *pp = pred_path(pred_dir, in_vm_p), *md;

	if (!pp)
		return;
	md = lines_dir_of(meas_dir, in_vm_m, NULL);
	lines_predicted_table(out, pp, md, tag, width);
	free(md);
	free(pp);
}

void lines_predicted_table(FILE *out, const char *pp, const char *md, const char *tag, int width)
{
	char *mf = NULL, err[512], why[512], unit[32] = "";
	struct lines_fields pl = { 0 }, ml = { 0 };
	struct lines_pred_meta pm;
	struct lines_field_pair *rows = NULL;
	size_t n = 0;
	double mops = -1, tp = 0, tm = 0;
	bool per;
	int classified = 0, agree = 0;
	char line[256];

	if (lines_predicted_load(pp, &pl, &pm, err, sizeof(err))) {
		fprintf(out, "\nPredicted cacheline transfers: %s\n", err);
		goto out;
	}
	fprintf(out, "\nPredicted beside measured (%s)\n  predicted from trace %s\n", tag, pm.trace[0] ? pm.trace : pp);
	fprintf(out, "  on %s\n", pm.layout[0] ? pm.layout : "a layout the file does not name");
	if (!md) {
		fprintf(out, "  measured: none (%s has no lines/fields.tsv of a guest run under vm --lines)\n", tag);
		goto out;
	}
	mf = xasprintf("%s" LINES_FIELDS_FILE, md);
	if (lines_fields_load(mf, &ml, err, sizeof(err))) {
		fprintf(out, "  %s\n", err);
		goto out;
	}
	if (!lines_ops_of(mf, &mops, unit, sizeof(unit), why, sizeof(why)))
		mops = -1;
	per = mops > 0 && pm.ops > 0 && !strcmp(unit, pm.unit);
	fprintf(out, "  measured: %s\n  %s\n", mf, per ? "HITMs per 1000 operations of each side's windows" :
		"HITMs in the windows (not both sides' operations are known: counts)");
	for (size_t i = 0; i < pl.n; i++)
		lines_field_pair_add(&rows, &n, &pl.r[i], false);
	for (size_t i = 0; i < ml.n; i++)
		lines_field_pair_add(&rows, &n, &ml.r[i], true);
	lines_field_pair_sort(rows, n);
	fprintf(out, "%-*s %s  %s\n", NAME_W, "", "--- predicted ----", "--- measured -----");
	fprintf(out, "%-*s %5s %5s %6s  %5s %5s %6s  %-5s %6s\n", NAME_W, "  field", "false", "true", per ? "/1k op" : "hitm",
		"false", "true", per ? "/1k op" : "hitm", "class", "error");
	memset(line, '-', (size_t)width < sizeof(line) ? (size_t)width : sizeof(line) - 1);
	line[(size_t)width < sizeof(line) ? (size_t)width : sizeof(line) - 1] = '\0';
	fprintf(out, "%s\n", line);
	{
		const char *st = NULL;

		for (size_t i = 0; i < n; i++) {
			const struct lines_field_pair *r = &rows[i];
			char pf[16], pt[16], ph[16], mfc[16], mt[16], mh[16], er[16], cbuf[8];
			double a = per ? r->a[0] / pm.ops : r->a[0], b = per ? r->b[0] / mops : r->b[0];
			const char *c = "";

			if (r->a[0] == 0 && r->b[0] == 0)
				continue;
			tp += a;
			tm += b;
			if (!st || strcmp(st, r->st)) {
				fprintf(out, "%s\n", r->st);
				st = r->st;
			}
			format_si(pf, sizeof(pf), r->a[1]);
			format_si(pt, sizeof(pt), r->a[2]);
			format_si(mfc, sizeof(mfc), r->b[1]);
			format_si(mt, sizeof(mt), r->b[2]);
			cell(ph, sizeof(ph), r->a[0], per ? pm.ops : -1);
			cell(mh, sizeof(mh), r->b[0], per ? mops : -1);
			if (r->b[0] >= MIN_HITM) {
				classified++;
				agree += !strcmp(cls(r->a), cls(r->b));
				/* The class both give, or predicted/measured where they differ. */
				if (!strcmp(cls(r->a), cls(r->b)))
					c = cls(r->b);
				else {
					snprintf(cbuf, sizeof(cbuf), "%c/%c", cls(r->a)[0], cls(r->b)[0]);
					c = cbuf;
				}
			}
			if (b > 0)
				snprintf(er, sizeof(er), "%+.0f%%", 100 * (a - b) / b);
			else
				snprintf(er, sizeof(er), "new");
			if (strlen(r->field) + 2 > NAME_W)
				fprintf(out, "  %s\n%-*s", r->field, NAME_W, "");
			else
				fprintf(out, "  %-*s", NAME_W - 2, r->field);
			fprintf(out, " %5s %5s %6s  %5s %5s %6s  %-5s %6s\n", pf, pt, ph, mfc, mt, mh, c, er);
		}
	}
	if (tm > 0)
		fprintf(out, "  total HITMs%s: predicted %.4g, measured %.4g, error %+.0f%%\n",
			per ? " per 1000 ops" : "", per ? tp * PER : tp, per ? tm * PER : tm, 100 * (tp - tm) / tm);
	else if (ml.n)
		/* Its fields were followed (fields.tsv has a row for each, zeros
		 * included): a measured 0. */
		fprintf(out, "  total HITMs%s: predicted %.4g, measured 0 (none in its %zu field rows)\n",
			per ? " per 1000 ops" : "", per ? tp * PER : tp, ml.n);
	else
		fprintf(out, "  total HITMs%s: predicted %.4g, measured none\n", per ? " per 1000 ops" : "",
			per ? tp * PER : tp);
	fprintf(out, "  class: false or true sharing, by the majority (predicted/measured\n"
		"  where they differ, - none); of fields with %d+ measured HITMs\n"
		"  (%d), the same class predicted: %d\n", MIN_HITM, classified, agree);
out:
	lines_fields_free(&pl);
	lines_fields_free(&ml);
	free(rows);
	free(mf);
}
