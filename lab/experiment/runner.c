// SPDX-License-Identifier: GPL-2.0
/*
 * The experiment runner (experiment/runner.h): one experiment file, one
 * results directory.
 *
 * Everything is validated before anything starts: the runner's own
 * sections against the schema (experiment/model.c), the driver's options by
 * the driver itself (`<driver> ... --validate`), each error as file:line.
 * Then: the probe (and runtime probes) into meta.json, the collectors that
 * run once (layout), and for every schedule step and repeat the driver as a
 * child process writing into this directory (util/results.h:
 * results_attach), with the per-step collectors around it.  Last the plots
 * and report.txt; only then is the status "complete".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "c2c/around.h"
#include "c2c/lines_session.h"
#include "experiment/model.h"
#include "experiment/plan.h"
#include "experiment/probe_report.h"
#include "experiment/runner.h"
#include "kernel/leftovers.h"
#include "kernel/runtime_probe.h"
#include "kernel/tracefs_dir.h"
#include "report/verdict.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/fileio.h"
#include "util/gnuplot.h"
#include "util/metrics.h"
#include "util/outfile.h"
#include "util/results.h"

/* Writes report.txt and the final status (the caller's: `report` owns it). */
static exp_finish_fn *finish_run;

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

static void derive_metrics(const struct experiment *x, struct results *r)
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
		lines_session_thp_restore();	/* the driver's workers: THP as the kernel has it */
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
	/* A stop reaches the driver once, which removes what it made; the
	 * runner waits for it, whatever further signals come (util/cleanup.h). */
	cleanup_forward_to(pid, SIGTERM);
	for (;;) {
		pid_t w = waitpid(pid, &st, around ? WNOHANG : 0);
		struct timespec tick = { 0, 100 * 1000 * 1000 };

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			die("run: waitpid: %s", strerror(errno));
		if (around && w == 0) {
			around_tick(around, pid, now_s() - t0);
			nanosleep(&tick, NULL);
		}
	}
	cleanup_forward_to(0, 0);
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
static void validate_driver(const struct experiment *x, const struct phase *ph)
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
				/* The schedule's values, not its param line, set the option. */
				if (!strcmp(e->section, ph->sched) && !strstr(e->key, "values"))
					continue;
				snprintf(opt, sizeof(opt), "--%s", !strcmp(e->section, ph->sched) ?
					 (ph->param ? ph->param : "") : e->key);
				if (strlen(opt) > 2 && strstr(line, opt))
					bad = e;
			}
			experiment_die(x, bad, "driver '%s' refused its options: %s", ph->command,
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
	finish_run(r, "incomplete");
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

int exp_run_plan(const char *path, char **overrides, int noverrides, const char *topology, const char *pmu)
{
	const struct c2c_pmu *pmu_row = pmu ? c2c_pmu_by_name(pmu) : NULL;
	struct exp_plan_host h;
	struct exp_plan *p = xcalloc(1, sizeof(*p));
	struct experiment x;
	char err[1024];

	memset(&x, 0, sizeof(x));
	if (topology ? exp_plan_host_describe(&h, topology, err, sizeof(err))
		     : exp_plan_host_this(&h, err, sizeof(err)))
		die("run: %s", err);
	if (pmu && !pmu_row) {
		char names[256];

		c2c_pmu_names(names, sizeof(names));
		die("run: --pmu %s: not a PMU the lab knows (%s)", pmu, names);
	}
	if (pmu_row)
		exp_plan_host_pmu(&h, pmu_row);
	load_exp_for(&x, path, overrides, noverrides, &h.model);
	if (!topology)
		for (int i = 0; i < x.nph; i++)
			validate_driver(&x, &x.ph[i]);
	if (exp_plan(p, &x, &h, err, sizeof(err)))
		die("%s", err);
	exp_plan_print(stdout, p, &x, &h);
	free(p);
	exp_plan_host_free(&h);
	expfile_free(&x.f);
	return 0;
}


/* The file and every phase's driver options, checked. */
static void load_checked(struct experiment *x, const char *path, char **overrides, int noverrides)
{
	memset(x, 0, sizeof(*x));
	load_exp(x, path, overrides, noverrides);
	for (int i = 0; i < x->nph; i++)
		validate_driver(x, &x->ph[i]);
}

int exp_run_validate(const char *path, char **overrides, int noverrides)
{
	struct experiment x;

	load_checked(&x, path, overrides, noverrides);
	printf("%s: valid (%d phase%s", x.f.path, x.nph, x.nph == 1 ? "" : "s");
	for (int i = 0; i < x.nph; i++) {
		int steps = x.ph[i].nvalues ? x.ph[i].nvalues : 1;

		printf("%s %s%s%s: %d step%s", i ? ";" : ":", x.ph[i].name, x.ph[i].name[0] ? "=" : "",
		       x.ph[i].command, steps, steps == 1 ? "" : "s");
	}
	printf("; %d repeat%s%s%s)\n", x.repeats, x.repeats == 1 ? "" : "s",
	       x.scaled[0] ? "; small box: " : "", x.scaled);
	expfile_free(&x.f);
	return 0;
}

/* The results directory, with the experiment file as it was run. */
static struct results *create_results(const struct experiment *x, const char *path, int argc, char **argv)
{
	struct results *r = results_create(x->name, NULL, argc, argv);
	char *copy = xasprintf("%s/experiment.exp", r->dir), *text = read_text(x->f.path, NULL);

	if (!text) {
		outfile_failure(x->f.path, "cannot read", errno);
	} else if (!outfile_write(copy, text, strlen(text))) {
		/* reproduce.sh runs the file as it was run, not as it is later. */
		for (int i = 1; i < argc; i++)
			if (argv[i] == path) {
				results_reproduce_file(r, argc, argv, i, "experiment.exp");
				break;
			}
	}
	free(text);
	free(copy);
	if (x->scaled[0])
		results_meta_set(r, "scaled", json_object_new_string(x->scaled));
	if (geteuid() == 0) {
		/* Once for every step's collectors, before the probe records
		 * what the run had; unmounted when the run ends. */
		char tdir[256], err[512];

		if (lab_tracefs_find(tdir, sizeof(tdir), err, sizeof(err))) {
			note("run: %s: no tracefs data in this run", err);
			results_skip(r, "tracefs data (lock holds, flush counts)", err);
		}
	}
	return r;
}

/* What the kernel has (and, if asked, its runtime probes) into meta.json. */
static void record_probe(const struct experiment *x, struct results *r)
{
	struct probe_report p;
	char err[512];

	probe_collect(&p, NULL, NULL);
	results_meta_set(r, "probe", probe_json(&p));
	results_log(r, "probe: kernel %s, split %d, stock slots %d", p.kbtf.release, p.feat.cacheline_split,
		    p.feat.stock_slots);
	if (x->runtime_probe) {
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
}

/* `layout --check` of the running kernel into data/layout-check.txt. */
static void layout_check(struct results *r)
{
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

/* Where the steps are, for the progress line. */
struct steps {
	int i, n;
	bool tty;
	double t0;
	int failures;
	struct around_env *aenv;
	struct exp_plan *plan;		/* this machine's plan: how long each driver runs; NULL: none */
};

static void stop_if_interrupted(struct results *r)
{
	if (lab_stop_requested())
		die("run: interrupted by signal %d; %s stays incomplete", lab_stop_signal(), r->dir);
}

/* One repeat of one step: the driver with the per-step collectors around it. */
static void run_repeat(const struct experiment *x, int k, int s, const char *step, int rep, struct results *r,
		       struct steps *st)
{
	const struct phase *ph = &x->ph[k];
	char *out = xasprintf("%s/log", r->dir), line[512];
	int ac, rc;
	char **av = driver_argv(x, ph, ph->nvalues ? ph->values[s] : 0, false, &ac);
	struct around *around;

	stop_if_interrupted(r);
	progress(r, st->tty, st->i, st->n, step, rep, x->repeats, st->t0);
	around = around_start(st->aenv, step, rep, exp_plan_driver_seconds(st->plan, x, k, s));
	rc = run_child(av, out, r->dir, step, rep, around);
	around_finish(around);
	free_argv(av);
	/* A driver that could not write its results: its line is the
	 * run's, and the run ends here. */
	stop_if_unwritten(r);
	reload_meta(r);
	stop_if_interrupted(r);
	if (rc) {
		last_line(out, line, sizeof(line));
		st->failures++;
		if (st->tty)
			fputc('\n', stderr);
		note("step %s repeat %d: driver exited %d: %s", step, rep, rc, line);
		results_log(r, "step %s repeat %d failed (exit %d)", step, rep, rc);
		if (x->stop_on_failure) {
			free(out);
			die("run: stopping (on_failure = stop); %s stays incomplete", r->dir);
		}
	}
	free(out);
	stop_if_unwritten(r);
}

/* Every phase, step and repeat, in file order; the count that failed;
 * *bound when a c2c window lost its data to a bound (disk, size cap,
 * report time): then the run is not complete. */
static int run_steps(const struct experiment *x, struct results *r, bool *bound)
{
	struct steps st = { .tty = isatty(2) };

	st.aenv = around_env_open(&x->around, r);
	{
		/* The plan of this machine says how long each driver runs
		 * (a stock sweep: every K): the c2c windows are timed on it. */
		struct exp_plan_host h;
		char err[512];

		st.plan = xcalloc(1, sizeof(*st.plan));
		if (exp_plan_host_this(&h, err, sizeof(err)) || exp_plan(st.plan, x, &h, err, sizeof(err))) {
			results_log(r, "no plan of this machine (%s): c2c windows timed on each phase's duration", err);
			free(st.plan);
			st.plan = NULL;
		}
		exp_plan_host_free(&h);
	}
	st.t0 = now_s();
	for (int k = 0; k < x->nph; k++)
		st.n += (x->ph[k].nvalues ? x->ph[k].nvalues : 1) * x->repeats;
	for (int k = 0; k < x->nph; k++) {
		const struct phase *ph = &x->ph[k];

		for (int s = 0; s < (ph->nvalues ? ph->nvalues : 1); s++) {
			char step[128];

			step_label(ph, s, step, sizeof(step));
			for (int rep = 0; rep < x->repeats; rep++, st.i++)
				run_repeat(x, k, s, step, rep, r, &st);
		}
	}
	if (st.tty && x->nph)
		fputc('\n', stderr);
	*bound = around_env_bound_failed(st.aenv);
	around_env_close(st.aenv);
	free(st.plan);
	return st.failures;
}

/* `memcg-lab plot` of the results, or the skip that says why not. */
static void plot_results(const struct experiment *x, struct results *r, const char *status)
{
	char why[256];

	if (gnuplot_available(why, sizeof(why))) {
		/* meta.json says incomplete until the finish: the legends
		 * show the status the run is finishing with. */
		char *pav[] = { "memcg-lab", "plot", "--size", NULL, "--status", (char *)status, r->dir, NULL };
		char *out = xasprintf("%s/log", r->dir);

		pav[3] = xasprintf("%dx%d", x->plot_w, x->plot_h);
		if (run_child(pav, out, NULL, "-", 0, NULL))
			results_skip(r, "plots", "plot failed (see log)");
		free(pav[3]);
		free(out);
	} else {
		results_skip(r, "plots", why);
	}
}

int exp_run(const char *path, char **overrides, int noverrides, int argc, char **argv, exp_finish_fn *finish)
{
	const char *status;
	struct results *r;
	struct experiment x;
	int failures;
	bool bound;

	finish_run = finish;
	load_checked(&x, path, overrides, noverrides);
	/* The drivers' --validate no longer asks for root (it places nothing):
	 * a run does, before its results directory exists. */
	if (geteuid() != 0)
		die("run: %s: a run places its workers in memory cgroups, which needs root (running as uid %d); "
		    "--validate and --plan do not", path, (int)geteuid());
	cleanup_set_polling(true);
	/* What runs killed earlier left behind must not skew this one. */
	leftovers_cleanup_dead();
	child_errors_fd = memfd_create("memcg-lab-write-errors", MFD_CLOEXEC);
	if (child_errors_fd < 0)
		die("run: cannot create a memfd for the drivers' write errors: %s", strerror(errno));
	r = create_results(&x, path, argc, argv);
	record_probe(&x, r);
	if (x.layout_check)
		layout_check(r);
	stop_if_unwritten(r);
	failures = run_steps(&x, r, &bound);
	derive_metrics(&x, r);

	status = bound ? "incomplete" : failures ? "complete-with-failures" : "complete";
	if (x.plot)
		plot_results(&x, r, status);
	finish(r, status);
	{
		/* The run ends with its verdicts (report.txt opens with them,
		 * with the rules and the reasons). */
		struct verdicts vs;
		char count[256];

		verdicts_of_dir(&vs, r->dir);
		verdicts_count_text(&vs, count, sizeof(count));
		printf("verdicts%s%s (the rules and reasons: report.txt):\n", count[0] ? ": " : "", count);
		verdicts_print_table(stdout, &vs, 80);
		/* One kernel where a claim is an A/B: how to measure the other side. */
		verdicts_print_next(stdout, &vs, 80);
		verdicts_free(&vs);
	}
	printf("results: %s\n", r->dir);
	results_free(r);
	expfile_free(&x.f);
	return failures ? 1 : 0;
}
