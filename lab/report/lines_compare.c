// SPDX-License-Identifier: GPL-2.0
/* The cacheline transfers of two guest runs side by side (report/lines_compare.h). */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/lines_compare.h"
#include "report/lines_fields.h"
#include "util/err.h"
#include "util/humanize.h"

#define NAME_W 18	/* the field column, its indent included */
#define PER 1000.0	/* per-operation figures are per this many operations */

/* One side of a set: its fields and the operations its windows counted. */
struct side {
	struct lines_fields lf;
	double ops;		/* -1: not counted */
	char unit[32];
	char why[512];		/* why not, when ops < 0 */
};

/* A field of either side: HITMs, false and true sharing. */
static int load_side(const char *dir, struct side *s, char *err, size_t errlen)
{
	char *f = xasprintf("%s" LINES_FIELDS_FILE, dir);
	int rc = lines_fields_load(f, &s->lf, err, errlen);

	s->ops = -1;
	if (!rc && !lines_ops_of(f, &s->ops, s->unit, sizeof(s->unit), s->why, sizeof(s->why)))
		s->ops = -1;
	free(f);
	return rc;
}

/* A count as the table prints it: "-" for none on a side without the row. */
static void count_cell(char *buf, size_t n, double v)
{
	format_si(buf, (int)n, v);
}

static void per_cell(char *buf, size_t n, double v, double ops)
{
	double x = ops > 0 ? v * PER / ops : 0;

	if (ops <= 0)
		snprintf(buf, n, "-");
	else if (x >= 1000)
		format_si(buf, (int)n, x);
	else
		snprintf(buf, n, "%.3g", x);
}

/* The change of B against A, per operation where both counted them. */
static void change_cell(char *buf, size_t n, double a, double b, double ops_a, double ops_b)
{
	double va = ops_a > 0 && ops_b > 0 ? a / ops_a : a, vb = ops_a > 0 && ops_b > 0 ? b / ops_b : b;

	if (va == 0 && vb == 0)
		snprintf(buf, n, "-");
	else if (va == 0)
		snprintf(buf, n, "new");
	else
		snprintf(buf, n, "%+.1f%%", 100 * (vb - va) / va);
}

static void print_side_line(FILE *out, char tag, const struct side *s)
{
	if (s->ops > 0) {
		char o[32];

		format_si(o, sizeof(o), s->ops);
		fprintf(out, "  %c: %s %s in its windows\n", tag, o, s->unit);
	} else {
		fprintf(out, "  %c: no operations counted (%s)\n", tag, s->why);
	}
}

/* The field table of one set (sub NULL: every window added up). */
static void field_table(FILE *out, struct side *a, struct side *b, int width)
{
	struct lines_field_pair *rows = NULL;
	size_t n = 0, shown = 0;
	const char *st = NULL;
	bool per = a->ops > 0 && b->ops > 0 && !strcmp(a->unit, b->unit);
	char line[256];

	for (size_t i = 0; i < a->lf.n; i++)
		lines_field_pair_add(&rows, &n, &a->lf.r[i], false);
	for (size_t i = 0; i < b->lf.n; i++)
		lines_field_pair_add(&rows, &n, &b->lf.r[i], true);
	lines_field_pair_sort(rows, n);
	print_side_line(out, 'A', a);
	print_side_line(out, 'B', b);
	fprintf(out, "  HITMs per field (load HITMs, store HITMs and invalidations), false and true\n"
		"  sharing%s; %%change %s\n", per ? ", and all of them per 1000 operations" : "",
		per ? "per operation" : "of the counts (the windows' operations are not both known)");
	fprintf(out, "%-*s %s  %s\n", NAME_W, "", "---------- A --------", "---------- B --------");
	fprintf(out, "%-*s %6s %6s %7s  %6s %6s %7s %8s\n", NAME_W, "  field", "false", "true", per ? "/1k op" : "hitm",
		"false", "true", per ? "/1k op" : "hitm", "%change");
	memset(line, '-', (size_t)width < sizeof(line) ? (size_t)width : sizeof(line) - 1);
	line[(size_t)width < sizeof(line) ? (size_t)width : sizeof(line) - 1] = '\0';
	fprintf(out, "%s\n", line);
	for (size_t i = 0; i < n; i++) {
		const struct lines_field_pair *r = &rows[i];
		char af[16], at[16], ap[16], bf[16], bt[16], bp[16], ch[16];

		if (r->a[0] == 0 && r->b[0] == 0)
			continue;
		if (!st || strcmp(st, r->st)) {
			fprintf(out, "%s\n", r->st);
			st = r->st;
		}
		count_cell(af, sizeof(af), r->a[1]);
		count_cell(at, sizeof(at), r->a[2]);
		count_cell(bf, sizeof(bf), r->b[1]);
		count_cell(bt, sizeof(bt), r->b[2]);
		if (per) {
			per_cell(ap, sizeof(ap), r->a[0], a->ops);
			per_cell(bp, sizeof(bp), r->b[0], b->ops);
		} else {
			count_cell(ap, sizeof(ap), r->a[0]);
			count_cell(bp, sizeof(bp), r->b[0]);
		}
		change_cell(ch, sizeof(ch), r->a[0], r->b[0], per ? a->ops : -1, per ? b->ops : -1);
		/* A name too long for its column gets a line of its own. */
		if (strlen(r->field) + 2 > NAME_W)
			fprintf(out, "  %s\n%-*s", r->field, NAME_W, "");
		else
			fprintf(out, "  %-*s", NAME_W - 2, r->field);
		fprintf(out, " %6s %6s %7s  %6s %6s %7s %8s\n", af, at, ap, bf, bt, bp, ch);
		shown++;
	}
	if (!shown)
		fprintf(out, "  (no field had a HITM on either side)\n");
	if (n > shown)
		fprintf(out, "  %zu more field%s followed without a HITM on either side\n", n - shown,
			n - shown == 1 ? "" : "s");
	free(rows);
}

/* The labels (subdirectories with a fields.tsv) of a lines directory, sorted. */
static int labels_of(const char *dir, char ***out)
{
	struct dirent **ents;
	int ne = scandir(dir, &ents, NULL, versionsort), n = 0;

	*out = NULL;
	for (int i = 0; i < ne; i++) {
		char *f = xasprintf("%s%s/" LINES_FIELDS_FILE, dir, ents[i]->d_name);

		/* c2c/ holds perf c2c's own fields.tsv, not a label's. */
		if (ents[i]->d_name[0] != '.' && strcmp(ents[i]->d_name, "c2c") && strcmp(ents[i]->d_name, "buildid") &&
		    !access(f, F_OK)) {
			*out = xrealloc(*out, (n + 1) * sizeof(**out));
			(*out)[n++] = xstrdup(ents[i]->d_name);
		}
		free(f);
		free(ents[i]);
	}
	if (ne >= 0)
		free(ents);
	return n;
}

static bool has_label(char **l, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(l[i], name))
			return true;
	return false;
}

/* HITMs of a struct in a side, and whether it has the struct at all. */
static double struct_hitm(const struct side *s, const char *st, bool *have)
{
	double v = 0;

	*have = false;
	for (size_t i = 0; i < s->lf.n; i++)
		if (!strcmp(s->lf.r[i].st, st)) {
			v += s->lf.r[i].hitm_loads + s->lf.r[i].hitm_stores;
			*have = true;
		}
	return v;
}

/* Per label both sides have: each struct's HITMs per 1000 operations. */
static void label_table(FILE *out, const char *la, const char *lb, char **labels, int nl, int width)
{
	char line[256];

	fprintf(out, "\n  HITMs per 1000 operations of each label's windows, by struct\n");
	fprintf(out, "  %-10s %-20s %12s %12s %9s\n", "label", "struct", "A", "B", "%change");
	memset(line, '-', (size_t)width < sizeof(line) ? (size_t)width : sizeof(line) - 1);
	line[(size_t)width < sizeof(line) ? (size_t)width : sizeof(line) - 1] = '\0';
	fprintf(out, "%s\n", line);
	for (int i = 0; i < nl; i++) {
		char *da = xasprintf("%s%s/", la, labels[i]), *db = xasprintf("%s%s/", lb, labels[i]), err[512];
		struct side a = { 0 }, b = { 0 };
		const char *sts[64];
		int nst = 0;

		if (load_side(da, &a, err, sizeof(err)) || load_side(db, &b, err, sizeof(err))) {
			fprintf(out, "  %s: %s\n", labels[i], err);
			goto next;
		}
		for (int side = 0; side < 2; side++) {
			const struct side *s = side ? &b : &a;

			for (size_t r = 0; r < s->lf.n && nst < 64; r++) {
				bool seen = false;

				for (int k = 0; k < nst && !seen; k++)
					seen = !strcmp(sts[k], s->lf.r[r].st);
				if (!seen)
					sts[nst++] = s->lf.r[r].st;
			}
		}
		for (int k = 0; k < nst; k++) {
			bool ha, hb;
			double va = struct_hitm(&a, sts[k], &ha), vb = struct_hitm(&b, sts[k], &hb);
			char ca[24], cb[24], ch[16];

			if (va == 0 && vb == 0)
				continue;
			per_cell(ca, sizeof(ca), va, a.ops);
			per_cell(cb, sizeof(cb), vb, b.ops);
			if (!ha)
				snprintf(ca, sizeof(ca), "-");
			if (!hb)
				snprintf(cb, sizeof(cb), "-");
			change_cell(ch, sizeof(ch), va, vb, a.ops, b.ops);
			if (!(a.ops > 0 && b.ops > 0))
				snprintf(ch, sizeof(ch), "-");
			fprintf(out, "  %-10.10s %-20.20s %12s %12s %9s\n", labels[i], sts[k], ca, cb, ch);
		}
next:
		lines_fields_free(&a.lf);
		lines_fields_free(&b.lf);
		free(da);
		free(db);
	}
}

void lines_compare(FILE *out, const char *dir_a, bool in_vm_a, const char *dir_b, bool in_vm_b, int width)
{
	char *la = lines_dir_of(dir_a, in_vm_a, NULL), *lb = lines_dir_of(dir_b, in_vm_b, NULL), err[512];
	struct side a = { 0 }, b = { 0 };
	char **labels_a = NULL, **labels_b = NULL, **both = NULL;
	int na = 0, nb = 0, n = 0;

	if (!la || !lb) {
		if (la || lb)
			fprintf(out, "\nCacheline transfers: only %s has them\n  (lines/fields.tsv of a guest run under "
				"vm --lines)\n", la ? "A" : "B");
		goto out;
	}
	fprintf(out, "\nCacheline transfers (the lines plugin's exact counts of the guest runs' windows)\n");
	if (load_side(la, &a, err, sizeof(err)) || load_side(lb, &b, err, sizeof(err))) {
		fprintf(out, "  %s\n", err);
		goto out;
	}
	field_table(out, &a, &b, width);
	na = labels_of(la, &labels_a);
	nb = labels_of(lb, &labels_b);
	for (int i = 0; i < na; i++)
		if (has_label(labels_b, nb, labels_a[i])) {
			both = xrealloc(both, (n + 1) * sizeof(*both));
			both[n++] = labels_a[i];
		}
	/* One label is the table above; several (K=1..N) get theirs. */
	if (n > 1)
		label_table(out, la, lb, both, n, width);
	if (na != n || nb != n)
		fprintf(out, "  labels only in A: %d, only in B: %d (not compared)\n", na - n, nb - n);
out:
	for (int i = 0; i < na; i++)
		free(labels_a[i]);
	for (int i = 0; i < nb; i++)
		free(labels_b[i]);
	free(labels_a);
	free(labels_b);
	free(both);
	lines_fields_free(&a.lf);
	lines_fields_free(&b.lf);
	free(la);
	free(lb);
}
