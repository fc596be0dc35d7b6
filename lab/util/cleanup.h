/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run created, and how to undo it.
 *
 * Every resource the lab creates on the host (a cgroup tree, a tracefs
 * instance, a changed sysctl) registers an undo step here right after it is
 * created.  The steps run in reverse order on normal exit, on die(), and on
 * SIGINT/SIGTERM/SIGHUP; only in the process that registered them, never in
 * forked workers.  What a SIGKILL leaves behind is found by name and removed
 * by `memcg-lab cleanup` (cmd/cleanup.c) and at the start of the next run.
 *
 * Undo steps must not rely on malloc: they may run from a signal handler.
 *
 * Stopping: the first SIGINT, SIGTERM or SIGHUP starts the stop.  Every
 * later one (Ctrl-C pressed twice, `timeout` and make each passing on their
 * SIGTERM) is noted in one line and ignored, so that no process of the lab
 * dies while its children are still stopping: a child dies with its parent
 * (PR_SET_PDEATHSIG), and a child killed in the middle of removing its
 * cgroup tree leaves it behind.  The stop is bounded: CLEANUP_STOP_BOUND_S
 * seconds after the first signal (MEMCG_LAB_STOP_TIMEOUT overrides it) a
 * process still stopping prints one line naming what is left (its host
 * objects not yet removed, its children still running) and the `memcg-lab
 * cleanup` that removes it, and exits.  A lab process started by another
 * gets a bound a little shorter than its parent's, so it gives up (and says
 * what it leaves) before its parent does.
 */
#ifndef LAB_UTIL_CLEANUP_H
#define LAB_UTIL_CLEANUP_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#define CLEANUP_STOP_BOUND_S 60
#define CLEANUP_STOP_ENV "MEMCG_LAB_STOP_TIMEOUT"

typedef void (*cleanup_fn)(void *arg);

/* Installs the signal handlers and the atexit hook (once per process).  A
 * bad MEMCG_LAB_STOP_TIMEOUT is refused here (one line, exit 2). */
void cleanup_init(void);
/* Registers an undo step; returns a handle for cleanup_pop(). */
int cleanup_push(cleanup_fn fn, void *arg, const char *what);
/*
 * Names the host object a step removes (a path, kept by pointer: it must
 * live as long as the step).  A process that gives up stopping names the
 * objects of the steps it has not run.
 */
void cleanup_name(int handle, const char *name);
/* Removes a step, running it first if run is true (a signal meanwhile
 * waits for the step to finish, as in cleanup_hold()). */
void cleanup_pop(int handle, bool run);
/* Runs every step still registered (reverse order). */
void cleanup_run_all(void);

/*
 * A section that a signal does not cut in two: creating a host object and
 * registering its undo step, or undoing one outside cleanup_pop().  A
 * signal that would undo everything and exit at once (a command that does
 * not poll) does so at cleanup_release() instead.  Sections nest.
 */
void cleanup_hold(void);
void cleanup_release(void);

/*
 * Long-running commands call cleanup_set_polling(true) and check
 * lab_stop_requested() in their loops: a signal then only sets the flag and
 * interrupts blocking calls (no SA_RESTART), and the command unwinds
 * normally.  Otherwise the first signal runs the undo steps at once and the
 * process dies by that signal.  Later signals are ignored (see above).
 */
void cleanup_set_polling(bool on);
bool lab_stop_requested(void);
int lab_stop_signal(void);
/* Seconds after the first signal that this process gives up stopping. */
int cleanup_stop_bound(void);

/*
 * The child the stop is passed on to: from the moment the first signal
 * arrives (or at once, if it has), pid gets sig, once.  A process that
 * waits for a child doing the real work (the runner's driver, lock
 * record's command) registers it right after fork(), and 0 once reaped.
 */
void cleanup_forward_to(pid_t pid, int sig);

/* For forked workers: die with the parent (PR_SET_PDEATHSIG), drop the
 * parent's undo steps, default signal dispositions.  A child that got a
 * signal of its own before this dies of it here.  Returns 0 or -errno. */
int worker_detach_from_parent(pid_t parent);

/* The same for perf: its death signal is SIGINT, perf's own way to be
 * stopped, on which it finishes and removes its temporary files (the
 * /tmp/perf-vdso.so-* copy of the vDSO, which SIGKILL leaves behind).
 * Returns 0 or -errno. */
int perf_detach_from_parent(pid_t parent);

#endif
