// SPDX-License-Identifier: GPL-2.0
/*
 * Verdicts, reading a run (report/verdict_measure.h): what one results
 * directory (a side) measured of a claim's quantity -- data/metrics.tsv,
 * meta.json, a stock cliff, a layout (the run's capture, or the BTF of
 * a kernel the claim names), the lines plugin's cacheline counts -- and
 * the words for such a figure.  It judges nothing (verdict.c does) and
 * prints nothing (verdict_print.c does).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "kernel/btf.h"
#include "layout/layout.h"
#include "report/claim.h"
#include "report/lines_fields.h"
#include "report/stats.h"
#include "report/verdict_measure.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/humanize.h"
#include "util/json_path.h"
#include "util/metrics.h"
#include "util/results.h"
#include "util/strfmt.h"

/* ---- sides ---- */

void verdict_side_open(struct side *s, const char *dir, char tag)
{
	char *mp = xasprintf("%s/meta.json", dir);

	memset(s, 0, sizeof(*s));
	s->tag = tag;
	s->dir = dir;
	s->meta = json_object_from_file(mp);
	free(mp);
	s->have_m = s->meta && !metrics_load(dir, &s->m, s->m_err, sizeof(s->m_err));
}

void verdict_side_close(struct side *s)
{
	if (s->have_m)
		metrics_free(&s->m);
	if (s->lay_state == 1)
		layout_free(&s->lay);
	json_object_put(s->meta);
}

const char *verdict_side_kernel(const struct side *s)
{
	return json_path_or(s->meta, "probe.kernel", json_path_or(s->meta, "uname", "?"));
}

/* The CPUs the run had: a guest's vCPUs, else the host's; 0 unknown. */
int verdict_side_cpus(const struct side *s)
{
	const char *v = json_path_str(s->meta, "vm.cpus");

	if (!v)
		v = json_path_str(s->meta, "probe.machine.topology.cpus");
	return v ? atoi(v) : 0;
}

bool verdict_side_tcg(const struct side *s)
{
	const char *accel = json_path_str(s->meta, "vm.accel");

	return accel && strstr(accel, "tcg");
}

/* The side's layout capture (data/layout), loaded once. */
static const struct layout *side_layout(struct side *s)
{
	if (!s->lay_state) {
		char *d = xasprintf("%s/data/layout", s->dir);

		if (!path_exists(d)) {
			str_setf(s->lay_err, sizeof(s->lay_err), "no layout capture (data/layout: [collect] layout = check)");
			s->lay_state = -1;
		} else {
			s->lay_state = layout_load_capture(&s->lay, d, s->lay_err, sizeof(s->lay_err)) ? -1 : 1;
		}
		free(d);
	}
	return s->lay_state == 1 ? &s->lay : NULL;
}

/* ---- measures ---- */

static bool time_ns(const char *u, double *ns)
{
	static const struct {
		const char *u;
		double ns;
	} t[] = { { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(u, t[i].u)) {
			*ns = t[i].ns;
			return true;
		}
	return false;
}

/* The factor from a metric's unit to the claim's; false when they differ in kind. */
static bool unit_factor(const char *from, const char *to, double *f)
{
	double a, b;

	*f = 1;
	if (!strcmp(from, to) || ((!strcmp(from, "ratio") || !strcmp(from, "x")) &&
				  (!strcmp(to, "ratio") || !strcmp(to, "x"))))
		return true;
	if (time_ns(from, &a) && time_ns(to, &b)) {
		*f = a / b;
		return true;
	}
	return false;
}

/* The steps a metric was measured at, for "not reached" lines. */
static void steps_of(const struct metrics *m, const char *metric, char *buf, size_t n)
{
	int shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < m->n; i++) {
		bool first = true;

		if (strcmp(m->rows[i].metric, metric))
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(m->rows[j].metric, metric) || strcmp(m->rows[j].step, m->rows[i].step);
		if (first && shown++ < 8)
			str_appendf(buf, n, "%s%s", shown > 1 ? ", " : "", m->rows[i].step);
	}
}

static void measure_metric(const struct claim *c, const char *step, const char *metric, struct side *s,
			   struct measure *out)
{
	const char *unit = NULL;
	double f = 1;

	if (!s->have_m) {
		str_setf(out->why, sizeof(out->why), "no metrics: %s", s->meta ? s->m_err : "no meta.json");
		return;
	}
	for (size_t i = 0; i < s->m.n && out->n < MAXV; i++)
		if (!strcmp(s->m.rows[i].step, step) && !strcmp(s->m.rows[i].metric, metric)) {
			out->v[out->n++] = s->m.rows[i].value;
			unit = s->m.rows[i].unit;
		}
	if (!out->n) {
		char at[512];

		steps_of(&s->m, metric, at, sizeof(at));
		if (at[0])
			str_setf(out->why, sizeof(out->why), "no %s at step %s in data/metrics.tsv (measured at %s)", metric,
				 step, at);
		else
			str_setf(out->why, sizeof(out->why), "the run measured no %s (data/metrics.tsv)", metric);
		return;
	}
	if (c && !unit_factor(unit, c->unit, &f)) {
		str_setf(out->why, sizeof(out->why), "the lab's %s is in %s, the claim in %s", metric, unit, c->unit);
		out->n = 0;
		return;
	}
	for (int i = 0; i < out->n; i++)
		out->v[i] *= f;
}

static void measure_meta(const struct claim *c, struct side *s, struct measure *out)
{
	const char *v = json_path_str(s->meta, c->metric);
	char *end;

	out->exact = true;
	if (!v) {
		str_setf(out->why, sizeof(out->why), "no %s in meta.json%s", c->metric,
			 !strncmp(c->metric, "runtime.", 8) ? " (no runtime probe: [collect] runtime_probe = yes)" : "");
		return;
	}
	out->v[0] = strtod(v, &end);
	if (end == v || *end) {
		str_setf(out->why, sizeof(out->why), "meta.json's %s is '%s', not a number", c->metric, v);
		return;
	}
	out->n = 1;
	str_setf(out->from, sizeof(out->from), "meta.json %s", c->metric);
}

/* K of a stock step ("K=3", "phase:K=3"), or 0. */
static int step_k(const char *step)
{
	const char *colon = strchr(step, ':');
	char name[16];
	double v;

	return metrics_step_value(colon ? colon + 1 : step, name, sizeof(name), &v) && !strcmp(name, "K") && v >= 1 ?
	       (int)v : 0;
}

/*
 * cliff:MODE, per repeat: the most memcgs holding a stock slot at once, over
 * K = 1.. memcgs taking turns on one CPU -- the height of the plateau past
 * the cliff, the stock's size.  Other tasks on the CPU can only evict, so a
 * repeat may fall short of it (the rule counts the highest repeat), never
 * exceed it.  A run whose largest K was held in full saw no cliff.
 */
static void measure_cliff(const struct claim *c, struct side *s, struct measure *out)
{
	char holders[64];
	int reps = 0, kmax = 0;

	out->exact = true;
	str_setf(holders, sizeof(holders), "%s.holders", c->mode);
	if (!s->have_m) {
		str_setf(out->why, sizeof(out->why), "no metrics: %s", s->meta ? s->m_err : "no meta.json");
		return;
	}
	for (size_t i = 0; i < s->m.n; i++) {
		int k = step_k(s->m.rows[i].step);

		if (k && !strcmp(s->m.rows[i].metric, holders)) {
			reps = s->m.rows[i].repeat + 1 > reps ? s->m.rows[i].repeat + 1 : reps;
			kmax = k > kmax ? k : kmax;
		}
	}
	if (!kmax) {
		str_setf(out->why, sizeof(out->why), "the run measured no %s per K (data/metrics.tsv)", holders);
		return;
	}
	for (int rep = 0; rep < reps && out->n < MAXV; rep++) {
		double most = 0;

		for (size_t i = 0; i < s->m.n; i++)
			if (s->m.rows[i].repeat == rep && !strcmp(s->m.rows[i].metric, holders) &&
			    step_k(s->m.rows[i].step) && s->m.rows[i].value > most)
				most = s->m.rows[i].value;
		out->v[out->n++] = most;
	}
	str_setf(out->from, sizeof(out->from), "the most memcgs holding a slot at once, %s per K = 1..%d", holders,
		 kmax);
	for (int i = 0; i < out->n; i++)
		if (out->v[i] >= kmax) {
			str_setf(out->why, sizeof(out->why), "no cliff up to K = %d: every memcg kept its slot (the run went "
				 "no further)", kmax);
			out->n = 0;
			return;
		}
}

/*
 * The layout of a kernel a claim names: its BTF (build/btf/vmlinux-RELEASE.btf,
 * from lab/tests/data/btf), else its capture in layouts/RELEASE (made from
 * that BTF).  0, or -1 with err.
 */
int verdict_load_release(const char *release, struct layout *lay, char *err, size_t n)
{
	char *btf = xasprintf("%s/build/btf/vmlinux-%s.btf", lab_root_dir(), release);
	char *d = xasprintf("%s/layouts/%s", lab_root_dir(), release);
	int r = -1;

	if (path_exists(btf)) {
		struct kbtf k;

		if (!(r = kbtf_open(&k, btf, NULL, err, n))) {
			layout_from_btf(lay, &k);
			kbtf_close(&k);
		}
	} else if (path_exists(d)) {
		r = layout_load_capture(lay, d, err, n);
	} else {
		str_setf(err, n, "kernel %s: neither build/btf/vmlinux-%s.btf nor layouts/%s", release, release, release);
	}
	free(btf);
	free(d);
	return r;
}

void verdict_measure_layout_of(const struct claim *c, const struct layout *lay, struct measure *out)
{
	const struct lay_struct *st = layout_struct(lay, c->lstruct);

	out->exact = true;
	if (!st || !st->present) {
		str_setf(out->why, sizeof(out->why), "struct %s is not in the layout of %s", c->lstruct,
			 lay->release ? lay->release : "?");
		return;
	}
	out->v[0] = c->cachelines ? (double)lay_ncachelines(st->size, lay->cacheline) : (double)st->size;
	out->n = 1;
	str_setf(out->from, sizeof(out->from), "%s", lay->origin ? lay->origin : "a layout capture");
}

/* Where a run's cacheline counts are: <dir>/lines/[STEP/]fields.tsv, or
 * those of the guest run it came from (<vm dir>/results/<dir>). */
static char *lines_path(const struct side *s, const char *step)
{
	char *p = xasprintf("%s/lines/%s%s" LINES_FIELDS_FILE, s->dir, step ? step : "", step ? "/" : "");

	if (path_exists(p) || !json_path(s->meta, "vm"))
		return p;
	free(p);
	return xasprintf("%s/../../lines/%s%s" LINES_FIELDS_FILE, s->dir, step ? step : "", step ? "/" : "");
}

/* The mean of a metric at a step (the normaliser of a lines count); false with why. */
static bool metric_mean(struct side *s, const char *step, const char *metric, double *mean, char *why, size_t n)
{
	struct measure m = { .n = 0 };
	struct sample_stats st;

	measure_metric(NULL, step, metric, s, &m);
	if (!m.n) {
		str_setf(why, n, "%s", m.why);
		return false;
	}
	sample_stats(m.v, m.n, &st);
	if (!(st.mean > 0)) {
		str_setf(why, n, "%s at %s is %g: nothing to divide by", metric, step, st.mean);
		return false;
	}
	*mean = st.mean;
	return true;
}

/* The lines count of a claim at step (NULL: the whole run); false with why. */
static bool lines_count(const struct claim *c, struct side *s, const char *step, double *v, char *why, size_t n)
{
	char *path = lines_path(s, step), err[512];
	struct lines_fields lf;
	int rows;

	if (!path_exists(path)) {
		str_setf(why, n, "no cacheline counts: no lines/%s%s" LINES_FIELDS_FILE " in the run%s (a run without the "
			 "lines plugin)", step ? step : "", step ? "/" : "", json_path(s->meta, "vm") ? " nor its guest run" : "");
		free(path);
		return false;
	}
	if (lines_fields_load(path, &lf, err, sizeof(err))) {
		str_setf(why, n, "%s", err);
		free(path);
		lines_fields_free(&lf);
		return false;
	}
	*v = lines_fields_sum(&lf, &c->lines, &rows);
	lines_fields_free(&lf);
	if (!rows) {
		str_setf(why, n, "lines/%s%s" LINES_FIELDS_FILE " has no row for %s.%s%s%s", step ? step : "",
			 step ? "/" : "", c->lines.st, c->lines.field[0], c->lines.vs[0] ? " vs " : "", c->lines.vs);
		free(path);
		return false;
	}
	/* / ops: per operation the windows counted (lines/[STEP/]ops.tsv). */
	if (c->lines.per_ops) {
		double ops;
		char unit[32];

		if (!lines_ops_of(path, &ops, unit, sizeof(unit), why, n)) {
			free(path);
			return false;
		}
		*v /= ops;
	}
	free(path);
	return true;
}

static void measure_lines(const struct claim *c, struct side *s, struct measure *out)
{
	double v, per;

	out->exact = true;
	if (!lines_count(c, s, NULL, &v, out->why, sizeof(out->why)))
		return;
	if (c->lines.per_metric[0]) {
		if (!metric_mean(s, c->lines.per_step, c->lines.per_metric, &per, out->why, sizeof(out->why)))
			return;
		v /= per;
	}
	out->v[out->n++] = v;
	str_setf(out->from, sizeof(out->from), "lines/" LINES_FIELDS_FILE "%s%s", c->lines.per_metric[0] ? " per " :
		 c->lines.per_ops ? " per operation of its windows (ops.tsv)" : "", c->lines.per_metric);
}

/* The least rise between consecutive K that is a cliff. */
#define LINES_CLIFF_RISE 1.5
#define STR_(x) #x
#define STR(x) STR_(x)

/* lines-cliff: per K, the count (per the metric at that K, or per
 * operation); the K after which it rises most, as a ratio of consecutive
 * K (each at least a hundredth of the largest, so that noise near zero is
 * no rise).  Not "where it reaches half its largest": under
 * single-threaded TCG the vCPUs take turns in slices, so the transfers per
 * charge past the cliff still grow with K (more lines change hands at each
 * switch) while the step at the stock's size stays the largest. */
static void measure_lines_cliff(const struct claim *c, struct side *s, struct measure *out)
{
	double per_k[257] = { 0 }, max = 0;
	bool have[257] = { false };
	int kmax = 0, nk = 0;
	char first_why[512] = "";

	out->exact = true;
	for (int k = 1; k <= 256; k++) {
		char step[32], why[512];
		double v, per = 1;

		str_setf(step, sizeof(step), "K=%d", k);
		if (!lines_count(c, s, step, &v, why, sizeof(why))) {
			/* A K the run did not reach has no counts; one it did, but
			 * that cannot be read, says why. */
			if (!first_why[0] && !strstr(why, "no cacheline counts"))
				str_setf(first_why, sizeof(first_why), "K=%d: %s", k, why);
			continue;
		}
		if (c->lines.per_metric[0] && !metric_mean(s, step, c->lines.per_metric, &per, why, sizeof(why)))
			continue;
		per_k[k] = v / per;
		have[k] = true;
		max = per_k[k] > max ? per_k[k] : max;
		kmax = k;
		nk++;
	}
	if (nk < 2 && first_why[0]) {
		str_setf(out->why, sizeof(out->why), "%s", first_why);
		return;
	}
	if (nk < 2 || !(max > 0)) {
		str_setf(out->why, sizeof(out->why), nk < 2 ? "cacheline counts at fewer than two K (lines/K=N/"
			 LINES_FIELDS_FILE ")" : "no %s.%s %s at any K", c->lines.st, c->lines.field[0], c->lines.column);
		return;
	}
	{
		double floor_v = max / 100, best = 0;
		int prev = 0, cliff = 0;

		for (int k = 1; k <= kmax; k++) {
			if (!have[k])
				continue;
			if (prev && per_k[k] / fmax(per_k[prev], floor_v) > best) {
				best = per_k[k] / fmax(per_k[prev], floor_v);
				cliff = prev;
			}
			prev = k;
		}
		/* No step anywhere: the cliff, if any, lies past the largest K. */
		if (best < LINES_CLIFF_RISE)
			cliff = kmax;
		out->v[out->n++] = cliff;
		str_setf(out->from, sizeof(out->from), "lines/K=1..%d/" LINES_FIELDS_FILE ": %s.%s %s%s%s, %s "
			 "(x%.3g%s%d; largest value %.3g)", kmax, c->lines.st, c->lines.field[0], c->lines.column,
			 c->lines.per_metric[0] ? " per " : c->lines.per_ops ? " per operation" : "", c->lines.per_metric,
			 cliff < kmax ? "its largest rise between consecutive K" : "no rise of x" STR(LINES_CLIFF_RISE)
			 " or more between consecutive K", best, cliff < kmax ? " from K = " : " at most, up to K = ",
			 cliff, max);
	}
}

void verdict_measure(const struct claim *c, int point, struct side *s, struct measure *out)
{
	memset(out, 0, sizeof(*out));
	switch (c->src) {
	case CQ_METRIC:
		measure_metric(c, c->step[point], c->metric, s, out);
		break;
	case CQ_META:
		measure_meta(c, s, out);
		break;
	case CQ_CLIFF:
		measure_cliff(c, s, out);
		break;
	case CQ_LAYOUT: {
		const struct layout *lay = side_layout(s);

		if (!lay)
			str_setf(out->why, sizeof(out->why), "%s", s->lay_err);
		else
			verdict_measure_layout_of(c, lay, out);
		break;
	}
	case CQ_LINES:
		measure_lines(c, s, out);
		break;
	case CQ_LINES_CLIFF:
		measure_lines_cliff(c, s, out);
		break;
	}
}

/* ---- words for figures ---- */


void verdict_fmt_num(char *buf, size_t n, double v)
{
	if (fabs(v) < 1e4 && v == floor(v))
		str_setf(buf, n, "%.0f", v);
	else if (fabs(v) < 10)
		str_setf(buf, n, "%.3g", v);
	else
		format_number(buf, n, v);
}

/* "1.84 ±19% (3 runs)", "7 (3 repeats: 7, 7, 6)", "2240" */
void verdict_fmt_measure(char *buf, size_t n, const struct measure *m, const char *unit)
{
	struct sample_stats st;
	char mean[32], one[32];

	sample_stats(m->v, m->n, &st);
	verdict_fmt_num(mean, sizeof(mean), st.mean);
	if (m->n == 1) {
		str_setf(buf, n, "%s %s", mean, unit);
		return;
	}
	if (m->exact && st.min == st.max) {
		str_setf(buf, n, "%s %s, all %d repeats", mean, unit, m->n);
		return;
	}
	if (m->exact) {
		str_setf(buf, n, "%s", "");
		for (int i = 0; i < m->n && i < 8; i++) {
			verdict_fmt_num(one, sizeof(one), m->v[i]);
			str_appendf(buf, n, "%s%s", i ? ", " : "", one);
		}
		str_appendf(buf, n, " %s (%d repeats)", unit, m->n);
		return;
	}
	str_setf(buf, n, "%s %s ±%.0f%% (%d runs)", mean, unit, st.mean ? 100 * st.stddev / fabs(st.mean) : 0.0,
		 m->n);
}
