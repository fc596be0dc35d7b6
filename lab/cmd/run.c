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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd/builtin.h"
#include "cmd/probe.h"
#include "cmd/report.h"
#include "kernel/leftovers.h"
#include "kernel/runtime_probe.h"
#include "kernel/sysinfo.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/fileio.h"
#include "util/gnuplot.h"
#include "util/results.h"
#include "util/strfmt.h"

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
"[small] section's values replace the full-size ones; the results say so.\n";

enum vtype { V_STR, V_INT, V_BOOL, V_DURATION, V_LIST, V_ENUM, V_SIZE };

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
	{ "plot", "enabled", V_BOOL, NULL, 0, 0, "yes or no" },
	{ "plot", "size", V_STR, NULL, 0, 0, "WIDTHxHEIGHT" },
};

/* Commands that can be driven by an experiment, "none" for probe-only runs. */
static const char *const driver_commands[] = { "none", "statread", NULL };

#define MAX_STEPS 256

struct exp {
	struct expfile f;
	const char *name;
	int repeats;
	bool stop_on_failure;
	const char *command;
	const char *param;
	long values[MAX_STEPS];
	int nvalues;
	bool small;
	char scaled[256];
	bool runtime_probe;
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

static int topology_steps(long *values, int max)
{
	struct lab_topology t;
	long cand[5];
	int n = 0;

	lab_topology_read(&t);
	/* mmtests' stride idea: 1, an SMT set, an LLC, a node, the machine. */
	cand[0] = 1;
	cand[1] = t.smt;
	cand[2] = t.cpus_per_llc;
	cand[3] = t.nodes ? t.cpus / t.nodes : t.cpus;
	cand[4] = t.cpus;
	for (int i = 0; i < 5 && n < max; i++) {
		bool dup = false;

		for (int j = 0; j < n; j++)
			dup |= values[j] == cand[i];
		if (!dup && cand[i] > 0)
			values[n++] = cand[i];
	}
	return n;
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
	case V_ENUM:
		if (s->choices && !in_choices(e->value, s->choices))
			NORETURN_exp(x, e, "[%s] %s = '%s': want %s", e->section, e->key, e->value, s->what);
		break;
	}
}

static void load_exp(struct exp *x, const char *path, char **overrides, int noverrides)
{
	char err[600];
	const struct exp_entry *e;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN), small_cpus;
	const char *vals;
	bool found;

	if (expfile_parse(path, &x->f, err, sizeof(err)))
		die("%s", err);
	for (int i = 0; i < noverrides; i++)
		if (expfile_override(&x->f, overrides[i], err, sizeof(err)))
			die("run: %s", err);
	for (size_t i = 0; i < x->f.n; i++) {
		const struct exp_entry *en = &x->f.e[i];
		const struct key_spec *s;

		if (!strcmp(en->section, "driver") && strcmp(en->key, "command"))
			continue;	/* the driver checks its own options */
		if (!strcmp(en->section, "small"))
			continue;	/* driver options too, for small boxes */
		s = spec_of(en->section, en->key);
		if (!s) {
			found = false;
			for (size_t k = 0; k < sizeof(schema) / sizeof(schema[0]); k++)
				found |= !strcmp(schema[k].section, en->section);
			if (!found)
				NORETURN_exp(x, en, "unknown section [%s] (want experiment, driver, schedule, small, "
					     "collect or plot)", en->section);
			NORETURN_exp(x, en, "unknown key '%s' in [%s]", en->key, en->section);
		}
		check_value(x, en, s);
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
	x->command = expfile_value(&x->f, "driver", "command", "none");
	found = false;
	for (int i = 0; driver_commands[i]; i++)
		found |= !strcmp(driver_commands[i], x->command);
	if (!found) {
		char list[256] = "";

		for (int i = 0; driver_commands[i]; i++)
			str_appendf(list, sizeof(list), "%s%s", i ? ", " : "", driver_commands[i]);
		NORETURN_exp(x, expfile_get(&x->f, "driver", "command"), "[driver] command = '%s': want one of %s",
			     x->command, list);
	}
	small_cpus = atol(expfile_value(&x->f, "schedule", "small_cpus", "16"));
	x->small = ncpus < small_cpus;
	if (x->small)
		snprintf(x->scaled, sizeof(x->scaled), "%ld CPUs < small_cpus %ld: [small] values and "
			 "schedule.small_values used", ncpus, small_cpus);
	x->param = expfile_value(&x->f, "schedule", "param", NULL);
	vals = expfile_value(&x->f, "schedule", x->small && expfile_get(&x->f, "schedule", "small_values") ?
			     "small_values" : "values", NULL);
	if (vals && !x->param)
		NORETURN_exp(x, expfile_get(&x->f, "schedule", "values"), "[schedule] values without param");
	if (x->param && !vals)
		NORETURN_exp(x, expfile_get(&x->f, "schedule", "param"), "[schedule] param without values");
	if (vals)
		x->nvalues = !strcmp(vals, "topology") ? topology_steps(x->values, MAX_STEPS)
						      : parse_int_list(vals, x->values, MAX_STEPS);
	if (x->param && !strcmp(x->command, "none"))
		NORETURN_exp(x, expfile_get(&x->f, "schedule", "param"), "[schedule] needs a [driver] command");
	parse_bool(expfile_value(&x->f, "collect", "runtime_probe", "no"), &x->runtime_probe);
	parse_bool(expfile_value(&x->f, "plot", "enabled", "yes"), &x->plot);
	x->plot_w = 800;
	x->plot_h = 500;
	e = expfile_get(&x->f, "plot", "size");
	if (e && (sscanf(e->value, "%dx%d", &x->plot_w, &x->plot_h) != 2 || x->plot_w < 100 || x->plot_h < 100))
		NORETURN_exp(x, e, "[plot] size = '%s': want WIDTHxHEIGHT, e.g. 800x500", e->value);
}

/* argv for one driver run: [driver] entries (then [small] on a small box) as --key=value. */
static char **driver_argv(const struct exp *x, long step_value, bool validate, int *argc)
{
	char **av = xcalloc(x->f.n + 6, sizeof(*av));
	int n = 0;

	av[n++] = xstrdup("memcg-lab");
	av[n++] = xstrdup(x->command);
	for (size_t i = 0; i < x->f.n; i++) {
		const struct exp_entry *e = &x->f.e[i];
		const struct exp_entry *small;
		const char *val = e->value;
		bool b;

		if (strcmp(e->section, "driver") || !strcmp(e->key, "command"))
			continue;
		if (x->param && !strcmp(e->key, x->param))
			continue;
		small = x->small ? expfile_get(&x->f, "small", e->key) : NULL;
		if (small)
			val = small->value;
		if (!parse_bool(val, &b) && strcmp(val, "0") && strcmp(val, "1")) {
			if (b)
				av[n++] = xasprintf("--%s", e->key);
			continue;
		}
		av[n++] = xasprintf("--%s=%s", e->key, val);
	}
	/* [small] keys that have no full-size entry. */
	for (size_t i = 0; x->small && i < x->f.n; i++) {
		const struct exp_entry *e = &x->f.e[i];

		if (!strcmp(e->section, "small") && !expfile_get(&x->f, "driver", e->key))
			av[n++] = xasprintf("--%s=%s", e->key, e->value);
	}
	if (x->param)
		av[n++] = xasprintf("--%s=%ld", x->param, step_value);
	if (validate)
		av[n++] = xstrdup("--validate");
	av[n] = NULL;
	*argc = n;
	return av;
}

static void free_argv(char **av)
{
	for (char **p = av; *p; p++)
		free(*p);
	free(av);
}

/* Runs bin/memcg-lab with av; its output goes to out_path; exit status. */
static int run_child(char **av, const char *out_path, const char *dir, const char *step, int repeat)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		die("run: fork: %s", strerror(errno));
	if (!pid) {
		char rep[16];
		int fd;

		worker_detach_from_parent(getppid());
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
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			die("run: waitpid: %s", strerror(errno));
		if (lab_stop_requested())
			kill(pid, SIGTERM);	/* the driver removes what it made */
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
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
static void validate_driver(const struct exp *x)
{
	char tmpl[] = "/tmp/memcg-lab-validate.XXXXXX", line[512];
	int fd = mkstemp(tmpl);

	if (fd < 0)
		die("run: cannot create a temporary file: %s", strerror(errno));
	close(fd);
	for (int s = 0; s < (x->nvalues ? x->nvalues : 1); s++) {
		int ac, st;
		char **av = driver_argv(x, x->nvalues ? x->values[s] : 0, true, &ac);

		truncate(tmpl, 0);
		st = run_child(av, tmpl, NULL, "-", 0);
		free_argv(av);
		if (st) {
			const struct exp_entry *bad = NULL;

			last_line(tmpl, line, sizeof(line));
			unlink(tmpl);
			/* "--tasks ..." in the driver's message names the key. */
			for (size_t i = 0; i < x->f.n && !bad; i++) {
				char opt[128];

				if (strcmp(x->f.e[i].section, "driver") && strcmp(x->f.e[i].section, "small") &&
				    strcmp(x->f.e[i].section, "schedule"))
					continue;
				snprintf(opt, sizeof(opt), "--%s", !strcmp(x->f.e[i].section, "schedule") ?
					 (x->param ? x->param : "") : x->f.e[i].key);
				if (strstr(line, opt))
					bad = &x->f.e[i];
			}
			NORETURN_exp(x, bad, "driver '%s' refused its options: %s", x->command,
				     !strncmp(line, "memcg-lab: ", 11) ? line + 11 : line);
		}
	}
	unlink(tmpl);
}

static void fmt_secs(char *buf, size_t n, double s)
{
	if (s < 60)
		snprintf(buf, n, "%.0fs", s);
	else
		snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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
	int noverrides = 0, c, nsteps, failures = 0;
	bool validate_only = false, tty = isatty(2);
	struct probe_report p;
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
	if (strcmp(x.command, "none"))
		validate_driver(&x);
	if (validate_only) {
		printf("%s: valid (%s; %d step%s x %d repeat%s%s%s)\n", x.f.path, x.command,
		       x.nvalues ? x.nvalues : 1, x.nvalues == 1 ? "" : "s", x.repeats, x.repeats == 1 ? "" : "s",
		       x.small ? "; small box: " : "", x.small ? x.scaled : "");
		expfile_free(&x.f);
		free(overrides);
		return 0;
	}

	cleanup_set_polling(true);
	/* What runs killed earlier left behind must not skew this one. */
	leftovers_cleanup_dead();
	r = results_create(x.name, NULL, argc + 1, argv - 1);
	{
		char *copy = xasprintf("%s/experiment.exp", r->dir), *text = read_text(x.f.path, NULL);

		if (text)
			write_file_atomic(copy, text, strlen(text));
		free(text);
		free(copy);
	}
	if (x.small)
		results_meta_set(r, "scaled", json_object_new_string(x.scaled));
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

	nsteps = (x.nvalues ? x.nvalues : 1) * x.repeats;
	t0 = now_s();
	for (int s = 0, i = 0; strcmp(x.command, "none") && s < (x.nvalues ? x.nvalues : 1); s++) {
		char step[128];

		if (x.param)
			snprintf(step, sizeof(step), "%s=%ld", x.param, x.values[s]);
		else
			snprintf(step, sizeof(step), "-");
		for (int rep = 0; rep < x.repeats; rep++, i++) {
			char *out = xasprintf("%s/log", r->dir), line[512];
			int ac, st;
			char **av = driver_argv(&x, x.nvalues ? x.values[s] : 0, false, &ac);

			if (lab_stop_requested())
				die("run: interrupted by signal %d; %s stays incomplete", lab_stop_signal(), r->dir);
			progress(r, tty, i, nsteps, step, rep, x.repeats, t0);
			st = run_child(av, out, r->dir, step, rep);
			free_argv(av);
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
		}
	}
	if (tty && strcmp(x.command, "none"))
		fputc('\n', stderr);

	if (x.plot) {
		if (gnuplot_available(why, sizeof(why))) {
			char *pav[] = { "memcg-lab", "plot", "--size", NULL, r->dir, NULL };
			char *out = xasprintf("%s/log", r->dir);

			pav[3] = xasprintf("%dx%d", x.plot_w, x.plot_h);
			if (run_child(pav, out, NULL, "-", 0))
				results_skip(r, "plots", "plot failed (see log)");
			free(pav[3]);
			free(out);
		} else {
			results_skip(r, "plots", why);
		}
	}
	results_finish(r, failures ? "complete-with-failures" : "complete");
	{
		char *rp = xasprintf("%s/report.txt", r->dir), err[512];
		FILE *rf = fopen(rp, "we");

		if (!rf || report_write(r->dir, rf, err, sizeof(err)))
			die("%s: cannot write the report", rp);
		fclose(rf);
		free(rp);
	}
	printf("results: %s\n", r->dir);
	results_free(r);
	expfile_free(&x.f);
	free(overrides);
	return failures ? 1 : 0;
}
