// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "c2c/around.h"
#include "c2c/lines_session.h"
#include "kernel/btf.h"
#include "kernel/cgroup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/owner.h"

struct around_env {
	struct around_cfg cfg;
	struct results *r;
	struct c2c_caps caps;
	bool c2c_ok;
	struct kbtf kbtf;
	bool have_btf;
	struct cg_env cg;
	bool lines;		/* in a guest under vm --lines: a lines window per run */
	FILE *windows_tsv;	/* data/c2c/windows.tsv, opened at the first window */
	FILE *windows_txt;	/* data/c2c-windows.txt, for report.txt */
	int bound_failures;	/* windows a bound (disk, size cap, report time) cost their data */
};

struct around {
	struct around_env *e;
	char tag[160];			/* "<step>.r<repeat>" for file names */
	struct c2c_collector *c2c;
	struct c2c_objects objs;
	bool objects_found;
	/* The lines window (c2c/lines_session.h): c2c's steady-state window. */
	struct c2c_window lwin;
	bool lines_planned;
	int lines_index;	/* the open window, -1 when none */
	bool lines_done;
	char step[128];
	int repeat;
	bool phase_known;
	double phase_offset;	/* the driver's measured phase, from its start */
	const struct c2c_objects *lines_objs;
	struct lines_prio prio;	/* raised while the driver runs (lines_prio_raise) */
	bool prio_set;
	double last_tick;	/* now_mono() of the last lines tick, 0 before */
};

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct around_env *around_env_open(const struct around_cfg *cfg, struct results *r)
{
	struct around_env *e = xcalloc(1, sizeof(*e));
	char err[512];

	e->cfg = *cfg;
	e->r = r;
	if (cfg->c2c == C2C_MODE_OFF) {
		results_log(r, "c2c: off ([collect] c2c = no)");
	} else {
		c2c_caps_detect(&e->caps);
		e->c2c_ok = e->caps.supported;
		if (!e->c2c_ok) {
			char why[800];

			snprintf(why, sizeof(why), "%s%s", e->caps.line,
				 cfg->c2c == C2C_MODE_ON ? " ([collect] c2c = yes asked for it)" : "");
			results_skip(r, "perf c2c", why);
		} else {
			results_log(r, "%s", e->caps.line);
			/* What its data cannot show: said once, in the log
			 * here and at the top of every window's field table. */
			for (int i = 0; i < e->caps.nlimits; i++)
				results_log(r, "c2c: NOTE: %s", e->caps.limits[i]);
			if (kbtf_open(&e->kbtf, NULL, NULL, err, sizeof(err)))
				results_skip(r, "c2c field names", err);
			else
				e->have_btf = true;
		}
		cg_detect(&e->cg, NULL);
	}
	e->lines = lines_session_active();
	/* The runner opens the windows: from its first repeat on. */
	if (e->lines)
		lines_session_no_thp();
	return e;
}

void around_env_close(struct around_env *e)
{
	if (!e)
		return;
	if (e->windows_tsv)
		outfile_close(e->windows_tsv);
	if (e->windows_txt)
		outfile_close(e->windows_txt);
	if (e->have_btf)
		kbtf_close(&e->kbtf);
	free(e);
}

bool around_env_bound_failed(const struct around_env *e)
{
	return e && e->bound_failures > 0;
}

/* One window's row in data/c2c/windows.tsv and data/c2c-windows.txt. */
static void window_row(struct around_env *e, const struct c2c_collector *c, const char *tag)
{
	if (!e->windows_tsv) {
		char *dir = xasprintf("%s/data/c2c", e->r->dir), *p;

		if (mkdir_p(dir, 0755))
			die("%s: cannot create: %s", dir, strerror(errno));
		p = xasprintf("%s/windows.tsv", dir);
		e->windows_tsv = outfile_open(p, "w");
		c2c_windows_header(e->windows_tsv);
		free(p);
		p = xasprintf("%s/data/c2c-windows.txt", e->r->dir);
		e->windows_txt = outfile_open(p, "w");
		fprintf(e->windows_txt, "%s\n", e->caps.line);
		for (int i = 0; i < e->caps.nlimits; i++)
			fprintf(e->windows_txt, "NOTE: %s\n", e->caps.limits[i]);
		fprintf(e->windows_txt, "%-24s %8s %8s %7s %10s %s\n", "window", "samples", "lost", "lost%",
			"throttled", "status");
		free(p);
		free(dir);
	}
	c2c_windows_row(c, tag, e->windows_tsv);
	fflush(e->windows_tsv);
	if (c->counts.known)
		fprintf(e->windows_txt, "%-24s %8llu %8llu %6.1f%% %10llu %s\n", tag, c->counts.samples,
			c->counts.lost, 100 * c->counts.lost_share, c->counts.throttled, c->status);
	else
		fprintf(e->windows_txt, "%-24s %8s %8s %7s %10s %s\n", tag, "-", "-", "-", "-", c->status);
	fflush(e->windows_txt);
}

struct around *around_start(struct around_env *e, const char *step, int repeat, double driver_s)
{
	struct around *a = xcalloc(1, sizeof(*a));

	a->e = e;
	a->lines_index = -1;
	snprintf(a->tag, sizeof(a->tag), "%s.r%d", step, repeat);
	snprintf(a->step, sizeof(a->step), "%s", step);
	a->repeat = repeat;
	if (e->lines) {
		if (c2c_plan_window(&e->cfg.c2c_opts, driver_s, &a->lwin) < 0)
			results_skip(e->r, "lines window", a->lwin.note);
		else
			a->lines_planned = true;
	}
	if (e->c2c_ok) {
		char why[700], *dir = xasprintf("%s/data/c2c.%s", e->r->dir, a->tag);
		bool bound;

		if (mkdir_p(dir, 0755))
			die("%s: cannot create: %s", dir, strerror(errno));
		a->c2c = c2c_collector_start(&e->caps, &e->cfg.c2c_opts, driver_s, dir, &bound, why, sizeof(why));
		if (!a->c2c) {
			results_skip(e->r, "perf c2c window", why);
			e->bound_failures += bound;
			rmdir(dir);
		} else {
			results_log(e->r, "c2c %s: %s", a->tag, a->c2c->status);
		}
		free(dir);
	}
	return a;
}

static void note_line(const char *line, void *arg)
{
	results_log(arg, "c2c objects: %s", line);
}

/*
 * The lines window, at c2c's times counted from the driver's measured
 * phase, which the driver says began (lines_session_phase: under TCG a
 * driver's setup takes seconds); none where the driver opens its own.
 */
static void lines_tick(struct around *a, pid_t driver, double elapsed_s)
{
	struct lines_window_info w = { .label = a->step, .who = "runner", .repeat = a->repeat,
				       .start_s = a->lwin.start_s, .len_s = a->lwin.len_s, .counted = driver };
	double phase;

	/* The window's times kept to: at real-time priority from the first
	 * tick (after the driver's fork) until around_finish. */
	if (a->lines_planned && !a->prio_set) {
		lines_prio_raise(&a->prio);
		a->prio_set = true;
	}
	/* Ticks come every 100 ms; one seconds late says where a late or
	 * skipped window's time went. */
	if (a->last_tick > 0 && now_mono() - a->last_tick > 1.0)
		results_log(a->e->r, "lines %s: the runner's tick came %.1f s after the last, at %.1f s", a->tag,
			    now_mono() - a->last_tick, elapsed_s - a->phase_offset);
	a->last_tick = now_mono();
	if (!a->phase_known) {
		if (!lines_session_phase_of(driver, &phase))
			return;
		a->phase_known = true;
		a->phase_offset = phase - (now_mono() - elapsed_s);
		/* The driver's tree is there: its objects now, not at the
		 * window's time (BPF and kallsyms take seconds under TCG). */
		if (!lines_session_claimed(driver)) {
			double t = now_mono();

			a->lines_objs = lines_session_objects(driver);
			results_log(a->e->r, "lines %s: the driver's measured phase begins at %.1f s (said at %.1f s); "
				    "%zu objects found in %.1f s", a->tag, a->phase_offset, elapsed_s, a->lines_objs->n,
				    now_mono() - t);
		}
	}
	elapsed_s -= a->phase_offset;

	if (a->lines_index >= 0 && elapsed_s >= a->lwin.start_s + a->lwin.len_s) {
		lines_session_close(a->lines_index);
		a->lines_index = -1;
		a->lines_done = true;
		results_log(a->e->r, "lines %s: window closed at %.1f s", a->tag, elapsed_s);
	}
	if (!a->lines_planned || a->lines_done || a->lines_index >= 0 || elapsed_s < a->lwin.start_s)
		return;
	a->lines_done = true;
	if (lines_session_claimed(driver)) {
		results_log(a->e->r, "lines %s: the driver opens its own windows", a->tag);
		return;
	}
	/* Its measured phase over (the marker gone, with its objects and
	 * counters): a window now would count its teardown. */
	if (!lines_session_phase_of(driver, &phase)) {
		results_skip(a->e->r, "lines window", "the driver's measured phase ended before the window's time");
		return;
	}
	w.objs = a->lines_objs ? a->lines_objs : lines_session_objects(driver);
	a->lines_index = lines_session_open(&w);
	if (a->lines_index < 0)
		results_skip(a->e->r, "lines window", "the window could not be opened (see log)");
	else
		results_log(a->e->r, "lines %s: window %d opened at %.1f s for %.1f s (%zu objects)", a->tag,
			    a->lines_index, elapsed_s, a->lwin.len_s, w.objs->n);
	a->lines_done = a->lines_index < 0;
}

/*
 * The driver's memcgs for perf c2c's field names: found once its cgroup
 * tree is there and half the way to the window is gone, never inside the
 * window (finding a memcg's address moves a helper task into it: that is
 * not what the window should sample).  Should the tree appear only later,
 * the last tick before the window finds it; one inside the window is said.
 */
static void c2c_tick(struct around *a, pid_t driver, double elapsed_s)
{
	char name[96];
	char **dirs = NULL;
	int n = 0;
	FILE *f;
	double t0;
	bool last_chance;

	if (!a->c2c || !a->e->have_btf || a->objects_found || elapsed_s < a->c2c->win.start_s / 2)
		return;
	snprintf(name, sizeof(name), LAB_OWNER_PREFIX "%d-%llu", (int)driver, proc_start_time(driver));
	c2c_run_memcgs(a->e->cg.memory_root, name, &dirs, &n);
	/* Until the tree is there (the root memcg alone), wait: a tick of
	 * ~100 ms before the window is the last chance. */
	last_chance = elapsed_s >= a->c2c->win.start_s - 0.2;
	if (n < 2 && !last_chance)
		goto out;
	a->objects_found = true;
	if (n < 2)
		results_log(a->e->r, "c2c %s: no cgroup tree %s/%s to name objects in", a->tag, a->e->cg.memory_root,
			    name);
	t0 = now_mono();
	c2c_find_objects(&a->objs, &a->e->kbtf, (const char *const *)dirs, n, note_line, a->e->r);
	results_log(a->e->r, "c2c %s: %zu objects found at %.1f s in %.2f s, %s the window at %.1f s", a->tag,
		    a->objs.n, elapsed_s, now_mono() - t0,
		    elapsed_s + (now_mono() - t0) <= a->c2c->win.start_s ? "before" : "INSIDE (late)",
		    a->c2c->win.start_s);
	{
		char *p = xasprintf("c2c-objects.%s.tsv", a->tag);

		f = results_open_data(a->e->r, p);
		c2c_objects_write_tsv(&a->objs, f);
		outfile_close(f);
		free(p);
	}
out:
	for (int i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}

void around_tick(struct around *a, pid_t driver, double elapsed_s)
{
	if (a->e->lines)
		lines_tick(a, driver, elapsed_s);
	c2c_tick(a, driver, elapsed_s);
}

void around_finish(struct around *a)
{
	if (!a)
		return;
	if (a->lines_index >= 0)
		lines_session_close(a->lines_index);
	if (a->prio_set)
		lines_prio_restore(&a->prio);
	else if (a->lines_planned && !a->lines_done)
		results_skip(a->e->r, "lines window", a->phase_known ? "the driver ended before the window's time"
			     : "the driver never said when its measured phase began (lines_session_phase)");
	if (a->c2c) {
		int fin = c2c_collector_finish(a->c2c, a->e->have_btf ? &a->e->kbtf : NULL, &a->objs);

		window_row(a->e, a->c2c, a->tag);
		if (a->c2c->bound_failed) {
			a->e->bound_failures++;
			note("c2c %s: %s", a->tag, a->c2c->status);
		}
		if (fin < 0) {
			results_skip(a->e->r, "perf c2c report", a->c2c->status);
		} else {
			/* The field table, where report looks for it. */
			char *src = xasprintf("%s/c2c/attribution.txt", a->c2c->dir), *text = read_text(src, NULL);
			char *name = xasprintf("c2c-fields.%s.txt", a->tag);

			if (text) {
				FILE *f = results_open_data(a->e->r, name);

				fputs(text, f);
				outfile_close(f);
			} else {
				/* The table report shows is missing: the run is not complete. */
				outfile_failure(src, "cannot read", errno);
			}
			results_log(a->e->r, "c2c %s: %s", a->tag, a->c2c->status);
			free(src);
			free(text);
			free(name);
		}
		c2c_collector_free(a->c2c);
	}
	c2c_objects_free(&a->objs);
	free(a);
}
