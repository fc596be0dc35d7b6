// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup library and `memcg-lab cleanup` on the running host: trees,
 * limits, reads, kill-and-retry, a cgroup removed under our feet, and what
 * is left (nothing) after SIGTERM or SIGKILL of a run.  Needs root and a
 * memory controller; skips with the reason otherwise.
 *
 * A "run" is this program re-executed as a victim (argv[1] == "victim"), so
 * that it has its own undo registry and owner name, as a real run would.
 * This process is a child subreaper: a victim's orphaned workers come back
 * to it, so it can tell that they are gone, not just reparented.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kernel/cgroup.h"
#include "kernel/leftovers.h"
#include "kernel/tracefs_dir.h"
#include "tests/tap.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/owner.h"
#include "util/run.h"

static struct cg_env env;

static int sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

static int toucher(void *arg)
{
	size_t n = (size_t)arg;
	volatile char *p = malloc(n);

	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	for (;;)
		pause();
	return 0;
}

/*
 * victim <mode> [setting value]: creates its tree with one sleeping worker
 * in <root>/work, prints "<root> <worker pid>", then
 *   wait:    pauses until a signal (the undo registry cleans up)
 *   destroy: waits for a line on stdin, then cg_tree_destroy() and exit 0
 *   emfile:  opens files until EMFILE, then die()s (a run past its limit)
 * With a setting, also changes it through the host-state journal.
 */
static int victim_main(int argc, char **argv)
{
	struct cg_tree t;
	char err[512], *work;
	pid_t w;

	cleanup_init();
	if (cg_tree_create(&t, err, sizeof(err))) {
		fprintf(stderr, "victim: %s\n", err);
		return 2;
	}
	work = cg_name(t.root, "work");
	if (cg_create(&t.env, work)) {
		fprintf(stderr, "victim: cannot create %s\n", work);
		return 2;
	}
	w = cg_spawn(&t.env, work, -1, sleeper, NULL);
	if (argc > 4 && hoststate_set(argv[3], argv[4], err, sizeof(err))) {
		fprintf(stderr, "victim: %s\n", err);
		return 2;
	}
	/* The worker is inside before we report it. */
	for (int i = 0; i < 1000 && cg_nr_procs(work) < 1; i++)
		usleep(1000);
	printf("%s %d\n", t.root, (int)w);
	fflush(stdout);
	if (!strcmp(argv[2], "emfile")) {
		while (open("/dev/null", O_RDONLY) >= 0)
			;
		die("victim: out of descriptors: %s", strerror(errno));
	}
	if (!strcmp(argv[2], "destroy")) {
		char line[16];

		if (!fgets(line, sizeof(line), stdin))
			return 3;
		return cg_tree_destroy(&t) ? 1 : 0;
	}
	for (;;)
		pause();
}

struct victim {
	pid_t pid;
	FILE *out;
	int in;
	char root[512];
	pid_t worker;
	char errfile[64];
};

static int victim_start(struct victim *v, const char *mode, const char *setting, const char *value)
{
	int out[2], in[2];

	memset(v, 0, sizeof(*v));
	snprintf(v->errfile, sizeof(v->errfile), "/tmp/int-cgroup-err.%d", (int)getpid());
	if (pipe(out) || pipe(in))
		return -1;
	fflush(NULL);
	v->pid = fork();
	if (v->pid == 0) {
		char *args[] = { "int-cgroup", "victim", (char *)mode, (char *)setting, (char *)value, NULL };
		int fd = open(v->errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(out[1], 1);
		dup2(in[0], 0);
		if (fd >= 0)
			dup2(fd, 2);
		close(out[0]);
		close(in[1]);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(out[1]);
	close(in[0]);
	v->out = fdopen(out[0], "r");
	v->in = in[1];
	if (fscanf(v->out, "%511s %d", v->root, &v->worker) != 2) {
		char *e = read_text(v->errfile, NULL);

		tap_diag("victim did not start: %s", e ? e : "?");
		free(e);
		return -1;
	}
	return 0;
}

static int victim_reap(struct victim *v)
{
	int st = 0;

	waitpid(v->pid, &st, 0);
	fclose(v->out);
	close(v->in);
	return st;
}

/* Waits (as subreaper) until pid is gone; true if it went in time. */
static bool reaped(pid_t pid)
{
	for (int i = 0; i < 500; i++) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD && kill(pid, 0) < 0))
			return true;
		usleep(10000);
	}
	return false;
}

/* `memcg-lab cleanup [ARG]`: its stdout and stderr together. */
static char *run_cleanup(const char *arg, int *status)
{
	struct run_result r;
	char *out = run_capture_argv((const char *const[]){ "bin/memcg-lab", "cleanup", arg, NULL }, RUN_STDERR_MERGE,
				     &r);

	*status = r.status;
	return out;
}

/* The pid and start time of a process that has exited: a dead owner. */
static void dead_owner_name(char *buf, size_t n)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		exit(1);
	pid = fork();
	if (pid == 0) {
		char name[64];

		lab_owner_name(name, sizeof(name));
		if (write(p[1], name, strlen(name) + 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], buf, n) <= 0)
		buf[0] = '\0';
	close(p[0]);
	waitpid(pid, NULL, 0);
}

static void *thread_in_cgroup(void *arg)
{
	const char *cg = arg;

	if (cg_enter_thread(&env, cg, 0))
		return (void *)1;
	for (;;)
		pause();
	return NULL;
}

static void test_tree_basics(void)
{
	struct cg_tree t, t2;
	char err[512], name[64], *a, *b, *sub;
	long long v;
	pid_t w;
	int r;

	ok(cg_tree_create(&t, err, sizeof(err)) == 0, "cg_tree_create: %s", t.root);
	lab_owner_name(name, sizeof(name));
	ok(!strncmp(t.root, env.memory_root, strlen(env.memory_root)) && strstr(t.root, name) &&
	   path_exists(t.root), "the tree's root is <memory root>/%s and exists", name);
	ok(cg_tree_create(&t2, err, sizeof(err)) == 0 && !strcmp(t2.root, t.root),
	   "a second cg_tree_create in the same run shares the tree");
	cg_tree_destroy(&t2);
	ok(path_exists(t.root), "destroying the shared handle leaves the tree");

	a = cg_name(t.root, "a");
	ok(cg_create(&env, a) == 0 && path_exists(a), "cg_create %s", a);
	ok(cg_set_limit(&env, a, 64 << 20) == 0 && cg_read_ll(a, cg_file_limit(&env), &v) == 0 &&
	   v == 64 << 20, "limit 64 MiB reads back through %s", cg_file_limit(&env));
	r = cg_set_limit(&env, a, -1);
	r = r ?: cg_read_ll(a, cg_file_limit(&env), &v);
	ok(r == 0 && v > (1LL << 60), "limit -1 reads back as unlimited (%lld)", v);

	w = cg_spawn(&env, a, -1, toucher, (void *)(size_t)(4 << 20));
	for (int i = 0; i < 200; i++) {
		if (cg_usage(&env, a, &v) == 0 && v >= 4 << 20)
			break;
		usleep(10000);
	}
	is_int(cg_nr_procs(a), 1, "the worker is in cgroup.procs");
	r = cg_usage(&env, a, &v);
	ok(r == 0 && v >= 4 << 20, "%s counts the worker's 4 MiB (%lld)", cg_file_usage(&env), v);
	r = cg_read_key_ll(a, "memory.stat", env.memory_v2 ? "anon" : "rss", &v);
	ok(r == 0 && v >= 0, "memory.stat key %s reads (%lld)", env.memory_v2 ? "anon" : "rss", v);
	is_int(cg_read_key_ll(a, "memory.stat", "no_such_key", &v), -ENOENT, "a missing memory.stat key is -ENOENT");

	/*
	 * Kill-and-retry: live processes in two leaves below b (on v2 only
	 * leaves may hold processes once b hands the memory controller down).
	 */
	b = cg_name(t.root, "b");
	sub = cg_name(b, "sub");
	{
		char *leaf = cg_name(b, "leaf");
		pid_t ws[5];
		int dead = 0;

		cg_create(&env, b);
		cg_create(&env, leaf);
		cg_create(&env, sub);
		for (int i = 0; i < 5; i++)
			ws[i] = cg_spawn(&env, i < 3 ? leaf : sub, -1, sleeper, NULL);
		for (int i = 0; i < 200 && (cg_nr_procs(leaf) < 3 || cg_nr_procs(sub) < 2); i++)
			usleep(5000);
		is_int(cg_nr_procs(leaf) + cg_nr_procs(sub), 5, "5 live workers in b/leaf and b/sub");
		if (env.memory_v2)
			ok(cg_enter(&env, b, ws[0]) == -EBUSY, "v2: b has children with memory, so no process may enter it");
		else
			ok(cg_enter(&env, b, ws[0]) == 0 && cg_nr_procs(b) == 1, "v1: a process may sit in b too");
		is_int(cg_destroy(b), 0, "cg_destroy kills and removes b with its children");
		ok(!path_exists(b), "b is gone");
		for (int i = 0; i < 5; i++) {
			int st;

			if (waitpid(ws[i], &st, 0) == ws[i] && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
				dead++;
		}
		is_int(dead, 5, "all 5 workers died of SIGKILL");
		free(leaf);
	}

	/* One of our own threads inside: destroy moves us out, never kills us. */
	if (!env.memory_v2) {
		char *c = cg_name(t.root, "c");
		pthread_t th;
		int in = 0;

		cg_create(&env, c);
		pthread_create(&th, NULL, thread_in_cgroup, c);
		for (int i = 0; i < 200 && !(in = cg_nr_procs(c)); i++)
			usleep(5000);
		is_int(in, 1, "a thread of this process entered %s", c);
		is_int(cg_destroy(c), 0, "cg_destroy with our own thread inside succeeds (and we live)");
		ok(!path_exists(c), "c is gone");
		pthread_cancel(th);
		pthread_join(th, NULL);
		free(c);
	} else {
		tap_skip("own thread inside a cgroup", "threads cannot enter a v2 memory cgroup alone");
		tap_skip("", "v2");
		tap_skip("", "v2");
	}

	/* Removed under our feet (by hand, as another tool would). */
	cg_killall(a);
	waitpid(w, NULL, 0);
	for (int i = 0; i < 100 && rmdir(a) < 0 && errno == EBUSY; i++)
		usleep(10000);
	ok(!path_exists(a), "someone else removed %s", a);
	is_int(cg_destroy(a), 0, "cg_destroy of a cgroup already gone is success");
	r = cg_usage(&env, a, &v);
	ok(r == -ENOENT, "reading it answers -ENOENT (%s), no crash", strerror(-r));

	is_int(cg_tree_destroy(&t), 0, "cg_tree_destroy");
	ok(!path_exists(t.root), "the tree is gone");
	free(a);
	free(b);
	free(sub);
}

static void test_signals(void)
{
	struct victim v;
	char *out;
	int st;

	/* SIGTERM: the run's undo steps remove everything. */
	if (victim_start(&v, "wait", NULL, NULL)) {
		ok(0, "victim for SIGTERM started");
		return;
	}
	ok(path_exists(v.root), "a run made %s with worker %d", v.root, (int)v.worker);
	kill(v.pid, SIGTERM);
	st = victim_reap(&v);
	/* The undo registry cleans up, then dies by the signal itself. */
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "the run died by SIGTERM after its undo steps");
	ok(!path_exists(v.root), "after SIGTERM its tree is gone");
	ok(reaped(v.worker), "after SIGTERM its worker is gone");

	/* A run that dies of EMFILE still has descriptors for its undo steps
	 * (10000 readers past RLIMIT_NOFILE once left their tree behind). */
	if (victim_start(&v, "emfile", NULL, NULL)) {
		ok(0, "victim for EMFILE started");
		return;
	}
	st = victim_reap(&v);
	ok(WIFEXITED(st) && WEXITSTATUS(st) != 0, "a run out of descriptors dies with an error (status %d)", st);
	ok(!path_exists(v.root), "its undo steps removed its tree all the same");
	ok(reaped(v.worker), "and its worker is gone");

	/* A live run is never touched by cleanup. */
	if (victim_start(&v, "wait", NULL, NULL)) {
		ok(0, "victim for the live-run check started");
		return;
	}
	out = run_cleanup(NULL, &st);
	ok(st == 0 && path_exists(v.root) && kill(v.worker, 0) == 0 && !strstr(out, v.root),
	   "cleanup leaves a live run's tree and worker alone");
	free(out);
	out = run_cleanup("--dry-run", &st);
	ok(st == 0 && !strstr(out, v.root), "cleanup --dry-run does not list a live run's tree");
	free(out);

	/* SIGKILL: the tree stays, the worker dies with its parent. */
	kill(v.pid, SIGKILL);
	st = victim_reap(&v);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the run was SIGKILLed");
	ok(reaped(v.worker), "its worker died with it (PR_SET_PDEATHSIG)");
	ok(path_exists(v.root), "its tree is left behind: %s", v.root);
	out = run_cleanup("--dry-run", &st);
	ok(st == 0 && strstr(out, "would remove cgroup") && strstr(out, v.root) && path_exists(v.root),
	   "cleanup --dry-run lists it and removes nothing");
	free(out);
	out = run_cleanup(NULL, &st);
	ok(st == 0 && strstr(out, "removed cgroup") && strstr(out, v.root), "cleanup says it removed it");
	tap_diag("%s", out);
	free(out);
	ok(!path_exists(v.root), "after cleanup no cgroup of the run is left");

	/* A tree removed under a run's feet: one clear line, clean exit. */
	if (victim_start(&v, "destroy", NULL, NULL)) {
		ok(0, "victim for the removed-tree check started");
		return;
	}
	cg_destroy(v.root);	/* as `cleanup --force` would, from outside */
	ok(!path_exists(v.root), "someone else removed the run's tree %s", v.root);
	if (write(v.in, "go\n", 3) != 3)
		tap_diag("could not tell the victim to go on");
	st = victim_reap(&v);
	out = read_text(v.errfile, NULL);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && out && strstr(out, "already removed") &&
	   strchr(out, '\n') == strrchr(out, '\n'),
	   "the run said so in one line and exited 0: %s", out ? strtok(out, "\n") : "");
	free(out);
	unlink(v.errfile);
	reaped(v.worker);
}

static void test_tracefs(void)
{
	char mnt[256], dead[64], dead2[64], inst[512], unmarked[512], other[512], lookalike[512], err[512], *out;
	char line[700];
	int st;

	/* Mounted for this test (as a run would) where it is not. */
	if (lab_tracefs_find(mnt, sizeof(mnt), err, sizeof(err))) {
		tap_skip("tracefs instances are cleaned", err);
		return;
	}
	dead_owner_name(dead, sizeof(dead));
	dead_owner_name(dead2, sizeof(dead2));
	snprintf(inst, sizeof(inst), "%s/instances/%s", mnt, dead);
	snprintf(unmarked, sizeof(unmarked), "%s/instances/%s", mnt, dead2);
	snprintf(other, sizeof(other), "%s/instances/othertool-%d", mnt, (int)getpid());
	snprintf(lookalike, sizeof(lookalike), "%s/instances/memcg-lab-proto-%d", mnt, (int)getpid());
	/* The dead run's as the tracer leaves it (mode 0700, its mark); one
	 * of a dead run's name that root made otherwise (tracefs's 0750). */
	if (mkdir(inst, 0755) || chmod(inst, 0700) || mkdir(unmarked, 0755) || mkdir(other, 0755) ||
	    mkdir(lookalike, 0755)) {
		tap_skip("tracefs instances are cleaned", strerror(errno));
		rmdir(inst);
		rmdir(unmarked);
		rmdir(other);
		rmdir(lookalike);
		return;
	}
	out = run_cleanup(NULL, &st);
	ok(st == 0 && !path_exists(inst) && strstr(out, "removed tracefs instance"),
	   "cleanup removed the tracefs instance %s of a dead run", dead);
	snprintf(line, sizeof(line), "not removing tracefs instance %s: mode 0750, not the lab's 0700", unmarked);
	ok(path_exists(unmarked) && strstr(out, line), "one named like a dead run's but not made by the lab "
	   "stays, in one line: %s", line);
	ok(path_exists(other) && path_exists(lookalike),
	   "instances other tools made stay (othertool-*, memcg-lab-proto-*)");
	free(out);
	rmdir(inst);
	rmdir(unmarked);
	rmdir(other);
	rmdir(lookalike);
}

static void test_sysctl(void)
{
	const char *path = "/proc/sys/kernel/perf_event_max_sample_rate";
	char cur[64], err[512], after[64], dir[] = "/tmp/int-cgroup-state.XXXXXX";
	ssize_t n = read_buf(path, cur, sizeof(cur));

	if (n <= 0) {
		tap_skip("a real sysctl goes through the journal", "no perf_event_max_sample_rate");
		return;
	}
	cur[strcspn(cur, "\n")] = '\0';
	/* The same value: exercises the real write without changing the host. */
	setenv("MEMCG_LAB_STATE_DIR", mkdtemp(dir), 1);
	ok(hoststate_set(path, cur, err, sizeof(err)) == 0, "hoststate_set %s = %s", path, cur);
	hoststate_restore_all();
	read_buf(path, after, sizeof(after));
	after[strcspn(after, "\n")] = '\0';
	ok(!strcmp(after, cur), "and it reads %s after the restore", after);
	rmdir(dir);
	unsetenv("MEMCG_LAB_STATE_DIR");
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "victim"))
		return victim_main(argc, argv);
	if (geteuid() != 0)
		tap_skip_all("needs root to create cgroups");
	if (cg_detect(&env, NULL) || env.mode == CG_NONE)
		tap_skip_all(env.evidence);
	if (access("bin/memcg-lab", X_OK))
		tap_skip_all("bin/memcg-lab not built (run from the lab's root after make)");
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	tap_diag("cgroup mode %s, memory %s at %s", cg_mode_name(env.mode), env.memory_v2 ? "v2" : "v1",
		 env.memory_root);
	test_signals();	/* first: before this process has a tree of its own */
	test_tree_basics();
	test_tracefs();
	test_sysctl();
	return tap_done();
}
