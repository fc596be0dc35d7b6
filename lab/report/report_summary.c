// SPDX-License-Identifier: GPL-2.0
/*
 * report.txt's opening summary (report/report_summary.h): each finding is
 * one labelled entry, wrapped to 80 columns, built from the results
 * directory's files only.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_summary.h"
#include "report/stats.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/humanize.h"
#include "util/json_path.h"
#include "util/metrics.h"

#define LABEL_WIDTH 13
#define TEXT_WIDTH (80 - 2 - LABEL_WIDTH - 1)

static void add_line(struct report_summary *s, char *line)
{
	s->line = xrealloc(s->line, (s->n + 1) * sizeof(*s->line));
	s->line[s->n++] = line;
}

/* Where to wrap p (longer than the column): after a ',' ';' or ':' in the
 * last quarter, else at its last space; a word longer than the
 * column runs over rather than being split. */
static size_t wrap_at(const char *p)
{
	size_t space = 0;

	for (size_t i = TEXT_WIDTH; i > 0; i--) {
		if (p[i] != ' ')
			continue;
		if (strchr(",;:", p[i - 1]) && i > TEXT_WIDTH * 3 / 4)
			return i;
		if (!space)
			space = i;
	}
	return space ? space : strcspn(p, " ");
}

/* One entry: the label in the first column, the text wrapped to 80
 * columns; with max_lines, cut with "..." on its last (the sections below
 * give it in full). */
static void add_text(struct report_summary *s, const char *label, const char *text, int max_lines)
{
	int lines = 0;

	for (const char *p = text; *p; label = "") {
		size_t cut = strlen(p) > TEXT_WIDTH ? wrap_at(p) : strlen(p);

		if (max_lines && ++lines == max_lines && p[cut]) {
			add_line(s, xasprintf("  %-*s %.*s...", LABEL_WIDTH, label, TEXT_WIDTH - 3, p));
			return;
		}
		add_line(s, xasprintf("  %-*s %.*s", LABEL_WIDTH, label, (int)cut, p));
		for (p += cut; *p == ' '; p++)
			;
	}
}

static void add(struct report_summary *s, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add(struct report_summary *s, const char *label, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	add_text(s, label, text, 0);
	free(text);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static bool is_true(json_object *meta, const char *path)
{
	const char *v = json_path_str(meta, path);

	return v && !strcmp(v, "true");
}

/* ---- steps and their numbers ---- */

/* The phase of a step: "scaling" of "scaling:tasks=1"; "" for a bare
 * schedule step ("tasks=1", the stock's "K=3") or a driver run alone
 * ("-"); the step itself for a phase without a schedule ("accounted"). */
static void step_phase(const char *step, char *buf, size_t n)
{
	const char *colon = strchr(step, ':');

	if (colon)
		snprintf(buf, n, "%.*s", (int)(colon - step), step);
	else
		snprintf(buf, n, "%s", strchr(step, '=') || !strcmp(step, "-") ? "" : step);
}

/* The step within its phase: "tasks=1" of "scaling:tasks=1". */
static const char *step_point(const char *step)
{
	const char *colon = strchr(step, ':');

	return colon ? colon + 1 : step;
}

/* Mean, spread and runs of metric at step (every repeat); false if none. */
static bool step_stats(const struct metrics *m, const char *step, const char *metric, struct sample_stats *st)
{
	double *v = xcalloc(m->n ? m->n : 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->rows[i].step, step) && !strcmp(m->rows[i].metric, metric))
			v[n++] = m->rows[i].value;
	if (n)
		sample_stats(v, n, st);
	free(v);
	return n > 0;
}


/* A mean as a reader takes it in: latencies in ns..s, the rest as the
 * 0-day robot prints means (the unit is the caller's to add). */
static void format_value(char *buf, size_t n, double v, const char *unit)
{
	if (!strcmp(unit, "ns") && v >= 0)
		format_ns(buf, (int)n, (uint64_t)v);
	else
		format_number(buf, n, v);
}

static bool has_metric_prefix(const struct metrics *m, const char *prefix)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strncmp(m->rows[i].metric, prefix, strlen(prefix)))
			return true;
	return false;
}

/* ---- what the run could not have measured ---- */

/* Socket memory charges the per-CPU stock only on cgroup v2: in
 * mm/memcontrol.c mem_cgroup_charge_skmem() (later mem_cgroup_sk_charge())
 * sends v1 to memcg1_charge_skmem() (mm/memcontrol-v1.c: the tcpmem
 * page_counter, active only once a tcp limit is written), v2 to
 * try_charge(), which takes from the stock.  The charge driver records
 * which counter in charge.socket_counter. */
char *report_socket_bypass(json_object *meta, const struct metrics *m)
{
	const char *ctr = json_path_str(meta, "charge.socket_counter");
	const char *v2 = json_path_str(meta, "probe.machine.cgroup.memory_v2");

	if (!has_metric_prefix(m, "charge.sock."))
		return NULL;
	if (ctr && (!strncmp(ctr, "memory (v2", 10) || !strncmp(ctr, "none (root", 10)))
		return NULL;
	/* Another phase may have replaced charge: then the cgroup version tells. */
	if (!ctr && !(v2 && !strcmp(v2, "false")))
		return NULL;
	return !ctr ? xstrdup("charged on cgroup v1, not through the stock") : !strncmp(ctr, "none ", 5) ?
	       xasprintf("not charged %s", ctr + 5) : xasprintf("charged to %s, not through the stock", ctr);
}

static void socket_caveat(struct report_summary *s, json_object *meta, const struct metrics *m)
{
	char *where = report_socket_bypass(meta, m);

	if (!where)
		return;
	add(s, "NOT MEASURED", "the per-CPU stock: socket memory was %s, so the Mbps below are loopback TCP "
	    "throughput, not the stock's effect", where);
	free(where);
}

static void guest_caveat(struct report_summary *s, json_object *meta)
{
	const char *accel = json_path_str(meta, "vm.accel");

	if (!accel)
		return;
	if (!strcmp(accel, "tcg") && json_path_str(meta, "vm.icount"))
		add(s, "NOT MEASURED", "time: a qemu guest (kernel %s) under TCG with -icount, whose clock counts "
		    "instructions: its times and rates are guest instruction counts (1 ns = 1 instruction)",
		    json_path_or(meta, "vm.kernel_spec", "?"));
	else if (!strcmp(accel, "tcg"))
		add(s, "NOT MEASURED", "throughput and latency: a qemu guest (kernel %s) under TCG, software "
		    "emulation without KVM; counts and code paths are the guest kernel's",
		    json_path_or(meta, "vm.kernel_spec", "?"));
	else
		add(s, "measured in", "a qemu guest (kernel %s, %s)", json_path_or(meta, "vm.kernel_spec", "?"), accel);
}

/* The runner's [small] values, and a driver's own scaling (statread's tree
 * for a small machine): numbers of another shape than the seed's. */
static void shape_caveat(struct report_summary *s, const char *dir, json_object *meta)
{
	const char *scaled = json_path_str(meta, "scaled");
	json_object *runs = json_path(meta, "statread");
	char *exp = xasprintf("%s/experiment.exp", dir);
	const char *last = scaled;

	if (scaled && path_exists(exp))
		add(s, "small shape", "the [small] values ran, as this machine is small (%s): not the seed's "
		    "full-size shape", scaled);
	else if (scaled)
		add(s, "small shape", "%.*s", (int)strcspn(scaled, ";"), scaled);
	free(exp);
	for (size_t i = 0; runs && json_object_is_type(runs, json_type_array) && i < json_object_array_length(runs);
	     i++) {
		const char *note = json_path_str(json_object_array_get_idx(runs, i), "config.scaled");

		if (!note || (last && !strcmp(note, last)))
			continue;
		add(s, "small shape", "statread: %.*s", (int)strcspn(note, ";"), note);
		last = note;
	}
}

/* ---- verdicts ---- */

static void layout_verdict(struct report_summary *s, const char *dir, json_object *meta)
{
	char *path = xasprintf("%s/data/layout-check.txt", dir), *text = read_text(path, NULL);
	const char *verdict = json_path_str(meta, "layout_check"), *pos = text;
	char line[1024], broken[512] = "", result[1024] = "";

	free(path);
	if (!verdict && !text)
		return;
	while (pos && text_next_line(&pos, line, sizeof(line))) {
		char name[128];

		if (!strncmp(line, "result: ", 8))
			snprintf(result, sizeof(result), "%s", line + 8);
		else if ((!strncmp(line, "FAIL  ", 6) || !strncmp(line, "warn  ", 6)) &&
			 sscanf(line + 6, "%127s", name) == 1)
			snprintf(broken + strlen(broken), sizeof(broken) - strlen(broken), "%s%s %s",
				 broken[0] ? ", " : "", line[0] == 'F' ? "FAIL" : "warn", name);
	}
	add(s, "layout rules", "%s%s%s%s%s%s", verdict ? verdict : "?", broken[0] ? ": " : "", broken,
	    result[0] ? " (" : "", result, result[0] ? ")" : "");
	free(text);
}

/* The runtime probes against BTF: "7 (BTF 7)" or a disagreement in capitals. */
static void runtime_verdict(struct report_summary *s, json_object *meta)
{
	static const struct {
		const char *what, *measured, *agrees, *btf;
	} probes[] = {
		{ "stock slots", "runtime.stock_slots", "runtime.agrees_with_btf", "probe.features.stock_slots" },
		{ "obj stock slots", "runtime.obj_stock_slots", "runtime.obj_stock_slots_agree_with_btf",
		  "probe.features.obj_stock_slots" },
	};
	char text[512] = "";
	const char *v;

	if (!json_path(meta, "runtime"))
		return;
	if ((v = json_path_str(meta, "runtime.charge_batch")))
		snprintf(text, sizeof(text), "charge batch %s pages", v);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		const char *btf = json_path_or(meta, probes[i].btf, "?");

		if (!(v = json_path_str(meta, probes[i].measured)))
			continue;
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s %s %s BTF's %s", text[0] ? "; " : "",
			 probes[i].what, v, is_true(meta, probes[i].agrees) ? "agrees with" : "DISAGREES with", btf);
	}
	if (text[0])
		add(s, "runtime", "%s", text);
}

/* ---- cliffs: K memcgs taking turns on one CPU, holders per K ---- */

struct cliff_mode {
	const char *mode, *label;
	const char *slots[2];	/* where meta.json has BTF's slot count: the driver's, the probe's */
};

static const struct cliff_mode cliff_modes[] = {
	{ "stock", "stock cliff", { "stock.slots_btf", "probe.features.stock_slots" } },
	{ "objstock", "obj stock", { "objstock.slots_btf", "probe.features.obj_stock_slots" } },
};

/* K of a stock step ("K=3", "phase:K=3"), or 0. */
static int step_k(const char *step)
{
	char name[16];
	double v;

	return metrics_step_value(step_point(step), name, sizeof(name), &v) && !strcmp(name, "K") && v >= 1 ?
	       (int)v : 0;
}

/* Mean over the steps with lo <= K <= hi of metric's per-step mean; NAN if none. */
static double mean_over_k(const struct metrics *m, const char *metric, int lo, int hi)
{
	double sum = 0;
	int n = 0;

	for (size_t i = 0; i < m->n; i++) {
		int k = step_k(m->rows[i].step);
		struct sample_stats st;
		bool first = true;

		if (k < lo || k > hi || strcmp(m->rows[i].metric, metric))
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(m->rows[j].step, m->rows[i].step) || strcmp(m->rows[j].metric, metric);
		if (first && step_stats(m, m->rows[i].step, metric, &st)) {
			sum += st.mean;
			n++;
		}
	}
	return n ? sum / n : NAN;
}

/* The largest K up to which every memcg held its slot in repeat rep. */
static int repeat_cliff(const struct metrics *m, const char *holders, int rep, int kmax)
{
	for (int k = 1; k <= kmax; k++) {
		bool held = false;

		for (size_t i = 0; i < m->n; i++)
			if (m->rows[i].repeat == rep && !strcmp(m->rows[i].metric, holders) &&
			    step_k(m->rows[i].step) == k)
				held = (int)m->rows[i].value == k;
		if (!held)
			return k - 1;
	}
	return kmax;
}

static void cliff(struct report_summary *s, json_object *meta, const struct metrics *m, const struct cliff_mode *c)
{
	char holders[64], rate[64], ns[64], upto[48], most_s[16], verdict[128];
	const char *btf = json_path_str(meta, c->slots[0]);
	int reps = 0, kmax = 0, most = 0, lo = 0, hi = 0;
	double r1, r2, n1, n2;

	snprintf(holders, sizeof(holders), "%s.holders", c->mode);
	snprintf(rate, sizeof(rate), "%s.charges_per_s", c->mode);
	snprintf(ns, sizeof(ns), "%s.cpu_ns_per_charge", c->mode);
	for (size_t i = 0; i < m->n; i++) {
		int k = step_k(m->rows[i].step);

		if (!k || strcmp(m->rows[i].metric, holders))
			continue;
		reps = m->rows[i].repeat + 1 > reps ? m->rows[i].repeat + 1 : reps;
		kmax = k > kmax ? k : kmax;
		most = (int)m->rows[i].value > most ? (int)m->rows[i].value : most;
	}
	if (!kmax)
		return;
	for (int rep = 0; rep < reps; rep++) {
		int got = repeat_cliff(m, holders, rep, kmax);

		lo = rep == 0 || got < lo ? got : lo;
		hi = got > hi ? got : hi;
	}
	btf = btf ? btf : json_path_or(meta, c->slots[1], "?");
	if (lo == kmax) {
		add(s, c->label, "none up to K = %d: every memcg kept its slot (BTF gives %s slots)", kmax, btf);
		return;
	}
	if (lo == hi)
		snprintf(upto, sizeof(upto), "%d", lo);
	else
		snprintf(upto, sizeof(upto), "%d..%d (by repeat)", lo, hi);
	/* A cliff that moves between repeats says less than one that differs;
	 * one below a full stock is other tasks on the CPU evicting. */
	snprintf(most_s, sizeof(most_s), "%d", most);
	if (!strcmp(btf, "?"))
		snprintf(verdict, sizeof(verdict), "BTF's slot count unknown");
	else
		snprintf(verdict, sizeof(verdict), "%s the %s slots BTF gives%s", lo != hi ? "against" :
			 strcmp(most_s, btf) || lo != most ? "DIFFERS from" : "matches", btf,
			 lo == hi && lo != most && !strcmp(most_s, btf) ? ": other tasks on the CPU evict" : "");
	add(s, c->label, "every memcg keeps its slot up to K = %s, at most %d beyond: %s (%d repeat%s)", upto, most,
	    verdict, reps, reps == 1 ? "" : "s");
	/* As the driver splits them: K = 1 has no task to switch to. */
	r1 = mean_over_k(m, rate, 2, lo);
	r2 = mean_over_k(m, rate, lo + 1, kmax);
	n1 = mean_over_k(m, ns, 2, lo);
	n2 = mean_over_k(m, ns, lo + 1, kmax);
	if (lo >= 2 && r1 > 0 && n1 > 0 && !isnan(r2) && !isnan(n2))
		add(s, "", "beyond K = %d (against 2..%d): charges/s %+.1f%%, CPU ns/charge %+.1f%%", lo, lo,
		    100 * (r2 - r1) / r1, 100 * (n2 - n1) / n1);
}

static bool is_cliff_phase(const struct metrics *m, const char *phase)
{
	char p[128];

	for (size_t i = 0; i < m->n; i++) {
		step_phase(m->rows[i].step, p, sizeof(p));
		if (!strcmp(p, phase) && ends_with(m->rows[i].metric, ".holders") && step_k(m->rows[i].step))
			return true;
	}
	return false;
}

/* ---- ratios, skips, and each phase's headline ---- */

static void ratios(struct report_summary *s, const struct metrics *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct sample_stats st;
		bool first = true;
		char v[64], sd[16];

		if (strcmp(m->rows[i].unit, "ratio"))
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(m->rows[j].metric, m->rows[i].metric) || strcmp(m->rows[j].step, m->rows[i].step);
		if (!first || !step_stats(m, m->rows[i].step, m->rows[i].metric, &st))
			continue;
		format_number(v, sizeof(v), st.mean);
		add(s, "ratio", "%s %s (sd %s, %zu run%s)", m->rows[i].metric, v, stats_sd_pct(&st, sd, sizeof(sd)),
		    st.n, st.n == 1 ? "" : "s");
	}
}

static void skipped(struct report_summary *s, json_object *meta)
{
	json_object *arr = json_path(meta, "skipped");

	for (size_t i = 0; arr && json_object_is_type(arr, json_type_array) && i < json_object_array_length(arr);
	     i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		char *text = xasprintf("%s: %s", json_path_or(e, "what", "?"), json_path_or(e, "why", "?"));

		add_text(s, "skipped", text, 2);
		free(text);
	}
}

/* The number a phase is about: throughput, else the readers' p99, else its
 * first metric with a direction. */
static const char *const headline_suffixes[] = { ".total", "statread.all.p99" };

static const char *headline_metric(const struct metrics *m, const char *phase)
{
	const char *any = NULL;
	char p[128];

	for (size_t h = 0; h < sizeof(headline_suffixes) / sizeof(headline_suffixes[0]); h++)
		for (size_t i = 0; i < m->n; i++) {
			step_phase(m->rows[i].step, p, sizeof(p));
			if (!strcmp(p, phase) && ends_with(m->rows[i].metric, headline_suffixes[h]))
				return m->rows[i].metric;
		}
	for (size_t i = 0; i < m->n && !any; i++) {
		step_phase(m->rows[i].step, p, sizeof(p));
		if (!strcmp(p, phase) && m->rows[i].better != '-')
			any = m->rows[i].metric;
	}
	return any;
}

/* One line per phase: its headline metric at each step, the unit once
 * ("ns" needs none: the values carry theirs). */
static void phase_headline(struct report_summary *s, const struct metrics *m, const char *phase)
{
	const char *metric = headline_metric(m, phase), *unit = "";
	char text[1024] = "", p[128], v[64], sd[16];
	int steps = 0;
	struct sample_stats st;

	if (!metric)
		return;
	for (size_t i = 0; i < m->n; i++) {
		bool first = true;

		step_phase(m->rows[i].step, p, sizeof(p));
		if (strcmp(p, phase) || strcmp(m->rows[i].metric, metric))
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(m->rows[j].step, m->rows[i].step) || strcmp(m->rows[j].metric, metric);
		if (!first || !step_stats(m, m->rows[i].step, metric, &st))
			continue;
		unit = !strcmp(m->rows[i].unit, "ns") ? "" : m->rows[i].unit;
		format_value(v, sizeof(v), st.mean, m->rows[i].unit);
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s %s", steps++ ? ", " : "",
			 step_point(m->rows[i].step), v);
	}
	if (steps == 1)
		add(s, "measured", "%s%s%s %s%s%s (sd %s, %zu run%s)", phase, phase[0] ? ": " : "", metric, v,
		    unit[0] ? " " : "", unit, stats_sd_pct(&st, sd, sizeof(sd)), st.n, st.n == 1 ? "" : "s");
	else if (steps)
		add(s, "measured", "%s%s%s%s%s%s: %s", phase, phase[0] ? ": " : "", metric, unit[0] ? " (" : "", unit,
		    unit[0] ? ")" : "", text);
}

static void headlines(struct report_summary *s, const struct metrics *m)
{
	char **seen = xcalloc(m->n ? m->n : 1, sizeof(*seen)), p[128];
	size_t nseen = 0;

	for (size_t i = 0; i < m->n; i++) {
		bool first = true;

		if (!strcmp(m->rows[i].unit, "ratio"))
			continue;
		step_phase(m->rows[i].step, p, sizeof(p));
		for (size_t j = 0; j < nseen && first; j++)
			first = strcmp(seen[j], p);
		if (!first)
			continue;
		seen[nseen++] = xstrdup(p);
		if (!is_cliff_phase(m, p))
			phase_headline(s, m, p);
	}
	for (size_t j = 0; j < nseen; j++)
		free(seen[j]);
	free(seen);
}

void report_summary_build(struct report_summary *s, const char *dir, json_object *meta)
{
	struct metrics m;
	char err[512];
	bool have = metrics_load(dir, &m, err, sizeof(err)) == 0;

	memset(s, 0, sizeof(*s));
	if (!have)
		memset(&m, 0, sizeof(m));
	/* What the run could not have measured comes first. */
	socket_caveat(s, meta, &m);
	guest_caveat(s, meta);
	shape_caveat(s, dir, meta);
	layout_verdict(s, dir, meta);
	runtime_verdict(s, meta);
	for (size_t i = 0; i < sizeof(cliff_modes) / sizeof(cliff_modes[0]); i++)
		cliff(s, meta, &m, &cliff_modes[i]);
	ratios(s, &m);
	skipped(s, meta);
	if (have)
		headlines(s, &m);
	else
		add(s, "measured", "nothing: %s", err);
	if (have)
		metrics_free(&m);
}

void report_summary_print(FILE *out, const struct report_summary *s)
{
	int shown = s->n > REPORT_SUMMARY_LINES ? REPORT_SUMMARY_LINES - 1 : s->n;

	for (int i = 0; i < shown; i++)
		fprintf(out, "%s\n", s->line[i]);
	if (shown < s->n)
		fprintf(out, "  (%d more line%s: the sections below)\n", s->n - shown, s->n - shown == 1 ? "" : "s");
}

void report_summary_free(struct report_summary *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->line[i]);
	free(s->line);
	memset(s, 0, sizeof(*s));
}
