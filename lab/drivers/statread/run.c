// SPDX-License-Identifier: GPL-2.0
/*
 * Runs a planned stat-read workload: builds the tree, starts the allocators
 * (processes, one per slot in a leaf) and the readers (threads of this
 * process), measures, and takes everything down again.
 *
 * The start is a moment on CLOCK_MONOTONIC fixed before any worker runs:
 * readers sleep until it (staggered across one interval), allocators wait
 * on a futex word the main thread sets and wakes at that moment (one
 * wake for all of them; a pipe's EOF wakes its readers one at a time
 * through the pipe's mutex).  Warm-up and end are
 * fixed the same way, so no worker ever looks at shared state but the stop
 * flags, written once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "c2c/lines_session.h"
#include "drivers/statread/stat_reader.h"
#include "drivers/statread/driver.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/futexword.h"
#include "util/nofile.h"

#define NS 1000000000ull
#define SAMPLE_NS NS		/* allocator throughput once a second */
#define STOP_GRACE_NS (5 * NS)	/* allocators get this long to stop before SIGKILL */

struct run {
	const struct statread_plan *p;
	struct statread_result *res;
	struct cg_tree tree;
	char **cg_path;
	/* Shared with the allocators: one slot each, then the stop flag. */
	struct alloc_slot *slots;
	size_t slots_len;
	volatile int *alloc_stop;
	int *alloc_go;
	pid_t *pid;
	bool *reaped;
	int nalive;
	bool killed_by_us;
	struct rusage ru;
	uint64_t last_exit_ns;
	/* Readers. */
	struct stat_reader **reader;
	pthread_t *thread;
	int nthreads;
	/* The lines window (vm --lines) of a bare run, within the measured phase. */
	struct {
		bool planned, done;
		int index;		/* open: its number; else -1 */
		uint64_t open_ns, close_ns;
		struct lines_window_info info;
	} lw;
};

/* Written once, at the end; readers only read it. */
static volatile int readers_stop __attribute__((aligned(64)));

static void sleep_until_ns(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / NS, .tv_nsec = t % NS };

	/* A signal ends the sleep early: the caller checks the stop request. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static uint64_t alloc_bytes_total(const struct run *R)
{
	uint64_t sum = 0;

	for (int i = 0; i < R->p->nallocators; i++)
		sum += R->slots[i].bytes;
	return sum;
}

char **statread_cg_paths(const struct statread_plan *p, const char *root)
{
	char **path = xcalloc(p->ncgs, sizeof(*path));

	for (int i = 0; i < p->ncgs; i++)
		path[i] = p->cgs[i].rel[0] ? xasprintf("%s/%s", root, p->cgs[i].rel) : xstrdup(root);
	return path;
}

void statread_free_paths(const struct statread_plan *p, char **path)
{
	for (int i = 0; path && i < p->ncgs; i++)
		free(path[i]);
	free(path);
}

/* The limit each cgroup gets (0: none). */
static int64_t planned_limit(const struct statread_plan *p, int i)
{
	if (p->cgs[i].level == SR_LEAF && p->cfg.limit_bytes > 0)
		return p->cfg.limit_bytes;
	if (p->cgs[i].level == SR_TOP && p->cfg.top_limit_bytes > 0)
		return p->cfg.top_limit_bytes;
	return 0;
}

static const char *reader_dir(const struct statread_plan *p, const struct cg_env *env,
			      char **path, int reader)
{
	int cg = p->readers[reader].cg;

	if (p->cgs[cg].level == SR_ROOT && p->cfg.host_root)
		return env->memory_root;
	return path[cg];
}

void statread_describe_setup(FILE *f, const struct statread_plan *p, const struct cg_env *env,
			     const char *root)
{
	char **path = statread_cg_paths(p, root);

	fprintf(f, "cgroup %s, memory controller at %s\n", p->v2 ? "v2" : "v1", env->memory_root);
	for (int i = 0; i < p->ncgs; i++) {
		int64_t lim = planned_limit(p, i);

		fprintf(f, "mkdir %s", path[i]);
		if (p->v2)
			fprintf(f, " (+memory in the parent's cgroup.subtree_control)");
		fputc('\n', f);
		if (lim)
			fprintf(f, "  %s/%s = %lld\n", path[i], p->limit_file, (long long)lim);
		if (p->cgs[i].level == SR_LEAF && p->cfg.allocators)
			fprintf(f, "  %d allocators (%s) in %s/cgroup.procs\n", p->cfg.allocators,
				alloc_kind_names[p->cfg.kind], path[i]);
	}
	for (int r = 0; r < p->nreaders; r++)
		for (int fi = 0; fi < SR_NFILES; fi++)
			if (p->cfg.file_mask & (1u << fi))
				fprintf(f, "reader %d (%s): %s/%s\n", r,
					statread_level_names[p->cgs[p->readers[r].cg].level],
					reader_dir(p, env, path, r), statread_file_names[fi]);
	fprintf(f, "evidence of reclaim per leaf: %s%s%s", p->hit_limit_file,
		p->hit_limit_key ? " key " : "", p->hit_limit_key ? p->hit_limit_key : "");
	for (int k = 0; k < 3; k++)
		if (p->reclaim_keys[k])
			fprintf(f, ", memory.stat %s", p->reclaim_keys[k]);
	fprintf(f, "; OOM kills: %s key oom_kill\n", p->oom_file);
	statread_free_paths(p, path);
}

static void build_tree(struct run *R)
{
	const struct statread_plan *p = R->p;
	char err[256];
	int e;

	if (cg_tree_create(&R->tree, err, sizeof(err)) < 0)
		die("statread: cannot create the cgroup tree: %s", err);
	snprintf(R->res->tree_root, sizeof(R->res->tree_root), "%s", R->tree.root);
	R->cg_path = statread_cg_paths(p, R->tree.root);
	for (int i = 1; i < p->ncgs; i++) {
		int64_t lim = planned_limit(p, i);

		e = cg_create(&R->tree.env, R->cg_path[i]);
		if (e < 0)
			die("%s: cannot create cgroup: %s", R->cg_path[i], strerror(-e));
		e = lim ? cg_set_limit(&R->tree.env, R->cg_path[i], lim) : 0;
		if (e < 0)
			die("%s/%s: cannot set the limit: %s", R->cg_path[i], p->limit_file,
			    strerror(-e));
	}
}

static void spawn_allocators(struct run *R)
{
	const struct statread_plan *p = R->p;
	struct reclaim_alloc a = {
		.kind = p->cfg.kind,
		.bytes = p->cfg.alloc_bytes,
		.work = p->cfg.work_bytes,
		.file_dir = p->cfg.file_dir,
	};
	int n = 0;

	R->slots_len = ((size_t)p->nallocators + 1) * sizeof(struct alloc_slot);
	R->slots = mmap(NULL, R->slots_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (R->slots == MAP_FAILED)
		die("statread: cannot map the allocators' counters: %s", strerror(errno));
	/* The parent's words, alone on the cacheline after the slots: the
	 * stop flag, then the start barrier. */
	R->alloc_stop = (volatile int *)&R->slots[p->nallocators];
	R->alloc_go = (int *)&R->slots[p->nallocators] + 1;
	a.stop = R->alloc_stop;
	a.go = R->alloc_go;
	R->pid = xcalloc(p->nallocators ? p->nallocators : 1, sizeof(*R->pid));
	R->reaped = xcalloc(p->nallocators ? p->nallocators : 1, sizeof(*R->reaped));
	for (int i = 0; i < p->ncgs; i++) {
		if (p->cgs[i].level != SR_LEAF)
			continue;
		for (int k = 0; k < p->cfg.allocators; k++, n++) {
			a.slot = &R->slots[n];
			R->pid[n] = cg_spawn(&R->tree.env, R->cg_path[i], -1, reclaim_alloc_main, &a);
			if (R->pid[n] < 0)
				die("%s: cannot start allocator %d: %s", R->cg_path[i], k,
				    strerror((int)-R->pid[n]));
			R->nalive++;
		}
	}
}

/* Collects allocators that exited; wait says whether to block. */
static void reap(struct run *R, bool wait)
{
	struct statread_result *res = R->res;

	for (int i = 0; i < R->p->nallocators; i++) {
		struct rusage ru;
		int st;
		pid_t r;

		if (R->reaped[i])
			continue;
		r = wait4(R->pid[i], &st, wait ? 0 : WNOHANG, &ru);
		if (r != R->pid[i])
			continue;
		R->reaped[i] = true;
		R->nalive--;
		R->last_exit_ns = mono_ns();
		R->ru.ru_utime.tv_sec += ru.ru_utime.tv_sec;
		R->ru.ru_utime.tv_usec += ru.ru_utime.tv_usec;
		R->ru.ru_stime.tv_sec += ru.ru_stime.tv_sec;
		R->ru.ru_stime.tv_usec += ru.ru_stime.tv_usec;
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && !R->killed_by_us) {
			res->oom_killed++;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			if (!res->died_other++)
				res->first_exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
	}
}

static void stop_allocators(struct run *R)
{
	uint64_t give_up = mono_ns() + STOP_GRACE_NS;

	*R->alloc_stop = 1;
	while (R->nalive > 0 && mono_ns() < give_up) {
		reap(R, false);
		if (R->nalive > 0)
			usleep(10000);
	}
	if (R->nalive > 0) {
		/* Stuck (e.g. in reclaim with nothing reclaimable): not an OOM kill. */
		R->killed_by_us = true;
		for (int i = 0; i < R->p->nallocators; i++)
			if (!R->reaped[i])
				kill(R->pid[i], SIGKILL);
		reap(R, true);
	}
}

static void *reader_thread(void *arg)
{
	stat_reader_loop(arg);
	return NULL;
}

static void prepare_readers(struct run *R)
{
	const struct statread_plan *p = R->p;

	R->reader = xcalloc(p->nreaders, sizeof(*R->reader));
	for (int i = 0; i < p->nreaders; i++) {
		const char *dir = reader_dir(p, &R->tree.env, R->cg_path, i);
		struct stat_reader *r;

		if (posix_memalign((void **)&r, 64, sizeof(*r)))
			die("out of memory");
		memset(r, 0, sizeof(*r));
		for (int f = 0; f < SR_NFILES; f++)
			if (p->cfg.file_mask & (1u << f))
				r->path[r->nfiles++] = xasprintf("%s/%s", dir, statread_file_names[f]);
		r->reopen = p->cfg.reopen;
		r->interval_ns = p->cfg.flat_out ? 0 : p->cfg.interval_ns;
		r->stop = &readers_stop;
		if (stat_reader_prepare(r) < 0)
			die("%s: cannot open: %s", r->path[r->nfiles - 1], strerror(r->first_errno));
		R->reader[i] = r;
	}
}

static void start_readers(struct run *R, uint64_t t_go, uint64_t measure, uint64_t end)
{
	const struct statread_plan *p = R->p;
	pthread_attr_t attr;
	sigset_t all, old;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 << 10);
	/* Signals go to the main thread, which turns them into a stop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	R->thread = xcalloc(p->nreaders, sizeof(*R->thread));
	for (int i = 0; i < p->nreaders; i++) {
		struct stat_reader *r = R->reader[i];
		int e;

		/* Spread the readers over one period, as independent loops are. */
		r->first_ns = t_go + (r->interval_ns ? (uint64_t)r->interval_ns * i / p->nreaders : 0);
		r->measure_ns = measure;
		r->end_ns = end;
		e = pthread_create(&R->thread[i], &attr, reader_thread, r);
		if (e) {
			readers_stop = 1;
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			die("statread: cannot start reader %d of %d: %s", i, p->nreaders, strerror(e));
		}
		R->nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

static void collect_readers(struct run *R)
{
	const struct statread_plan *p = R->p;
	struct statread_result *res = R->res;

	for (int i = 0; i < R->nthreads; i++)
		pthread_join(R->thread[i], NULL);
	for (int i = 0; i < p->nreaders; i++) {
		struct stat_reader *r = R->reader[i];
		enum statread_level lv = p->cgs[p->readers[i].cg].level;
		int k = 0;

		for (int f = 0; f < SR_NFILES; f++) {
			if (!(p->cfg.file_mask & (1u << f)))
				continue;
			hist_merge(&res->hist[lv][f], r->hist[k]);
			res->reads[lv][f] += r->reads[k];
			res->errors[lv][f] += r->errors[k];
			k++;
		}
		if (r->first_errno && !res->first_errno)
			res->first_errno = r->first_errno;
		res->missed_ticks += r->missed_ticks;
		stat_reader_release(r);
		for (int f = 0; f < r->nfiles; f++)
			free(r->path[f]);
		free(r);
	}
	free(R->reader);
	free(R->thread);
}

static void read_leaf_evidence(struct run *R)
{
	const struct statread_plan *p = R->p;
	struct statread_result *res = R->res;
	int n = 0;

	res->leaves = xcalloc(p->nleaves ? p->nleaves : 1, sizeof(*res->leaves));
	for (int i = 0; i < p->ncgs; i++) {
		struct statread_leaf_result *l;
		const char *cg = R->cg_path[i];

		if (p->cgs[i].level != SR_LEAF)
			continue;
		l = &res->leaves[n++];
		if (p->hit_limit_key ? cg_read_key_ll(cg, p->hit_limit_file, p->hit_limit_key, &l->hit_limit)
				     : cg_read_ll(cg, p->hit_limit_file, &l->hit_limit))
			l->hit_limit = -1;
		for (int k = 0; k < 3; k++)
			if (!p->reclaim_keys[k] || cg_read_key_ll(cg, "memory.stat", p->reclaim_keys[k],
								  &l->reclaim[k]))
				l->reclaim[k] = -1;
		if (cg_read_key_ll(cg, p->oom_file, "oom_kill", &l->oom_kills))
			l->oom_kills = -1;
		else
			res->oom_kills_total += l->oom_kills;
	}
}

static void hooks_prepare(struct statread_hook *hooks, int n, const struct statread_run_info *info)
{
	for (int i = 0; i < n; i++) {
		int e = hooks[i].prepare ? hooks[i].prepare(hooks[i].ctx, info) : 0;

		hooks[i].prepared = e == 0;
		if (e)
			warnx_lab("statread: %s could not be prepared (%s); the run goes on without it",
				  hooks[i].name, strerror(e < 0 ? -e : e));
	}
}

static void hooks_start(struct statread_hook *hooks, int n, const struct statread_run_info *info)
{
	for (int i = 0; i < n; i++) {
		int e;

		if (!hooks[i].prepared)
			continue;
		e = hooks[i].start ? hooks[i].start(hooks[i].ctx, info) : 0;
		hooks[i].started = e == 0;
		hooks[i].on_ns = mono_ns();
		if (e)
			warnx_lab("statread: %s did not start (%s); the run goes on without it",
				  hooks[i].name, strerror(e < 0 ? -e : e));
	}
}

static void hooks_stop(struct statread_hook *hooks, int n, const struct statread_run_info *info)
{
	uint64_t now = mono_ns();

	for (int i = n - 1; i >= 0; i--) {
		if (!hooks[i].started)
			continue;
		hooks[i].off_ns = now;
		if (hooks[i].stop)
			hooks[i].stop(hooks[i].ctx, info);
	}
}

/* What every started hook covered of the measured phase [from, to]. */
static void traced_window(struct statread_result *res, const struct statread_hook *hooks, int n,
			  uint64_t from, uint64_t to)
{
	uint64_t on = from, off = to;

	for (int i = 0; i < n; i++) {
		if (!hooks[i].started)
			continue;
		res->hooks_started++;
		if (hooks[i].on_ns > on)
			on = hooks[i].on_ns;
		if (hooks[i].off_ns < off)
			off = hooks[i].off_ns;
	}
	if (!res->hooks_started || to <= from)
		return;
	if (off < on)
		off = on;
	res->traced_from_s = (double)(on - from) / NS;
	res->traced_to_s = (double)(off - from) / NS;
	res->traced_share = (double)(off - on) / (double)(to - from);
}

/* The readers' counts, for the lines window's operations (every reader's
 * reads[], in this process). */
static void lines_counters(struct run *R)
{
	const struct statread_plan *p = R->p;
	struct lines_counter *c;

	if (!lines_session_active())
		return;
	c = xcalloc(p->nreaders ? p->nreaders : 1, sizeof(*c));
	for (int i = 0; i < p->nreaders; i++)
		c[i] = (struct lines_counter){ &R->reader[i]->reads[0], (size_t)R->reader[i]->nfiles, sizeof(uint64_t) };
	lines_session_counters(c, p->nreaders, "reads");
	free(c);
}

/*
 * A bare run's lines window (p->lines_label): planned within the measured
 * phase as the charge harness plans its own (lines_plan_window), the
 * run's memcgs and the kernel's objects found now, before the start.
 */
static void lines_prepare(struct run *R)
{
	const struct statread_plan *p = R->p;
	double start_s, len_s;

	R->lw.index = -1;
	if (!lines_session_active())
		return;
	/* The runner's window (c2c/around.c) takes the objects found here. */
	if (!p->lines_label) {
		lines_session_objects(getpid());
		return;
	}
	if (p->cfg.duration_ns <= 0 || lines_plan_window((double)p->cfg.duration_ns / NS, &start_s, &len_s) < 0) {
		note("lines: no window: the measured phase has no fixed length of at least a second");
		return;
	}
	R->lw.info = (struct lines_window_info){ .label = p->lines_label, .who = "statread", .start_s = start_s,
						 .len_s = len_s, .objs = lines_session_objects(getpid()),
						 .counted = getpid() };
	R->lw.planned = true;
}

/* Opens or closes the window when its time has come; the next edge. */
static uint64_t lines_edge(struct run *R, uint64_t now)
{
	if (!R->lw.planned || R->lw.done)
		return UINT64_MAX;
	if (R->lw.index < 0 && now >= R->lw.open_ns) {
		R->lw.index = lines_session_open(&R->lw.info);
		R->lw.done = R->lw.index < 0;
	} else if (R->lw.index >= 0 && now >= R->lw.close_ns) {
		lines_session_close(R->lw.index);
		R->lw.index = -1;
		R->lw.done = true;
	}
	return R->lw.done ? UINT64_MAX : R->lw.index < 0 ? R->lw.open_ns : R->lw.close_ns;
}

/* The main thread during the run: throughput samples, reaping, the hooks
 * at the phase boundaries, and stop requests.  Returns the measured
 * phase's real end. */
static uint64_t supervise(struct run *R, uint64_t t_go, uint64_t measure, uint64_t end,
			  struct statread_hook *hooks, int nhooks,
			  const struct statread_run_info *info, uint64_t *at_measure)
{
	const struct statread_plan *p = R->p;
	struct statread_result *res = R->res;
	uint64_t next_sample = t_go + SAMPLE_NS, prev_bytes = 0, prev_t = t_go, now;
	int cap = 64;
	bool started = false, work_mode = p->cfg.work_bytes > 0;

	res->sample_t = xcalloc(cap, sizeof(double));
	res->sample_mib_s = xcalloc(cap, sizeof(double));
	for (;;) {
		uint64_t wake = next_sample, edge = lines_edge(R, mono_ns());

		if (!started && measure < wake)
			wake = measure;
		if (end < wake)
			wake = end;
		if (edge < wake)
			wake = edge;
		sleep_until_ns(wake);
		now = mono_ns();
		lines_edge(R, now);
		if (!started && now >= measure) {
			/* The readers measure from now: nothing comes first. */
			for (int i = 0; i < p->nallocators; i++)
				at_measure[i] = R->slots[i].bytes;
			hooks_start(hooks, nhooks, info);
			started = true;
		}
		reap(R, false);
		if (now >= next_sample) {
			uint64_t b = alloc_bytes_total(R);

			if (res->nsamples == cap) {
				cap *= 2;
				res->sample_t = xrealloc(res->sample_t, cap * sizeof(double));
				res->sample_mib_s = xrealloc(res->sample_mib_s, cap * sizeof(double));
			}
			res->sample_t[res->nsamples] = (double)(now - t_go) / NS;
			res->sample_mib_s[res->nsamples++] = (double)(b - prev_bytes) / (1 << 20) /
							     ((double)(now - prev_t) / NS);
			prev_bytes = b;
			prev_t = now;
			next_sample += SAMPLE_NS;
		}
		if (lab_stop_requested()) {
			res->interrupted = true;
			break;
		}
		if (now >= end)
			break;
		if (work_mode && R->nalive == 0)
			break;
		if (!work_mode && p->nallocators && R->nalive == 0) {
			/* Every allocator died: nothing drives reclaim any more. */
			break;
		}
	}
	if (!started) {
		for (int i = 0; i < p->nallocators; i++)
			at_measure[i] = R->slots[i].bytes;
		hooks_start(hooks, nhooks, info);
		measure = now;
	}
	hooks_stop(hooks, nhooks, info);
	/* A run cut short closes its lines window here. */
	if (R->lw.index >= 0) {
		lines_session_close(R->lw.index);
		R->lw.index = -1;
	}
	res->measured_s = now > measure ? (double)(now - measure) / NS : 0;
	traced_window(res, hooks, nhooks, measure, now);
	return now;
}

int statread_run(const struct statread_plan *p, struct statread_hook *hooks, int nhooks,
		 struct statread_result *res)
{
	struct run R = { .p = p, .res = res };
	struct statread_run_info info = { .plan = p };
	uint64_t t_go, measure, end, t_end, lead, *at_measure;
	int e;

	memset(res, 0, sizeof(*res));
	/* Every reader keeps its files open in this one process (10000
	 * readers of Wei Xu's benchmark, 251 of stress.sh), past the usual
	 * soft limit of 1024 and the bare hard limit of 4096; the plan
	 * checked p->fds against what the limit can be raised to. */
	e = nofile_raise(p->fds);
	if (e)
		die("statread: cannot raise RLIMIT_NOFILE to the %lld files its %d readers keep open: %s",
		    p->fds, p->nreaders, strerror(-e));
	for (int l = 0; l < SR_NLEVELS; l++)
		for (int f = 0; f < SR_NFILES; f++)
			hist_init(&res->hist[l][f]);
	readers_stop = 0;
	build_tree(&R);
	info.tree_root = R.tree.root;
	/* Fork before any thread exists. */
	spawn_allocators(&R);
	prepare_readers(&R);
	/* What takes long happens before the warm-up, not in the phase. */
	hooks_prepare(hooks, nhooks, &info);
	/* The lines window's objects (seconds under TCG) before the start too. */
	lines_prepare(&R);
	lines_counters(&R);
	at_measure = xcalloc(p->nallocators ? p->nallocators : 1, sizeof(*at_measure));

	cleanup_set_polling(true);
	/* Time to create every thread before the start. */
	lead = 100000000ull + (uint64_t)p->nreaders * 50000ull;
	t_go = mono_ns() + lead;
	measure = t_go + (uint64_t)p->cfg.warmup_ns;
	end = p->cfg.duration_ns > 0 ? measure + (uint64_t)p->cfg.duration_ns : UINT64_MAX;
	R.lw.open_ns = measure + (uint64_t)(R.lw.info.start_s * NS);
	R.lw.close_ns = R.lw.open_ns + (uint64_t)(R.lw.info.len_s * NS);
	start_readers(&R, t_go, measure, end);
	sleep_until_ns(t_go);
	t_go = mono_ns();
	futex_word_store_wake(R.alloc_go, 1);
	/* vm --lines: the runner times its window from the measured phase. */
	lines_session_phase((double)measure / NS);

	t_end = supervise(&R, t_go, measure, end, hooks, nhooks, &info, at_measure);
	lines_session_phase(-1);
	lines_session_unpublish();
	res->alloc_bytes_measured = 0;
	res->alloc_min_bytes = UINT64_MAX;
	for (int i = 0; i < p->nallocators; i++) {
		uint64_t b = R.slots[i].bytes - at_measure[i];

		res->alloc_bytes_measured += b;
		if (b < res->alloc_min_bytes)
			res->alloc_min_bytes = b;
		if (b > res->alloc_max_bytes)
			res->alloc_max_bytes = b;
	}
	if (!p->nallocators)
		res->alloc_min_bytes = 0;
	/* Readers record nothing from here on; allocators stop next, after
	 * the leaves' counters are read while reclaim still runs. */
	readers_stop = 1;
	read_leaf_evidence(&R);
	stop_allocators(&R);
	collect_readers(&R);
	cleanup_set_polling(false);
	if (lab_stop_requested())
		res->interrupted = true;
	/* The allocation phase: from the start to the last allocator's exit. */
	if (p->nallocators)
		res->alloc_real_s = (double)((R.last_exit_ns > t_go ? R.last_exit_ns : t_end) - t_go) / NS;
	res->alloc_user_s = R.ru.ru_utime.tv_sec + R.ru.ru_utime.tv_usec / 1e6;
	res->alloc_sys_s = R.ru.ru_stime.tv_sec + R.ru.ru_stime.tv_usec / 1e6;

	cleanup_pop(R.tree.cleanup_handle, true);
	res->tree_removed = !path_exists(R.tree.root);
	munmap(R.slots, R.slots_len);
	statread_free_paths(p, R.cg_path);
	free(R.pid);
	free(R.reaped);
	free(at_measure);
	return 0;
}

void statread_result_free(struct statread_result *res)
{
	free(res->sample_t);
	free(res->sample_mib_s);
	free(res->leaves);
	res->sample_t = res->sample_mib_s = NULL;
	res->leaves = NULL;
}
