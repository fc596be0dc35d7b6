// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/owner.h"
#include "util/rawdir.h"

#define MAX_STEPS 256
#define STOP_BOUND_MAX 3600

struct step {
	cleanup_fn fn;
	void *arg;
	const char *what;
	const char *name;	/* the host object it removes, if named */
};

static struct step steps[MAX_STEPS];
static int nsteps;
static pid_t owner;
static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t stop_again;	/* signals after the first */
static volatile sig_atomic_t child_sig;	/* a signal a forked child got before its detach */
static volatile sig_atomic_t polling;
static volatile sig_atomic_t running;
static volatile sig_atomic_t held;		/* cleanup_hold() depth */
static volatile sig_atomic_t deferred;	/* an undo-now the hold postponed */
static volatile sig_atomic_t fwd_pid, fwd_sig, fwd_done;
static int bound_s = CLEANUP_STOP_BOUND_S;
static struct timespec stop_t0;

/* Steps cleanup_pop() is running: popped, but not yet done. */
#define MAX_POPPING 4
static struct step popping[MAX_POPPING];
static volatile sig_atomic_t npopping;

/*
 * Descriptors kept for the undo steps.  A run that dies because it ran out
 * of descriptors (EMFILE: a reader past RLIMIT_NOFILE) must still open
 * directories and cgroup.kill to remove its tree: three levels of
 * directory walk, a control file, a message.  Held as fd + 1 (0: none), so
 * the zeroed array means "not taken".
 */
#define RESERVED_FDS 8
static int reserved[RESERVED_FDS];

static void reserve_take(void)
{
	for (int i = 0; i < RESERVED_FDS; i++)
		if (!reserved[i])
			reserved[i] = open("/dev/null", O_RDONLY | O_CLOEXEC) + 1;
}

static void reserve_release(void)
{
	for (int i = 0; i < RESERVED_FDS; i++) {
		if (reserved[i] > 0)
			close(reserved[i] - 1);
		reserved[i] = 0;
	}
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "a signal";
	}
}

static double since_stop(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - stop_t0.tv_sec) + (now.tv_nsec - stop_t0.tv_nsec) / 1e9;
}

static void say_line(char *buf, size_t size, int n)
{
	if (n < 0)
		return;
	if ((size_t)n > size - 2)
		n = size - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, n) < 0)
		return;
}

/* Undoes everything now and dies by sig, as the shell expects. */
static void __attribute__((noreturn)) undo_and_die(int sig)
{
	sigset_t self;

	cleanup_run_all();
	signal(sig, SIG_DFL);
	sigemptyset(&self);
	sigaddset(&self, sig);
	sigprocmask(SIG_UNBLOCK, &self, NULL);
	raise(sig);
	_exit(128 + sig);
}

static void forward_stop(void)
{
	if (fwd_pid > 0 && !fwd_done) {
		fwd_done = 1;
		kill(fwd_pid, fwd_sig);
	}
}

/* ---- giving up: what is left, in one line ---- */

struct line {
	char buf[4096];
	size_t n;
	int items;
	bool count_only;	/* count live children, name nothing */
};

static void line_add(struct line *l, const char *s)
{
	size_t k = strnlen(s, sizeof(l->buf) - 2 - l->n);	/* room for '\n' */

	memcpy(l->buf + l->n, s, k);
	l->n += k;
}

static void line_item(struct line *l, const char *a, const char *b, const char *c)
{
	line_add(l, l->items++ ? ", " : "");
	line_add(l, a);
	line_add(l, b);
	line_add(l, c);
}

/* A child still running: "process <pid> (<argv0 base> <argv1>)". */
static void name_child(struct line *l, pid_t pid)
{
	char path[64], buf[512], what[600], *base, *close_paren;
	ssize_t n;
	size_t a0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_buf(path, buf, sizeof(buf)) <= 0 || !(close_paren = strrchr(buf, ')')) ||
	    close_paren[1] != ' ' || close_paren[2] == 'Z')
		return;	/* gone, or a zombie: it has finished */
	if (l->count_only) {
		l->items++;
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = read_buf(path, buf, sizeof(buf));
	if (n <= 0)
		return;
	a0 = strlen(buf);
	base = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
	snprintf(what, sizeof(what), "process %d (%s%s%s)", (int)pid, base, (ssize_t)a0 + 1 < n ? " " : "",
		 (ssize_t)a0 + 1 < n ? buf + a0 + 1 : "");
	line_item(l, what, " still stopping", "");
}

static int children_of_task(const char *dir, const char *tid, bool is_dir, void *arg)
{
	char path[96], buf[1024], *p, *end;

	(void)dir;
	(void)is_dir;
	snprintf(path, sizeof(path), "/proc/self/task/%s/children", tid);
	if (read_buf(path, buf, sizeof(buf)) <= 0)
		return 0;
	for (p = buf; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			name_child(arg, (pid_t)pid);
	}
	return 0;
}

static void name_step(struct line *l, const struct step *s)
{
	if (s->fn && s->name)
		line_item(l, s->what, " ", s->name);
}

/* Live children (zombies have finished) and named steps not yet undone:
 * what dying now would leave behind. */
static bool at_stake(void)
{
	struct line probe = { .n = 0, .items = 0 };

	if (held || npopping)
		return true;
	for (int i = 0; i < nsteps; i++)
		if (steps[i].fn && steps[i].name)
			return true;
	probe.count_only = true;
	rawdir_foreach("/proc/self/task", children_of_task, &probe);
	return probe.items > 0;
}

static void on_signal(int sig)
{
	int saved = errno;

	if (getpid() != owner) {
		/* A child between fork() and its detach (or a short helper
		 * that never detaches): its own code decides. */
		child_sig = sig;
		if (!stop_sig)
			stop_sig = sig;
		errno = saved;
		return;
	}
	if (!stop_sig) {
		stop_sig = sig;
		clock_gettime(CLOCK_MONOTONIC, &stop_t0);
		alarm(bound_s);
		forward_stop();
		if (!polling) {
			if (held || running)
				deferred = 1;	/* cleanup_release() undoes and dies */
			else
				undo_and_die(sig);
		}
		errno = saved;
		return;
	}
	/* Nothing of this process left to stop or remove (its children are
	 * reaped, its trees gone): the signal ends what follows (reports). */
	if (!at_stake())
		undo_and_die(sig);
	/* Ctrl-C again, or make passing on its SIGTERM: dying now would kill
	 * the children in the middle of their own cleanup (PDEATHSIG). */
	if (!stop_again++) {
		char buf[256];
		int left = bound_s - (int)since_stop();

		say_line(buf, sizeof(buf),
			 snprintf(buf, sizeof(buf), "%s: %s again: ignored while this process stops its children "
				  "and removes what it made (it gives up in %d s and says what is left)",
				  lab_progname, sig_name(sig), left > 0 ? left : 0));
	}
	errno = saved;
}

static void on_bound(int sig)
{
	static struct line l;
	char head[256];

	(void)sig;
	/* Nothing left to give up on: what runs now is the command's own
	 * end (its report), which a further signal still ends at once. */
	if (getpid() != owner || !stop_sig || !at_stake())
		return;
	reserve_release();
	l.n = 0;
	l.items = 0;
	snprintf(head, sizeof(head), "%s: gave up stopping %d s after %s: left ", lab_progname, bound_s,
		 sig_name(stop_sig));
	line_add(&l, head);
	for (int i = (npopping < MAX_POPPING ? npopping : MAX_POPPING) - 1; i >= 0; i--)
		name_step(&l, &popping[i]);
	for (int i = nsteps - 1; i >= 0; i--)
		name_step(&l, &steps[i]);
	rawdir_foreach("/proc/self/task", children_of_task, &l);
	if (!l.items)
		line_add(&l, "no host object this process knows of");
	line_add(&l, "; `memcg-lab cleanup` removes what is left (named " LAB_OWNER_PREFIX
		 "<pid>-*) once these processes have exited");
	say_line(l.buf, sizeof(l.buf), (int)l.n);
	_exit(128 + stop_sig);
}

static void at_exit(void)
{
	cleanup_run_all();
}

/* MEMCG_LAB_STOP_TIMEOUT, and the shorter bound lab processes started from
 * this one get (they give up first, and say what they leave). */
static void read_bound(void)
{
	const char *v = getenv(CLEANUP_STOP_ENV);
	char *end, child[16];
	long s;

	if (v) {
		errno = 0;
		s = strtol(v, &end, 10);
		if (errno || end == v || *end || s < 1 || s > STOP_BOUND_MAX) {
			fprintf(stderr, "%s: %s='%s': not a whole number of seconds from 1 to %d\n", lab_progname,
				CLEANUP_STOP_ENV, v, STOP_BOUND_MAX);
			exit(EXIT_LAB_ERR);
		}
		bound_s = (int)s;
	}
	snprintf(child, sizeof(child), "%d", bound_s > 10 ? bound_s - 5 : bound_s > 1 ? bound_s - 1 : 1);
	setenv(CLEANUP_STOP_ENV, child, 1);
}

void cleanup_init(void)
{
	struct sigaction sa;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	if (owner)
		return;
	read_bound();
	owner = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	sa.sa_flags = 0; /* no SA_RESTART: blocking calls return EINTR */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	sa.sa_handler = on_bound;
	sigaction(SIGALRM, &sa, NULL);
	/* A closed pipe (e.g. `| head`) must not skip the undo steps. */
	signal(SIGPIPE, SIG_IGN);
	atexit(at_exit);
	reserve_take();
}

int cleanup_push(cleanup_fn fn, void *arg, const char *what)
{
	sigset_t all, old;
	int h;

	cleanup_init();
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if (nsteps >= MAX_STEPS) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		abort(); /* a programming error: the lab never needs that many */
	}
	h = nsteps;
	steps[nsteps++] = (struct step){ fn, arg, what, NULL };
	sigprocmask(SIG_SETMASK, &old, NULL);
	return h;
}

void cleanup_name(int handle, const char *name)
{
	if (handle >= 0 && handle < nsteps)
		steps[handle].name = name;
}

void cleanup_hold(void)
{
	held++;
}

void cleanup_release(void)
{
	if (held > 0)
		held--;
	if (!held && deferred && !running && getpid() == owner) {
		deferred = 0;
		undo_and_die(stop_sig);
	}
}

void cleanup_pop(int handle, bool run)
{
	sigset_t all, old;
	struct step s;

	if (handle < 0 || handle >= nsteps || !steps[handle].fn)
		return;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	s = steps[handle];
	steps[handle].fn = NULL;
	while (nsteps > 0 && !steps[nsteps - 1].fn)
		nsteps--;
	if (run) {
		held++;
		if (npopping < MAX_POPPING)
			popping[npopping] = s;
		npopping++;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (run) {
		reserve_release();
		s.fn(s.arg);
		reserve_take();
		npopping--;
		cleanup_release();
	}
}

void cleanup_run_all(void)
{
	sigset_t mask, old;

	if (getpid() != owner || running)
		return;
	running = 1;
	/* Everything but the stop bound, which still ends a stuck undo. */
	sigfillset(&mask);
	sigdelset(&mask, SIGALRM);
	sigprocmask(SIG_BLOCK, &mask, &old);
	reserve_release();
	while (nsteps > 0) {
		int i = nsteps - 1;

		/* The step stays listed (for the bound's line) until it is done. */
		if (steps[i].fn)
			steps[i].fn(steps[i].arg);
		steps[i].fn = NULL;
		if (nsteps > i)
			nsteps = i;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	running = 0;
}

void cleanup_set_polling(bool on)
{
	polling = on;
}

bool lab_stop_requested(void)
{
	return stop_sig != 0;
}

int lab_stop_signal(void)
{
	return stop_sig;
}

int cleanup_stop_bound(void)
{
	return bound_s;
}

void cleanup_forward_to(pid_t pid, int sig)
{
	sigset_t all, old;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	fwd_pid = pid;
	fwd_sig = sig;
	fwd_done = 0;
	if (stop_sig && pid > 0)
		forward_stop();
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static int detach_from_parent(pid_t parent, int death_signal)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	/* The undo steps belong to the parent; a worker never runs them. */
	nsteps = 0;
	owner = 0;
	fwd_pid = 0;
	reserve_release();
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	/* A signal that reached this child before it could die of it. */
	if (child_sig) {
		raise(child_sig);
		_exit(128 + child_sig);
	}
	if (prctl(PR_SET_PDEATHSIG, death_signal) < 0)
		return -errno;
	/* The parent may have died between fork() and prctl(). */
	if (getppid() != parent)
		_exit(1);
	return 0;
}

int worker_detach_from_parent(pid_t parent)
{
	return detach_from_parent(parent, SIGKILL);
}

int perf_detach_from_parent(pid_t parent)
{
	return detach_from_parent(parent, SIGINT);
}
