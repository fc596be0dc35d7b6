// SPDX-License-Identifier: GPL-2.0
/*
 * util/cleanup.c under real signals: each case is a forked process that
 * registers undo steps (which write their names to a file) and gets
 * SIGINT/SIGTERM from here.  A second signal while something is at stake is
 * noted in one line and ignored (the stop goes on: children reaped, undo
 * run); with nothing at stake it ends the process at once; a signal never
 * cuts an undo step or a create-and-register section in two; the stop is
 * passed on to the registered child once; the bound names what is left and
 * exits; a forked child that got a signal before its detach dies of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tests/tap.h"
#include "util/cleanup.h"
#include "util/fileio.h"

static char dir[64], marks[96], errs[96], child_log[96];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleeps s seconds whatever signals come meanwhile. */
static void sleep_through(double s)
{
	double end = now_s() + s;

	while (now_s() < end) {
		double left = end - now_s();
		struct timespec ts = { (time_t)left, (long)((left - (time_t)left) * 1e9) };

		nanosleep(&ts, NULL);
	}
}

static void append(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0) {
		if (write(fd, s, strlen(s)) < 0)
			_exit(99);
		close(fd);
	}
}

static void mark(void *arg)
{
	append(marks, arg);
}

static void slow_mark(void *arg)
{
	append(marks, "slow-start ");
	sleep_through(0.3);
	append(marks, arg);
}

/* The case's process: its stderr to errs, "ready" on the pipe when set up. */
struct proc {
	pid_t pid;
	int ready;
};

static void start(struct proc *p, void (*body)(int ready_fd))
{
	int fds[2];

	unlink(marks);
	unlink(errs);
	unlink(child_log);
	if (pipe(fds))
		exit(2);
	fflush(NULL);
	p->pid = fork();
	if (!p->pid) {
		int e = open(errs, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		close(fds[0]);
		dup2(e, 2);
		body(fds[1]);
		_exit(0);
	}
	close(fds[1]);
	p->ready = fds[0];
}

static void wait_ready(struct proc *p)
{
	char c;

	if (read(p->ready, &c, 1) != 1)
		tap_diag("the case's process ended before it was ready");
	close(p->ready);
}

static void say_ready(int fd)
{
	if (write(fd, "r", 1) != 1)
		_exit(98);
	close(fd);
}

/* Its wait status; a process still there after 10 s is killed (and
 * reported as SIGKILLed) so that a broken stop fails instead of hanging. */
static int finish(struct proc *p, double *took, double t0)
{
	double limit = now_s() + 10;
	int st;

	while (waitpid(p->pid, &st, WNOHANG) == 0) {
		if (now_s() > limit) {
			tap_diag("pid %d still running after 10 s: killed", (int)p->pid);
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &st, 0);
			break;
		}
		usleep(10000);
	}
	if (took)
		*took = now_s() - t0;
	return st;
}

static char *slurp(const char *path)
{
	char *t = read_text(path, NULL);

	return t ? t : strdup("");
}

static int count(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* ---- the cases ---- */

/* A child that takes 0.4 s to stop after SIGTERM, counting them. */
static volatile sig_atomic_t got_term;

static void on_term(int sig)
{
	(void)sig;
	got_term++;
}

static void body_child_at_stake(int ready)
{
	pid_t parent = getpid(), c;
	int st;

	cleanup_init();
	cleanup_set_polling(true);
	cleanup_name(cleanup_push(mark, "tree ", "cgroup tree"), "/nowhere/tree");
	c = fork();
	if (!c) {
		char n[16];

		worker_detach_from_parent(parent);
		signal(SIGTERM, on_term);
		say_ready(ready);
		while (!got_term)
			pause();
		sleep_through(0.4);
		snprintf(n, sizeof(n), "%d", (int)got_term);
		append(child_log, n);
		_exit(0);
	}
	close(ready);
	cleanup_forward_to(c, SIGTERM);
	while (!lab_stop_requested())
		pause();
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	cleanup_forward_to(0, 0);
	append(marks, "reaped ");
	exit(3);
}

static void body_post_processing(int ready)
{
	cleanup_init();
	cleanup_set_polling(true);
	cleanup_push(mark, "results ", "results directory");
	say_ready(ready);
	while (!lab_stop_requested())
		pause();
	sleep_through(5);	/* a long report after the stop */
	exit(0);
}

static void body_hold(int ready)
{
	cleanup_init();
	cleanup_hold();
	say_ready(ready);
	sleep_through(0.3);	/* the signal comes here: before the undo step exists */
	append(marks, "made ");
	cleanup_name(cleanup_push(mark, "removed ", "cgroup tree"), "/nowhere/obj");
	cleanup_release();
	for (;;)
		pause();
}

static void body_pop(int ready)
{
	int h;

	cleanup_init();
	cleanup_push(mark, "other ", "results directory");
	h = cleanup_push(slow_mark, "slow-end ", "cgroup tree");
	say_ready(ready);
	cleanup_pop(h, true);
	append(marks, "after-pop ");
	for (;;)
		pause();
}

static void body_bound(int ready)
{
	setenv(CLEANUP_STOP_ENV, "1", 1);
	cleanup_init();
	cleanup_set_polling(true);
	cleanup_push(mark, "results ", "results directory");
	cleanup_name(cleanup_push(mark, "tree ", "cgroup tree"), "/nowhere/stuck-tree");
	say_ready(ready);
	for (;;)
		pause();	/* stuck: never unwinds */
}

static void body_early_child(int ready)
{
	pid_t parent = getpid(), c;
	int st;
	char n[32];

	cleanup_init();
	cleanup_set_polling(true);
	close(ready);
	c = fork();
	if (!c) {
		/* The signal lands between fork() and the detach. */
		kill(getpid(), SIGTERM);
		worker_detach_from_parent(parent);
		_exit(0);
	}
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	snprintf(n, sizeof(n), "%d", WIFSIGNALED(st) ? WTERMSIG(st) : -WEXITSTATUS(st));
	append(child_log, n);
	exit(0);
}

static void body_env(int ready)
{
	const char *v;

	close(ready);
	cleanup_init();
	v = getenv(CLEANUP_STOP_ENV);
	append(child_log, v ? v : "unset");
	exit(cleanup_stop_bound());
}

/* SIGTERM, then SIGTERM 50 ms later, to the process alone. */
TEST(second_signal_while_child_stops)
{
	struct proc p;
	double t0, took;
	char *m, *e, *c;
	int st;

	start(&p, body_child_at_stake);
	wait_ready(&p);
	t0 = now_s();
	kill(p.pid, SIGTERM);
	usleep(50000);
	kill(p.pid, SIGTERM);
	st = finish(&p, &took, t0);
	m = slurp(marks), e = slurp(errs), c = slurp(child_log);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 3,
	   "a second SIGTERM while a child still stops does not end the process (status %#x)", st);
	ok(!strcmp(m, "reaped tree "), "it reaps the child, then undoes (%s)", m);
	ok(!strcmp(c, "1"), "the stop reached the child once, though two came (%s)", c);
	ok(count(e, "SIGTERM again: ignored while this process stops its children") == 1 && count(e, "\n") == 1,
	   "the second is noted in one line: %.*s", (int)strcspn(e, "\n"), e);
	free(m), free(e), free(c);
}

/* Nothing at stake any more: the second signal ends it now. */
TEST(second_signal_with_nothing_at_stake)
{
	struct proc p;
	double t0, took;
	char *m;
	int st;

	start(&p, body_post_processing);
	wait_ready(&p);
	t0 = now_s();
	kill(p.pid, SIGTERM);
	usleep(100000);
	kill(p.pid, SIGINT);
	st = finish(&p, &took, t0);
	m = slurp(marks);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT && took < 2,
	   "with nothing at stake a second signal ends a long report at once, by that signal (%.1f s)", took);
	ok(!strcmp(m, "results "), "after the undo steps (%s)", m);
	free(m);
}

/* A command that does not poll, signalled in a hold. */
TEST(signal_in_a_hold)
{
	struct proc p;
	char *m;
	int st;

	start(&p, body_hold);
	wait_ready(&p);
	kill(p.pid, SIGTERM);
	st = finish(&p, NULL, 0);
	m = slurp(marks);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "a signal in a hold still ends a command that does not poll");
	ok(!strcmp(m, "made removed "), "but only at the release, so the object made meanwhile is undone (%s)", m);
	free(m);
}

/* A signal in the middle of cleanup_pop's undo step. */
TEST(signal_during_pop)
{
	struct proc p;
	char *m;
	int st;

	start(&p, body_pop);
	wait_ready(&p);
	usleep(100000);
	kill(p.pid, SIGTERM);
	usleep(30000);
	kill(p.pid, SIGINT);
	st = finish(&p, NULL, 0);
	m = slurp(marks);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "a signal during cleanup_pop's step ends the process after it");
	ok(!strcmp(m, "slow-start slow-end other "), "the step is not cut short, the rest is undone (%s)", m);
	free(m);
}

/* The bound: a process stuck after the first signal gives up. */
TEST(stop_bound_gives_up)
{
	struct proc p;
	double t0, took;
	char *m, *e;
	int st;

	start(&p, body_bound);
	wait_ready(&p);
	t0 = now_s();
	kill(p.pid, SIGTERM);
	usleep(200000);
	kill(p.pid, SIGTERM);
	st = finish(&p, &took, t0);
	e = slurp(errs);
	m = slurp(marks);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM && took > 0.9 && took < 2.5,
	   "a process stuck after the first signal gives up at its bound of 1 s (%.1f s, status %#x)", took, st);
	ok(count(e, "gave up stopping 1 s after SIGTERM: left cgroup tree /nowhere/stuck-tree; "
		    "`memcg-lab cleanup` removes what is left") == 1,
	   "naming what is left (the named steps) and the cleanup command: %.*s",
	   (int)strcspn(strstr(e, "memcg-lab: gave") ? strstr(e, "memcg-lab: gave") : e, "\n"),
	   strstr(e, "memcg-lab: gave") ? strstr(e, "memcg-lab: gave") : e);
	ok(!m[0], "without running the undo steps it gave up on (%s)", m);
	free(e), free(m);
}

/* The child's signal before its detach. */
TEST(child_signalled_before_detach)
{
	struct proc p;
	char *c;

	start(&p, body_early_child);
	finish(&p, NULL, 0);
	c = slurp(child_log);
	ok(!strcmp(c, "15"), "a child that got SIGTERM before its detach dies of it there (%s)", c);
	free(c);
}

/* The bound handed to lab processes started from this one. */
TEST(bound_handed_to_children)
{
	struct proc p;
	char *c;
	int st;

	unsetenv(CLEANUP_STOP_ENV);
	start(&p, body_env);
	st = finish(&p, NULL, 0);
	c = slurp(child_log);
	ok(WEXITSTATUS(st) == CLEANUP_STOP_BOUND_S && atoi(c) == CLEANUP_STOP_BOUND_S - 5,
	   "default bound %d s, %s s for the lab processes it starts", WEXITSTATUS(st), c);
	free(c);
	setenv(CLEANUP_STOP_ENV, "3", 1);
	start(&p, body_env);
	st = finish(&p, NULL, 0);
	c = slurp(child_log);
	ok(WEXITSTATUS(st) == 3 && !strcmp(c, "2"), "MEMCG_LAB_STOP_TIMEOUT=3: 3 s, %s s for its children", c);
	free(c);
	unsetenv(CLEANUP_STOP_ENV);
}

int main(int argc, char **argv)
{
	int rc;

	snprintf(dir, sizeof(dir), "/tmp/memcg-lab-unit-cleanup.XXXXXX");
	if (!mkdtemp(dir))
		tap_skip_all("cannot make a temporary directory");
	snprintf(marks, sizeof(marks), "%s/marks", dir);
	snprintf(errs, sizeof(errs), "%s/stderr", dir);
	snprintf(child_log, sizeof(child_log), "%s/child", dir);
	rc = tap_main(argc, argv);
	unlink(marks);
	unlink(errs);
	unlink(child_log);
	rmdir(dir);
	return rc;
}
