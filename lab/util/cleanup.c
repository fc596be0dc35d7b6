// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "util/cleanup.h"

#define MAX_STEPS 256

struct step {
	cleanup_fn fn;
	void *arg;
	const char *what;
};

static struct step steps[MAX_STEPS];
static int nsteps;
static pid_t owner;
static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t polling;
static volatile sig_atomic_t running;

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

static void on_signal(int sig)
{
	if (stop_sig || !polling) {
		/* Second signal, or a command that does not poll: undo now. */
		sigset_t self;

		stop_sig = sig;
		cleanup_run_all();
		/* Die by the signal itself, as the shell expects: it is blocked
		 * inside its own handler, so unblock it after resetting it. */
		signal(sig, SIG_DFL);
		sigemptyset(&self);
		sigaddset(&self, sig);
		sigprocmask(SIG_UNBLOCK, &self, NULL);
		raise(sig);
		_exit(128 + sig);
	}
	stop_sig = sig;
}

static void at_exit(void)
{
	cleanup_run_all();
}

void cleanup_init(void)
{
	struct sigaction sa;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	if (owner)
		return;
	owner = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	sa.sa_flags = 0; /* no SA_RESTART: blocking calls return EINTR */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
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
	steps[nsteps++] = (struct step){ fn, arg, what };
	sigprocmask(SIG_SETMASK, &old, NULL);
	return h;
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
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (run) {
		reserve_release();
		s.fn(s.arg);
		reserve_take();
	}
}

void cleanup_run_all(void)
{
	sigset_t all, old;

	if (getpid() != owner || running)
		return;
	running = 1;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	reserve_release();
	while (nsteps > 0) {
		struct step s = steps[--nsteps];

		if (s.fn)
			s.fn(s.arg);
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

static int detach_from_parent(pid_t parent, int death_signal)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	/* The undo steps belong to the parent; a worker never runs them. */
	nsteps = 0;
	owner = 0;
	reserve_release();
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
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
