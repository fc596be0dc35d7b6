// SPDX-License-Identifier: GPL-2.0
/*
 * A charge plan on this machine: the cgroup tree is built, the harness
 * (drivers/harness.h) runs the mode's loop once per task count with the
 * kernel's counters read around each window; the stock and objstock modes
 * sweep K memcgs on one CPU instead.  What each step measured goes to
 * report.c as it comes.
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_session.h"
#include "drivers/charge/report.h"
#include "drivers/charge/run.h"
#include "drivers/charge/evidence.h"
#include "drivers/charge/kmod.h"
#include "drivers/harness.h"
#include "drivers/charge/loops.h"
#include "drivers/placement.h"
#include "drivers/charge/stock.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/nofile.h"
#include "util/outfile.h"
#include "util/results.h"
#include "util/tsv.h"

/* What the harness hooks below need, per run (stock: per K). */
struct run_ctx {
	struct placement *pl;
	struct evidence *ev;
	struct stock_ctl *stock;	/* stock mode */
	const struct cg_env *env;
	const char *root;
	int rounds;
	long page;
	struct stock_holders holders;
	const char *kmod_cache;		/* kmem with the module: its /proc file's name */
	struct kmod_counts k0, k1;	/* its counters at the start barrier and the window's end */
};

static int hook_enter(void *arg, int idx, char *err, size_t errlen)
{
	struct run_ctx *x = arg;
	int e;

	if (x->pl)
		return placement_enter(x->pl, idx, err, errlen);
	/* --cgroups 0: the root memcg, where nothing is charged. */
	e = cg_enter_root(x->env, 0);
	if (e < 0)
		snprintf(err, errlen, "moving worker %d into the root memcg %s: %s", idx, x->env->memory_root,
			 strerror(-e));
	return e;
}

static void hook_before(void *arg)
{
	struct run_ctx *x = arg;

	if (x->ev)
		evidence_before(x->ev);
	if (x->kmod_cache)
		kmod_read(x->kmod_cache, &x->k0);
}

static void hook_window_end(void *arg)
{
	struct run_ctx *x = arg;

	if (x->ev)
		evidence_after(x->ev);
	if (x->kmod_cache)
		kmod_read(x->kmod_cache, &x->k1);
	if (x->stock)
		stock_holders_measure(x->stock, x->env, x->root, x->rounds, x->page, &x->holders);
}

static bool hook_death(void *arg, int idx, int wstatus, char *buf, size_t n)
{
	struct run_ctx *x = arg;

	return x->ev && evidence_death_cause(x->ev, idx, wstatus, buf, n);
}

static const char *step_tag(const struct results *res, bool steps, int tasks, char *buf, size_t n)
{
	if (res && res->attached && !steps)
		return res->step;
	snprintf(buf, n, "tasks=%d", tasks);
	return buf;
}

static struct charge_opts loop_opts(const struct charge_plan *pl)
{
	const struct charge_config *o = &pl->cfg;

	return (struct charge_opts){
		.page = (size_t)pl->page, .size = (size_t)o->size, .populate = o->populate, .objects = (int)o->objects,
		.msg = (size_t)o->msg, .tmpfs = o->tmpfs, .stock_pages = CHARGE_BATCH_PAGES,
		.kmod_accounted = !o->unaccounted, .kmod_batch = o->batch,
	};
}

static struct harness_cfg harness_for(const struct charge_plan *pl, const struct charge_opts *lo, int n,
				      const int *cpu, const int *cg, struct run_ctx *x)
{
	const struct charge_config *o = &pl->cfg;

	return (struct harness_cfg){
		.loop = pl->loop, .loop_cfg = lo, .nworkers = n, .threads = o->threads,
		.duration_s = o->duration, .warmup_s = o->warmup, .worker_cpu = cpu,
		.worker_cgroup = cg, .stop_on_death = o->stop_on_death,
		.progress = o->verbose ? stderr : NULL,
		.hooks = { .arg = x, .enter_cgroup = x->pl || x->env ? hook_enter : NULL, .before_start = hook_before,
			   .window_end = hook_window_end, .death_cause = hook_death },
	};
}

/*
 * A run of the modes that step through task counts (all but the stock
 * sweeps), one step one function as perf record's record__open,
 * record__mmap_read_all and record__finish_output: modes_open builds the
 * tree and opens the outputs, modes_step runs and reports one task count,
 * modes_finish writes the summary and takes everything down.
 */
struct modes_run {
	const struct charge_plan *pl;
	struct results *res;		/* NULL: nothing stored */
	struct placement p;		/* the cgroup tree (pl->use_cg) */
	struct evidence ev;		/* the kernel's counters of its cgroups */
	struct charge_outputs out;
	struct run_ctx x;		/* the harness hooks' */
	struct charge_opts lo;		/* the loop's */
	struct charge_step_row *rows;	/* per step, for the closing table */
	int *cpu, *cg;			/* per worker of the largest step */
	char *all;			/* every step's text, for charge-summary.txt */
	size_t alllen;
	FILE *summary;
	int ret;			/* 1: a worker died and --on-death stop */
};

static void modes_open(struct modes_run *m, const struct charge_plan *pl, struct results *res)
{
	const struct charge_config *o = &pl->cfg;
	int maxn = pl->steps[pl->nsteps - 1];
	char err[512];

	memset(m, 0, sizeof(*m));
	m->pl = pl;
	m->res = res;
	m->lo = loop_opts(pl);
	m->rows = xcalloc(pl->nsteps, sizeof(*m->rows));
	m->cpu = xcalloc(maxn, sizeof(int));
	m->cg = xcalloc(maxn, sizeof(int));
	m->summary = open_memstream(&m->all, &m->alllen);
	if (pl->use_cg) {
		if (placement_build(&m->p, o->depth, o->fanout, pl->ncg, o->limit, o->tcp_limit, err, sizeof(err)))
			die("charge: %s", err);
		evidence_init(&m->ev, &m->p.tree.env, o->mode, m->p.ncg, m->p.leaf, m->p.label);
		m->x.pl = &m->p;
		m->x.ev = &m->ev;
	} else {
		m->x.env = &pl->env;	/* the root memcg */
	}
	if (pl->kmod)
		m->x.kmod_cache = o->unaccounted ? "unaccounted" : "accounted";
	if (res)
		results_meta_set(res, "charge", charge_report_config(pl, pl->use_cg ? &m->p : NULL));
	charge_outputs_open(&m->out, res);
}

/* Step s's summary: on stdout as it comes, and kept for charge-summary.txt. */
static void modes_print_step(struct modes_run *m, int s, int n, const struct harness_result *r,
			     const struct charge_kmod_window *km)
{
	const struct charge_plan *pl = m->pl;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (s)
		fputc('\n', f);
	charge_report_step(f, pl, pl->use_cg ? &m->p : NULL, r, pl->use_cg ? &m->ev : NULL, m->cpu, n,
			   pl->step_names[s], pl->kmod ? km : NULL);
	fclose(f);
	charge_report_emit(text);
	fputs(text, m->summary);
	free(text);
}

/* The step's cell and its tab, the first of each row (util/tsv.h's cell). */
static void step_prefix(char *prefix, size_t n, const char *step)
{
	char *cell = tsv_asprintf("%s\t", step);

	snprintf(prefix, n, "%s", cell);
	free(cell);
}

/* Step s's rows in the results directory: workers, series, cgroups,
 * metrics.tsv and the log. */
static void modes_write_step(struct modes_run *m, int s, int n, const char *step, const struct harness_result *r,
			     const struct charge_kmod_window *km)
{
	const struct charge_plan *pl = m->pl;
	char prefix[160];

	step_prefix(prefix, sizeof(prefix), step);
	if (m->out.workers)
		harness_write_workers(r, pl->loop, m->out.workers, s ? NULL : "step\t", prefix);
	if (m->out.series)
		harness_write_series(r, pl->loop, m->out.series, s ? NULL : "step\t", prefix);
	if (m->out.cgroups && pl->use_cg) {
		unsigned long long *ops = xcalloc(m->p.ncg, sizeof(*ops));

		for (int i = 0; i < n; i++)
			if (r->w[i].cgroup >= 0)
				ops[r->w[i].cgroup] += r->w[i].ops_all;
		evidence_write_tsv(&m->ev, ops, m->out.cgroups, s ? NULL : "step\t", prefix);
		free(ops);
	}
	charge_report_metrics(m->out.metrics, pl, step, m->res->repeat, r, pl->kmod ? km : NULL);
	results_log(m->res, "charge %s %s: %.6g %s", pl->cfg.mode, step, r->total_rate * pl->loop->rate_scale,
		    pl->loop->rate_unit);
}

/* Runs and reports step s; true when the run stops there (Ctrl-C, or a
 * worker died and --on-death stop). */
static bool modes_step(struct modes_run *m, int s)
{
	const struct charge_plan *pl = m->pl;
	const struct charge_config *o = &pl->cfg;
	int n = pl->steps[s];
	struct harness_cfg hc;
	struct harness_result r;
	struct charge_kmod_window km = { 0 };
	char stepbuf[64], err[512];
	const char *step = step_tag(m->res, o->steps, n, stepbuf, sizeof(stepbuf));
	bool stop;

	pin_assign(&pl->pin, pl->topo, n, m->cpu);
	for (int i = 0; i < n; i++)
		m->cg[i] = pl->use_cg ? i % pl->ncg : 0;
	hc = harness_for(pl, &m->lo, n, m->cpu, m->cg, &m->x);
	/* vm --lines: a window per step; in an experiment the runner
	 * opens it (c2c/around.c), at c2c's times. */
	if (!(m->res && m->res->attached))
		hc.lines_label = step;
	if (harness_run(&hc, &r, err, sizeof(err))) {
		if (lab_stop_requested())
			return true;
		die("charge: %s", err);
	}
	if (m->x.kmod_cache && m->x.k0.ok && m->x.k1.ok && m->x.k1.loops >= m->x.k0.loops)
		km = (struct charge_kmod_window){ true, m->x.k1.loops - m->x.k0.loops, m->x.k1.ns - m->x.k0.ns };
	modes_print_step(m, s, n, &r, &km);
	if (m->res)
		modes_write_step(m, s, n, step, &r, &km);
	m->rows[s] = charge_report_step_row(pl, &r, n, pl->step_names[s]);
	if (!r.interrupted && r.ndied && o->stop_on_death)
		m->ret = 1;
	stop = r.interrupted || m->ret;
	harness_result_free(&r);
	return stop;
}

/* The steps' table (more than one step), charge-summary.txt, and the tree
 * taken down; the run's exit status. */
static int modes_finish(struct modes_run *m)
{
	const struct charge_plan *pl = m->pl;

	if (pl->nsteps > 1) {
		char *text = NULL;
		size_t len;
		FILE *f = open_memstream(&text, &len);

		charge_report_steps(f, pl, m->rows, pl->nsteps);
		fclose(f);
		charge_report_emit(text);
		fputs(text, m->summary);
		free(text);
	}
	fclose(m->summary);
	if (m->res)
		charge_report_write_data(m->res, "charge-summary.txt", m->all);
	free(m->all);
	charge_outputs_close(&m->out);
	if (pl->use_cg) {
		evidence_free(&m->ev);
		placement_destroy(&m->p);
	}
	free(m->rows);
	free(m->cpu);
	free(m->cg);
	return m->ret;
}

static int run_modes(const struct charge_plan *pl, struct results *res)
{
	struct modes_run m;

	modes_open(&m, pl, res);
	for (int s = 0; s < pl->nsteps && !lab_stop_requested(); s++)
		if (modes_step(&m, s))
			break;
	return modes_finish(&m);
}

static int run_stock(const struct charge_plan *pl, struct results *res)
{
	const struct charge_config *o = &pl->cfg;
	struct charge_opts lo = loop_opts(pl);
	int kmax = o->stock_max, ncpus = o->stock_cpus, ret = 0, done = 0, cliff, most;
	bool obj = !strcmp(o->mode, "objstock");
	struct charge_stock_row *row = xcalloc(kmax, sizeof(*row));
	int *cpu = xcalloc((size_t)kmax * ncpus, sizeof(int)), *cg = xcalloc((size_t)kmax * ncpus, sizeof(int));
	cpu_set_t orig, others;
	struct placement p;
	struct evidence ev;
	struct charge_outputs out;
	char err[512], *text = NULL;
	size_t len;
	FILE *f, *tsv = NULL;

	if (placement_build(&p, 1, kmax, kmax, o->limit, -1, err, sizeof(err)))
		die("charge: %s", err);
	evidence_init(&ev, &p.tree.env, o->mode, p.ncg, p.leaf, p.label);
	/* vm --lines: one window per K, this driver's own (lines/K=N/ on the host). */
	lines_session_claim();
	if (res) {
		results_meta_set(res, "charge", charge_report_config(pl, &p));
		tsv = charge_report_stock_tsv(res, pl);
	}
	charge_outputs_open(&out, res);
	/* The parent keeps off the probed CPUs when there is another one. */
	sched_getaffinity(0, sizeof(orig), &orig);
	others = orig;
	for (int c = 0; c < ncpus; c++)
		CPU_CLR(pl->stock_cpu_list[c], &others);
	if (CPU_COUNT(&others))
		sched_setaffinity(0, sizeof(others), &others);
	for (int k = 1; k <= kmax && !lab_stop_requested(); k++) {
		struct run_ctx x = { .pl = &p, .ev = &ev, .env = &p.tree.env, .root = p.tree.root,
				     .rounds = o->stock_rounds, .page = pl->page };
		struct harness_result r;
		struct harness_cfg hc;
		char step[32], prefix[40];

		x.stock = stock_ctl_new(k, CPU_COUNT(&others) > 0, obj);
		lo.stock_ctl = x.stock;
		ev.ncg = k;
		/* --stock-cpus: K workers per CPU, the i-th of each in memcg i; the
		 * first CPU's K are the ones the holders are read with. */
		for (int c = 0; c < ncpus; c++)
			for (int i = 0; i < k; i++) {
				cpu[c * k + i] = pl->stock_cpu_list[c];
				cg[c * k + i] = i;
			}
		hc = harness_for(pl, &lo, k * ncpus, cpu, cg, &x);
		snprintf(step, sizeof(step), "K=%d", k);
		hc.lines_label = step;
		hc.lines_repeat = res ? res->repeat : 0;
		if (harness_run(&hc, &r, err, sizeof(err))) {
			stock_ctl_free(x.stock);
			if (lab_stop_requested())
				break;
			die("charge: stock K=%d: %s", k, err);
		}
		if (stock_holders_cleanup(p.tree.root, k, o->stock_rounds, err, sizeof(err))) {
			stock_ctl_free(x.stock);
			die("charge: stock K=%d: %s", k, err);
		}
		stock_ctl_free(x.stock);
		row[k - 1] = (struct charge_stock_row){ k, r.total_rate,
			r.total_ops ? (r.workers_user_s + r.workers_sys_s) * 1e9 / r.total_ops : NAN, x.holders,
			r.cut_short };
		done = k;
		if (o->verbose)
			fprintf(stderr, "stock K=%d: %.0f charges/s, %d holders\n", k, r.total_rate, x.holders.best);
		step_prefix(prefix, sizeof(prefix), step);
		if (res) {
			if (out.workers)
				harness_write_workers(&r, pl->loop, out.workers, k > 1 ? NULL : "step\t", prefix);
			if (out.series)
				harness_write_series(&r, pl->loop, out.series, k > 1 ? NULL : "step\t", prefix);
			if (out.cgroups)
				evidence_write_tsv(&ev, NULL, out.cgroups, k > 1 ? NULL : "step\t", prefix);
			charge_report_stock_row(tsv, out.metrics, pl, step, res->repeat, &row[k - 1]);
		}
		if (r.interrupted || (r.ndied && o->stop_on_death)) {
			ret = r.interrupted ? 0 : 1;
			harness_result_free(&r);
			break;
		}
		harness_result_free(&r);
	}
	sched_setaffinity(0, sizeof(orig), &orig);
	lines_session_unclaim();
	f = open_memstream(&text, &len);
	charge_report_stock(f, pl, row, done, &cliff, &most);
	fclose(f);
	charge_report_emit(text);
	if (res) {
		charge_report_write_data(res, "charge-summary.txt", text);
		charge_report_stock_meta(res, pl, done, cliff, most);
	}
	free(text);
	if (tsv)
		outfile_close(tsv);
	charge_outputs_close(&out);
	evidence_free(&ev);
	placement_destroy(&p);
	free(row);
	free(cpu);
	free(cg);
	return ret;
}

int charge_run(const struct charge_plan *p, struct results *res)
{
	/* kmem keeps --objects open, sock four per pair: the plan checked
	 * p->fds against what the limit can be raised to. */
	int e = nofile_raise(p->fds), ret;
	bool loaded = false;
	char err[1024];

	if (e)
		die("charge: cannot raise RLIMIT_NOFILE to the %lld files a worker process keeps open: %s",
		    p->fds, strerror(-e));
	if (!strcmp(p->cfg.mode, "kmem") && !p->kmod) {
		/* One line, once a run: the seed's module is not what runs. */
		char what[768];

		snprintf(what, sizeof(what), "%s: the kmem mode runs " KMOD_STANDIN, p->kmod_why);
		if (res)
			results_skip(res, "the seed's kmem_bench module", what);
		else
			note("charge: %s", what);
	}
	if (p->kmod && kmod_load(p->kmod_path, (unsigned int)p->cfg.object_size, &loaded, err, sizeof(err)))
		die("charge: --module: %s", err);
	ret = p->stock ? run_stock(p, res) : run_modes(p, res);
	if (loaded)
		kmod_unload();
	return ret;
}
