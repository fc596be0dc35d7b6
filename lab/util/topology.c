// SPDX-License-Identifier: GPL-2.0
#include <hwloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/cpus.h"
#include "util/err.h"
#include "util/topology.h"

/* Weight of the usable part of an object's cpuset. */
static int usable_weight(hwloc_const_cpuset_t objset, const cpu_set_t *usable)
{
	int n = 0;
	unsigned i;

	hwloc_bitmap_foreach_begin(i, objset)
		if (i < CPU_SETSIZE && CPU_ISSET(i, usable))
			n++;
	hwloc_bitmap_foreach_end();
	return n;
}

/* The first object of a type that holds a usable CPU. */
static hwloc_obj_t first_usable(hwloc_topology_t topo, hwloc_obj_type_t type, const cpu_set_t *usable)
{
	hwloc_obj_t o = NULL;

	while ((o = hwloc_get_next_obj_by_type(topo, type, o)))
		if (o->cpuset && usable_weight(o->cpuset, usable) > 0)
			return o;
	return NULL;
}

/*
 * Fills t from a loaded hwloc topology, counting the CPUs in usable only.
 * Frees nothing of topo.
 */
static int from_hwloc(struct topo *t, hwloc_topology_t topo, const cpu_set_t *usable, char *err, size_t errlen)
{
	static const struct { hwloc_obj_type_t type; const char *name; } caches[] = {
		{ HWLOC_OBJ_L5CACHE, "L5" }, { HWLOC_OBJ_L4CACHE, "L4" }, { HWLOC_OBJ_L3CACHE, "L3" },
		{ HWLOC_OBJ_L2CACHE, "L2" }, { HWLOC_OBJ_L1CACHE, "L1" },
	};
	hwloc_obj_t o;
	int ncore, maxsib = 0, n;

	n = CPU_COUNT(usable);
	t->compact = xcalloc(n ? n : 1, sizeof(int));
	t->spread = xcalloc(n ? n : 1, sizeof(int));
	/* hwloc's logical PU order keeps siblings, then caches, then nodes together. */
	o = NULL;
	while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, o)))
		if (o->os_index < CPU_SETSIZE && CPU_ISSET(o->os_index, usable) && t->npu < n)
			t->compact[t->npu++] = (int)o->os_index;
	/* Cores in order; round r takes the r-th usable sibling of each core. */
	ncore = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	if (ncore <= 0) {
		/* No core objects (some VMs): every CPU is its own core. */
		memcpy(t->spread, t->compact, t->npu * sizeof(int));
		t->ncores = t->npu;
		t->smt = 1;
	} else {
		int k = 0;

		for (int r = 0; k < t->npu && r < 64; r++) {
			o = NULL;
			while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_CORE, o))) {
				int idx = 0;
				unsigned i;

				hwloc_bitmap_foreach_begin(i, o->cpuset)
					if (i < CPU_SETSIZE && CPU_ISSET(i, usable)) {
						if (idx == r && k < t->npu)
							t->spread[k++] = (int)i;
						idx++;
					}
				hwloc_bitmap_foreach_end();
				if (r == 0 && idx > 0)
					t->ncores++;
				if (idx > maxsib)
					maxsib = idx;
			}
		}
		o = first_usable(topo, HWLOC_OBJ_CORE, usable);
		t->smt = o ? usable_weight(o->cpuset, usable) : 1;
	}
	snprintf(t->llc_name, sizeof(t->llc_name), "none");
	t->llc = t->npu;
	for (size_t i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
		o = first_usable(topo, caches[i].type, usable);
		if (o) {
			t->llc = usable_weight(o->cpuset, usable);
			snprintf(t->llc_name, sizeof(t->llc_name), "%s", caches[i].name);
			break;
		}
	}
	o = first_usable(topo, HWLOC_OBJ_NUMANODE, usable);
	/* NUMA nodes hang off the side of the tree: their cpuset is still set. */
	t->node = o ? usable_weight(o->cpuset, usable) : t->npu;
	o = NULL;
	while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o)))
		if (o->cpuset && usable_weight(o->cpuset, usable) > 0)
			t->nnodes++;
	o = first_usable(topo, HWLOC_OBJ_PACKAGE, usable);
	t->package = o ? usable_weight(o->cpuset, usable) : 0;
	o = hwloc_get_root_obj(topo);
	t->mem_bytes = o ? (long long)o->total_memory : 0;
	if (!t->npu) {
		snprintf(err, errlen, "hwloc found no usable CPU");
		topo_free(t);
		return -1;
	}
	return 0;
}

int topo_load(struct topo *t, char *err, size_t errlen)
{
	hwloc_topology_t topo;
	cpu_set_t usable;
	int e;

	memset(t, 0, sizeof(*t));
	e = cpus_usable(&usable);
	if (e < 0) {
		snprintf(err, errlen, "cannot read the online CPUs: %s", strerror(-e));
		return -1;
	}
	if (hwloc_topology_init(&topo) < 0 || hwloc_topology_load(topo) < 0) {
		snprintf(err, errlen, "hwloc could not read the CPU topology");
		return -1;
	}
	e = from_hwloc(t, topo, &usable, err, errlen);
	hwloc_topology_destroy(topo);
	return e;
}

int topo_load_spec(struct topo *t, const char *spec, char *err, size_t errlen)
{
	bool xml = access(spec, R_OK) == 0;
	hwloc_topology_t topo;
	cpu_set_t all;
	hwloc_obj_t o = NULL;
	int e;

	memset(t, 0, sizeof(*t));
	if (hwloc_topology_init(&topo) < 0) {
		snprintf(err, errlen, "hwloc could not start");
		return -1;
	}
	/* hwloc prints its own complaints about a bad description on stderr;
	 * the one line below is what the user needs. */
	setenv("HWLOC_HIDE_ERRORS", "2", 0);
	e = xml ? hwloc_topology_set_xml(topo, spec) : hwloc_topology_set_synthetic(topo, spec);
	if (e < 0 || hwloc_topology_load(topo) < 0) {
		snprintf(err, errlen, xml ? "%s: not an lstopo XML topology hwloc can load"
				      : "'%s': neither a file nor an hwloc synthetic description "
					"(e.g. 'package:2 numa:4 core:16 pu:2')", spec);
		hwloc_topology_destroy(topo);
		return -1;
	}
	/* A described machine: every PU counts, none is offline or outside
	 * an affinity mask. */
	CPU_ZERO(&all);
	while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, o))) {
		if (o->os_index >= CPU_SETSIZE) {
			snprintf(err, errlen, "%s: CPU %u is beyond the %d CPUs the lab can pin to", spec,
				 o->os_index, CPU_SETSIZE);
			hwloc_topology_destroy(topo);
			return -1;
		}
		CPU_SET(o->os_index, &all);
	}
	e = from_hwloc(t, topo, &all, err, errlen);
	hwloc_topology_destroy(topo);
	if (e)
		snprintf(err, errlen, "%s: hwloc found no CPU in it", spec);
	return e;
}

void topo_free(struct topo *t)
{
	free(t->compact);
	free(t->spread);
	t->compact = t->spread = NULL;
}

/*
 * Where the levels leave big gaps, which to fill?  Below one node the
 * levels themselves are where sharing changes (an SMT pair, one LLC), and
 * counts in between (4, 8 of a 16-CPU LLC) add run time without a new
 * boundary.  Above one node every added node adds cross-node traffic on
 * the shared memcg, the thing that grows on big boxes, so from one node up
 * the steps double the nodes (2, 4 ... nodes: mmtests' doubling) until the
 * package and the machine: a 2-socket 256-CPU box with 4 nodes of 32 CPUs
 * per socket and 16-CPU L3s steps 1, 2, 16, 32, 64, 128, 256.
 */
static const char *const doubled_names[] = { "2 nodes", "4 nodes", "8 nodes", "16 nodes", "32 nodes",
					     "64 nodes", "128 nodes", "256 nodes", "512 nodes", "1024 nodes" };

int topo_steps(const struct topo *t, int *steps, const char **names)
{
	int want[TOPO_MAX_STEPS];
	const char *level[TOPO_MAX_STEPS];
	const char *name[TOPO_MAX_STEPS];
	int n = 0, nwant = 0;

	/* The doublings first: a count a real level shares takes the level's name. */
	for (int v = t->node * 2, k = 0; t->node >= 1 && v < t->npu && k < 10 && nwant < TOPO_MAX_STEPS - 6;
	     v *= 2, k++) {
		want[nwant] = v;
		level[nwant++] = doubled_names[k];
	}
	want[nwant] = 1, level[nwant++] = "1 CPU";
	want[nwant] = t->smt, level[nwant++] = "SMT set";
	want[nwant] = t->llc, level[nwant++] = t->llc_name;
	want[nwant] = t->node, level[nwant++] = "node";
	if (t->package > 0)
		want[nwant] = t->package, level[nwant++] = "package";
	want[nwant] = t->npu, level[nwant++] = "machine";
	/* Insertion by count: with sub-NUMA clustering a node can be smaller
	 * than an LLC.  A count two levels share keeps the wider level's name. */
	for (int i = 0; i < nwant; i++) {
		int v = want[i] < 1 ? 1 : want[i] > t->npu ? t->npu : want[i];
		int j = 0;

		while (j < n && steps[j] < v)
			j++;
		if (j < n && steps[j] == v) {
			name[j] = level[i];
			continue;
		}
		memmove(steps + j + 1, steps + j, (n - j) * sizeof(int));
		memmove(name + j + 1, name + j, (n - j) * sizeof(name[0]));
		steps[j] = v;
		name[j] = level[i];
		n++;
	}
	if (names)
		memcpy(names, name, n * sizeof(name[0]));
	return n;
}
