/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The experiment model: an experiment file (experiments/NAME.exp) checked
 * against the runner's schema, split into phases (driver, schedule, [small]
 * and [v1] values), and turned into the driver command lines of each step.
 * Every error is file:line with what was expected (exp_die, exit 2).
 *
 * The host enters through struct exp_host only (its CPU count for the
 * [small] rule, its cgroup version for [v1], its topology for values =
 * topology), so the same file is planned for this machine or a described
 * one (experiment/plan.h) without touching either.
 */
#ifndef LAB_EXPERIMENT_MODEL_H
#define LAB_EXPERIMENT_MODEL_H

#include <stdbool.h>
#include "c2c/around.h"
#include "util/expfile.h"
#include "util/topology.h"

#define MAX_STEPS 256
#define MAX_PHASES 8

/*
 * One driver and its schedule.  An experiment has one unnamed phase
 * ([driver], [schedule], [small]) or several named ones run in file order
 * ([driver NAME], [schedule NAME], [small NAME]); named phases prefix their
 * steps with "NAME:" so their metrics stay apart.
 */
struct phase {
	char name[64];
	char drv[80], sched[80], small_sec[80];	/* section names */
	char v1_sec[80];	/* overrides when the memory controller is on cgroup v1 */
	const char *command;
	const char *param;
	long values[MAX_STEPS];
	int nvalues;
	bool small;		/* the [small] values apply */
	bool v1;		/* the [v1] values apply */
};

struct experiment {
	struct expfile f;
	const char *name;
	int repeats;
	bool stop_on_failure;
	struct phase ph[MAX_PHASES];
	int nph;
	char scaled[256];
	bool runtime_probe;
	bool layout_check;
	struct around_cfg around;
	bool plot;
	int plot_w, plot_h;
};

/* What the model needs to know of the machine it plans for. */
struct exp_host {
	int ncpus;			/* below [schedule] small_cpus the [small] values apply */
	bool memory_v1;			/* the memory controller is on cgroup v1: [v1] values apply */
	const struct topo *topo;	/* for values = topology; NULL: topo_err says why not */
	char topo_err[256];
};

/* This machine: online CPUs, the memory controller's hierarchy, hwloc's
 * topology (kept in *storage; topo_free it). */
void exp_host_this_machine(struct exp_host *h, struct topo *storage);

/* Parses and checks path with its -s overrides for host; exits 2 with
 * file:line on the first error.  load_exp: for this machine. */
void load_exp_for(struct experiment *x, const char *path, char **overrides, int noverrides, const struct exp_host *h);
void load_exp(struct experiment *x, const char *path, char **overrides, int noverrides);

/* Ends the process (exit 2) with "file:line: message" (e: NULL for the file alone). */
void experiment_die(const struct experiment *x, const struct exp_entry *e, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

/*
 * argv for one driver run: the phase's [driver] entries (then its [small]
 * ones on a small box, its [v1] ones on cgroup v1) as --key=value, "yes" as
 * --key, "no" left out; the schedule's param set to step_value.
 */
char **driver_argv(const struct experiment *x, const struct phase *ph, long step_value, bool validate, int *argc);
void free_argv(char **av);
/* The phase's driver duration in seconds (10 s if not given), for collector windows. */
double phase_duration(const struct experiment *x, const struct phase *ph);
/* The step label of a phase's s-th value: "tasks=4", "charge:tasks=4", "-". */
void step_label(const struct phase *ph, int s, char *buf, size_t n);

/*
 * [derive] NAME = STEP:METRIC / STEP:METRIC: a ratio of two measured metrics
 * (repeat by repeat), e.g. the kmem accounting overhead as
 *   overhead = unaccounted:charge.ops_per_s / accounted:charge.ops_per_s
 * STEP is the step label ("-" for a single unnamed step, the phase name for
 * a named phase without schedule, "phase:param=value" otherwise).
 */
struct derive_ref {
	char step[128], metric[128];
};

int parse_derive(const char *v, struct derive_ref *num, struct derive_ref *den);

#endif
