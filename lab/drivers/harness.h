/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload harness: will-it-scale's contract, with cgroup placement.
 *
 * A workload is one loop body (struct hloop).  The harness runs N copies of
 * it as processes or threads, each pinned and placed in its cgroup, and
 * measures them without measuring itself:
 *  - each worker's counter sits alone in a 256-byte slot of a shared mapping
 *    (two 128-byte line pairs: no false sharing even with the adjacent-line
 *    prefetcher), and it is the only thing the hot loop writes;
 *  - every worker finishes its setup, then all block on one pipe and are
 *    released together when the parent closes its write end;
 *  - the parent wakes once a second, reads the counters, discards the
 *    warm-up seconds and keeps a per-second series of the rest;
 *  - CPU time (user/sys) of every worker and of the machine is taken over
 *    the measured window only;
 *  - in a guest under vm --lines, the lines plugin's window is opened and
 *    closed over the steady state of the measured phase (as c2c fits its
 *    window), with the run's objects and the counter slots announced.
 *
 * A worker that dies (an OOM kill, a signal) is reported by index, process
 * and cgroup; the run stops or carries on as configured, and never waits on
 * a worker forever: after the stop flag, stragglers are killed.
 *
 * Threads mode runs one process per cgroup holding that cgroup's workers as
 * threads: memory charges follow the mm's owner, so threads of one process
 * cannot charge different memcgs (and cgroup v2 forbids it).
 */
#ifndef LAB_DRIVERS_HARNESS_H
#define LAB_DRIVERS_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define HARNESS_SLOT 256	/* bytes between two workers' counters */
#define HARNESS_MAX_WORKERS 65536
#define HARNESS_MAX_SAMPLES (16 << 20)	/* workers x seconds kept (128 MiB) */

/* What one worker knows about itself (setup only, never the hot loop). */
struct hworker {
	int index;		/* 0 .. nworkers-1 */
	int cgroup;		/* index of its cgroup, -1 when in the caller's */
	int cpu;		/* the CPU it is pinned to, -1 when not pinned */
	const void *cfg;	/* the loop's configuration, read-only */
	char err[200];		/* why setup failed */
};

/* Publishes progress from the hot loop: one plain store to the own slot. */
static inline void hcount_add(uint64_t *count, uint64_t n)
{
	__atomic_store_n(count, *count + n, __ATOMIC_RELAXED);
}

static inline bool hstop(const int *stop)
{
	return __atomic_load_n(stop, __ATOMIC_RELAXED) != 0;
}

/* A workload: the testcase of will-it-scale, plus how to describe it. */
struct hloop {
	const char *name;
	const char *what;	/* one line: what one op is, and what it charges */
	const char *unit;	/* what the counter counts: "faults", "pages", "bytes" */
	const char *rate_unit;	/* how rates print: "ops/s" or "Mbps" */
	double rate_scale;	/* counter/s -> rate_unit (8e-6 for bytes -> Mbps) */
	/* In the worker, after pinning and cgroup entry, before the barrier.
	 * 0 or -errno with the reason in w->err. */
	int (*setup)(struct hworker *w, void **state);
	/* The hot loop: hcount_add() until hstop(); no locks, no shared writes.
	 * Returns 0 once stopped, or -errno when it cannot go on. */
	int (*loop)(void *state, uint64_t *count, const int *stop);
	void (*teardown)(void *state);
};

/* Parent-side hooks around the measurement (all optional). */
struct harness_hooks {
	void *arg;
	/* Moves the calling (new) process into cgroup idx; 0 or -errno with err. */
	int (*enter_cgroup)(void *arg, int idx, char *err, size_t errlen);
	/* Right before the barrier opens and right after the window closes:
	 * snapshots of kernel counters that cannot disturb the measurement. */
	void (*before_start)(void *arg);
	void (*window_end)(void *arg);
	/* Why a worker process of cgroup idx died (e.g. "killed by the OOM
	 * killer" when the cgroup's oom_kill count rose); false: no idea. */
	bool (*death_cause)(void *arg, int idx, int wstatus, char *buf, size_t n);
};

struct harness_cfg {
	const struct hloop *loop;
	const void *loop_cfg;
	int nworkers;
	bool threads;
	int duration_s;		/* measured seconds */
	int warmup_s;		/* discarded seconds before them */
	const int *worker_cpu;		/* per worker, -1 unpinned; NULL: none pinned */
	const int *worker_cgroup;	/* per worker, a cgroup index 0 .. cgroups-1 or -1 for the
				 * caller's; NULL: all in the caller's */
	bool stop_on_death;	/* a dead worker ends the run (else it carries on) */
	double setup_timeout_s;	/* workers not ready by then: error (default 60) */
	double stop_grace_s;	/* after the stop flag, then SIGKILL (default 5) */
	FILE *progress;		/* one line per second, or NULL */
	struct harness_hooks hooks;
	/* In a guest under vm --lines: the lines plugin's window over the
	 * steady state of the measured phase, labelled so (c2c/lines_session.h);
	 * NULL: none (outside vm --lines nothing happens either way). */
	const char *lines_label;
	int lines_repeat;
};

enum hw_status { HW_OK, HW_DIED };

struct hworker_result {
	int cgroup, cpu;
	pid_t pid, tid;
	uint64_t ops;		/* in the measured window */
	uint64_t ops_all;	/* from the barrier to the window_end hook */
	double rate;		/* ops per second of the window (raw counter units) */
	double user_s, sys_s;	/* CPU time in the window */
	enum hw_status status;
	double died_at;		/* seconds after the barrier */
	char why[200];
};

struct harness_result {
	int nworkers;
	int nsamples;		/* measured seconds actually sampled */
	double *dt;		/* [nsamples] length of each sample, seconds */
	uint64_t *delta;	/* [nsamples][nworkers] ops in each sample */
	struct hworker_result *w;
	double window_s;
	uint64_t total_ops;
	double total_rate;		/* sum of the workers' rates */
	double worker_min, worker_max;	/* slowest and fastest worker's rate */
	double second_min, second_max;	/* slowest and fastest second, all workers */
	double workers_user_s, workers_sys_s;
	double cpu_user, cpu_sys, cpu_idle, cpu_other;	/* machine, % of all CPU time */
	int ndied;
	bool interrupted;	/* SIGINT/SIGTERM during the run */
	bool cut_short;		/* ended before duration (death or signal) */
	char stop_reason[256];
};

/*
 * Runs the workload.  Returns 0 when it ran (possibly cut short: see r),
 * or -1 with a one-line reason in err when the workers could not start
 * (nothing is left running either way).
 */
int harness_run(const struct harness_cfg *c, struct harness_result *r, char *err, size_t errlen);
void harness_result_free(struct harness_result *r);

/* TSV: one row per worker per measured second.  The header row is written
 * when prefix_hdr is not NULL ("" for none): the first of several runs. */
void harness_write_series(const struct harness_result *r, const struct hloop *l, FILE *f,
			  const char *prefix_hdr, const char *prefix);
/* TSV: one row per worker (header as for harness_write_series). */
void harness_write_workers(const struct harness_result *r, const struct hloop *l, FILE *f,
			   const char *prefix_hdr, const char *prefix);

#endif
