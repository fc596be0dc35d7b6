// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab run FILE: one experiment file, one results directory.
 *
 * Everything is validated before anything starts: the runner's own
 * sections against the schema below, the driver's options by the driver
 * itself (`<driver> ... --validate`), each error as file:line.  Then: the
 * probe (and runtime probes) into meta.json, the collectors that run once
 * (layout), and for every schedule step and repeat the driver as a child
 * process writing into this directory (util/results.h: results_attach),
 * with the per-step collectors around it.  Last the plots and report.txt;
 * only then is the status "complete".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd/builtin.h"
#include "cmd/probe.h"
#include "cmd/report.h"
#include "collect/around.h"
#include "kernel/cgroup.h"
#include "kernel/leftovers.h"
#include "kernel/tracefs_dir.h"
#include "kernel/runtime_probe.h"
#include "kernel/sysinfo.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/fileio.h"
#include "util/gnuplot.h"
#include "util/metrics.h"
#include "util/outfile.h"
#include "util/results.h"
#include "util/strfmt.h"
#include "util/topology.h"

static const char usage_text[] =
"usage: memcg-lab run FILE [-s section.key=value]... [--validate]\n"
"\n"
"Runs an experiment file (experiments/*.exp) into one results directory:\n"
"probe, collectors, the driver at every schedule step and repeat, plots and\n"
"report.txt.  Everything is checked before anything starts; a bad key or value\n"
"is reported as file:line with what was expected.\n"
"\n"
"  -s section.key=value   override an entry (e.g. -s experiment.repeats=1)\n"
"  --validate             check the file and the driver's options, then stop\n"
"  -h, --help             this text\n"
"\n"
"On a small box (fewer CPUs than [schedule] small_cpus, default 16) the\n"
"[small] section's values replace the full-size ones; the results say so.\n"
"Where the memory controller is on cgroup v1, the [v1] section's values\n"
"replace both (e.g. a tcp limit, without which v1 charges no socket memory).\n";

enum vtype { V_STR, V_INT, V_BOOL, V_DURATION, V_LIST, V_ENUM, V_SIZE, V_PERCENT };

struct key_spec {
	const char *section, *key;
	enum vtype type;
	const char *choices;	/* V_ENUM: "a|b|c" */
	long min, max;		/* V_INT */
	const char *what;	/* expected, for messages */
};

static const struct key_spec schema[] = {
	{ "experiment", "name", V_STR, NULL, 0, 0, "a name ([a-z0-9-])" },
	{ "experiment", "description", V_STR, NULL, 0, 0, "text" },
	{ "experiment", "seed", V_STR, NULL, 0, 0, "text: the patch or report it reproduces" },
	{ "experiment", "repeats", V_INT, NULL, 1, 100, "an integer 1..100" },
	{ "experiment", "on_failure", V_ENUM, "stop|continue", 0, 0, "stop or continue" },
	{ "driver", "command", V_ENUM, NULL, 0, 0, "a driver command" },
	{ "schedule", "param", V_STR, NULL, 0, 0, "the driver option that steps" },
	{ "schedule", "values", V_LIST, NULL, 0, 0, "a list (1,2,4), a range (6..36:6) or 'topology'" },
	{ "schedule", "small_values", V_LIST, NULL, 0, 0, "a list, a range or 'topology'" },
	{ "schedule", "small_cpus", V_INT, NULL, 1, 1 << 20, "an integer >= 1" },
	{ "collect", "runtime_probe", V_BOOL, NULL, 0, 0, "yes or no" },
	{ "collect", "layout", V_ENUM, "check|no", 0, 0, "check or no" },
	{ "collect", "c2c", V_BOOL, NULL, 0, 0, "yes or no" },
	{ "collect", "c2c_start", V_PERCENT, NULL, 1, 99, "a share of the driver's duration, 1%..99% (e.g. 75%)" },
	{ "collect", "c2c_window", V_DURATION, NULL, 0, 0, "a duration (e.g. 4s)" },
	{ "plot", "enabled", V_BOOL, NULL, 0, 0, "yes or no" },
	{ "plot", "size", V_STR, NULL, 0, 0, "WIDTHxHEIGHT" },
};

/* Commands that can be driven by an experiment, "none" for probe-only runs. */
static const char *const driver_commands[] = { "none", "charge", "statread", NULL };

#define MAX_STEPS 256
#define MAX_PHASES 8

/*
 * One driver and its schedule.  An experiment has one unnamed phase
 * ([driver], [schedule], [small]) or several named ones run in file order
 * ([driver NAME], [schedule NAME], [small NAME]); named phases prefix their
 * steps with "NAME:" so their metrics stay apart.
 */
struct phase {
	char name[64];
	char drv[80], sched[80], small_sec[80];	/* section names */
	char v1_sec[80];	/* overrides when the memory controller is on cgroup v1 */
	const char *command;
	const char *param;
	long values[MAX_STEPS];
	int nvalues;
	bool small;		/* the [small] values apply */
	bool v1;		/* the [v1] values apply */
};

struct exp {
	struct expfile f;
	const char *name;
	int repeats;
	bool stop_on_failure;
	struct phase ph[MAX_PHASES];
	int nph;
	char scaled[256];
	bool runtime_probe;
	bool layout_check;
	struct around_cfg around;
	bool plot;
	int plot_w, plot_h;
};

static void NORETURN_exp(const struct exp *x, const struct exp_entry *e, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));
static void NORETURN_exp(const struct exp *x, const struct exp_entry *e, const char *fmt, ...)
{
	char where[600], msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	expfile_where(&x->f, e, where, sizeof(where));
	die("%s: %s", where, msg);
}

static const struct key_spec *spec_of(const char *section, const char *key)
{
	for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++)
		if (!strcmp(schema[i].section, section) && !strcmp(schema[i].key, key))
			return &schema[i];
	return NULL;
}

static bool in_choices(const char *v, const char *choices)
{
	size_t n = strlen(v);

	for (const char *p = choices; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
		if (!strncmp(p, v, n) && (p[n] == '|' || !p[n]))
			return true;
	return false;
}

/* values = topology: the charge driver's steps (util/topology.h), so the
 * runner and `charge --tasks steps` step the same way. */
static int topology_steps(long *values, int max)
{
	int steps[TOPO_MAX_STEPS], n;
	const char *names[TOPO_MAX_STEPS];
	struct topo t;
	char err[256];

	if (topo_load(&t, err, sizeof(err)))
		die("run: schedule values = topology: %s", err);
	n = topo_steps(&t, steps, names);
	topo_free(&t);
	for (int i = 0; i < n && i < max; i++)
		values[i] = steps[i];
	return n < max ? n : max;
}

static void check_value(const struct exp *x, const struct exp_entry *e, const struct key_spec *s)
{
	unsigned long long u;
	long list[MAX_STEPS];
	bool b;
	char *end;
	long v;

	switch (s->type) {
	case V_STR:
		if (!e->value[0])
			NORETURN_exp(x, e, "[%s] %s is empty: want %s", e->section, e->key, s->what);
		break;
	case V_INT:
		errno = 0;
		v = strtol(e->value, &end, 10);
		if (end == e->value || *end || errno || v < s->min || v > s->max)
			NORETURN_exp(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_BOOL:
		if (parse_bool(e->value, &b))
			NORETURN_exp(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_DURATION:
		if (parse_duration_ns(e->value, &u))
			NORETURN_exp(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_SIZE:
		if (parse_bytes(e->value, &u))
			NORETURN_exp(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_LIST:
		if (strcmp(e->value, "topology") && parse_int_list(e->value, list, MAX_STEPS) < 0)
			NORETURN_exp(x, e, "[%s] %s = '%s': want %s (at most %d values)", e->section, e->key,
				     e->value, s->what, MAX_STEPS);
		break;
	case V_PERCENT:
		errno = 0;
		v = strtol(e->value, &end, 10);
		if (end == e->value || strcmp(end, "%") || errno || v < s->min || v > s->max)
			NORETURN_exp(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_ENUM:
		if (s->choices && !in_choices(e->value, s->choices))
			NORETURN_exp(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	}
}

/*
 * [derive] NAME = STEP:METRIC / STEP:METRIC: a ratio of two measured metrics
 * (repeat by repeat), e.g. the kmem accounting overhead as
 *   overhead = unaccounted:charge.ops_per_s / accounted:charge.ops_per_s
 * STEP is the step label ("-" for a single unnamed step, the phase name for
 * a named phase without schedule, "phase:param=value" otherwise).
 */
struct derive_ref {
	char step[128], metric[128];
};

static int parse_ref(const char *s, size_t len, struct derive_ref *r)
{
	char buf[128];
	char *colon, *p;

	while (len && s[0] == ' ')
		s++, len--;
	while (len && s[len - 1] == ' ')
		len--;
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	colon = strrchr(buf, ':');
	if (!colon || colon == buf || !colon[1])
		return -1;
	*colon = '\0';
	for (p = colon + 1; *p; p++)
		if (*p == ' ' || *p == '/')
			return -1;
	snprintf(r->step, sizeof(r->step), "%s", buf);
	snprintf(r->metric, sizeof(r->metric), "%s", colon + 1);
	return 0;
}

static int parse_derive(const char *v, struct derive_ref *num, struct derive_ref *den)
{
	const char *slash = strstr(v, " / ");

	if (!slash)
		return -1;
	return parse_ref(v, slash - v, num) || parse_ref(slash + 3, strlen(slash + 3), den) ? -1 : 0;
}

static void NORETURN_exp(const struct exp *x, const struct exp_entry *e, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

static void check_derive(const struct exp *x, const struct exp_entry *e)
{
	struct derive_ref a, b;

	if (parse_derive(e->value, &a, &b))
		NORETURN_exp(x, e, "[derive] %s = '%s': want STEP:METRIC / STEP:METRIC "
			     "(e.g. unaccounted:charge.ops_per_s / accounted:charge.ops_per_s)", e->key, e->value);
}

/* Values of one (step, metric) by repeat; count. */
static int values_by_repeat(const struct metrics *m, const struct derive_ref *r, double *v, bool *have, int max)
{
	int n = 0;

	for (size_t i = 0; i < m->n; i++) {
		const struct metric_row *row = &m->rows[i];

		if (strcmp(row->step, r->step) || strcmp(row->metric, r->metric) || row->repeat < 0 ||
		    row->repeat >= max)
			continue;
		v[row->repeat] = row->value;
		have[row->repeat] = true;
		if (row->repeat + 1 > n)
			n = row->repeat + 1;
	}
	return n;
}

static void derive_metrics(const struct exp *x, struct results *r)
{
	struct metrics m;
	char err[512];
	FILE *f = NULL;

	for (size_t i = 0; i < x->f.n; i++) {
		const struct exp_entry *e = &x->f.e[i];
		double va[64], vb[64];
		bool ha[64] = { false }, hb[64] = { false };
		struct derive_ref a, b;
		int na, nb, emitted = 0;

		if (strcmp(e->section, "derive") || parse_derive(e->value, &a, &b))
			continue;
		if (metrics_load(r->dir, &m, err, sizeof(err))) {
			results_skip(r, e->key, err);
			continue;
		}
		na = values_by_repeat(&m, &a, va, ha, 64);
		nb = values_by_repeat(&m, &b, vb, hb, 64);
		for (int rep = 0; rep < na && rep < nb; rep++) {
			if (!ha[rep] || !hb[rep] || vb[rep] == 0)
				continue;
			if (!f)
				f = metrics_open(r->dir);
			metrics_emit(f, "-", rep, e->key, va[rep] / vb[rep], "ratio", "-");
			emitted++;
		}
		if (!emitted) {
			char why[600];

			snprintf(why, sizeof(why), "no repeat has both %s:%s and %s:%s (non-zero)", a.step, a.metric,
				 b.step, b.metric);
			results_skip(r, e->key, why);
		} else {
			results_log(r, "derived %s over %d repeats", e->key, emitted);
		}
		metrics_free(&m);
	}
	if (f)
		outfile_close(f);
}

/* "driver charge" -> "driver"; the phase name after the space, if any. */
static const char *section_base(const char *section, char *base, size_t n)
{
	const char *sp = strchr(section, ' ');

	snprintf(base, n, "%.*s", sp ? (int)(sp - section) : (int)strlen(section), section);
	return sp ? sp + 1 : "";
}

static bool is_phase_base(const char *base)
{
	return !strcmp(base, "driver") || !strcmp(base, "schedule") || !strcmp(base, "small") ||
	       !strcmp(base, "v1");
}

static bool section_present(const struct expfile *f, const char *section)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->e[i].section, section))
			return true;
	return false;
}

static struct phase *phase_of(struct exp *x, const char *name)
{
	for (int i = 0; i < x->nph; i++)
		if (!strcmp(x->ph[i].name, name))
			return &x->ph[i];
	return NULL;
}

static void load_phase(struct exp *x, struct phase *ph)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN), small_cpus;
	const struct exp_entry *e = expfile_get(&x->f, ph->drv, "command");
	const char *vals;
	bool found = false;

	if (!e)
		NORETURN_exp(x, NULL, "[%s] needs 'command' (one of the driver commands)", ph->drv);
	ph->command = e->value;
	for (int i = 0; driver_commands[i]; i++)
		found |= !strcmp(driver_commands[i], ph->command);
	if (!found || !strcmp(ph->command, "none")) {
		char list[256] = "";

		for (int i = 1; driver_commands[i]; i++)
			str_appendf(list, sizeof(list), "%s%s", i > 1 ? ", " : "", driver_commands[i]);
		NORETURN_exp(x, e, "[%s] command = '%s': want one of %s", ph->drv, ph->command, list);
	}
	small_cpus = atol(expfile_value(&x->f, ph->sched, "small_cpus",
					expfile_value(&x->f, "experiment", "small_cpus", "16")));
	/* Only a phase with something to scale down is "scaled" on a small box. */
	ph->small = ncpus < small_cpus && (expfile_get(&x->f, ph->sched, "small_values") ||
					   section_present(&x->f, ph->small_sec));
	{
		struct cg_env cg;

		ph->v1 = !cg_detect(&cg, NULL) && cg.mode != CG_NONE && !cg.memory_v2;
	}
	if (ph->small)
		str_appendf(x->scaled, sizeof(x->scaled), "%s%s%s%ld CPUs < %ld", x->scaled[0] ? "; " : "",
			    ph->name, ph->name[0] ? ": " : "", ncpus, small_cpus);
	ph->param = expfile_value(&x->f, ph->sched, "param", NULL);
	vals = expfile_value(&x->f, ph->sched, ph->small && expfile_get(&x->f, ph->sched, "small_values") ?
			     "small_values" : "values", NULL);
	if (vals && !ph->param)
		NORETURN_exp(x, expfile_get(&x->f, ph->sched, "values"), "[%s] values without param", ph->sched);
	if (ph->param && !vals)
		NORETURN_exp(x, expfile_get(&x->f, ph->sched, "param"), "[%s] param without values", ph->sched);
	if (vals)
		ph->nvalues = !strcmp(vals, "topology") ? topology_steps(ph->values, MAX_STEPS)
						       : parse_int_list(vals, ph->values, MAX_STEPS);
}

static void load_exp(struct exp *x, const char *path, char **overrides, int noverrides)
{
	char err[600], base[80];
	const struct exp_entry *e;

	if (expfile_parse(path, &x->f, err, sizeof(err)))
		die("%s", err);
	for (int i = 0; i < noverrides; i++)
		if (expfile_override(&x->f, overrides[i], err, sizeof(err)))
			die("run: %s", err);
	for (size_t i = 0; i < x->f.n; i++) {
		const struct exp_entry *en = &x->f.e[i];
		const char *pname = section_base(en->section, base, sizeof(base));
		const struct key_spec *s;
		bool found = false;

		if (pname[0] && !is_phase_base(base))
			NORETURN_exp(x, en, "[%s]: only driver, schedule and small sections take a phase name",
				     en->section);
		/* Phases, in the order their [driver] sections come. */
		if (!strcmp(base, "driver") && !phase_of(x, pname)) {
			struct phase *ph;

			if (x->nph == MAX_PHASES)
				NORETURN_exp(x, en, "more than %d driver phases", MAX_PHASES);
			ph = &x->ph[x->nph++];
			snprintf(ph->name, sizeof(ph->name), "%s", pname);
			snprintf(ph->drv, sizeof(ph->drv), "%s", en->section);
			snprintf(ph->sched, sizeof(ph->sched), "schedule%s%s", pname[0] ? " " : "", pname);
			snprintf(ph->small_sec, sizeof(ph->small_sec), "small%s%s", pname[0] ? " " : "", pname);
			snprintf(ph->v1_sec, sizeof(ph->v1_sec), "v1%s%s", pname[0] ? " " : "", pname);
		}
		if ((!strcmp(base, "driver") && strcmp(en->key, "command")) || !strcmp(base, "small") ||
		    !strcmp(base, "v1"))
			continue;	/* the driver checks its own options */
		if (!strcmp(en->section, "derive")) {
			check_derive(x, en);
			continue;
		}
		s = spec_of(!strcmp(base, "driver") || !strcmp(base, "schedule") ? base : en->section, en->key);
		if (!s) {
			for (size_t k = 0; k < sizeof(schema) / sizeof(schema[0]); k++)
				found |= !strcmp(schema[k].section, base);
			if (!found)
				NORETURN_exp(x, en, "unknown section [%s] (want experiment, driver, schedule, small, "
					     "v1, collect, derive or plot)", en->section);
			NORETURN_exp(x, en, "unknown key '%s' in [%s]", en->key, en->section);
		}
		check_value(x, en, s);
	}
	/* A [schedule X] or [small X] needs its [driver X]. */
	for (size_t i = 0; i < x->f.n; i++) {
		const char *pname = section_base(x->f.e[i].section, base, sizeof(base));

		if ((!strcmp(base, "schedule") || !strcmp(base, "small") || !strcmp(base, "v1")) &&
		    !phase_of(x, pname))
			NORETURN_exp(x, &x->f.e[i], "[%s] has no [driver%s%s] section", x->f.e[i].section,
				     pname[0] ? " " : "", pname);
	}
	e = expfile_get(&x->f, "experiment", "name");
	if (!e)
		NORETURN_exp(x, NULL, "[experiment] name is required");
	for (const char *c = e->value; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
			NORETURN_exp(x, e, "[experiment] name = '%s': want [a-z0-9-] only (it names the directory)",
				     e->value);
	x->name = e->value;
	x->repeats = atoi(expfile_value(&x->f, "experiment", "repeats", "1"));
	x->stop_on_failure = strcmp(expfile_value(&x->f, "experiment", "on_failure", "stop"), "continue");
	for (int i = 0; i < x->nph; i++)
		load_phase(x, &x->ph[i]);
	parse_bool(expfile_value(&x->f, "collect", "runtime_probe", "no"), &x->runtime_probe);
	x->layout_check = !strcmp(expfile_value(&x->f, "collect", "layout", "no"), "check");
	parse_bool(expfile_value(&x->f, "collect", "c2c", "no"), &x->around.c2c);
	c2c_opts_default(&x->around.c2c_opts);
	x->around.c2c_opts.start_frac = atoi(expfile_value(&x->f, "collect", "c2c_start", "75%")) / 100.0;
	if (expfile_get(&x->f, "collect", "c2c_window")) {
		unsigned long long ns;

		parse_duration_ns(expfile_value(&x->f, "collect", "c2c_window", ""), &ns);
		x->around.c2c_opts.window_s = ns / 1e9;
	}
	parse_bool(expfile_value(&x->f, "plot", "enabled", "yes"), &x->plot);
	x->plot_w = 800;
	x->plot_h = 500;
	e = expfile_get(&x->f, "plot", "size");
	if (e && (sscanf(e->value, "%dx%d", &x->plot_w, &x->plot_h) != 2 || x->plot_w < 100 || x->plot_h < 100))
		NORETURN_exp(x, e, "[plot] size = '%s': want WIDTHxHEIGHT, e.g. 800x500", e->value);
}

/* argv for one driver run: the phase's [driver] entries (then its [small]
 * ones on a small box) as --key=value, "yes" as --key, "no" left out. */
static char **driver_argv(const struct exp *x, const struct phase *ph, long step_value, bool validate, int *argc)
{
	char **av = xcalloc(x->f.n + 6, sizeof(*av));
	int n = 0;

	av[n++] = xstrdup("memcg-lab");
	av[n++] = xstrdup(ph->command);
	for (size_t i = 0; i < x->f.n; i++) {
		const struct exp_entry *e = &x->f.e[i];
		const struct exp_entry *small;
		const char *val = e->value;
		bool b;

		if (strcmp(e->section, ph->drv) || !strcmp(e->key, "command"))
			continue;
		if (ph->param && !strcmp(e->key, ph->param))
			continue;
		small = ph->small ? expfile_get(&x->f, ph->small_sec, e->key) : NULL;
		if (small)
			val = small->value;
		if (ph->v1 && expfile_get(&x->f, ph->v1_sec, e->key))
			val = expfile_get(&x->f, ph->v1_sec, e->key)->value;
		if (!parse_bool(val, &b) && strcmp(val, "0") && strcmp(val, "1")) {
			if (b)
				av[n++] = xasprintf("--%s", e->key);
			continue;
		}
		av[n++] = xasprintf("--%s=%s", e->key, val);
	}
	/* [small] and [v1] keys that have no full-size entry. */
	for (size_t i = 0; i < x->f.n; i++) {
		const struct exp_entry *e = &x->f.e[i];

		if (expfile_get(&x->f, ph->drv, e->key))
			continue;
		if (ph->small && !strcmp(e->section, ph->small_sec) &&
		    !(ph->v1 && expfile_get(&x->f, ph->v1_sec, e->key)))
			av[n++] = xasprintf("--%s=%s", e->key, e->value);
		else if (ph->v1 && !strcmp(e->section, ph->v1_sec))
			av[n++] = xasprintf("--%s=%s", e->key, e->value);
	}
	if (ph->param)
		av[n++] = xasprintf("--%s=%ld", ph->param, step_value);
	if (validate)
		av[n++] = xstrdup("--validate");
	av[n] = NULL;
	*argc = n;
	return av;
}

/* The phase's driver duration in seconds (its "duration" option, the [small]
 * one on a small box), for planning collector windows; 10 s if not given. */
static double phase_duration(const struct exp *x, const struct phase *ph)
{
	const struct exp_entry *e = ph->small ? expfile_get(&x->f, ph->small_sec, "duration") : NULL;
	unsigned long long ns;

	if (!e)
		e = expfile_get(&x->f, ph->drv, "duration");
	if (e && !parse_duration_ns(e->value, &ns) && ns)
		return ns / 1e9;
	return 10;
}

/* The step label of a phase's s-th value: "tasks=4", "charge:tasks=4", "-". */
static void step_label(const struct phase *ph, int s, char *buf, size_t n)
{
	if (ph->param)
		snprintf(buf, n, "%s%s%s=%ld", ph->name, ph->name[0] ? ":" : "", ph->param, ph->values[s]);
	else
		snprintf(buf, n, "%s", ph->name[0] ? ph->name : "-");
}

static void free_argv(char **av)
{
	for (char **p = av; *p; p++)
		free(*p);
	free(av);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Where the children say which results file they could not write
 * (util/outfile.h): their stderr goes to the run's log, which may be on
 * the disk that is full; a memfd is not.
 */
static int child_errors_fd = -1;

/* A child's failure line, if it wrote one, becomes the run's (printed
 * when it is the first); the memfd is emptied for the next child. */
static void collect_child_errors(void)
{
	char buf[1024];
	ssize_t n;

	if (child_errors_fd < 0)
		return;
	n = pread(child_errors_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	outfile_failure_line(buf);
	if (ftruncate(child_errors_fd, 0) || lseek(child_errors_fd, 0, SEEK_SET) < 0)
		die("run: cannot empty the memfd of the drivers' write errors: %s", strerror(errno));
}

/* Runs bin/memcg-lab with av; its output goes to out_path; exit status. */
static int run_child(char **av, const char *out_path, const char *dir, const char *step, int repeat,
		     struct around *around)
{
	double t0 = now_s();
	pid_t pid = fork();
	int st;

	if (pid < 0)
		die("run: fork: %s", strerror(errno));
	if (!pid) {
		char rep[16];
		int fd, e;

		e = worker_detach_from_parent(getppid());
		if (e < 0) {
			/* A driver that would outlive a killed runner is not started. */
			fprintf(stderr, "memcg-lab: run: cannot tie %s %s to the runner (PR_SET_PDEATHSIG): %s\n",
				av[0], av[1] ? av[1] : "", strerror(-e));
			_exit(EXIT_LAB_ERR);
		}
		if (child_errors_fd >= 0) {
			int keep = dup(child_errors_fd);	/* without close-on-exec */

			snprintf(rep, sizeof(rep), "%d", keep);
			if (keep >= 0)
				setenv(OUTFILE_ENV_FD, rep, 1);
		}
		fd = open(out_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (dir) {
			snprintf(rep, sizeof(rep), "%d", repeat);
			setenv(RESULTS_ENV_DIR, dir, 1);
			setenv(RESULTS_ENV_STEP, step, 1);
			setenv(RESULTS_ENV_REPEAT, rep, 1);
		}
		execv("/proc/self/exe", av);
		fprintf(stderr, "memcg-lab: cannot exec /proc/self/exe: %s\n", strerror(errno));
		_exit(127);
	}
	for (;;) {
		pid_t w = waitpid(pid, &st, around ? WNOHANG : 0);
		struct timespec tick = { 0, 100 * 1000 * 1000 };

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			die("run: waitpid: %s", strerror(errno));
		if (lab_stop_requested())
			kill(pid, SIGTERM);	/* the driver removes what it made */
		if (around && w == 0) {
			around_tick(around, pid, now_s() - t0);
			nanosleep(&tick, NULL);
		}
	}
	collect_child_errors();
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The first line of a file: a driver refusing its options says why there
 * (getopt's complaint or die()'s line), before any usage text. */
static void first_line(const char *path, char *buf, size_t n)
{
	char *t = read_text(path, NULL);

	buf[0] = '\0';
	if (!t)
		return;
	snprintf(buf, n, "%.*s", (int)strcspn(t, "\n"), t);
	free(t);
}

/* The last line of a file, for one-line error messages. */
static void last_line(const char *path, char *buf, size_t n)
{
	char *t = read_text(path, NULL), *end, *start;

	buf[0] = '\0';
	if (!t)
		return;
	end = t + strlen(t);
	while (end > t && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	start = strrchr(t, '\n');
	snprintf(buf, n, "%s", start ? start + 1 : t);
	free(t);
}

/* Asks the driver to check its options for every step; maps errors to lines. */
static void validate_driver(const struct exp *x, const struct phase *ph)
{
	/* The driver's words go to a memfd, not a file in /tmp: a run killed
	 * while validating leaves nothing behind.  The child reopens it by
	 * its /proc path before exec (fork keeps close-on-exec fds). */
	int fd = memfd_create("memcg-lab-validate", MFD_CLOEXEC);
	char tmpl[64], line[512];

	if (fd < 0)
		die("run: cannot create a memfd for the driver's messages: %s", strerror(errno));
	snprintf(tmpl, sizeof(tmpl), "/proc/self/fd/%d", fd);
	for (int s = 0; s < (ph->nvalues ? ph->nvalues : 1); s++) {
		int ac, st;
		char **av = driver_argv(x, ph, ph->nvalues ? ph->values[s] : 0, true, &ac);

		if (truncate(tmpl, 0))
			die("%s: cannot truncate: %s", tmpl, strerror(errno));
		st = run_child(av, tmpl, NULL, "-", 0, NULL);
		free_argv(av);
		if (st) {
			const struct exp_entry *bad = NULL;

			first_line(tmpl, line, sizeof(line));
			close(fd);
			/* "--tasks ..." in the driver's message names the key. */
			for (size_t i = 0; i < x->f.n && !bad; i++) {
				const struct exp_entry *e = &x->f.e[i];
				char opt[128];

				if (strcmp(e->section, ph->drv) && strcmp(e->section, ph->small_sec) &&
				    strcmp(e->section, ph->v1_sec) && strcmp(e->section, ph->sched))
					continue;
				snprintf(opt, sizeof(opt), "--%s", !strcmp(e->section, ph->sched) ?
					 (ph->param ? ph->param : "") : e->key);
				if (strlen(opt) > 2 && strstr(line, opt))
					bad = e;
			}
			NORETURN_exp(x, bad, "driver '%s' refused its options: %s", ph->command,
				     !strncmp(line, "memcg-lab: ", 11) ? line + 11 : line);
		}
	}
	close(fd);
}

static void fmt_secs(char *buf, size_t n, double s)
{
	if (s < 60)
		snprintf(buf, n, "%.0fs", s);
	else
		snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
}


static void progress(struct results *r, bool tty, int i, int n, const char *step, int rep, int nrep, double t0)
{
	double el = now_s() - t0;
	char e[32], eta[32];

	fmt_secs(e, sizeof(e), el);
	if (i)
		fmt_secs(eta, sizeof(eta), el / i * (n - i));
	else
		snprintf(eta, sizeof(eta), "?");
	if (tty)
		fprintf(stderr, "\r\033[K[%d/%d] %s repeat %d/%d  elapsed %s  ETA %s", i + 1, n, step, rep + 1, nrep, e,
			eta);
	else
		fprintf(stderr, "run: step %d/%d %s repeat %d/%d (elapsed %s, ETA %s)\n", i + 1, n, step, rep + 1, nrep,
			e, eta);
	results_log(r, "step %d/%d %s repeat %d/%d", i + 1, n, step, rep + 1, nrep);
}

/* A file of the run could not be written (its one line is printed): what
 * follows could not be kept either.  The status stays "incomplete". */
static void stop_if_unwritten(struct results *r)
{
	if (!outfile_failed())
		return;
	report_finish(r, "incomplete");
	exit(EXIT_LAB_ERR);
}

static void reload_meta(struct results *r)
{
	json_object *m = json_object_from_file(r->meta_path);

	if (!m)
		die("%s: unreadable after a driver wrote it", r->meta_path);
	json_object_put(r->meta);
	r->meta = m;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "validate", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char **overrides = xcalloc(argc, sizeof(char *)), why[256];
	const char *status;
	int noverrides = 0, c, nsteps, failures = 0;
	bool validate_only = false, tty = isatty(2);
	struct probe_report p;
	struct around_env *aenv;
	struct around *around;
	struct results *r;
	struct exp x;
	double t0;

	memset(&x, 0, sizeof(x));
	while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': overrides[noverrides++] = optarg; break;
		case 'V': validate_only = true; break;
		case 'h': usage_exit(usage_text, 0);
		default: usage_exit(usage_text, EXIT_LAB_ERR);
		}
	}
	if (argc - optind != 1)
		die("run: needs exactly one experiment file");
	load_exp(&x, argv[optind], overrides, noverrides);
	for (int i = 0; i < x.nph; i++)
		validate_driver(&x, &x.ph[i]);
	if (validate_only) {
		printf("%s: valid (%d phase%s", x.f.path, x.nph, x.nph == 1 ? "" : "s");
		for (int i = 0; i < x.nph; i++) {
			int steps = x.ph[i].nvalues ? x.ph[i].nvalues : 1;

			printf("%s %s%s%s: %d step%s", i ? ";" : ":", x.ph[i].name, x.ph[i].name[0] ? "=" : "",
			       x.ph[i].command, steps, steps == 1 ? "" : "s");
		}
		printf("; %d repeat%s%s%s)\n", x.repeats, x.repeats == 1 ? "" : "s",
		       x.scaled[0] ? "; small box: " : "", x.scaled);
		expfile_free(&x.f);
		free(overrides);
		return 0;
	}

	cleanup_set_polling(true);
	/* What runs killed earlier left behind must not skew this one. */
	leftovers_cleanup_dead();
	child_errors_fd = memfd_create("memcg-lab-write-errors", MFD_CLOEXEC);
	if (child_errors_fd < 0)
		die("run: cannot create a memfd for the drivers' write errors: %s", strerror(errno));
	r = results_create(x.name, NULL, argc + 1, argv - 1);
	{
		char *copy = xasprintf("%s/experiment.exp", r->dir), *text = read_text(x.f.path, NULL);

		if (!text)
			outfile_failure(x.f.path, "cannot read", errno);
		else
			outfile_write(copy, text, strlen(text));
		free(text);
		free(copy);
	}
	if (x.scaled[0])
		results_meta_set(r, "scaled", json_object_new_string(x.scaled));
	if (geteuid() == 0) {
		/* Once for every step's collectors, before the probe records
		 * what the run had; unmounted when the run ends. */
		char tdir[256], err[512];

		if (lab_tracefs_find(tdir, sizeof(tdir), err, sizeof(err))) {
			note("run: %s: no tracefs data in this run", err);
			results_skip(r, "tracefs data (lock holds, flush counts)", err);
		}
	}
	probe_collect(&p, NULL, NULL);
	results_meta_set(r, "probe", probe_json(&p));
	results_log(r, "probe: kernel %s, split %d, stock slots %d", p.kbtf.release, p.feat.cacheline_split,
		    p.feat.stock_slots);
	if (x.runtime_probe) {
		char err[512];

		if (runtime_probe_run(&p.cg, 5, &p.rt, err, sizeof(err))) {
			results_skip(r, "runtime probes", err);
		} else {
			p.have_runtime = true;
			results_meta_set(r, "runtime", probe_runtime_json(&p));
			if (p.rt.stock_slots.mode != p.feat.stock_slots)
				warnx_lab("runtime stock slots %d disagree with BTF's %d", p.rt.stock_slots.mode,
					  p.feat.stock_slots);
		}
	}
	probe_release(&p);
	if (x.layout_check) {
		char *lav[] = { "memcg-lab", "layout", "--check", NULL, NULL };
		char *out = xasprintf("%s/data/layout-check.txt", r->dir), line[512], cap_path[64];
		/* The verdicts are data, printed by layout on its stdout: into a
		 * memfd (the child opens it by its /proc path), then written to
		 * the file checked: a full disk does not leave them cut short. */
		int st, cap = outfile_capture("memcg-lab-layout-check");

		if (cap < 0)
			die("run: cannot create a memfd for the layout verdicts: %s", strerror(errno));
		snprintf(cap_path, sizeof(cap_path), "/proc/self/fd/%d", cap);
		lav[3] = xasprintf("--out=%s/data/layout", r->dir);
		st = run_child(lav, cap_path, NULL, "-", 0, NULL);
		outfile_save_capture(cap, out);
		if (st == 2) {
			first_line(out, line, sizeof(line));
			results_skip(r, "layout check", line);
		} else {
			results_meta_set(r, "layout_check", json_object_new_string(st ? "FAIL" : "pass"));
		}
		free(lav[3]);
		free(out);
	}
	stop_if_unwritten(r);
	aenv = around_env_open(&x.around, r);

	nsteps = 0;
	for (int k = 0; k < x.nph; k++)
		nsteps += (x.ph[k].nvalues ? x.ph[k].nvalues : 1) * x.repeats;
	t0 = now_s();
	for (int k = 0, i = 0; k < x.nph; k++) {
		const struct phase *ph = &x.ph[k];

		for (int s = 0; s < (ph->nvalues ? ph->nvalues : 1); s++) {
			char step[128];

			step_label(ph, s, step, sizeof(step));
			for (int rep = 0; rep < x.repeats; rep++, i++) {
				char *out = xasprintf("%s/log", r->dir), line[512];
				int ac, st;
				char **av = driver_argv(&x, ph, ph->nvalues ? ph->values[s] : 0, false, &ac);

				if (lab_stop_requested())
					die("run: interrupted by signal %d; %s stays incomplete", lab_stop_signal(), r->dir);
				progress(r, tty, i, nsteps, step, rep, x.repeats, t0);
				around = around_start(aenv, step, rep, phase_duration(&x, ph));
				st = run_child(av, out, r->dir, step, rep, around);
				around_finish(around);
				free_argv(av);
				/* A driver that could not write its results: its line
				 * is the run's, and the run ends here. */
				stop_if_unwritten(r);
				reload_meta(r);
				if (lab_stop_requested())
					die("run: interrupted by signal %d; %s stays incomplete", lab_stop_signal(), r->dir);
				if (st) {
					last_line(out, line, sizeof(line));
					failures++;
					if (tty)
						fputc('\n', stderr);
					note("step %s repeat %d: driver exited %d: %s", step, rep, st, line);
					results_log(r, "step %s repeat %d failed (exit %d)", step, rep, st);
					if (x.stop_on_failure) {
						free(out);
						die("run: stopping (on_failure = stop); %s stays incomplete", r->dir);
					}
				}
				free(out);
				stop_if_unwritten(r);
			}
		}
	}
	if (tty && x.nph)
		fputc('\n', stderr);
	around_env_close(aenv);
	derive_metrics(&x, r);

	status = failures ? "complete-with-failures" : "complete";
	if (x.plot) {
		if (gnuplot_available(why, sizeof(why))) {
			/* meta.json says incomplete until report_finish: the
			 * legends show the status the run is finishing with. */
			char *pav[] = { "memcg-lab", "plot", "--size", NULL, "--status", (char *)status, r->dir, NULL };
			char *out = xasprintf("%s/log", r->dir);

			pav[3] = xasprintf("%dx%d", x.plot_w, x.plot_h);
			if (run_child(pav, out, NULL, "-", 0, NULL))
				results_skip(r, "plots", "plot failed (see log)");
			free(pav[3]);
			free(out);
		} else {
			results_skip(r, "plots", why);
		}
	}
	report_finish(r, status);
	printf("results: %s\n", r->dir);
	results_free(r);
	expfile_free(&x.f);
	free(overrides);
	return failures ? 1 : 0;
}
