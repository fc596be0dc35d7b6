/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lab's own cost in one process: what setting up and tearing down a
 * run's cgroups and workers took, and what the parent spent sampling them.
 * The code doing each part adds its time here (drivers/placement.c for the
 * cgroup tree, drivers/harness.c for the workers and the 1 Hz sampling);
 * results_finish() writes the sums into meta.json as "cost", next to the
 * process's peak RSS, so the lab's growth with the machine can be read
 * from a run instead of being measured from outside (lab/bench/scale-cost.sh).
 */
#ifndef LAB_UTIL_LABCOST_H
#define LAB_UTIL_LABCOST_H

#include <json-c/json.h>

enum labcost_part {
	LABCOST_CGROUP_SETUP,		/* the tree: mkdir, controllers, limits */
	LABCOST_SPAWN,			/* fork until every worker is ready */
	LABCOST_REAP,			/* stop flag until every worker is reaped */
	LABCOST_CGROUP_TEARDOWN,	/* kill and rmdir of the tree */
	LABCOST_NPARTS
};

/* Seconds since an arbitrary start (CLOCK_MONOTONIC). */
double labcost_now(void);
/* This process's user + system CPU seconds, all threads (getrusage). */
double labcost_cpu_self(void);
void labcost_add(enum labcost_part part, double seconds);
/* A measured window's 1 Hz sampling: its wall time (opening to last
 * sample), this process's CPU in it (all threads), and its CPU share
 * from each sample to the next (nshare of them). */
void labcost_add_sampling(double wall_s, double cpu_s, const double *share, int nshare, int workers);
/* The once-per-window reads at its edges (each worker's CPU time). */
void labcost_add_edge_cpu(double cpu_s);
/*
 * {"setup_s", "teardown_s" (sums of the parts above), "cgroup_setup_s",
 * "spawn_s", "reap_s", "cgroup_teardown_s", "sampling_s", "parent_cpu_s",
 * "parent_cpu_share" (CPU / wall of the sampling), "parent_cpu_share_median"
 * (the median of the per-second shares, the largest of several windows:
 * robust against a second in which the machine charged the parent for
 * time it did not run, as a busy virtual machine's host does), "window_edges_cpu_s",
 * "workers_max", "peak_rss_kb"}, or NULL when nothing was recorded.
 */
json_object *labcost_json(void);

#endif
