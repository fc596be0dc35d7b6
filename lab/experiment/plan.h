/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an experiment would do on a machine, without touching it: per phase
 * the schedule steps, the cgroup tree and its size, the workers, readers and
 * allocators, the collectors and their windows, the time it takes; whether
 * the full-size or the [small] values apply and why; and the kernel's limits
 * it must fit (tasks, open files, memcg ids, cgroup.max.descendants, the
 * perf sample rate and ldlat of the c2c window).  A limit that does not fit
 * is one line naming the number, so a run is refused before it starts.
 *
 * The machine is a struct exp_plan_host: read from this one
 * (exp_plan_host_this), or described by an hwloc topology with the kernel's
 * defaults for its size (exp_plan_host_describe), or made up by a test
 * (tests/unit-run-plan.c).  Each step's shape is its driver's own plan
 * (charge_plan, statread_plan) on that machine (experiment/plan_steps.h).
 */
#ifndef LAB_EXPERIMENT_PLAN_H
#define LAB_EXPERIMENT_PLAN_H

#include <stdbool.h>
#include <stdio.h>
#include "c2c/c2c.h"
#include "experiment/model.h"

/* Memory cgroup ids are 16 bits (MEM_CGROUP_ID_MAX = USHRT_MAX, mm/memcontrol.c). */
#define EXP_MEMCG_ID_MAX 65535

struct exp_plan_host {
	struct exp_host model;		/* CPUs, cgroup version, topology (model.topo = &topo) */
	struct topo topo;
	bool have_topo;
	bool described;			/* not this machine: the limits are the kernel's defaults */
	char what[300];			/* "this machine" or the description */
	long page_size;
	long long mem_bytes;		/* RAM available; <= 0: unknown (the memory checks are skipped) */
	long long mem_total;		/* RAM in all (MemTotal) */
	long long swap_free;		/* 0: no swap (a described box is assumed to have none) */
	long long pid_max, threads_max;	/* kernel.pid_max, kernel.threads-max */
	long long tasks_now;		/* tasks that exist already */
	long long pids_left;		/* pids controller headroom above the run; LLONG_MAX: none */
	long long nofile_max;		/* RLIMIT_NOFILE hard limit (what a driver can raise to) */
	long long memcgs_in_use, memcgs_max;
	long long descendants_left;	/* cgroup.max.descendants headroom; LLONG_MAX: none */
	long long depth_left;		/* cgroup.max.depth; LLONG_MAX: none */
	long long sample_rate_max;	/* kernel.perf_event_max_sample_rate */
	int cpu_time_max_percent;	/* kernel.perf_cpu_time_max_percent: 0 or 100 refuse rate writes */
	bool root;			/* can raise the sample rate for the window */
	struct c2c_caps c2c;		/* the box's memory sampling (c2c_caps_detect, or --pmu) */
	int stock_slots, obj_stock_slots;	/* the per-CPU stocks' memcg and objcg slots (BTF); 0: unknown */
};

/* 0, or -1 with one line in err.  Free with exp_plan_host_free. */
int exp_plan_host_this(struct exp_plan_host *h, char *err, size_t errlen);
int exp_plan_host_describe(struct exp_plan_host *h, const char *spec, char *err, size_t errlen);
/* The box samples memory with PMU p (--pmu), under this machine's perf. */
void exp_plan_host_pmu(struct exp_plan_host *h, const struct c2c_pmu *p);
void exp_plan_host_free(struct exp_plan_host *h);

/* One step of a phase: one driver run (per repeat). */
struct exp_step_plan {
	long value;			/* the schedule param's value (0 without schedule) */
	const char *level;		/* the topology level it stands for, or NULL */
	long long workers;		/* charge workers (stock: K up to the largest) */
	long long pairs;		/* sock: client/receiver pairs, each pair's memcg */
	long long readers, allocators;	/* statread */
	long long memcgs;		/* memory cgroups the driver creates */
	int depth;			/* levels below the host's memory root */
	long long tasks;		/* threads and processes it needs, with the lab's own */
	long long fds;			/* most files open in one process */
	double seconds;			/* driver time per repeat; < 0: until its work is done */
	bool sweep;			/* the driver sweeps (stock K, task counts) within its run */
};

struct exp_phase_plan {
	const struct phase *ph;
	char what[96];			/* "charge sock", "statread" */
	char tree[256];			/* the cgroup tree in words */
	char workers[256];		/* who runs, in words */
	char note[256];			/* the driver's scaling note, or "" */
	int nsteps;
	struct exp_step_plan step[MAX_STEPS];
	struct c2c_window win;		/* the c2c window in this phase's driver */
	bool win_ok;
	double seconds;			/* all steps and repeats (lower bound when work_bound) */
	bool work_bound;
};

struct exp_plan {
	int nph;
	struct exp_phase_plan ph[MAX_PHASES];
	char values_why[300];		/* full size or [small], and why */
	bool c2c_on;			/* c2c windows are recorded ([collect] c2c and the box) */
	char c2c_why[700];		/* why not, when off */
	int ldlat, freq;		/* c2c: the ldlat and -F the window would use (0: none) */
	struct c2c_rate rate;		/* c2c: the window's sampling and data per second */
	char c2c_cmd[700];		/* c2c: the perf command line of a window */
	bool rate_raised;		/* c2c: perf_event_max_sample_rate raised for the window */
	double seconds;
	bool work_bound;
};

/* 0, or -1 with one line in err ("file:line: ..." where an entry is at fault).
 * The plan borrows from x (p->ph[i].ph points into x->ph): keep x until p is
 * no longer used, as exp_plan_print, which takes both, does. */
int exp_plan(struct exp_plan *p, const struct experiment *x, const struct exp_plan_host *h, char *err, size_t errlen);
/* How long the driver of phase i, step s runs, for its c2c window: the
 * sweep's whole length where the driver sweeps, else the phase's duration. */
double exp_plan_driver_seconds(const struct exp_plan *p, const struct experiment *x, int i, int s);
void exp_plan_print(FILE *f, const struct exp_plan *p, const struct experiment *x, const struct exp_plan_host *h);

#endif
