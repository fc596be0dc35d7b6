/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where workers run: the cgroups they charge (a DEPTHxFANOUT tree below
 * this run's root, workers spread over its leaves), the CPUs they are
 * pinned to, and the checks that refuse a placement before anything starts
 * (offline CPUs, more tasks than the pid limits, a tree the cgroup limits or
 * PATH_MAX cannot hold).
 */
#ifndef LAB_DRIVERS_PLACEMENT_H
#define LAB_DRIVERS_PLACEMENT_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include "kernel/cgroup.h"
#include "util/topology.h"

/* ---- cgroups ---- */

struct placement {
	struct cg_tree tree;
	bool have_tree;
	int depth, fanout;
	int ncg;		/* leaves the workers use */
	char **leaf;		/* [ncg] absolute paths */
	char **label;		/* [ncg] paths below the run's root, for humans */
};

/* "3x2" -> depth 3, fanout 2; 0 or -1 with err. */
int hierarchy_parse(const char *s, int *depth, int *fanout, char *err, size_t errlen);
/*
 * Whether a DEPTHxFANOUT tree fits: the memory controller's free cgroup IDs
 * (65535 in all), cgroup.max.depth / cgroup.max.descendants above the run's
 * root (v2), and PATH_MAX for the deepest control file.  0 or -1 with err.
 */
int hierarchy_check(const struct cg_env *env, int depth, int fanout, char *err, size_t errlen);
/* The same in two halves, so a plan checks a described host: the limits
 * read from this one, and the check against them (touching nothing). */
struct hierarchy_limits {
	long memcg_ids_used;		/* memory cgroups that exist (/proc/cgroups); -1: unknown */
	long long max_depth;		/* v2: the memory root's cgroup.max.depth; LLONG_MAX: none */
	long long max_descendants;	/* v2: its cgroup.max.descendants; LLONG_MAX: none */
};
void hierarchy_limits_read(const struct cg_env *env, struct hierarchy_limits *l);
int hierarchy_fits(const struct cg_env *env, const struct hierarchy_limits *l, int depth, int fanout,
		   char *err, size_t errlen);
/* The tree's leaf count (fanout^depth), capped at INT_MAX. */
long hierarchy_leaves(int depth, int fanout);

/*
 * Creates the run's tree (cg_tree_create) and DEPTHxFANOUT below it, then
 * sets limit_bytes (>= 0) and tcp_limit_bytes (>= 0, v1 only) on the first
 * ncg leaves.  0 or -1 with err; what was created is removed by the tree's
 * undo step either way.
 */
int placement_build(struct placement *p, int depth, int fanout, int ncg, long long limit_bytes,
		    long long tcp_limit_bytes, char *err, size_t errlen);
void placement_destroy(struct placement *p);
/* The harness hook: moves the calling process into leaf idx. */
int placement_enter(void *arg, int idx, char *err, size_t errlen);

/* ---- CPUs ---- */

enum pin_kind { PIN_NONE, PIN_SPREAD, PIN_COMPACT, PIN_PACK, PIN_LIST };

struct pin_plan {
	enum pin_kind kind;
	int ncpus;
	int *cpus;		/* PIN_LIST: the list; PIN_PACK: the one CPU */
};

/*
 * "spread" (one CPU per core first), "compact" (SMT siblings, then the LLC,
 * then the node: hwloc's order), "pack" or "pack:CPU" (all on one CPU),
 * "none", or a list ("0,2-5", used in turn).  Every CPU named must be online
 * and allowed to this process.  0 or -1 with err.
 */
int pin_parse(const char *s, const struct topo *t, struct pin_plan *p, char *err, size_t errlen);
/* The CPUs a pin may name (pin_cpus_read: this machine's), and pin_parse
 * against them, touching nothing. */
struct pin_cpus {
	int read_err;			/* -errno: this machine's could not be read */
	cpu_set_t online, usable;	/* usable: online and in this process's affinity */
};
void pin_cpus_read(struct pin_cpus *c);
int pin_parse_on(const char *s, const struct topo *t, const struct pin_cpus *c, struct pin_plan *p,
		 char *err, size_t errlen);
/* The CPU of each of n workers (-1 where unpinned). */
void pin_assign(const struct pin_plan *p, const struct topo *t, int n, int *cpu);
void pin_describe(const struct pin_plan *p, const int *cpu, int n, char *buf, size_t len);
void pin_free(struct pin_plan *p);

/* ---- tasks ---- */

/*
 * Whether `need` more tasks (processes and threads) can exist: kernel.pid_max
 * and kernel.threads-max against the tasks running now, RLIMIT_NPROC for
 * non-root users, and pids.max of this process's pids cgroups (a v1 pids
 * hierarchy, or cgroup v2).  0, or -1 with the limit that refuses in err.
 */
int tasks_check(long need, char *err, size_t errlen);
/* The same in two halves: the limits read from this machine, and the check
 * against them (touching nothing), for plans of described hosts. */
struct task_limits {
	long now;			/* tasks that exist */
	long long pid_max, threads_max;	/* LLONG_MAX: unreadable */
	bool nproc_limited;		/* a non-root user under a finite RLIMIT_NPROC */
	unsigned long nproc;
	long long pids_left;		/* pids_headroom(); LLONG_MAX: no pids limit */
	long long pids_max, pids_cur;
	char pids_file[1100];		/* the tightest pids.max */
};
void task_limits_read(struct task_limits *l);
int task_limits_check(const struct task_limits *l, long need, char *err, size_t errlen);
/*
 * The fewest more tasks any pids cgroup from this process's up allows
 * (pids.max - pids.current), LLONG_MAX where none limits; the tightest
 * one's pids.max path, max and current into file, max, cur (each may be NULL).
 */
long long pids_headroom(char *file, size_t n, long long *max, long long *cur);

#endif
