// SPDX-License-Identifier: GPL-2.0
/*
 * Verdicts (report/verdict.h): the claims of a run's experiment file
 * against what one run (or an A/B pair of runs) measured.
 *
 * Each claim goes through the same steps: the reasons it cannot be
 * measured here (the gates), what the run measured of its quantity (the
 * measure), and the rule of its kind (report/claim.h: claim_rule_text).
 */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "kernel/btf.h"
#include "kernel/features.h"
#include "layout/layout.h"
#include "report/insns_note.h"
#include "report/claim.h"
#include "report/lines_fields.h"
#include "report/report_summary.h"
#include "report/stats.h"
#include "report/verdict.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/humanize.h"
#include "util/json_path.h"
#include "util/metrics.h"
#include "util/results.h"
#include "util/strfmt.h"

/* The lab's significance threshold (report/stats.h; compare marks p < 0.05 with '*'). */
#define ALPHA STATS_ALPHA
#define MAXV 256

/* One results directory as the verdicts read it. */
struct side {
	char tag;		/* 'A', 'B'; 0 for a run alone */
	const char *dir;
	json_object *meta;
	struct metrics m;
	bool have_m;
	char m_err[512];
	struct layout lay;
	int lay_state;		/* 0 not loaded, 1 loaded, -1 none (lay_err) */
	char lay_err[512];
};

/* What a side measured of a claim's quantity at one point. */
struct measure {
	double v[MAXV];
	int n;			/* 0: not measured (why) */
	bool exact;		/* a count or size: no spread to test */
	char from[320];		/* where it came from, when not data/metrics.tsv */
	char why[512];
};

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

/* ---- sides ---- */

static void side_open(struct side *s, const char *dir, char tag)
{
	char *mp = xasprintf("%s/meta.json", dir);

	memset(s, 0, sizeof(*s));
	s->tag = tag;
	s->dir = dir;
	s->meta = json_object_from_file(mp);
	free(mp);
	s->have_m = s->meta && !metrics_load(dir, &s->m, s->m_err, sizeof(s->m_err));
}

static void side_close(struct side *s)
{
	if (s->have_m)
		metrics_free(&s->m);
	if (s->lay_state == 1)
		layout_free(&s->lay);
	json_object_put(s->meta);
}

static const char *side_kernel(const struct side *s)
{
	return json_path_or(s->meta, "probe.kernel", json_path_or(s->meta, "uname", "?"));
}

/* The CPUs the run had: a guest's vCPUs, else the host's; 0 unknown. */
static int side_cpus(const struct side *s)
{
	const char *v = json_path_str(s->meta, "vm.cpus");

	if (!v)
		v = json_path_str(s->meta, "probe.machine.topology.cpus");
	return v ? atoi(v) : 0;
}

static bool side_tcg(const struct side *s)
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
static int load_release(const char *release, struct layout *lay, char *err, size_t n)
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

static void measure_layout_of(const struct claim *c, const struct layout *lay, struct measure *out)
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

static void measure(const struct claim *c, int point, struct side *s, struct measure *out)
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
			measure_layout_of(c, lay, out);
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

/* ---- gates: why a claim cannot be measured here ---- */

static void add_reason(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_reason(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (buf[0])
		str_appendf(buf, n, "; ");
	va_start(ap, fmt);
	str_vappendf(buf, n, fmt, ap);
	va_end(ap);
}

/* The phase of a metric claim's step: "hierarchy" of "hierarchy",
 * "scaling" of "scaling:tasks=1", "" of "tasks=6" or "-". */
static void claim_phase(const struct claim *c, char *buf, size_t n)
{
	const char *st = c->step[0], *colon = strchr(st, ':');

	if (colon)
		str_setf(buf, n, "%.*s", (int)(colon - st), st);
	else
		str_setf(buf, n, "%s", strchr(st, '=') || !strcmp(st, "-") ? "" : st);
}

/* meta.json's "scaled" names the phases the [small] values ran for
 * ("hierarchy: 2 CPUs < 16; root: ..."; unnamed: "2 CPUs < 16"). */
static const char *small_shape(const struct claim *c, const struct side *s)
{
	const char *scaled = json_path_str(s->meta, "scaled");
	char phase[128], *want;
	const char *hit;

	if (!scaled || c->src != CQ_METRIC)
		return NULL;
	claim_phase(c, phase, sizeof(phase));
	if (!phase[0])
		return strchr(scaled, ':') ? NULL : scaled;
	want = xasprintf("%s: ", phase);
	hit = strstr(scaled, want);
	if (hit && hit != scaled && hit[-1] != ' ')
		hit = NULL;
	free(want);
	return hit ? scaled : NULL;
}

static void side_gates(const struct claim *c, struct side *s, char *why, size_t n)
{
	const char *pre = s->tag == 'A' ? "A: " : s->tag == 'B' ? "B: " : "";
	const char *scaled;
	char *bypass;
	int cpus;

	if (c->timing && side_tcg(s))
		add_reason(why, n, "%sTCG timing: a qemu guest (kernel %s) under %s, where times and rates mean nothing",
			   pre, json_path_or(s->meta, "vm.kernel_spec", side_kernel(s)), json_path_or(s->meta, "vm.accel", "tcg"));
	cpus = side_cpus(s);
	if (c->cpus && cpus && cpus < c->cpus)
		add_reason(why, n, "%s%d CPU%s against the claim's %d", pre, cpus, cpus == 1 ? "" : "s", c->cpus);
	if (c->sockets_v2 && s->have_m && (bypass = report_socket_bypass(s->meta, &s->m))) {
		add_reason(why, n, "%sv1 sockets bypass the stock: socket memory was %s", pre, bypass);
		free(bypass);
	}
	if ((scaled = small_shape(c, s)))
		add_reason(why, n, "%sthe [small] shape ran (%s), not the seed's", pre, scaled);
	if (!c->ab)
		for (int i = 0; i < c->nfeat; i++) {
			const char *v = json_path_str(s->meta, c->feat[i].path);

			if (!v)
				add_reason(why, n, "%sthe claim holds on kernels with %s %s; this run does not say (no %s in "
					   "meta.json)", pre, c->feat[i].path, c->feat[i].a, c->feat[i].path);
			else if (strcmp(v, c->feat[i].a))
				add_reason(why, n, "%sthe claim holds on kernels with %s %s; %s has %s", pre,
					   c->feat[i].path, c->feat[i].a, side_kernel(s), v);
		}
}

/* An A/B's sides: A must be the base and B the patched kernel by every
 * fact of ab; a fact with the same value on both must not differ. */
static void pair_gates(const struct claim *c, struct side *a, struct side *b, char *why, size_t n)
{
	for (int i = 0; i < c->nfeat; i++) {
		const struct claim_feature *f = &c->feat[i];
		const char *va = json_path_str(a->meta, f->path), *vb = json_path_str(b->meta, f->path);

		if (!va || !vb) {
			add_reason(why, n, "%s of %s unknown (no %s in its meta.json)", f->path, !va ? "A" : "B", f->path);
			continue;
		}
		if (!strcmp(f->a, f->b)) {
			if (strcmp(va, f->a) || strcmp(vb, f->a))
				add_reason(why, n, "A and B %s in %s (%s, %s; the claim wants %s on both): the pair "
					   "confounds it", strcmp(va, vb) ? "differ" : "are not", f->path, va, vb, f->a);
		} else if (!strcmp(va, f->b) && !strcmp(vb, f->a)) {
			add_reason(why, n, "A is the patched side (%s %s) and B the base: compare B A", f->path, va);
		} else if (!strcmp(va, vb)) {
			add_reason(why, n, "A and B do not differ in %s (both %s; the claim is %s -> %s)", f->path, va,
				   f->a, f->b);
		} else if (strcmp(va, f->a) || strcmp(vb, f->b)) {
			add_reason(why, n, "%s is %s on A and %s on B; the claim is %s -> %s", f->path, va, vb, f->a, f->b);
		}
	}
}

/* ---- words for figures ---- */


static void fmt_num(char *buf, size_t n, double v)
{
	if (fabs(v) < 1e4 && v == floor(v))
		str_setf(buf, n, "%.0f", v);
	else if (fabs(v) < 10)
		str_setf(buf, n, "%.3g", v);
	else
		format_number(buf, n, v);
}

/* "1.84 ±19% (3 runs)", "7 (3 repeats: 7, 7, 6)", "2240" */
static void fmt_measure(char *buf, size_t n, const struct measure *m, const char *unit)
{
	struct sample_stats st;
	char mean[32], one[32];

	sample_stats(m->v, m->n, &st);
	fmt_num(mean, sizeof(mean), st.mean);
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
			fmt_num(one, sizeof(one), m->v[i]);
			str_appendf(buf, n, "%s%s", i ? ", " : "", one);
		}
		str_appendf(buf, n, " %s (%d repeats)", unit, m->n);
		return;
	}
	str_setf(buf, n, "%s %s ±%.0f%% (%d runs)", mean, unit, st.mean ? 100 * st.stddev / fabs(st.mean) : 0.0,
		 m->n);
}

/* ---- rules ---- */

static bool satisfies(const struct claim_num *want, double v)
{
	if (want->bound == '>')
		return v > want->lo;
	if (want->bound == '<')
		return v < want->lo;
	/* A point or a range; counts written as integers are equal within rounding. */
	return v >= want->lo - 1e-9 * fabs(want->lo) && v <= want->hi + 1e-9 * fabs(want->hi);
}

/* The value a side stands for under an exact rule: a cliff's highest
 * repeat, else the mean. */
static double side_value(const struct claim *c, const struct measure *m)
{
	struct sample_stats st;

	sample_stats(m->v, m->n, &st);
	return c->src == CQ_CLIFF ? st.max : st.mean;
}

/* |got| within [min|lo|, max|hi|] widened by the factor, same sign as lo..hi. */
static bool within_factor(double got, double lo, double hi, double f, char *why, size_t n, const char *what)
{
	double a = fmin(fabs(lo), fabs(hi)), b = fmax(fabs(lo), fabs(hi));
	int sign = lo > 0 ? 1 : hi < 0 ? -1 : 0;

	if (sign && (got > 0 ? 1 : got < 0 ? -1 : 0) != sign) {
		str_setf(why, n, "%s has the other sign", what);
		return false;
	}
	if (fabs(got) < a / f || fabs(got) > b * f) {
		str_setf(why, n, "%s is outside %gx of the published (|%s| in %.3g..%.3g)", what, f, what, a / f, b * f);
		return false;
	}
	return true;
}

/* A point's numbers of an A/B (the seed's table, verdicts.tsv): each side's
 * figure (a cliff's highest repeat), stddev (NAN under 2 runs), count, the
 * change and Welch's p (NAN untested); the change's test into ch. */
static void pair_numbers(const struct claim *c, const struct measure *ma, const struct measure *mb,
			 struct verdict_point *p, struct change *ch)
{
	struct sample_stats sa, sb;

	sample_stats(ma->v, ma->n, &sa);
	sample_stats(mb->v, mb->n, &sb);
	change_of(&sa, &sb, ALPHA, ch);
	p->a_mean = c->src == CQ_CLIFF ? sa.max : sa.mean;
	p->b_mean = c->src == CQ_CLIFF ? sb.max : sb.mean;
	p->a_sd = sa.n >= 2 ? sa.stddev : NAN;
	p->b_sd = sb.n >= 2 ? sb.stddev : NAN;
	p->a_n = ma->n;
	p->b_n = mb->n;
	p->change = ch->pct;
	p->p = ch->w.valid ? ch->w.p : NAN;
}

static void judge_pair(const struct claim *c, int i, const struct measure *ma, const struct measure *mb,
		       struct verdict_point *p)
{
	struct change ch;
	struct welch w;
	char rule[512], fail[256] = "", va[160], vb[160];
	bool ok = false;

	pair_numbers(c, ma, mb, p, &ch);
	w = ch.w;
	fmt_measure(va, sizeof(va), ma, c->munit);
	fmt_measure(vb, sizeof(vb), mb, c->munit);
	str_setf(p->measured, sizeof(p->measured), "A %s, B %s", va, vb);
	if (c->rule == RULE_SIDES) {
		;
	} else if (ma->exact && mb->exact) {
		/* Counts and sizes: an exact change, no test to give. */
		if (!isnan(p->change))
			str_appendf(p->measured, sizeof(p->measured), ": %+.1f%%", p->change);
	} else {
		/* What a change may be called: report/stats.h's words alone. */
		char words[96];

		change_words(&ch, '-', words, sizeof(words));
		if (ch.kind == CHANGE_SIGNIFICANT || ch.kind == CHANGE_UNDEFINED)
			str_appendf(p->measured, sizeof(p->measured), " %s", words);
		else
			str_appendf(p->measured, sizeof(p->measured), ": %+.1f%% %s", p->change, words);
	}
	claim_rule_text(c, i, rule, sizeof(rule));
	switch (c->rule) {
	case RULE_CHANGE:
		if (!w.valid) {
			p->kind = VERDICT_NOT_MEASURABLE;
			str_setf(p->why, sizeof(p->why), "Welch's t needs two repeats or more on each side and some "
				 "spread (A %d, B %d)", ma->n, mb->n);
			return;
		}
		if (isnan(p->change))
			str_setf(fail, sizeof(fail), "A's mean is 0");
		else if (!within_factor(p->change, c->change_lo[i], c->change_hi[i], c->within, fail, sizeof(fail),
					"the change"))
			;
		else if (w.p >= ALPHA)
			str_setf(fail, sizeof(fail), "p = %.2g is not below %.2g", w.p, ALPHA);
		else
			ok = true;
		break;
	case RULE_SAME: {
		double lim = fmax(c->within * fmax(fabs(c->change_lo[i]), fabs(c->change_hi[i])), 5);

		if (!w.valid) {
			p->kind = VERDICT_NOT_MEASURABLE;
			str_setf(p->why, sizeof(p->why), "Welch's t needs two repeats or more on each side and some "
				 "spread (A %d, B %d)", ma->n, mb->n);
			return;
		}
		if (w.p < ALPHA)
			str_setf(fail, sizeof(fail), "Welch's t finds a change (p = %.2g)", w.p);
		else if (isnan(p->change) || fabs(p->change) > lim)
			str_setf(fail, sizeof(fail), "|change| is over %.1f%%", lim);
		else
			ok = true;
		break;
	}
	case RULE_CHANGE_EXACT:
		p->change = p->a_mean ? 100 * (p->b_mean - p->a_mean) / fabs(p->a_mean) : NAN;
		if (isnan(p->change))
			str_setf(fail, sizeof(fail), "A is 0");
		else
			ok = within_factor(p->change, c->change_lo[i], c->change_hi[i], c->within, fail, sizeof(fail),
					   "the change");
		break;
	case RULE_SIDES: {
		bool oka = satisfies(&c->base[i], side_value(c, ma)), okb = satisfies(&c->patched[i], side_value(c, mb));

		ok = oka && okb;
		if (!ok)
			str_setf(fail, sizeof(fail), "%s%s%s not as published", !oka ? "A" : "", !oka && !okb ? " and " : "",
				 !okb ? "B" : "");
		break;
	}
	default:
		break;
	}
	p->kind = ok ? VERDICT_REPRODUCED : VERDICT_NOT_REPRODUCED;
	str_setf(p->why, sizeof(p->why), "%s%s%s", ok ? "" : fail, ok ? "" : ": ", rule);
}

static void judge_one(const struct claim *c, int i, const struct measure *m, struct verdict_point *p)
{
	struct sample_stats st;
	char rule[512], fail[256] = "";
	bool ok = false;
	double v;

	sample_stats(m->v, m->n, &st);
	v = side_value(c, m);
	p->a_mean = v;
	p->a_sd = st.n >= 2 ? st.stddev : NAN;
	p->a_n = m->n;
	fmt_measure(p->measured, sizeof(p->measured), m, c->munit);
	claim_rule_text(c, i, rule, sizeof(rule));
	switch (c->rule) {
	case RULE_RATIO: {
		double eff = st.mean - 1, pub = c->value[i].lo - 1, t, pv;

		if (m->n < 2 || !(st.stddev > 0)) {
			p->kind = VERDICT_NOT_MEASURABLE;
			str_setf(p->why, sizeof(p->why), "a t-test needs two repeats or more and some spread (%d)", m->n);
			return;
		}
		t = eff / (st.stddev / sqrt((double)m->n));
		pv = student_t_p2(t, m->n - 1);
		p->p = pv;
		p->change = 100 * eff;
		str_appendf(p->measured, sizeof(p->measured), ": effect %+.0f%%, p = %.2g", 100 * eff, pv);
		if (!within_factor(eff, pub, pub, c->within, fail, sizeof(fail), "the effect"))
			;
		else if (pv >= ALPHA)
			str_setf(fail, sizeof(fail), "p = %.2g is not below %.2g", pv, ALPHA);
		else
			ok = true;
		break;
	}
	case RULE_NEAR:
		ok = st.mean >= c->value[i].lo / c->within && st.mean <= c->value[i].hi * c->within;
		if (!ok)
			str_setf(fail, sizeof(fail), "the mean is outside %gx", c->within);
		break;
	case RULE_EQUAL:
		ok = satisfies(&c->value[i], v);
		if (!ok)
			str_setf(fail, sizeof(fail), "%s", c->src == CQ_CLIFF ? "the highest repeat differs" : "it differs");
		break;
	case RULE_BOUND:
		ok = true;
		for (int k = 0; k < m->n; k++)
			ok &= satisfies(&c->value[i], m->v[k]);
		if (!ok)
			str_setf(fail, sizeof(fail), "a value is not %s", c->value[i].text);
		break;
	default:
		break;
	}
	p->kind = ok ? VERDICT_REPRODUCED : VERDICT_NOT_REPRODUCED;
	str_setf(p->why, sizeof(p->why), "%s%s%s", ok ? "" : fail, ok ? "" : ": ", rule);
}

/* ---- one claim ---- */

static void point_init(struct verdict_point *p, const struct claim *c, int i)
{
	memset(p, 0, sizeof(*p));
	str_setf(p->label, sizeof(p->label), "%s", c->src == CQ_METRIC && c->npoints > 1 ? claim_point_label(c, i) : "-");
	claim_published_text(c, i, p->published, sizeof(p->published));
	p->a_mean = p->a_sd = p->b_mean = p->b_sd = p->change = p->p = NAN;
}

/* The whole claim's kind from its points: any not reproduced decides, then
 * reproduced, then the first point's. */
static void verdict_kind_of(struct verdict *v)
{
	bool any_rep = false, any_not = false;

	for (int i = 0; i < v->npts; i++) {
		any_rep |= v->pt[i].kind == VERDICT_REPRODUCED;
		any_not |= v->pt[i].kind == VERDICT_NOT_REPRODUCED;
	}
	v->kind = any_not ? VERDICT_NOT_REPRODUCED : any_rep ? VERDICT_REPRODUCED : v->pt[0].kind;
}

static void add_note(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->nnotes == 3)
		return;
	va_start(ap, fmt);
	vsnprintf(v->notes[v->nnotes++], sizeof(v->notes[0]), fmt, ap);
	va_end(ap);
}

/* A seed's reader count against its tree, and this run's. */
static void readers_note(struct verdict *v, const struct claim *c, const struct side *s)
{
	int tree = 1 + c->tree_top + c->tree_top * c->tree_children;
	json_object *runs = json_path(s->meta, "statread");
	json_object *cfg = runs && json_object_is_type(runs, json_type_array) && json_object_array_length(runs) ?
			   json_path(json_object_array_get_idx(runs, 0), "config") : NULL;
	char run[160] = "";

	if (!c->readers)
		return;
	if (cfg)
		str_setf(run, sizeof(run), "; this run read with %s readers on a %sx%s tree",
			 json_path_or(cfg, "readers", "?"), json_path_or(cfg, "top", "?"), json_path_or(cfg, "children", "?"));
	if (c->readers == tree)
		add_note(v, "readers: %d, one per cgroup of the seed's %dx%d tree (1 + %d + %d)%s", c->readers,
			 c->tree_top, c->tree_children, c->tree_top, c->tree_top * c->tree_children, run);
	else
		add_note(v, "readers: the seed says %d; one per cgroup of its %dx%d tree is 1 + %d + %d = %d, as the "
			 "lab's plan has it%s", c->readers, c->tree_top, c->tree_children, c->tree_top,
			 c->tree_top * c->tree_children, tree, run);
}

/* The measured figure, as information, where the verdict is not measurable. */
static void measured_anyway(const struct claim *c, const struct measure *m, struct verdict_point *p,
			    const char *pre)
{
	char txt[200];

	if (!m->n)
		return;
	fmt_measure(txt, sizeof(txt), m, c->munit);
	str_setf(p->measured, sizeof(p->measured), "%s%s (not judged)", pre, txt);
}

static void judge_claim_one(struct verdict *v, const struct claim *c, struct side *s)
{
	char gates[1024] = "";

	v->c = c;
	v->npts = c->npoints;
	side_gates(c, s, gates, sizeof(gates));
	readers_note(v, c, s);
	for (int i = 0; i < c->npoints; i++) {
		struct verdict_point *p = &v->pt[i];
		struct measure m, mb;

		point_init(p, c, i);
		if (c->ab && c->src == CQ_LAYOUT && c->kernel_a[0]) {
			/* A layout A/B from the BTF captures of the kernels it names. */
			struct layout la, lb;
			char err[512];

			memset(&m, 0, sizeof(m));
			memset(&mb, 0, sizeof(mb));
			if (load_release(c->kernel_a, &la, err, sizeof(err)) == 0) {
				measure_layout_of(c, &la, &m);
				layout_free(&la);
			} else {
				str_setf(m.why, sizeof(m.why), "%s", err);
			}
			if (load_release(c->kernel_b, &lb, err, sizeof(err)) == 0) {
				measure_layout_of(c, &lb, &mb);
				layout_free(&lb);
			} else {
				str_setf(mb.why, sizeof(mb.why), "%s", err);
			}
			if (!m.n || !mb.n) {
				p->kind = VERDICT_NOT_REACHED;
				str_setf(p->why, sizeof(p->why), "%s", !m.n ? m.why : mb.why);
				continue;
			}
			judge_pair(c, i, &m, &mb, p);
			if (i == 0)
				add_note(v, "from the kernels the claim names: A %s, B %s", m.from, mb.from);
			continue;
		}
		measure(c, i, s, &m);
		if (c->ab) {
			/* One kernel: which side of the A/B it is, with its figure. */
			char side[160] = "";
			int is_a = c->nfeat ? 1 : 0, is_b = c->nfeat ? 1 : 0;

			for (int k = 0; k < c->nfeat; k++) {
				const char *val = json_path_str(s->meta, c->feat[k].path);

				is_a &= val && !strcmp(val, c->feat[k].a);
				is_b &= val && !strcmp(val, c->feat[k].b);
			}
			if (is_a != is_b && c->have_base)
				str_setf(side, sizeof(side), "this kernel is the %s side (published %s %s)",
					 is_a ? "base" : "patched", is_a ? c->base[i].text : c->patched[i].text, c->unit);
			if (m.n) {
				/* Its figure in its side's column of the seed's table. */
				struct sample_stats st;
				bool b_side = is_b && !is_a;

				sample_stats(m.v, m.n, &st);
				*(b_side ? &p->b_mean : &p->a_mean) = side_value(c, &m);
				*(b_side ? &p->b_sd : &p->a_sd) = st.n >= 2 ? st.stddev : NAN;
				*(b_side ? &p->b_n : &p->a_n) = m.n;
			}
			p->kind = VERDICT_NOT_MEASURABLE;
			str_setf(p->why, sizeof(p->why), "one kernel (%s) where the claim is an A/B", side_kernel(s));
			if (c->nfeat)
				str_appendf(p->why, sizeof(p->why), " (%s %s -> %s)", c->feat[0].path, c->feat[0].a,
					    c->feat[0].b);
			if (gates[0])
				str_appendf(p->why, sizeof(p->why), "; %s", gates);
			if (side[0])
				str_appendf(p->why, sizeof(p->why), "; %s", side);
			measured_anyway(c, &m, p, "");
			if (!m.n)
				str_setf(p->measured, sizeof(p->measured), "-");
			else if (m.from[0] && i == 0)
				add_note(v, "measured from %s", m.from);
			continue;
		}
		if (gates[0]) {
			p->kind = VERDICT_NOT_MEASURABLE;
			str_setf(p->why, sizeof(p->why), "%s", gates);
			measured_anyway(c, &m, p, "");
			/* What was measured anyway, and from what. */
			if (m.n && m.from[0] && i == 0)
				add_note(v, "measured from %s", m.from);
			continue;
		}
		if (!m.n) {
			p->kind = VERDICT_NOT_REACHED;
			str_setf(p->why, sizeof(p->why), "%s", m.why);
			str_setf(p->measured, sizeof(p->measured), "-");
			continue;
		}
		judge_one(c, i, &m, p);
		if (m.from[0] && i == 0)
			add_note(v, "measured from %s", m.from);
	}
	verdict_kind_of(v);
	if (c->note)
		add_note(v, "%s", c->note);
	if (insns_metric(c->metric))
		add_note(v, "%s", INSNS_WORDS);
}

static void judge_claim_pair(struct verdict *v, const struct claim *c, struct side *a, struct side *b)
{
	char gates[1536] = "";

	v->c = c;
	v->npts = c->npoints;
	side_gates(c, a, gates, sizeof(gates));
	side_gates(c, b, gates, sizeof(gates));
	pair_gates(c, a, b, gates, sizeof(gates));
	if (!c->nfeat)
		add_note(v, "sides taken as given (A base: %s, B patched: %s): the claim names no fact that tells them "
			 "apart", side_kernel(a), side_kernel(b));
	readers_note(v, c, b);
	for (int i = 0; i < c->npoints; i++) {
		struct verdict_point *p = &v->pt[i];
		struct measure ma, mb;

		point_init(p, c, i);
		measure(c, i, a, &ma);
		measure(c, i, b, &mb);
		if (c->src == CQ_LAYOUT && (!ma.n || !mb.n) && c->kernel_a[0]) {
			/* No captures in the runs: the kernels it names. */
			char side = v->side;

			memset(v, 0, sizeof(*v));
			v->side = side;
			judge_claim_one(v, c, a);
			return;
		}
		if (gates[0]) {
			char fa[200] = "", fb[200] = "";

			p->kind = VERDICT_NOT_MEASURABLE;
			str_setf(p->why, sizeof(p->why), "%s", gates);
			if (ma.n && mb.n) {
				struct change ch;

				/* The seed's table shows what was measured, judged or not. */
				pair_numbers(c, &ma, &mb, p, &ch);
				fmt_measure(fa, sizeof(fa), &ma, c->munit);
				fmt_measure(fb, sizeof(fb), &mb, c->munit);
				str_setf(p->measured, sizeof(p->measured), "A %s, B %s (not judged)", fa, fb);
			}
			continue;
		}
		if (!ma.n || !mb.n) {
			p->kind = VERDICT_NOT_REACHED;
			str_setf(p->why, sizeof(p->why), "%s: %s", !ma.n ? "A" : "B", !ma.n ? ma.why : mb.why);
			str_setf(p->measured, sizeof(p->measured), "-");
			continue;
		}
		judge_pair(c, i, &ma, &mb, p);
		if (i == 0 && (ma.from[0] || mb.from[0]))
			add_note(v, "measured from %s", ma.from[0] ? ma.from : mb.from);
	}
	verdict_kind_of(v);
	if (c->note)
		add_note(v, "%s", c->note);
	if (insns_metric(c->metric))
		add_note(v, "%s", INSNS_WORDS);
}

/* ---- the other side of an A/B measured on one kernel ---- */

#define KNOWN_MAX 32

/* The features of the kernels whose BTF the lab has (build/btf/), read
 * once: what tells which kernel is the other side of an A/B. */
static struct known_kernel {
	char release[64];
	json_object *features;	/* kfeatures_json() */
} known[KNOWN_MAX];
static int nknown = -1;

static void known_load(void)
{
	char *dir = xasprintf("%s/build/btf", lab_root_dir());
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, versionsort);

	nknown = 0;
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		size_t len = strlen(nm);
		char *path, err[256];
		struct kbtf k;
		struct kfeatures f;

		/* vmlinux-6.12.117.btf: a release line vm boots ("-rt", a
		 * fixture: no line of its own). */
		if (nknown < KNOWN_MAX && len > 12 && !strncmp(nm, "vmlinux-", 8) && !strcmp(nm + len - 4, ".btf") &&
		    !memchr(nm + 8, '-', len - 12) && len - 12 < sizeof(known[0].release)) {
			path = xasprintf("%s/%s", dir, nm);
			if (!kbtf_open(&k, path, NULL, err, sizeof(err))) {
				kfeatures_detect(&f, &k, NULL, NULL);
				str_setf(known[nknown].release, sizeof(known[0].release), "%.*s", (int)(len - 12), nm + 8);
				known[nknown++].features = kfeatures_json(&f);
				kbtf_close(&k);
			}
			free(path);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	free(dir);
}

/* The kernel line ("6.12") of the release the lab knows that has every
 * fact of c's patched side (the oldest: nearest the change) or base side
 * (the newest); false when it knows none, or a fact is not BTF's. */
static bool known_kernel_with(const struct claim *c, bool patched, char *line, size_t n, char *rel, size_t rn)
{
	int pick = -1;

	if (nknown < 0)
		known_load();
	for (int k = 0; k < c->nfeat; k++)
		if (strncmp(c->feat[k].path, "probe.features.", 15))
			return false;
	for (int i = 0; i < nknown; i++) {
		bool all = true;

		for (int k = 0; k < c->nfeat && all; k++) {
			const char *v = json_path_str(known[i].features, c->feat[k].path + 15);

			all = v && !strcmp(v, patched ? c->feat[k].b : c->feat[k].a);
		}
		/* known[] is in version order (versionsort). */
		if (all && (pick < 0 || !patched))
			pick = i;
	}
	if (pick < 0)
		return false;
	str_setf(rel, rn, "%s", known[pick].release);
	str_setf(line, n, "%.*s", (int)strcspn(rel, "."), rel);
	if (rel[strlen(line)] == '.')
		str_appendf(line, n, ".%.*s", (int)strcspn(rel + strlen(line) + 1, "."), rel + strlen(line) + 1);
	return true;
}

/* The command line the run was made with, after the program's name
 * (meta.json's command_line), quoted for sh; else run EXPERIMENT. */
static char *run_command(const struct side *s)
{
	json_object *cl = json_path(s->meta, "command_line");
	char *cmd = NULL;

	for (size_t i = 1; cl && json_object_is_type(cl, json_type_array) && i < json_object_array_length(cl); i++) {
		char *q = shell_quote(json_object_get_string(json_object_array_get_idx(cl, i))), *next;

		/* A plain word needs no quotes. */
		if (strspn(q + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+") ==
		    strlen(q) - 2)
			next = xasprintf("%s%s%.*s", cmd ? cmd : "", cmd ? " " : "", (int)strlen(q) - 2, q + 1);
		else
			next = xasprintf("%s%s%s", cmd ? cmd : "", cmd ? " " : "", q);
		free(q);
		free(cmd);
		cmd = next;
	}
	return cmd ? cmd : xasprintf("run experiments/%s.exp", json_path_or(s->meta, "name", "?"));
}

/* An A/B claim judged on one kernel: the command that measures its other
 * side, then compare (the base as A), into vs->next (once per A/B). */
static void other_side(struct verdicts *vs, const struct claim *c, struct side *s)
{
	char facts[256] = "", line[32], rel[64], opts[32] = "", *cmd, *text;
	int is_a = c->nfeat > 0, is_b = c->nfeat > 0, cpus = side_cpus(s);
	bool found;

	if (!c->ab || !c->nfeat || vs->nnext == VERDICTS_MAX_NEXT)
		return;
	for (int k = 0; k < c->nfeat; k++) {
		const char *val = json_path_str(s->meta, c->feat[k].path);

		is_a &= val && !strcmp(val, c->feat[k].a);
		is_b &= val && !strcmp(val, c->feat[k].b);
	}
	/* This kernel on neither side, or both: no side to add. */
	if (is_a == is_b)
		return;
	for (int k = 0; k < c->nfeat; k++)
		str_appendf(facts, sizeof(facts), "%s%s %s", k ? ", " : "", c->feat[k].path,
			    is_a ? c->feat[k].b : c->feat[k].a);
	cmd = run_command(s);
	found = known_kernel_with(c, is_a, line, sizeof(line), rel, sizeof(rel));
	if (cpus)
		str_setf(opts, sizeof(opts), " --cpus %d", cpus);
	text = xasprintf("the %s side of this A/B is still to measure, on a kernel with %s%s%s%s: `memcg-lab vm "
			 "--kernel %s%s -- %s`, then `memcg-lab compare %s %s` (A the base, THAT_RUN the results directory it makes)",
			 is_a ? "patched" : "base", facts, found ? " (" : "", found ? rel : "", found ? ")" : "",
			 found ? line : "KERNEL", opts, cmd, is_a ? s->dir : "THAT_RUN", is_a ? "THAT_RUN" : s->dir);
	for (int i = 0; i < vs->nnext; i++)
		if (!strcmp(vs->next[i], text))
			goto out;
	str_setf(vs->next[vs->nnext++], sizeof(vs->next[0]), "%s", text);
out:
	free(text);
	free(cmd);
}

/* ---- the sets ---- */

/* The claims of dir's experiment file; false with vs->none. */
static bool load_claims(struct verdicts *vs, const char *dir, json_object *meta)
{
	char *path = xasprintf("%s/experiment.exp", dir), err[512];
	struct expfile f;
	const struct exp_entry *bad;
	bool ok = false;

	memset(&f, 0, sizeof(f));
	if (!meta) {
		str_setf(vs->none, sizeof(vs->none), "no verdicts: %s/meta.json cannot be read", dir);
	} else if (!path_exists(path)) {
		str_setf(vs->none, sizeof(vs->none), "no verdicts: no experiment.exp (a command run alone, not an "
			 "experiment: its claims are in experiments/*.exp)");
	} else if (expfile_parse(path, &f, err, sizeof(err))) {
		str_setf(vs->none, sizeof(vs->none), "no verdicts: %s", err);
	} else if (claims_parse(&f, &vs->claims, &bad, err, sizeof(err))) {
		str_setf(vs->none, sizeof(vs->none), "no verdicts: %s:%d: %s (a claim this lab cannot read)", path,
			 bad ? bad->line : 0, err);
		claims_free(&vs->claims);
	} else if (!vs->claims.n) {
		str_setf(vs->none, sizeof(vs->none), "no verdicts: the experiment file of this run has no [claim] "
			 "(a run from before the claims, lab %s)", json_path_or(meta, "lab_revision", "?"));
	} else {
		ok = true;
	}
	expfile_free(&f);
	free(path);
	return ok;
}

void verdicts_of_dir(struct verdicts *vs, const char *dir)
{
	struct side s;

	memset(vs, 0, sizeof(*vs));
	side_open(&s, dir, 0);
	if (load_claims(vs, dir, s.meta)) {
		vs->v = xcalloc(vs->claims.n, sizeof(*vs->v));
		for (int i = 0; i < vs->claims.n; i++) {
			const struct claim *c = &vs->claims.c[i];

			judge_claim_one(&vs->v[vs->n++], c, &s);
			/* A layout A/B of the kernels it names has both sides. */
			if (c->ab && !(c->src == CQ_LAYOUT && c->kernel_a[0]))
				other_side(vs, c, &s);
		}
	}
	side_close(&s);
}

void verdicts_of_pair(struct verdicts *vs, const char *a, const char *b)
{
	struct side sa, sb;

	memset(vs, 0, sizeof(*vs));
	vs->pair = true;
	side_open(&sa, a, 'A');
	side_open(&sb, b, 'B');
	if (load_claims(vs, a, sa.meta)) {
		vs->v = xcalloc(2 * vs->claims.n, sizeof(*vs->v));
		for (int i = 0; i < vs->claims.n; i++) {
			const struct claim *c = &vs->claims.c[i];

			if (c->ab) {
				judge_claim_pair(&vs->v[vs->n++], c, &sa, &sb);
				continue;
			}
			/* A value holds on each kernel it is about. */
			vs->v[vs->n].side = 'A';
			judge_claim_one(&vs->v[vs->n++], c, &sa);
			vs->v[vs->n].side = 'B';
			judge_claim_one(&vs->v[vs->n++], c, &sb);
		}
	}
	side_close(&sa);
	side_close(&sb);
}

void verdicts_free(struct verdicts *vs)
{
	claims_free(&vs->claims);
	free(vs->v);
	memset(vs, 0, sizeof(*vs));
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

				fmt_num(a, sizeof(a), p->a_mean);
				fmt_num(b, sizeof(b), p->b_mean);
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
		fmt_num(buf, n, v);
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

static void tsv_field(FILE *out, const char *s, bool last)
{
	for (const char *p = s; *p; p++)
		fputc(*p == '\t' || *p == '\n' ? ' ' : *p, out);
	fputc(last ? '\n' : '\t', out);
}

static void tsv_num(FILE *out, double v)
{
	if (isnan(v))
		fputs("-\t", out);
	else
		fprintf(out, "%.10g\t", v);
}

void verdicts_tsv(FILE *out, const struct verdicts *vs)
{
	fputs("claim\tside\tpoint\tverdict\tpublished\tmeasured\ta_mean\ta_sd\ta_n\tb_mean\tb_sd\tb_n\tchange_pct\t"
	      "p\tquantity\tsource\twhy\n", out);
	for (int i = 0; i < vs->n; i++) {
		const struct verdict *v = &vs->v[i];
		char side[2] = { v->side ? v->side : '-', '\0' };

		for (int k = 0; k < v->npts; k++) {
			const struct verdict_point *p = &v->pt[k];

			tsv_field(out, claim_label(v->c), false);
			tsv_field(out, side, false);
			tsv_field(out, p->label, false);
			tsv_field(out, verdict_kind_name(p->kind), false);
			tsv_field(out, p->published, false);
			tsv_field(out, p->measured[0] ? p->measured : "-", false);
			tsv_num(out, p->a_mean);
			tsv_num(out, p->a_sd);
			fprintf(out, "%d\t", p->a_n);
			tsv_num(out, p->b_mean);
			tsv_num(out, p->b_sd);
			fprintf(out, "%d\t", p->b_n);
			tsv_num(out, p->change);
			tsv_num(out, p->p);
			tsv_field(out, v->c->quantity, false);
			tsv_field(out, v->c->source, false);
			tsv_field(out, p->why, true);
		}
	}
}
