// SPDX-License-Identifier: GPL-2.0
/*
 * The harness (see harness.h for the contract).  Parent side: fork the
 * worker processes, wait for every worker's "ready" byte, open the barrier,
 * sample once a second, stop, reap.  Worker side: pin, enter the cgroup,
 * set up, wait on the barrier, loop, tear down.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "c2c/lines_session.h"
#include "drivers/harness.h"
#include "util/cleanup.h"
#include "util/cpus.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/futexword.h"
#include "util/labcost.h"
#include "util/tsv.h"

enum slot_state { S_SETUP, S_READY, S_RUNNING, S_DONE, S_FAILED };

/*
 * One worker's slot.  The counter is alone on the first 128 bytes (a line
 * pair); the rest is written only before the barrier and after the loop.
 */
struct hslot {
	uint64_t count;
	char pad[128 - sizeof(uint64_t)];
	int32_t state;
	int32_t pid, tid;
	int32_t failed_in_loop;
} __attribute__((aligned(HARNESS_SLOT)));

/* Why a worker failed: after all the slots, in the same shared mapping. */
#define HARNESS_ERR 256
typedef char herr_t[HARNESS_ERR];

_Static_assert(sizeof(struct hslot) == HARNESS_SLOT, "one slot per 256 bytes");
_Static_assert(offsetof(struct hslot, state) >= 128, "counter alone on its line pair");

/* Slot 0 of the mapping: the stop flag, read-only to workers while they run. */
struct hctl {
	int stop;
	/* The start barrier: 0 until the parent stores 1 and wakes every
	 * waiter at once (futex).  A pipe's EOF is no barrier at scale: each
	 * reader takes the pipe's mutex in turn, so 2500 of them wake one by
	 * one (minutes in a 128-vCPU guest). */
	int go;
} __attribute__((aligned(HARNESS_SLOT)));

struct host {
	pid_t pid;
	int first, n;		/* workers [first, first + n) (ordered by host) */
	int cgroup;
	bool reaped;
	int wstatus;
};

struct run {
	const struct harness_cfg *c;
	struct hctl *ctl;
	struct hslot *slot;
	herr_t *errs;
	size_t map_len;
	int ready_r, ready_w;
	int nhosts;
	struct host *hosts;
	int *order;		/* host order -> worker index */
	int *host_of;		/* worker index -> its host (so a lookup is O(1)) */
	pid_t parent;
	/* The lines plugin's window in the measured phase (c2c/lines_session.h). */
	struct {
		bool planned, done;
		int index;		/* open: its number; else -1 */
		double open_t, close_t;	/* CLOCK_MONOTONIC */
		struct lines_window_info info;
		struct lines_range ranges[2];
		char fields[2][200];
	} lw;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- worker side ---- */

struct wargs {
	struct run *run;
	int index;
};

static void worker_fail(struct run *run, struct hslot *s, const char *why, bool in_loop)
{
	snprintf(run->errs[s - run->slot], HARNESS_ERR, "%s", why);
	s->failed_in_loop = in_loop;
	__atomic_store_n(&s->state, S_FAILED, __ATOMIC_RELEASE);
	if (!in_loop && write(run->ready_w, "f", 1) < 0) {
		/* The parent is gone: PDEATHSIG ends us shortly. */
	}
}

static void *worker_main(void *arg)
{
	struct wargs *wa = arg;
	struct run *run = wa->run;
	const struct harness_cfg *c = run->c;
	struct hslot *s = &run->slot[wa->index];
	struct hworker hw = {
		.index = wa->index,
		.cgroup = c->worker_cgroup ? c->worker_cgroup[wa->index] : -1,
		.cpu = c->worker_cpu ? c->worker_cpu[wa->index] : -1,
		.cfg = c->loop_cfg,
	};
	void *state = NULL;
	int e;

	s->pid = getpid();
	s->tid = gettid();
	if (hw.cpu >= 0 && (e = cpu_pin_self(hw.cpu)) < 0) {
		snprintf(hw.err, sizeof(hw.err), "cannot pin to CPU %d: %s", hw.cpu, strerror(-e));
		worker_fail(run, s, hw.err, false);
		return NULL;
	}
	if (c->loop->setup && c->loop->setup(&hw, &state) < 0) {
		worker_fail(run, s, hw.err[0] ? hw.err : "setup failed", false);
		return NULL;
	}
	__atomic_store_n(&s->state, S_READY, __ATOMIC_RELEASE);
	if (write(run->ready_w, "r", 1) < 0)
		_exit(1);
	/* The barrier: every waiter woken by one futex call. */
	while (!futex_word_load(&run->ctl->go))
		futex_word_wait(&run->ctl->go, 0, NULL);
	if (!hstop(&run->ctl->stop)) {
		__atomic_store_n(&s->state, S_RUNNING, __ATOMIC_RELEASE);
		e = c->loop->loop(state, &s->count, &run->ctl->stop);
		if (e < 0 && !hstop(&run->ctl->stop)) {
			char why[96];

			snprintf(why, sizeof(why), "its loop failed: %s", strerror(-e));
			if (c->loop->teardown)
				c->loop->teardown(state);
			worker_fail(run, s, why, true);
			return NULL;
		}
	}
	if (c->loop->teardown)
		c->loop->teardown(state);
	__atomic_store_n(&s->state, S_DONE, __ATOMIC_RELEASE);
	return NULL;
}

static void __attribute__((noreturn)) host_main(struct run *run, struct host *h)
{
	const struct harness_cfg *c = run->c;
	struct wargs *wa = xcalloc(h->n, sizeof(*wa));
	pthread_t *th = xcalloc(h->n, sizeof(*th));
	char err[200] = "";

	if (worker_detach_from_parent(run->parent) < 0)
		_exit(1);
	close_fd(&run->ready_r);
	if (h->cgroup >= 0 && c->hooks.enter_cgroup &&
	    c->hooks.enter_cgroup(c->hooks.arg, h->cgroup, err, sizeof(err)) < 0) {
		for (int i = 0; i < h->n; i++)
			worker_fail(run, &run->slot[run->order[h->first + i]], err, false);
		_exit(1);
	}
	for (int i = 0; i < h->n; i++)
		wa[i] = (struct wargs){ run, run->order[h->first + i] };
	if (!c->threads) {
		worker_main(&wa[0]);
		_exit(0);
	}
	for (int i = 0; i < h->n; i++) {
		int e = pthread_create(&th[i], NULL, worker_main, &wa[i]);

		if (e) {
			snprintf(err, sizeof(err), "cannot create a thread: %s", strerror(e));
			for (int j = i; j < h->n; j++)
				worker_fail(run, &run->slot[wa[j].index], err, false);
			h->n = i;
			break;
		}
	}
	for (int i = 0; i < h->n; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

/* ---- parent side ---- */

/* utime + stime of one thread from /proc, in seconds; false when gone. */
static bool thread_cpu(pid_t pid, pid_t tid, double *user, double *sys)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (read_buf(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');
	if (!p)
		return false;
	/* Fields 14 and 15 after the comm: utime, stime in clock ticks. */
	for (p++; *p && field < 14; p++)
		if (*p == ' ')
			field++;
	if (sscanf(p, "%llu %llu", &ut, &st) != 2)
		return false;
	*user = (double)ut / sysconf(_SC_CLK_TCK);
	*sys = (double)st / sysconf(_SC_CLK_TCK);
	return true;
}

/* The machine's CPU time from /proc/stat: user, system, idle, other (ticks). */
struct cpustat {
	unsigned long long user, sys, idle, other;
};

static void machine_cpu(struct cpustat *cs)
{
	unsigned long long v[10] = { 0 };
	char buf[512];

	memset(cs, 0, sizeof(*cs));
	if (read_buf("/proc/stat", buf, sizeof(buf)) <= 0)
		return;
	if (sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) < 4)
		return;
	/* guest time is already inside user; steal is "other". */
	cs->user = v[0] + v[1];
	cs->sys = v[2] + v[5] + v[6];
	cs->idle = v[3] + v[4];
	cs->other = v[7];
}

static void describe_status(const struct run *run, const struct host *h, char *buf, size_t n)
{
	const struct harness_hooks *hk = &run->c->hooks;
	int ws = h->wstatus;

	if (hk->death_cause && hk->death_cause(hk->arg, h->cgroup, ws, buf, n))
		return;
	if (WIFSIGNALED(ws))
		snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(ws), strsignal(WTERMSIG(ws)));
	else if (WIFEXITED(ws))
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(ws));
	else
		snprintf(buf, n, "ended (wait status %#x)", ws);
}

/*
 * Whether a child of this process has ended and waits to be reaped, without
 * reaping it: one syscall per sample instead of a waitpid per worker
 * process.  No children at all (ECHILD: someone reaped ours) or an error
 * answer yes, so that the caller looks at every host.
 */
static bool child_ended(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return true;
	return si.si_pid != 0;
}

/* Reaps hosts that ended; returns how many. */
static int reap(struct run *run)
{
	int n = 0;

	if (!child_ended())
		return 0;
	for (int i = 0; i < run->nhosts; i++) {
		struct host *h = &run->hosts[i];
		pid_t p;

		if (h->reaped || h->pid <= 0)
			continue;
		p = waitpid(h->pid, &h->wstatus, WNOHANG);
		if (p == h->pid || (p < 0 && errno == ECHILD)) {
			h->reaped = true;
			n++;
		}
	}
	return n;
}

static int hosts_alive(const struct run *run)
{
	int n = 0;

	for (int i = 0; i < run->nhosts; i++)
		n += run->hosts[i].pid > 0 && !run->hosts[i].reaped;
	return n;
}

/* Sets the stop flag, opens the barrier, waits, then kills stragglers. */
static void stop_all(struct run *run)
{
	double grace = run->c->stop_grace_s > 0 ? run->c->stop_grace_s : 5;
	double t = now_s();
	struct timespec tick = { 0, 20 * 1000 * 1000 };

	__atomic_store_n(&run->ctl->stop, 1, __ATOMIC_RELEASE);
	futex_word_store_wake(&run->ctl->go, 1);
	while (reap(run), hosts_alive(run) && now_s() - t < grace)
		nanosleep(&tick, NULL);
	if (!hosts_alive(run))
		return;
	for (int i = 0; i < run->nhosts; i++)
		if (run->hosts[i].pid > 0 && !run->hosts[i].reaped)
			kill(run->hosts[i].pid, SIGKILL);
	t = now_s();
	while (reap(run), hosts_alive(run) && now_s() - t < 5)
		nanosleep(&tick, NULL);
	for (int i = 0; i < run->nhosts; i++)
		if (run->hosts[i].pid > 0 && !run->hosts[i].reaped)
			warnx_lab("worker process %d did not exit after SIGKILL; the cgroup teardown kills it",
				  (int)run->hosts[i].pid);
}

static void run_free(struct run *run)
{
	close_fd(&run->ready_r);
	close_fd(&run->ready_w);
	if (run->ctl)
		munmap(run->ctl, run->map_len);
	free(run->hosts);
	free(run->order);
	free(run->host_of);
}

/* Groups workers into processes: one each, or one per cgroup for threads. */
static void plan_hosts(struct run *run)
{
	const struct harness_cfg *c = run->c;
	int n = c->nworkers, ncg = 0;
	int *cg = xcalloc(n, sizeof(int)), *host_of_cg, *fill;

	run->order = xcalloc(n, sizeof(int));
	run->hosts = xcalloc(n, sizeof(struct host));
	run->host_of = xcalloc(n, sizeof(int));
	for (int i = 0; i < n; i++) {
		cg[i] = c->worker_cgroup ? c->worker_cgroup[i] : -1;
		if (cg[i] + 2 > ncg)
			ncg = cg[i] + 2;	/* slot 0 for -1, the caller's cgroup */
	}
	if (!c->threads) {
		for (int i = 0; i < n; i++) {
			run->order[i] = i;
			run->host_of[i] = i;
			run->hosts[i] = (struct host){ .first = i, .n = 1, .cgroup = cg[i] };
		}
		run->nhosts = n;
		free(cg);
		return;
	}
	/*
	 * Stable grouping by cgroup, hosts in order of first appearance: a
	 * host per cgroup index (the indices are dense, 0 .. cgroups-1), so
	 * this is linear in workers, not workers x cgroups.
	 */
	host_of_cg = xcalloc(ncg, sizeof(int));
	fill = xcalloc(n, sizeof(int));
	for (int i = 0; i < ncg; i++)
		host_of_cg[i] = -1;
	for (int i = 0; i < n; i++) {
		int *h = &host_of_cg[cg[i] + 1];

		if (*h < 0) {
			*h = run->nhosts++;
			run->hosts[*h].cgroup = cg[i];
		}
		run->host_of[i] = *h;
		run->hosts[*h].n++;
	}
	for (int h = 1; h < run->nhosts; h++)
		run->hosts[h].first = run->hosts[h - 1].first + run->hosts[h - 1].n;
	for (int i = 0; i < n; i++) {
		int h = run->host_of[i];

		run->order[run->hosts[h].first + fill[h]++] = i;
	}
	free(host_of_cg);
	free(fill);
	free(cg);
}

static struct host *host_of(struct run *run, int worker)
{
	return run->host_of ? &run->hosts[run->host_of[worker]] : NULL;
}

/* First worker that failed in setup, or whose process died, as a sentence. */
static bool setup_failure(struct run *run, char *err, size_t errlen)
{
	const struct harness_cfg *c = run->c;

	for (int i = 0; i < c->nworkers; i++) {
		struct hslot *s = &run->slot[i];
		struct host *h;
		char why[200];
		int cg = c->worker_cgroup ? c->worker_cgroup[i] : -1;

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == S_FAILED) {
			snprintf(err, errlen, "worker %d (cgroup %d): %s", i, cg, run->errs[i]);
			return true;
		}
		h = host_of(run, i);
		if (h && h->reaped && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) < S_READY) {
			describe_status(run, h, why, sizeof(why));
			snprintf(err, errlen, "worker %d (cgroup %d, pid %d) died during setup: %s", i, cg,
				 (int)h->pid, why);
			return true;
		}
	}
	return false;
}

static int wait_ready(struct run *run, char *err, size_t errlen)
{
	const struct harness_cfg *c = run->c;
	double limit = c->setup_timeout_s > 0 ? c->setup_timeout_s : 60;
	double t0 = now_s();
	int nready = 0;

	while (nready < c->nworkers) {
		struct pollfd pfd = { run->ready_r, POLLIN, 0 };
		char buf[256];
		ssize_t r;

		if (lab_stop_requested()) {
			snprintf(err, errlen, "interrupted while the workers were starting");
			return -1;
		}
		if (now_s() - t0 > limit) {
			for (int i = 0; i < c->nworkers; i++)
				if (__atomic_load_n(&run->slot[i].state, __ATOMIC_ACQUIRE) < S_READY) {
					snprintf(err, errlen, "worker %d did not finish its setup in %.0f s", i, limit);
					break;
				}
			return -1;
		}
		if (poll(&pfd, 1, 200) <= 0) {
			reap(run);
			if (setup_failure(run, err, errlen))
				return -1;
			continue;
		}
		r = read(run->ready_r, buf, sizeof(buf));
		if (r == 0) {
			/* Every worker process is gone. */
			reap(run);
			if (!setup_failure(run, err, errlen))
				snprintf(err, errlen, "the worker processes ended before they were ready");
			return -1;
		}
		for (ssize_t i = 0; i < r; i++) {
			if (buf[i] == 'f') {
				setup_failure(run, err, errlen);
				return -1;
			}
			nready++;
		}
	}
	return 0;
}

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - floor(t)) * 1e9) };

	/* EINTR returns early: the caller checks lab_stop_requested(). */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/*
 * The lines window (vm --lines): planned as c2c plans its window, within
 * the measured phase; the run's memcgs, stocks and the counter slots are
 * found while the workers wait at the barrier (lines_session_objects),
 * also where the runner opens the window: it takes them from here.
 */
static void lines_prepare(struct run *run)
{
	const struct harness_cfg *c = run->c;
	int n = c->nworkers;

	run->lw.index = -1;
	if (!lines_session_active())
		return;
	/* The runner's window (c2c/around.c) takes the objects found here. */
	if (!c->lines_label) {
		lines_session_objects(getpid());
		return;
	}
	if (lines_plan_window(c->duration_s, &run->lw.info.start_s, &run->lw.info.len_s) < 0) {
		note("lines: no window in a %d s measured phase", c->duration_s);
		return;
	}
	snprintf(run->lw.fields[0], sizeof(run->lw.fields[0]), "count:%zu:%zu,state:%zu:%zu,pid:%zu:%zu,tid:%zu:%zu",
		 offsetof(struct hslot, count), sizeof(uint64_t), offsetof(struct hslot, state), sizeof(int32_t),
		 offsetof(struct hslot, pid), sizeof(int32_t), offsetof(struct hslot, tid), sizeof(int32_t));
	snprintf(run->lw.fields[1], sizeof(run->lw.fields[1]), "stop:%zu:%zu,go:%zu:%zu", offsetof(struct hctl, stop),
		 sizeof(int), offsetof(struct hctl, go), sizeof(int));
	run->lw.ranges[0] = (struct lines_range){ "hslot", (uintptr_t)run->slot, (uint64_t)n * HARNESS_SLOT,
						  HARNESS_SLOT, run->lw.fields[0] };
	run->lw.ranges[1] = (struct lines_range){ "hctl", (uintptr_t)run->ctl, sizeof(struct hctl), 0,
						  run->lw.fields[1] };
	run->lw.info.label = c->lines_label;
	run->lw.info.who = "harness";
	run->lw.info.repeat = c->lines_repeat;
	run->lw.info.objs = lines_session_objects(getpid());
	run->lw.info.ranges = run->lw.ranges;
	run->lw.info.nranges = 2;
	run->lw.info.counted = getpid();
	run->lw.planned = true;
}

static void lines_edge(struct run *run, double t)
{
	if (run->lw.index < 0 && !run->lw.done && t >= run->lw.open_t) {
		run->lw.index = lines_session_open(&run->lw.info);
		run->lw.done = run->lw.index < 0;
	} else if (run->lw.index >= 0 && t >= run->lw.close_t) {
		lines_session_close(run->lw.index);
		run->lw.index = -1;
		run->lw.done = true;
	}
}

/* Sleeps until t, opening and closing the lines window on the way. */
static void sleep_until_tick(struct run *run, double t)
{
	while (run->lw.planned && !run->lw.done && !lab_stop_requested()) {
		double edge = run->lw.index < 0 ? run->lw.open_t : run->lw.close_t;

		if (edge >= t)
			break;
		sleep_until(edge);
		if (now_s() >= edge)
			lines_edge(run, now_s());
	}
	sleep_until(t);
}

/*
 * Marks workers dead: their loop failed, or (while running, not after the
 * stop flag, when every process ends) their process is gone.
 */
static int note_deaths(struct run *run, struct harness_result *r, double t, bool running)
{
	const struct harness_cfg *c = run->c;
	int fresh = 0;

	reap(run);
	for (int i = 0; i < c->nworkers; i++) {
		struct hworker_result *w = &r->w[i];
		struct hslot *s = &run->slot[i];
		struct host *h;

		if (w->status == HW_DIED)
			continue;
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == S_FAILED) {
			snprintf(w->why, sizeof(w->why), "%s", run->errs[i]);
		} else {
			h = host_of(run, i);
			if (!running || !h || !h->reaped)
				continue;
			describe_status(run, h, w->why, sizeof(w->why));
		}
		w->status = HW_DIED;
		w->died_at = t;
		r->ndied++;
		fresh++;
	}
	return fresh;
}

static void progress_line(const struct harness_cfg *c, int s, bool warm, double dt, const uint64_t *d)
{
	double tot = 0, mn = INFINITY, mx = 0, sc = c->loop->rate_scale;

	for (int i = 0; i < c->nworkers; i++) {
		double v = d[i] / dt * sc;

		tot += v;
		mn = fmin(mn, v);
		mx = fmax(mx, v);
	}
	fprintf(c->progress, "%4d s%s  total %.6g %s  worker min %.6g max %.6g\n", s,
		warm ? " (warm-up)" : "", tot, c->loop->rate_unit, mn, mx);
	fflush(c->progress);
}

static void finish_result(const struct harness_cfg *c, struct harness_result *r)
{
	r->total_ops = 0;
	r->total_rate = 0;
	r->worker_min = INFINITY;
	r->worker_max = 0;
	for (int i = 0; i < c->nworkers; i++) {
		struct hworker_result *w = &r->w[i];

		w->rate = r->window_s > 0 ? w->ops / r->window_s : 0;
		r->total_ops += w->ops;
		r->total_rate += w->rate;
		r->worker_min = fmin(r->worker_min, w->rate);
		r->worker_max = fmax(r->worker_max, w->rate);
		if (!isnan(w->user_s)) {
			r->workers_user_s += w->user_s;
			r->workers_sys_s += w->sys_s;
		}
	}
	if (!c->nworkers)
		r->worker_min = 0;
	r->second_min = r->nsamples ? INFINITY : 0;
	r->second_max = 0;
	for (int s = 0; s < r->nsamples; s++) {
		uint64_t tot = 0;

		for (int i = 0; i < c->nworkers; i++)
			tot += r->delta[(size_t)s * c->nworkers + i];
		r->second_min = fmin(r->second_min, tot / r->dt[s]);
		r->second_max = fmax(r->second_max, tot / r->dt[s]);
	}
}

/*
 * The parent's own cost of a window (util/labcost.h): its CPU and wall time
 * from the window's opening to its last sample, and apart from that the CPU
 * of the per-worker /proc reads at both edges, which run once per window.
 */
struct window_cost {
	double t0, cpu0, edge_cpu;
	double tlast, cpulast;	/* as of the last sample */
	double *share;		/* [nshare] CPU / wall from one sample to the next */
	int nshare;
};

/* At each sample of the window: the parent's CPU share since the last one. */
static void window_cost_sample(struct window_cost *wc)
{
	double t = labcost_now(), cpu = labcost_cpu_self();

	if (t > wc->tlast)
		wc->share[wc->nshare++] = (cpu - wc->cpulast) / (t - wc->tlast);
	wc->tlast = t;
	wc->cpulast = cpu;
}

/* The window opens: every worker's CPU time and the machine's, as of now. */
static void open_window(struct run *run, double *u0, double *s0, struct cpustat *m0, struct window_cost *wc)
{
	double cpu = labcost_cpu_self();

	for (int i = 0; i < run->c->nworkers; i++)
		thread_cpu(run->slot[i].pid, run->slot[i].tid, &u0[i], &s0[i]);
	machine_cpu(m0);
	wc->t0 = wc->tlast = labcost_now();
	wc->cpu0 = wc->cpulast = labcost_cpu_self();
	wc->edge_cpu += wc->cpu0 - cpu;
}

static void measure_loop(struct run *run, struct harness_result *r, double t0)
{
	const struct harness_cfg *c = run->c;
	int n = c->nworkers, total = c->warmup_s + c->duration_s;
	uint64_t *prev = xcalloc(n, sizeof(uint64_t)), *cur = xcalloc(n, sizeof(uint64_t));
	uint64_t *base = xcalloc(n, sizeof(uint64_t));
	double *u0 = xcalloc(n, sizeof(double)), *s0 = xcalloc(n, sizeof(double));
	double tprev = t0, tws = t0;
	struct cpustat m0, m1;
	struct window_cost wc = { .share = xcalloc(total + 1, sizeof(double)) };
	bool in_window = false;

	/* Without warm-up the window opens at the barrier. */
	if (c->warmup_s == 0) {
		open_window(run, u0, s0, &m0, &wc);
		in_window = true;
	}
	run->lw.open_t = t0 + c->warmup_s + run->lw.info.start_s;
	run->lw.close_t = run->lw.open_t + run->lw.info.len_s;
	for (int s = 1; s <= total; s++) {
		double tnow;

		sleep_until_tick(run, t0 + s);
		if (lab_stop_requested()) {
			r->interrupted = true;
			snprintf(r->stop_reason, sizeof(r->stop_reason), "interrupted by signal %d",
				 lab_stop_signal());
			break;
		}
		if (now_s() < t0 + s) {
			s--;	/* woken early by a signal we do not act on */
			continue;
		}
		tnow = now_s();
		if (in_window)
			window_cost_sample(&wc);
		for (int i = 0; i < n; i++)
			cur[i] = __atomic_load_n(&run->slot[i].count, __ATOMIC_RELAXED);
		if (in_window) {
			for (int i = 0; i < n; i++)
				r->delta[(size_t)r->nsamples * n + i] = cur[i] - prev[i];
			r->dt[r->nsamples++] = tnow - tprev;
			r->window_s = tnow - tws;
		}
		if (c->progress) {
			for (int i = 0; i < n; i++)
				prev[i] = cur[i] - prev[i];
			progress_line(c, s, !in_window, tnow - tprev, prev);
		}
		memcpy(prev, cur, n * sizeof(uint64_t));
		tprev = tnow;
		if (s == c->warmup_s) {
			/* The warm-up ends here: everything before is discarded. */
			open_window(run, u0, s0, &m0, &wc);
			memcpy(base, cur, n * sizeof(uint64_t));
			tws = tnow;
			in_window = true;
		}
		if (note_deaths(run, r, tnow - t0, true) && c->stop_on_death) {
			for (int i = 0; i < n; i++)
				if (r->w[i].status == HW_DIED) {
					snprintf(r->stop_reason, sizeof(r->stop_reason), "worker %d %s", i, r->w[i].why);
					break;
				}
			break;
		}
		if (r->ndied == n) {
			snprintf(r->stop_reason, sizeof(r->stop_reason), "every worker died");
			break;
		}
	}
	r->cut_short = r->interrupted || r->stop_reason[0];
	/* A run cut short closes its lines window here. */
	if (run->lw.index >= 0) {
		lines_session_close(run->lw.index);
		run->lw.index = -1;
	}
	if (in_window)
		labcost_add_sampling(labcost_now() - wc.t0, labcost_cpu_self() - wc.cpu0, wc.share, wc.nshare, n);
	wc.cpu0 = labcost_cpu_self();
	/* The window's end: counters and CPU times as of the last sample. */
	machine_cpu(&m1);
	for (int i = 0; i < n; i++) {
		struct hworker_result *w = &r->w[i];
		double u1, s1;

		w->ops = in_window ? prev[i] - base[i] : 0;
		if (in_window && thread_cpu(run->slot[i].pid, run->slot[i].tid, &u1, &s1)) {
			w->user_s = u1 - u0[i];
			w->sys_s = s1 - s0[i];
		} else {
			w->user_s = w->sys_s = NAN;
		}
	}
	if (in_window) {
		double tot = (m1.user - m0.user) + (m1.sys - m0.sys) + (m1.idle - m0.idle) + (m1.other - m0.other);

		if (tot > 0) {
			r->cpu_user = 100.0 * (m1.user - m0.user) / tot;
			r->cpu_sys = 100.0 * (m1.sys - m0.sys) / tot;
			r->cpu_idle = 100.0 * (m1.idle - m0.idle) / tot;
			r->cpu_other = 100.0 * (m1.other - m0.other) / tot;
		}
	}
	if (in_window)
		labcost_add_edge_cpu(wc.edge_cpu + labcost_cpu_self() - wc.cpu0);
	free(wc.share);
	free(prev);
	free(cur);
	free(base);
	free(u0);
	free(s0);
}

static void abort_start(struct run *run)
{
	stop_all(run);
	run_free(run);
}

int harness_run(const struct harness_cfg *c, struct harness_result *r, char *err, size_t errlen)
{
	struct run run = { .c = c, .ready_r = -1, .ready_w = -1 };
	int n = c->nworkers, p[2];
	double t0, tspawn;

	memset(r, 0, sizeof(*r));
	if (n < 1 || n > HARNESS_MAX_WORKERS || c->duration_s < 1 || c->warmup_s < 0 || !c->loop ||
	    !c->loop->loop) {
		snprintf(err, errlen, "harness: bad configuration (%d workers, %d s)", n, c->duration_s);
		return -1;
	}
	if ((size_t)n * c->duration_s > HARNESS_MAX_SAMPLES) {
		snprintf(err, errlen, "%d workers x %d s: more per-second samples than the harness keeps (%d)",
			 n, c->duration_s, HARNESS_MAX_SAMPLES);
		return -1;
	}
	run.parent = getpid();
	run.map_len = (size_t)(n + 1) * HARNESS_SLOT + (size_t)n * HARNESS_ERR;
	run.ctl = mmap(NULL, run.map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (run.ctl == MAP_FAILED) {
		run.ctl = NULL;
		snprintf(err, errlen, "cannot map %zu bytes of worker counters: %s", run.map_len, strerror(errno));
		return -1;
	}
	run.slot = (struct hslot *)(run.ctl + 1);
	run.errs = (herr_t *)(run.slot + n);
	/* The workers' "ready" bytes. */
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		run_free(&run);
		return -1;
	}
	run.ready_r = p[0];
	run.ready_w = p[1];
	plan_hosts(&run);

	r->nworkers = n;
	r->w = xcalloc(n, sizeof(*r->w));
	r->dt = xcalloc(c->duration_s + 1, sizeof(double));
	r->delta = xcalloc((size_t)(c->duration_s + 1) * n, sizeof(uint64_t));
	for (int i = 0; i < n; i++) {
		r->w[i].cgroup = c->worker_cgroup ? c->worker_cgroup[i] : -1;
		r->w[i].cpu = c->worker_cpu ? c->worker_cpu[i] : -1;
	}

	fflush(NULL);	/* nothing buffered may be written twice by the children */
	tspawn = labcost_now();
	for (int i = 0; i < run.nhosts; i++) {
		pid_t pid = fork();

		if (pid == 0)
			host_main(&run, &run.hosts[i]);
		if (pid < 0) {
			snprintf(err, errlen, "cannot start worker process %d of %d: %s", i + 1, run.nhosts,
				 strerror(errno));
			abort_start(&run);
			return -1;
		}
		run.hosts[i].pid = pid;
	}
	close_fd(&run.ready_w);

	if (wait_ready(&run, err, errlen) < 0) {
		abort_start(&run);
		return -1;
	}
	labcost_add(LABCOST_SPAWN, labcost_now() - tspawn);
	for (int i = 0; i < n; i++) {
		r->w[i].pid = run.slot[i].pid;
		r->w[i].tid = run.slot[i].tid;
	}
	lines_prepare(&run);
	/* The workers' counts: whoever opens a lines window counts its operations. */
	lines_session_counters(&(struct lines_counter){ &run.slot[0].count, n, HARNESS_SLOT }, 1, c->loop->unit);
	if (c->hooks.before_start)
		c->hooks.before_start(c->hooks.arg);
	t0 = now_s();
	futex_word_store_wake(&run.ctl->go, 1);	/* the barrier: every worker starts now */
	/* vm --lines: the runner times its window from the measured phase. */
	lines_session_phase(t0 + c->warmup_s);

	measure_loop(&run, r, t0);
	lines_session_phase(-1);
	lines_session_unpublish();
	/* Read with the hook's kernel counters, so the two can be compared. */
	for (int i = 0; i < n; i++)
		r->w[i].ops_all = __atomic_load_n(&run.slot[i].count, __ATOMIC_RELAXED);
	if (c->hooks.window_end)
		c->hooks.window_end(c->hooks.arg);
	tspawn = labcost_now();
	stop_all(&run);
	labcost_add(LABCOST_REAP, labcost_now() - tspawn);
	/* A worker whose loop failed after the last sample still counts. */
	note_deaths(&run, r, now_s() - t0, false);
	finish_result(c, r);
	run_free(&run);
	return 0;
}

void harness_result_free(struct harness_result *r)
{
	free(r->dt);
	free(r->delta);
	free(r->w);
	memset(r, 0, sizeof(*r));
}

void harness_write_series(const struct harness_result *r, const struct hloop *l, FILE *f,
			  const char *prefix_hdr, const char *prefix)
{
	double t = 0;

	/* The prefixes are the caller's cells, each with its tab. */
	if (prefix_hdr) {
		fputs(prefix_hdr, f);
		tsv_write_row(f, "second\tworker\tcgroup\tcpu\t%s\trate_%s\n", l->unit, l->rate_unit);
	}
	for (int s = 0; s < r->nsamples; s++) {
		t += r->dt[s];
		for (int i = 0; i < r->nworkers; i++) {
			uint64_t d = r->delta[(size_t)s * r->nworkers + i];

			fputs(prefix ? prefix : "", f);
			fprintf(f, "%.3f\t%d\t%d\t%d\t%llu\t%.6g\n", t, i, r->w[i].cgroup, r->w[i].cpu,
				(unsigned long long)d, d / r->dt[s] * l->rate_scale);
		}
	}
}

void harness_write_workers(const struct harness_result *r, const struct hloop *l, FILE *f,
			   const char *prefix_hdr, const char *prefix)
{
	if (prefix_hdr) {
		fputs(prefix_hdr, f);
		tsv_write_row(f, "worker\tcgroup\tcpu\tpid\ttid\t%s\trate_%s\tuser_s\tsys_s\tstatus\n", l->unit,
			      l->rate_unit);
	}
	for (int i = 0; i < r->nworkers; i++) {
		const struct hworker_result *w = &r->w[i];

		fputs(prefix ? prefix : "", f);
		tsv_write_row(f, "%d\t%d\t%d\t%d\t%d\t%llu\t%.6g\t%.2f\t%.2f\t%s\n", i, w->cgroup, w->cpu, (int)w->pid,
			      (int)w->tid, (unsigned long long)w->ops, w->rate * l->rate_scale, w->user_s, w->sys_s,
			      w->status == HW_OK ? "ok" : w->why);
	}
}
