// SPDX-License-Identifier: GPL-2.0
#include <hwloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int topo_load(struct topo *t, char *err, size_t errlen)
{
	static const struct { hwloc_obj_type_t type; const char *name; } caches[] = {
		{ HWLOC_OBJ_L5CACHE, "L5" }, { HWLOC_OBJ_L4CACHE, "L4" }, { HWLOC_OBJ_L3CACHE, "L3" },
		{ HWLOC_OBJ_L2CACHE, "L2" }, { HWLOC_OBJ_L1CACHE, "L1" },
	};
	hwloc_topology_t topo;
	cpu_set_t usable;
	hwloc_obj_t o;
	int e, ncore, maxsib = 0, n;

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
	n = CPU_COUNT(&usable);
	t->compact = xcalloc(n, sizeof(int));
	t->spread = xcalloc(n, sizeof(int));
	/* hwloc's logical PU order keeps siblings, then caches, then nodes together. */
	o = NULL;
	while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, o)))
		if (o->os_index < CPU_SETSIZE && CPU_ISSET(o->os_index, &usable) && t->npu < n)
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
					if (i < CPU_SETSIZE && CPU_ISSET(i, &usable)) {
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
		o = first_usable(topo, HWLOC_OBJ_CORE, &usable);
		t->smt = o ? usable_weight(o->cpuset, &usable) : 1;
	}
	snprintf(t->llc_name, sizeof(t->llc_name), "none");
	t->llc = t->npu;
	for (size_t i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
		o = first_usable(topo, caches[i].type, &usable);
		if (o) {
			t->llc = usable_weight(o->cpuset, &usable);
			snprintf(t->llc_name, sizeof(t->llc_name), "%s", caches[i].name);
			break;
		}
	}
	o = first_usable(topo, HWLOC_OBJ_NUMANODE, &usable);
	/* NUMA nodes hang off the side of the tree: their cpuset is still set. */
	t->node = o ? usable_weight(o->cpuset, &usable) : t->npu;
	hwloc_topology_destroy(topo);
	if (!t->npu) {
		snprintf(err, errlen, "hwloc found no usable CPU");
		topo_free(t);
		return -1;
	}
	return 0;
}

void topo_free(struct topo *t)
{
	free(t->compact);
	free(t->spread);
	t->compact = t->spread = NULL;
}

int topo_steps(const struct topo *t, int *steps, const char **names)
{
	const int want[TOPO_MAX_STEPS] = { 1, t->smt, t->llc, t->node, t->npu };
	const char *const level[TOPO_MAX_STEPS] = { "1 CPU", "SMT set", t->llc_name, "node", "machine" };
	const char *name[TOPO_MAX_STEPS];
	int n = 0;

	/* Insertion by count: with sub-NUMA clustering a node can be smaller
	 * than an LLC.  A count two levels share keeps the wider level's name. */
	for (int i = 0; i < TOPO_MAX_STEPS; i++) {
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
