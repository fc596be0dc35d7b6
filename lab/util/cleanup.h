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
 */
#ifndef LAB_UTIL_CLEANUP_H
#define LAB_UTIL_CLEANUP_H

#include <signal.h>
#include <stdbool.h>

typedef void (*cleanup_fn)(void *arg);

/* Installs the signal handlers and the atexit hook (once per process). */
void cleanup_init(void);
/* Registers an undo step; returns a handle for cleanup_pop(). */
int cleanup_push(cleanup_fn fn, void *arg, const char *what);
/* Removes a step, running it first if run is true. */
void cleanup_pop(int handle, bool run);
/* Runs every step still registered (reverse order). */
void cleanup_run_all(void);

/*
 * Long-running commands call cleanup_set_polling(true) and check
 * lab_stop_requested() in their loops: a signal then only sets the flag and
 * interrupts blocking calls (no SA_RESTART), and the command unwinds
 * normally.  Otherwise a signal runs the undo steps at once and exits with
 * 128 + signal.  A second signal always does the latter.
 */
void cleanup_set_polling(bool on);
bool lab_stop_requested(void);
int lab_stop_signal(void);

/* For forked workers: die with the parent (PR_SET_PDEATHSIG), drop the
 * parent's undo steps, default signal dispositions. Returns 0 or -errno. */
int worker_detach_from_parent(pid_t parent);

/* The same for perf: its death signal is SIGINT, perf's own way to be
 * stopped, on which it finishes and removes its temporary files (the
 * /tmp/perf-vdso.so-* copy of the vDSO, which SIGKILL leaves behind).
 * Returns 0 or -errno. */
int perf_detach_from_parent(pid_t parent);

#endif
