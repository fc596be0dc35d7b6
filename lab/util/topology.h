/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine's CPU topology through hwloc, for pinning orders and the
 * topology-stepped task counts of big machines (mmtests' stride idea):
 * 1, one SMT sibling set, one last-level cache, one NUMA node, the machine.
 *
 * Only CPUs that are online and in this process's affinity mask count.
 */
#ifndef LAB_UTIL_TOPOLOGY_H
#define LAB_UTIL_TOPOLOGY_H

#include <stddef.h>

#define TOPO_MAX_STEPS 5

struct topo {
	int npu;		/* usable logical CPUs */
	int *compact;		/* OS CPU numbers, SMT siblings adjacent, then cache, node */
	int *spread;		/* one CPU per core first, then the second sibling of each, ... */
	int ncores;
	int smt;		/* CPUs in the first core */
	int llc;		/* CPUs under the first last-level cache */
	int node;		/* CPUs in the first NUMA node */
	char llc_name[8];	/* "L3", "L2", or "none" */
};

/* 0, or -1 with the reason in err. */
int topo_load(struct topo *t, char *err, size_t errlen);
void topo_free(struct topo *t);
/*
 * The stepped task counts, sorted and without duplicates, with the level
 * each one stands for ("1 CPU", "SMT set", "L3", "node", "machine").
 * Returns the number of steps.
 */
int topo_steps(const struct topo *t, int *steps, const char **names);

#endif
