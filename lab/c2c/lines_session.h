/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's side of `memcg-lab vm --lines` (lab/c2c/README, "The lines
 * plugin"): the lab inside the guest opens and closes the plugin's
 * windows itself, labels each one, and leaves what the host needs to name
 * what the plugin counted.  Active only where vm --lines booted the guest:
 * MEMCG_LAB_LINES_DIR names the directory (/out/lines, which comes back to
 * the host with the payload, into <vm results>/lines/).  Elsewhere (a host,
 * a guest without the plugin) nothing here does anything.
 *
 * Files (formats in lab/c2c/README):
 *   windows.tsv   one row per window the lab opened: index (the plugin's
 *                 window number), label ("tasks=4", "K=3"), who opened it
 *                 (harness, runner), repeat, pid, start and length planned
 *   window-objects.tsv  per window, the kernel objects of the run: each memcg's
 *                 struct mem_cgroup (BPF, kernel/memcg_addr.h) and every
 *                 CPU's memcg_stock_pcp / obj_stock_pcp (kallsyms and
 *                 __per_cpu_offset)
 *   window-ranges.tsv   per window, the lab's own memory named without BTF (the
 *                 harness's per-worker counter slots)
 *   window-ops.tsv  per window closed, the operations the measured process
 *                 counted while it was open (its counters read just
 *                 after the opening and just before the closing, inside
 *                 the window: never the faster time outside it): what
 *                 a claim divides the transfers by ("per page charged")
 * Before each opening the objects and ranges are announced to the plugin
 * (lines_detail_announce: followed in detail, every access counted per
 * offset, so that a field nobody shares still has its row).
 *
 * Windows never nest: the lab opens one at a time (a second open while one
 * is open is refused, in one line), and a driver that opens its own (one
 * per K) claims its run first so that the runner's collector (around.c)
 * leaves it alone.
 */
#ifndef LAB_C2C_LINES_SESSION_H
#define LAB_C2C_LINES_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <sched.h>
#include <stdint.h>
#include <sys/types.h>
#include "c2c/c2c_attr.h"

#define LINES_ENV_DIR "MEMCG_LAB_LINES_DIR"
#define LINES_WINDOWS_FILE "windows.tsv"
#define LINES_OBJECTS_FILE "window-objects.tsv"
#define LINES_RANGES_FILE "window-ranges.tsv"
#define LINES_OPS_FILE "window-ops.tsv"

/* A region of the lab's own memory, named without BTF. */
struct lines_range {
	const char *name;	/* "hslot": what fields.tsv calls its struct */
	uint64_t addr, size;	/* [addr, addr + size) */
	uint64_t stride;	/* one element per stride bytes (size: one element) */
	const char *fields;	/* "count:0:8,state:128:4": NAME:OFFSET:SIZE within an element */
};

struct lines_window_info {
	const char *label;	/* "tasks=4", "K=3": windows of one label add up on the host */
	const char *who;	/* "harness", "runner" */
	int repeat;		/* the experiment's repeat (0 outside one) */
	double start_s, len_s;	/* as planned: from the start of what it measures */
	const struct c2c_objects *objs;
	const struct lines_range *ranges;
	size_t nranges;
	pid_t counted;		/* whose counters (lines_session_counters) count the
				 * window's operations; 0: none */
};

/* A group of the measured process's operation counters: n uint64_t, each
 * stride bytes after the one before (the harness's per-worker slots). */
struct lines_counter {
	const void *addr;
	size_t n, stride;
};

/*
 * This process's operation counters (the harness's per-worker counts,
 * statread's reads), in unit ("charges", "reads"): a window whose
 * `counted` is this process reads their sum at its opening and closing,
 * in this process or in another (the runner: /proc/PID/mem), and
 * writes the difference to window-ops.tsv.  A marker file counters.PID.
 */
void lines_session_counters(const struct lines_counter *c, size_t n, const char *unit);
/* Removes what this process published: its counters and its objects, once
 * a window another process opened to count them is closed (10 s at most). */
void lines_session_unpublish(void);

/* Under vm --lines (MEMCG_LAB_LINES_DIR set)? */
bool lines_session_active(void);

/*
 * The objects of the run whose cgroup tree `owner` made (its memcgs, the
 * root memcg, the per-CPU stocks, the stats flush's locks), found through
 * BPF and kallsyms once per owner and kept; what cannot be found is said
 * on stderr, once.  Found for this process (the driver, before its
 * measured phase), they are also published (a marker file objects.PID),
 * so that the runner takes them from there: the search takes seconds
 * under TCG, more than a short phase lasts.
 */
const struct c2c_objects *lines_session_objects(pid_t owner);

/* This process opens its own windows (a driver that sweeps K): its run's
 * collector does not (a marker file driver-windows.PID; unclaim removes it). */
void lines_session_claim(void);
void lines_session_unclaim(void);
bool lines_session_claimed(pid_t pid);

/*
 * The measured phase of this process (a driver's harness) starts at t, on
 * CLOCK_MONOTONIC (t < 0: it ended): the runner's collector times its
 * window from there, as c2c_start means it, not from the driver's start
 * (under TCG a driver's setup takes seconds).  A marker file phase.PID.
 */
void lines_session_phase(double t);
/* The measured phase of pid began at *t: false while it has not. */
bool lines_session_phase_of(pid_t pid, double *t);

/*
 * This process at real-time priority (SCHED_FIFO 1; the guest is the
 * lab's own), until restored: whoever opens, times and closes a window.
 * The measured workers hold every vCPU, and at normal priority the opener
 * waited seconds for one (lab kernel 7.3, 4 workers on 4 vCPUs): 5.5 s
 * between an opening and its read of the counters (432 faults counted for
 * ~4000), 14 s between a read and the closing (720 K for ~9 K), and 17 s
 * past a window's planned end.  lines_session_open and _close raise it
 * themselves for their steps; the runner for as long as a driver runs
 * (c2c/around.c).  Not inherited by a child forked before the restore: a
 * driver forked after it is.  Where it cannot be had, nothing changes.
 */
struct lines_prio {
	int policy;
	struct sched_param param;
	bool raised;
};
void lines_prio_raise(struct lines_prio *p);
void lines_prio_restore(const struct lines_prio *p);

/*
 * This process's memory out of khugepaged's reach (PR_SET_THP_DISABLE,
 * kept across fork and exec), in a lines session: whoever opens a window,
 * and whoever publishes the counters another process's window reads
 * (through /proc/PID/mem, under the mmap lock).  The lab kernel runs THP
 * "always" (tinyconfig; Debian's kernels too), and khugepaged, at nice 19
 * among workers that hold every vCPU, took a lab process's mmap lock for
 * a collapse and kept it for 3-15 s: the runner, at real-time priority,
 * waited on it in a page fault or in that read, and a window opened or
 * closed that much late (the third of three repeats on the lab kernel,
 * every time; 11 collapses in the run; none late at
 * transparent_hugepage=never).  The workers' memory is the workload's:
 * lines_session_thp_restore() in a child before it runs a driver or a
 * command.  Where the kernel refuses, nothing changes.
 */
void lines_session_no_thp(void);
void lines_session_thp_restore(void);

/* Opens a window: its rows written, its objects and ranges announced, then
 * the plugin's window opened.  The window's index, or -1 with one line on
 * stderr (a window already open, a file that cannot be written). */
int lines_session_open(const struct lines_window_info *w);
/* Closes the window lines_session_open() returned (-1: nothing). */
void lines_session_close(int index);

/*
 * A window fitted to a measured phase of measured_s seconds as c2c fits
 * its window to a driver (c2c_plan_window: at 3/4, 3-5 s, ending before
 * the phase does), or, where that leaves less than a second, from its
 * middle to 90% of it.  -1 when the phase is too short for any (< 0.5 s).
 */
int lines_plan_window(double measured_s, double *start_s, double *len_s);

#endif
