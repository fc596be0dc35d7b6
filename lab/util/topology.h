/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine's CPU topology through hwloc, for pinning orders and the
 * topology-stepped task counts of big machines (mmtests' stride idea):
 * 1, one SMT sibling set, one last-level cache, one NUMA node, then the
 * nodes doubled (2, 4 ... nodes) up to one package and the machine.
 *
 * topo_load(): this machine, where only CPUs that are online and in this
 * process's affinity mask count.  topo_load_spec(): a described machine (an
 * hwloc synthetic description or an lstopo XML file), where every PU counts;
 * nothing of this machine is read, so plans for a box we do not have can be
 * made and tested.
 */
#ifndef LAB_UTIL_TOPOLOGY_H
#define LAB_UTIL_TOPOLOGY_H

#include <stddef.h>

/* 1, SMT, LLC, node, package, machine and the node doublings between:
 * 16 covers 1024 nodes' worth of doublings. */
#define TOPO_MAX_STEPS 16

struct topo {
	int npu;		/* usable logical CPUs */
	int *compact;		/* OS CPU numbers, SMT siblings adjacent, then cache, node */
	int *spread;		/* one CPU per core first, then the second sibling of each, ... */
	int ncores;
	int smt;		/* CPUs in the first core */
	int llc;		/* CPUs under the first last-level cache */
	int node;		/* CPUs in the first NUMA node */
	int package;		/* CPUs in the first package (socket); 0: unknown */
	int nnodes;		/* NUMA nodes holding a counted CPU */
	long long mem_bytes;	/* memory of the NUMA nodes hwloc knows of; 0: unknown */
	char llc_name[8];	/* "L3", "L2", or "none" */
};

/* 0, or -1 with the reason in err. */
int topo_load(struct topo *t, char *err, size_t errlen);
/*
 * spec: an lstopo XML file (a path that exists) or an hwloc synthetic
 * description such as "package:2 numa:4 core:16 pu:2"; 0, or -1 with one
 * line in err naming the spec.
 */
int topo_load_spec(struct topo *t, const char *spec, char *err, size_t errlen);
void topo_free(struct topo *t);
/*
 * The stepped task counts, sorted and without duplicates, with the level
 * each one stands for ("1 CPU", "SMT set", "L3", "node", "2 nodes", "package",
 * "machine").
 * Returns the number of steps.
 */
int topo_steps(const struct topo *t, int *steps, const char **names);

#endif
