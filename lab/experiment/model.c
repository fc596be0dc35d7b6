// SPDX-License-Identifier: GPL-2.0
/* The experiment model (experiment/model.h): schema, phases, driver argv. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "experiment/model.h"
#include "kernel/cgroup.h"
#include "plot/index.h"
#include "report/claim.h"
#include "util/err.h"
#include "util/strfmt.h"

enum vtype { V_STR, V_INT, V_BOOL, V_DURATION, V_LIST, V_ENUM, V_SIZE, V_PERCENT, V_PLOTS };

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
	{ "collect", "c2c", V_ENUM, "auto|yes|no", 0, 0, "auto (where perf samples memory), yes or no" },
	{ "collect", "c2c_start", V_PERCENT, NULL, 1, 99, "a share of the driver's duration, 1%..99% (e.g. 75%)" },
	{ "collect", "c2c_window", V_DURATION, NULL, 0, 0, "a duration (e.g. 4s)" },
	{ "collect", "c2c_budget", V_INT, NULL, 1000, 100000000, "samples per second over the whole box, "
	  "1000..100000000" },
	{ "collect", "c2c_max_size", V_SIZE, NULL, 0, 0, "a size (e.g. 2G): the cap of one window's perf.data" },
	{ "collect", "c2c_report_timeout", V_DURATION, NULL, 0, 0, "a duration (e.g. 10min)" },
	{ "collect", "c2c_keep", V_BOOL, NULL, 0, 0, "yes or no: keep each window's perf.data" },
	{ "collect", "c2c_source", V_BOOL, NULL, 0, 0, "yes or no: Source:Line in the report (addr2line)" },
	{ "collect", "c2c_double_cl", V_BOOL, NULL, 0, 0, "yes or no: a second, --double-cl report" },
	{ "collect", "lines_trace", V_BOOL, NULL, 0, 0, "yes or no: under `vm --lines`, the access trace too "
	  "(vm --trace: lines/trace.bin)" },
	{ "collect", "insns", V_BOOL, NULL, 0, 0, "yes or no: under `vm` without --lines, the guest instructions per "
	  "operation (vm --insns: <driver>.<mode>.insns_per_op)" },
	{ "plot", "enabled", V_BOOL, NULL, 0, 0, "yes or no" },
	{ "plot", "size", V_STR, NULL, 0, 0, "WIDTHxHEIGHT" },
	{ "plot", "headline", V_PLOTS, NULL, 0, 0, "plot names, the ones a reviewer opens first "
	  "(e.g. series-stock.holders, cdf-lock-hold, bars-overhead)" },
};

/* Commands that can be driven by an experiment, "none" for probe-only runs. */
static const char *const driver_commands[] = { "none", "charge", "statread", NULL };

void experiment_die(const struct experiment *x, const struct exp_entry *e, const char *fmt, ...)
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
static int topology_steps(const struct exp_host *h, long *values, int max)
{
	int steps[TOPO_MAX_STEPS], n;

	if (!h->topo)
		die("run: schedule values = topology: %s", h->topo_err);
	n = topo_steps(h->topo, steps, NULL);
	for (int i = 0; i < n && i < max; i++)
		values[i] = steps[i];
	return n < max ? n : max;
}

void exp_host_this_machine(struct exp_host *h, struct topo *storage)
{
	struct cg_env cg;

	memset(h, 0, sizeof(*h));
	h->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	h->memory_v1 = !cg_detect(&cg, NULL) && cg.mode != CG_NONE && !cg.memory_v2;
	if (topo_load(storage, h->topo_err, sizeof(h->topo_err)) == 0)
		h->topo = storage;
}

static void check_value(const struct experiment *x, const struct exp_entry *e, const struct key_spec *s)
{
	unsigned long long u;
	long list[MAX_STEPS];
	bool b;
	char *end;
	long v;

	switch (s->type) {
	case V_STR:
		if (!e->value[0])
			experiment_die(x, e, "[%s] %s is empty: want %s", e->section, e->key, s->what);
		break;
	case V_INT:
		errno = 0;
		v = strtol(e->value, &end, 10);
		if (end == e->value || *end || errno || v < s->min || v > s->max)
			experiment_die(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_BOOL:
		if (parse_bool(e->value, &b))
			experiment_die(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_DURATION:
		if (parse_duration_ns(e->value, &u))
			experiment_die(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_SIZE:
		if (parse_bytes(e->value, &u))
			experiment_die(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_LIST:
		if (strcmp(e->value, "topology") && parse_int_list(e->value, list, MAX_STEPS) < 0)
			experiment_die(x, e, "[%s] %s = '%s': want %s (at most %d values)", e->section, e->key,
				     e->value, s->what, MAX_STEPS);
		break;
	case V_PERCENT:
		errno = 0;
		v = strtol(e->value, &end, 10);
		if (end == e->value || strcmp(end, "%") || errno || v < s->min || v > s->max)
			experiment_die(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_ENUM:
		if (s->choices && !in_choices(e->value, s->choices))
			experiment_die(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	case V_PLOTS: {
		char why[256];

		if (plot_names_check(e->value, why, sizeof(why)))
			experiment_die(x, e, "[%s] %s = '%s': %s", e->section, e->key, e->value, why);
		break;
	}
	}
}

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

int parse_derive(const char *v, struct derive_ref *num, struct derive_ref *den)
{
	const char *slash = strstr(v, " / ");

	if (!slash)
		return -1;
	return parse_ref(v, slash - v, num) || parse_ref(slash + 3, strlen(slash + 3), den) ? -1 : 0;
}

static void check_derive(const struct experiment *x, const struct exp_entry *e)
{
	struct derive_ref a, b;

	if (parse_derive(e->value, &a, &b))
		experiment_die(x, e, "[derive] %s = '%s': want STEP:METRIC / STEP:METRIC "
			     "(e.g. unaccounted:charge.ops_per_s / accounted:charge.ops_per_s)", e->key, e->value);
}

/* Every [claim] (report/claim.h), each error as file:line. */
static void check_claims(const struct experiment *x)
{
	const struct exp_entry *bad;
	struct claims cl;
	char err[512];

	if (claims_parse(&x->f, &cl, &bad, err, sizeof(err))) {
		claims_free(&cl);
		experiment_die(x, bad, "%s", err);
	}
	claims_free(&cl);
}

/* "driver charge" -> "driver"; the phase name after the space, if any. */
static const char *section_base(const char *section, char *base, size_t n)
{
	const char *sp = strchr(section, ' ');

	snprintf(base, n, "%.*s", sp ? (int)(sp - section) : (int)strlen(section), section);
	return sp ? sp + 1 : "";
}

static bool is_named_base(const char *base)
{
	return !strcmp(base, "claim");
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

static struct phase *phase_of(struct experiment *x, const char *name)
{
	for (int i = 0; i < x->nph; i++)
		if (!strcmp(x->ph[i].name, name))
			return &x->ph[i];
	return NULL;
}

static void load_phase(struct experiment *x, struct phase *ph, const struct exp_host *h)
{
	long ncpus = h->ncpus, small_cpus;
	const struct exp_entry *e = expfile_get(&x->f, ph->drv, "command");
	const char *vals;
	bool found = false;

	if (!e)
		experiment_die(x, NULL, "[%s] needs 'command' (one of the driver commands)", ph->drv);
	ph->command = e->value;
	for (int i = 0; driver_commands[i]; i++)
		found |= !strcmp(driver_commands[i], ph->command);
	if (!found || !strcmp(ph->command, "none")) {
		char list[256] = "";

		for (int i = 1; driver_commands[i]; i++)
			str_appendf(list, sizeof(list), "%s%s", i > 1 ? ", " : "", driver_commands[i]);
		experiment_die(x, e, "[%s] command = '%s': want one of %s", ph->drv, ph->command, list);
	}
	small_cpus = atol(expfile_value(&x->f, ph->sched, "small_cpus",
					expfile_value(&x->f, "experiment", "small_cpus", "16")));
	/* Only a phase with something to scale down is "scaled" on a small box. */
	ph->small = ncpus < small_cpus && (expfile_get(&x->f, ph->sched, "small_values") ||
					   section_present(&x->f, ph->small_sec));
	ph->v1 = h->memory_v1;
	if (ph->small)
		str_appendf(x->scaled, sizeof(x->scaled), "%s%s%s%ld CPUs < %ld", x->scaled[0] ? "; " : "",
			    ph->name, ph->name[0] ? ": " : "", ncpus, small_cpus);
	ph->param = expfile_value(&x->f, ph->sched, "param", NULL);
	vals = expfile_value(&x->f, ph->sched, ph->small && expfile_get(&x->f, ph->sched, "small_values") ?
			     "small_values" : "values", NULL);
	if (vals && !ph->param)
		experiment_die(x, expfile_get(&x->f, ph->sched, "values"), "[%s] values without param", ph->sched);
	if (ph->param && !vals)
		experiment_die(x, expfile_get(&x->f, ph->sched, "param"), "[%s] param without values", ph->sched);
	if (vals)
		ph->nvalues = !strcmp(vals, "topology") ? topology_steps(h, ph->values, MAX_STEPS)
						       : parse_int_list(vals, ph->values, MAX_STEPS);
}

/* [collect] c2c and its bounds (c2c/c2c.h: struct c2c_opts). */
static void load_c2c(struct experiment *x)
{
	const char *mode = expfile_value(&x->f, "collect", "c2c", "auto");
	struct c2c_opts *o = &x->around.c2c_opts;
	unsigned long long v;

	x->around.c2c = !strcmp(mode, "no") ? C2C_MODE_OFF : !strcmp(mode, "yes") ? C2C_MODE_ON : C2C_MODE_AUTO;
	c2c_opts_default(o);
	o->start_frac = atoi(expfile_value(&x->f, "collect", "c2c_start", "75%")) / 100.0;
	if (!parse_duration_ns(expfile_value(&x->f, "collect", "c2c_window", ""), &v))
		o->window_s = v / 1e9;
	o->budget = atoi(expfile_value(&x->f, "collect", "c2c_budget", "0")) ?: o->budget;
	if (!parse_bytes(expfile_value(&x->f, "collect", "c2c_max_size", ""), &v))
		o->max_size = v;
	if (!parse_duration_ns(expfile_value(&x->f, "collect", "c2c_report_timeout", ""), &v))
		o->report_timeout_s = v / 1e9;
	parse_bool(expfile_value(&x->f, "collect", "c2c_keep", "no"), &o->keep_data);
	parse_bool(expfile_value(&x->f, "collect", "c2c_source", "no"), &o->source);
	parse_bool(expfile_value(&x->f, "collect", "c2c_double_cl", "no"), &o->double_cl);
}

void load_exp_for(struct experiment *x, const char *path, char **overrides, int noverrides, const struct exp_host *h)
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

		if (pname[0] && !is_phase_base(base) && !is_named_base(base))
			experiment_die(x, en, "[%s]: only driver, schedule, small, v1 and claim sections take a name",
				     en->section);
		/* Phases, in the order their [driver] sections come. */
		if (!strcmp(base, "driver") && !phase_of(x, pname)) {
			struct phase *ph;

			if (x->nph == MAX_PHASES)
				experiment_die(x, en, "more than %d driver phases", MAX_PHASES);
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
		if (claim_section(en->section))
			continue;	/* report/claim.c checks the claims, below */
		s = spec_of(!strcmp(base, "driver") || !strcmp(base, "schedule") ? base : en->section, en->key);
		if (!s) {
			for (size_t k = 0; k < sizeof(schema) / sizeof(schema[0]); k++)
				found |= !strcmp(schema[k].section, base);
			if (!found)
				experiment_die(x, en, "unknown section [%s] (want experiment, driver, schedule, small, "
					     "v1, collect, derive, claim or plot)", en->section);
			experiment_die(x, en, "unknown key '%s' in [%s]", en->key, en->section);
		}
		check_value(x, en, s);
	}
	/* A [schedule X] or [small X] needs its [driver X]. */
	for (size_t i = 0; i < x->f.n; i++) {
		const char *pname = section_base(x->f.e[i].section, base, sizeof(base));

		if ((!strcmp(base, "schedule") || !strcmp(base, "small") || !strcmp(base, "v1")) &&
		    !phase_of(x, pname))
			experiment_die(x, &x->f.e[i], "[%s] has no [driver%s%s] section", x->f.e[i].section,
				     pname[0] ? " " : "", pname);
	}
	check_claims(x);
	e = expfile_get(&x->f, "experiment", "name");
	if (!e)
		experiment_die(x, NULL, "[experiment] name is required");
	for (const char *c = e->value; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
			experiment_die(x, e, "[experiment] name = '%s': want [a-z0-9-] only (it names the directory)",
				     e->value);
	x->name = e->value;
	/* An experiment runs a driver: without one, --validate said "valid
	 * (0 phases)" and a run measured nothing. */
	if (!x->nph)
		experiment_die(x, NULL, "no [driver] section: an experiment runs at least one driver ([driver] with "
			       "command = charge or statread)");
	x->repeats = atoi(expfile_value(&x->f, "experiment", "repeats", "1"));
	x->stop_on_failure = strcmp(expfile_value(&x->f, "experiment", "on_failure", "stop"), "continue");
	for (int i = 0; i < x->nph; i++)
		load_phase(x, &x->ph[i], h);
	parse_bool(expfile_value(&x->f, "collect", "runtime_probe", "no"), &x->runtime_probe);
	x->layout_check = !strcmp(expfile_value(&x->f, "collect", "layout", "no"), "check");
	load_c2c(x);
	parse_bool(expfile_value(&x->f, "plot", "enabled", "yes"), &x->plot);
	x->plot_w = 800;
	x->plot_h = 500;
	e = expfile_get(&x->f, "plot", "size");
	if (e && (sscanf(e->value, "%dx%d", &x->plot_w, &x->plot_h) != 2 || x->plot_w < 100 || x->plot_h < 100))
		experiment_die(x, e, "[plot] size = '%s': want WIDTHxHEIGHT, e.g. 800x500", e->value);
}

void load_exp(struct experiment *x, const char *path, char **overrides, int noverrides)
{
	struct exp_host h;
	struct topo t;

	exp_host_this_machine(&h, &t);
	load_exp_for(x, path, overrides, noverrides, &h);
	if (h.topo)
		topo_free(&t);
}

/* argv for one driver run: the phase's [driver] entries (then its [small]
 * ones on a small box) as --key=value, "yes" as --key, "no" left out. */
char **driver_argv(const struct experiment *x, const struct phase *ph, long step_value, bool validate, int *argc)
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
		/* A value given on the command line (-s driver.KEY=V, line 0)
		 * is the user's: neither [small] nor [v1] replaces it. */
		small = ph->small && e->line ? expfile_get(&x->f, ph->small_sec, e->key) : NULL;
		if (small)
			val = small->value;
		if (ph->v1 && e->line && expfile_get(&x->f, ph->v1_sec, e->key))
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
double phase_duration(const struct experiment *x, const struct phase *ph)
{
	const struct exp_entry *d = expfile_get(&x->f, ph->drv, "duration");
	const struct exp_entry *e = ph->small && !(d && !d->line) ? expfile_get(&x->f, ph->small_sec, "duration")
								    : NULL;
	unsigned long long ns;

	if (!e)
		e = d;
	if (e && !parse_duration_ns(e->value, &ns) && ns)
		return ns / 1e9;
	return 10;
}

/* The step label of a phase's s-th value: "tasks=4", "charge:tasks=4", "-". */
void step_label(const struct phase *ph, int s, char *buf, size_t n)
{
	if (ph->param)
		snprintf(buf, n, "%s%s%s=%ld", ph->name, ph->name[0] ? ":" : "", ph->param, ph->values[s]);
	else
		snprintf(buf, n, "%s", ph->name[0] ? ph->name : "-");
}

void free_argv(char **av)
{
	for (char **p = av; *p; p++)
		free(*p);
	free(av);
}
