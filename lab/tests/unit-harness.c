// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's contract with trivial loops (no cgroups needed): counters
 * 256 bytes apart, one barrier releasing every worker after the slowest
 * setup, warm-up discarded, processes and threads, dead, failing and hung
 * workers reported without hanging, nothing left running.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "drivers/harness.h"
#include "tests/tap.h"
#include "util/cleanup.h"

enum behaviour { SPIN, NAP, SUICIDE, FAIL_SETUP, HANG, FAIL_LOOP };

struct tcfg {
	enum behaviour how;
	int victim;		/* the worker that dies, fails or hangs */
	int report_fd;		/* where workers write what the test checks */
};

struct tstate {
	int index;
	const struct tcfg *cfg;
};

/* One record per worker: index, counter address, loop start (ns). */
struct report {
	int index;
	uintptr_t counter;
	long long start_ns;
};

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int t_setup(struct hworker *w, void **state)
{
	const struct tcfg *c = w->cfg;
	struct tstate *s = calloc(1, sizeof(*s));
	struct timespec stagger = { 0, w->index * 100 * 1000 * 1000L };

	s->index = w->index;
	s->cfg = c;
	if (c->how == FAIL_SETUP && w->index == c->victim) {
		snprintf(w->err, sizeof(w->err), "test setup refuses");
		free(s);
		return -EPERM;
	}
	/* Staggered setups: the barrier must still release all at once. */
	nanosleep(&stagger, NULL);
	*state = s;
	return 0;
}

static int t_loop(void *state, uint64_t *count, const int *stop)
{
	struct tstate *s = state;
	struct report rep = { s->index, (uintptr_t)count, mono_ns() };
	struct timespec nap = { 0, 1000 * 1000 };
	long long t0 = rep.start_ns;

	if (s->cfg->report_fd >= 0 && write(s->cfg->report_fd, &rep, sizeof(rep)) != sizeof(rep))
		return -EIO;
	while (!hstop(stop)) {
		if (s->index == s->cfg->victim) {
			if (s->cfg->how == SUICIDE && mono_ns() - t0 > 300 * 1000 * 1000LL)
				raise(SIGKILL);
			if (s->cfg->how == HANG)
				pause();
			if (s->cfg->how == FAIL_LOOP && mono_ns() - t0 > 300 * 1000 * 1000LL)
				return -EIO;
		}
		if (s->cfg->how != SPIN)
			nanosleep(&nap, NULL);
		hcount_add(count, 1);
	}
	return 0;
}

static void t_teardown(void *state)
{
	free(state);
}

static const struct hloop tloop = {
	.name = "test", .what = "test loop", .unit = "ops", .rate_unit = "ops/s", .rate_scale = 1,
	.setup = t_setup, .loop = t_loop, .teardown = t_teardown,
};

static bool oom_hook(void *arg, int idx, int wstatus, char *buf, size_t n)
{
	(void)arg;
	if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) {
		snprintf(buf, n, "killed by the OOM killer in cgroup %d", idx);
		return true;
	}
	return false;
}

static bool no_children_left(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

static struct harness_cfg base_cfg(const struct tcfg *tc, int n)
{
	return (struct harness_cfg){
		.loop = &tloop, .loop_cfg = tc, .nworkers = n, .duration_s = 1, .warmup_s = 0,
		.stop_grace_s = 0.5,
	};
}

TEST(contract)
{
	int p[2], cgs[3] = { 0, 1, 1 };
	struct tcfg tc = { SPIN, -1, -1 };
	struct harness_cfg c = base_cfg(&tc, 3);
	struct harness_result r;
	struct report rep[3];
	char err[256];
	long long max_start = 0, min_start = LLONG_MAX;
	uint64_t sum = 0;
	bool apart = true;
	int rc;

	cleanup_init();
	if (pipe(p) < 0)
		exit(1);
	tc.report_fd = p[1];
	c.warmup_s = 1;
	c.worker_cgroup = cgs;
	rc = harness_run(&c, &r, err, sizeof(err));
	ok(rc == 0, "processes: the run completes (%s)", rc ? err : "ok");
	close(p[1]);
	for (int i = 0; i < 3; i++)
		if (read(p[0], &rep[i], sizeof(rep[i])) != sizeof(rep[i]))
			memset(&rep[i], 0, sizeof(rep[i]));
	close(p[0]);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (i != j && llabs((long long)(rep[i].counter - rep[j].counter)) < 128)
				apart = false;
	ok(apart, "the workers' counters are at least 128 bytes apart");
	ok(rep[0].counter % 128 == 0, "a counter starts a 128-byte line pair");
	/* Setups end 0, 100 and 200 ms in: the loops still start together. */
	for (int i = 0; i < 3; i++) {
		min_start = rep[i].start_ns < min_start ? rep[i].start_ns : min_start;
		max_start = rep[i].start_ns > max_start ? rep[i].start_ns : max_start;
	}
	ok(max_start - min_start < 100 * 1000 * 1000LL,
	   "processes: one barrier released all workers together (spread %.1f ms)",
	   (max_start - min_start) / 1e6);
	ok(r.w[0].pid != r.w[1].pid && r.w[1].pid != r.w[2].pid, "processes: one process per worker");
	is_int(r.nsamples, 1, "warm-up discarded: one sample for one measured second");
	for (int i = 0; i < 3; i++)
		sum += r.delta[i];
	is_int(sum, r.total_ops, "the per-second series adds up to the window's total");
	ok(r.w[0].ops_all > r.w[0].ops && r.w[0].ops > 0, "warm-up ops are counted apart (%llu of %llu)",
	   (unsigned long long)r.w[0].ops, (unsigned long long)r.w[0].ops_all);
	ok(r.w[0].user_s + r.w[0].sys_s > 0 && !isnan(r.w[0].user_s), "a spinning worker's CPU time is measured");
	ok(r.w[0].user_s > r.w[0].sys_s, "a spinning worker's time is user time (%.2f user, %.2f sys)",
	   r.w[0].user_s, r.w[0].sys_s);
	ok(r.cpu_user + r.cpu_sys + r.cpu_idle + r.cpu_other > 99, "machine CPU shares add up to 100%%");
	ok(no_children_left(), "no worker process left");
	harness_result_free(&r);
}

/* Threads grouped by cgroup whatever the order: interleaved, and the
 * caller's own cgroup (-1) as a group of its own. */
TEST(threads_interleaved)
{
	int cgs[6] = { 1, -1, 0, 1, -1, 0 };
	struct tcfg tc = { NAP, -1, -1 };
	struct harness_cfg c = base_cfg(&tc, 6);
	struct harness_result r;
	char err[256];
	int rc;
	bool same = true, apart;

	cleanup_init();
	c.threads = true;
	c.worker_cgroup = cgs;
	rc = harness_run(&c, &r, err, sizeof(err));
	ok(rc == 0, "threads, interleaved cgroups: the run completes (%s)", rc ? err : "ok");
	for (int i = 0; i < 3; i++)
		same = same && r.w[i].pid == r.w[i + 3].pid && r.w[i].tid != r.w[i + 3].tid;
	apart = r.w[0].pid != r.w[1].pid && r.w[1].pid != r.w[2].pid && r.w[0].pid != r.w[2].pid;
	ok(same && apart, "threads, interleaved cgroups 1,-1,0,1,-1,0: one process per cgroup");
	for (int i = 0; i < 6; i++)
		ok(r.w[i].cgroup == cgs[i] && r.w[i].ops > 0, "threads, interleaved: worker %d in cgroup %d counted",
		   i, r.w[i].cgroup);
	harness_result_free(&r);
	ok(no_children_left(), "no worker process left");
}

TEST(barrier_threads)
{
	int p[2], cgs[4] = { 0, 0, 1, 1 };
	struct tcfg tc = { NAP, -1, -1 };
	struct harness_cfg c = base_cfg(&tc, 4);
	struct harness_result r;
	struct report rep[4];
	char err[256];
	long long first = LLONG_MAX, last = 0;
	int rc, got = 0;

	cleanup_init();
	if (pipe(p) < 0)
		exit(1);
	tc.report_fd = p[1];
	c.threads = true;
	c.worker_cgroup = cgs;
	rc = harness_run(&c, &r, err, sizeof(err));
	ok(rc == 0, "threads: the run completes (%s)", rc ? err : "ok");
	close(p[1]);
	while (got < 4 && read(p[0], &rep[got], sizeof(rep[0])) == sizeof(rep[0]))
		got++;
	close(p[0]);
	is_int(got, 4, "every thread reached its loop");
	for (int i = 0; i < got; i++) {
		first = rep[i].start_ns < first ? rep[i].start_ns : first;
		last = rep[i].start_ns > last ? rep[i].start_ns : last;
	}
	/* Setups were staggered by 100 ms each (300 ms in all); one barrier
	 * releases all, so the loops start well within that stagger. */
	ok(last - first < 100 * 1000 * 1000LL, "one barrier released all workers together (spread %.1f ms)",
	   (last - first) / 1e6);
	ok(r.w[0].pid == r.w[1].pid && r.w[2].pid == r.w[3].pid && r.w[0].pid != r.w[2].pid,
	   "threads: one process per cgroup, its workers as threads");
	ok(r.w[0].tid != r.w[1].tid, "threads: each worker its own thread");
	ok(r.w[3].ops > 0 && r.total_ops > 0, "threads: every worker counted ops");
	ok(no_children_left(), "no worker process left");
	harness_result_free(&r);
}

static void test_death(bool stop)
{
	int cgs[2] = { 0, 1 };
	struct tcfg tc = { SUICIDE, 1, -1 };
	struct harness_cfg c = base_cfg(&tc, 2);
	struct harness_result r;
	char err[256];
	int rc;

	c.duration_s = 2;
	c.worker_cgroup = cgs;
	c.stop_on_death = stop;
	c.hooks.death_cause = oom_hook;
	rc = harness_run(&c, &r, err, sizeof(err));
	ok(rc == 0, "%s: a run with a dying worker completes", stop ? "stop" : "continue");
	ok(r.w[1].status == HW_DIED && strstr(r.w[1].why, "OOM killer in cgroup 1"),
	   "%s: the dead worker is reported with its cgroup (%s)", stop ? "stop" : "continue", r.w[1].why);
	ok(r.w[0].status == HW_OK, "%s: the other worker is fine", stop ? "stop" : "continue");
	if (stop)
		ok(r.cut_short && strstr(r.stop_reason, "worker 1") && r.nsamples < 2,
		   "stop: the run ends at the death (%s)", r.stop_reason);
	else
		ok(!r.cut_short && r.nsamples == 2, "continue: the run goes on to the end (%d samples)",
		   r.nsamples);
	ok(no_children_left(), "no worker process left");
	harness_result_free(&r);
}

TEST(failing_and_hung_workers)
{
	struct tcfg tc = { FAIL_SETUP, 1, -1 };
	struct harness_cfg c = base_cfg(&tc, 3);
	struct harness_result r;
	char err[256] = "";
	int rc;
	long long t0;

	cleanup_init();
	rc = harness_run(&c, &r, err, sizeof(err));
	ok(rc < 0 && strstr(err, "worker 1") && strstr(err, "test setup refuses"),
	   "a failed setup stops the run before it starts, naming the worker (%s)", err);
	harness_result_free(&r);
	ok(no_children_left(), "no worker process left after a failed setup");

	tc.how = HANG;
	t0 = mono_ns();
	rc = harness_run(&c, &r, err, sizeof(err));
	ok(rc == 0 && mono_ns() - t0 < 10 * 1000000000LL,
	   "a worker that ignores the stop flag is killed: the run ends (%.1f s)", (mono_ns() - t0) / 1e9);
	ok(no_children_left(), "no worker process left after a hung worker");
	harness_result_free(&r);

	tc.how = FAIL_LOOP;
	c.threads = true;
	rc = harness_run(&c, &r, err, sizeof(err));
	ok(rc == 0 && r.w[1].status == HW_DIED && strstr(r.w[1].why, "loop failed"),
	   "threads: a loop that fails is reported (%s)", r.w[1].why);
	ok(r.w[0].status == HW_OK && r.w[2].status == HW_OK, "threads: the other workers carried on");
	harness_result_free(&r);
	ok(no_children_left(), "no worker process left");
}

TEST(dying_worker_run_continues)
{
	cleanup_init();
	test_death(false);
}

TEST(dying_worker_stops_run)
{
	cleanup_init();
	test_death(true);
}

/* Each case takes the lab's undo (cleanup_init) as its own process's, as a lab command does. */
int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
