// SPDX-License-Identifier: GPL-2.0
/*
 * Verdicts, judged (report/verdict.h): the claims of a run's experiment
 * file against what one run (or an A/B pair of runs) measured.
 *
 * Each claim goes through the same steps: the reasons it cannot be
 * measured here (the gates), what the run measured of its quantity (the
 * measure: verdict_measure.c), and the rule of its kind (report/claim.h:
 * claim_rule_text).  This file holds the gates, the rules (judge_*), a
 * claim's verdict and its notes, the command that measures an A/B's other
 * side, and the sets (verdicts_of_dir, verdicts_of_pair); verdict_print.c
 * prints them.
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
#include "report/report_summary.h"
#include "report/stats.h"
#include "report/verdict.h"
#include "report/verdict_measure.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/json_path.h"
#include "util/metrics.h"
#include "util/results.h"
#include "util/strfmt.h"

/* The lab's significance threshold (report/stats.h; compare marks p < 0.05 with '*'). */
#define ALPHA STATS_ALPHA

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

	if (c->timing && verdict_side_tcg(s) && json_path_str(s->meta, "vm.icount"))
		add_reason(why, n, "%sTCG with -icount: a qemu guest (kernel %s) whose clock counts instructions, so its "
			   "times are instruction counts, not the seed's time", pre,
			   json_path_or(s->meta, "vm.kernel_spec", verdict_side_kernel(s)));
	else if (c->timing && verdict_side_tcg(s))
		add_reason(why, n, "%sTCG timing: a qemu guest (kernel %s) under %s, where times and rates mean nothing",
			   pre, json_path_or(s->meta, "vm.kernel_spec", verdict_side_kernel(s)), json_path_or(s->meta, "vm.accel", "tcg"));
	cpus = verdict_side_cpus(s);
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
					   c->feat[i].path, c->feat[i].a, verdict_side_kernel(s), v);
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
	verdict_fmt_measure(va, sizeof(va), ma, c->munit);
	verdict_fmt_measure(vb, sizeof(vb), mb, c->munit);
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
	verdict_fmt_measure(p->measured, sizeof(p->measured), m, c->munit);
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

	if (v->nnotes == (int)(sizeof(v->notes) / sizeof(v->notes[0])))
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
	verdict_fmt_measure(txt, sizeof(txt), m, c->munit);
	str_setf(p->measured, sizeof(p->measured), "%s%s (not judged)", pre, txt);
}

/* What the run's driver did (the claim's workload path in meta.json):
 * the seed's own workload, or a stand-in, said beside the verdict. */
static void workload_note(struct verdict *v, const struct claim *c, const struct side *a, const struct side *b)
{
	const char *wa, *wb;

	if (!c->workload[0])
		return;
	wa = json_path_str(a->meta, c->workload);
	wb = b ? json_path_str(b->meta, c->workload) : NULL;
	if (!b || (wa && wb && !strcmp(wa, wb)))
		add_note(v, "workload: %s", wa ? wa : "not said (no workload in meta.json: a run from before it)");
	else
		add_note(v, "workload: A %s; B %s", wa ? wa : "not said", wb ? wb : "not said");
}

static void judge_claim_one(struct verdict *v, const struct claim *c, struct side *s)
{
	char gates[1024] = "";

	v->c = c;
	v->npts = c->npoints;
	side_gates(c, s, gates, sizeof(gates));
	workload_note(v, c, s, NULL);
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
			if (verdict_load_release(c->kernel_a, &la, err, sizeof(err)) == 0) {
				verdict_measure_layout_of(c, &la, &m);
				layout_free(&la);
			} else {
				str_setf(m.why, sizeof(m.why), "%s", err);
			}
			if (verdict_load_release(c->kernel_b, &lb, err, sizeof(err)) == 0) {
				verdict_measure_layout_of(c, &lb, &mb);
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
		verdict_measure(c, i, s, &m);
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
			str_setf(p->why, sizeof(p->why), "one kernel (%s) where the claim is an A/B", verdict_side_kernel(s));
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
	workload_note(v, c, a, b);
	if (!c->nfeat)
		add_note(v, "sides taken as given (A base: %s, B patched: %s): the claim names no fact that tells them "
			 "apart", verdict_side_kernel(a), verdict_side_kernel(b));
	readers_note(v, c, b);
	for (int i = 0; i < c->npoints; i++) {
		struct verdict_point *p = &v->pt[i];
		struct measure ma, mb;

		point_init(p, c, i);
		verdict_measure(c, i, a, &ma);
		verdict_measure(c, i, b, &mb);
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
				verdict_fmt_measure(fa, sizeof(fa), &ma, c->munit);
				verdict_fmt_measure(fb, sizeof(fb), &mb, c->munit);
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
	int is_a = c->nfeat > 0, is_b = c->nfeat > 0, cpus = verdict_side_cpus(s);
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
	verdict_side_open(&s, dir, 0);
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
	verdict_side_close(&s);
}

void verdicts_of_pair(struct verdicts *vs, const char *a, const char *b)
{
	struct side sa, sb;

	memset(vs, 0, sizeof(*vs));
	vs->pair = true;
	verdict_side_open(&sa, a, 'A');
	verdict_side_open(&sb, b, 'B');
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
	verdict_side_close(&sa);
	verdict_side_close(&sb);
}

void verdicts_free(struct verdicts *vs)
{
	claims_free(&vs->claims);
	free(vs->v);
	memset(vs, 0, sizeof(*vs));
}
