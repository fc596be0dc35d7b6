// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "util/err.h"
#include "util/labcost.h"

static struct {
	double part[LABCOST_NPARTS];
	double sampling_s, sampling_cpu_s, edge_cpu_s, share_median;
	int workers_max;
	int recorded;
} cost;

double labcost_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

double labcost_cpu_self(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
}

void labcost_add(enum labcost_part part, double seconds)
{
	cost.part[part] += seconds;
	cost.recorded = 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void labcost_add_sampling(double wall_s, double cpu_s, const double *share, int nshare, int workers)
{
	if (nshare > 0) {
		double *v = xmalloc(nshare * sizeof(double)), m;

		memcpy(v, share, nshare * sizeof(double));

		qsort(v, nshare, sizeof(double), cmp_double);
		m = nshare % 2 ? v[nshare / 2] : (v[nshare / 2 - 1] + v[nshare / 2]) / 2;
		if (m > cost.share_median)
			cost.share_median = m;
		free(v);
	}
	cost.sampling_s += wall_s;
	cost.sampling_cpu_s += cpu_s;
	if (workers > cost.workers_max)
		cost.workers_max = workers;
	cost.recorded = 1;
}

/* Microseconds are what the clocks resolve: no binary noise digits. */
void labcost_add_edge_cpu(double cpu_s)
{
	cost.edge_cpu_s += cpu_s;
	cost.recorded = 1;
}

static void add_s(json_object *o, const char *key, double v)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.6f", v);
	json_object_object_add(o, key, json_object_new_double_s(v, buf));
}

json_object *labcost_json(void)
{
	const double *p = cost.part;
	json_object *o;
	struct rusage ru;

	if (!cost.recorded)
		return NULL;
	o = json_object_new_object();
	add_s(o, "setup_s", p[LABCOST_CGROUP_SETUP] + p[LABCOST_SPAWN]);
	add_s(o, "teardown_s", p[LABCOST_REAP] + p[LABCOST_CGROUP_TEARDOWN]);
	add_s(o, "cgroup_setup_s", p[LABCOST_CGROUP_SETUP]);
	add_s(o, "spawn_s", p[LABCOST_SPAWN]);
	add_s(o, "reap_s", p[LABCOST_REAP]);
	add_s(o, "cgroup_teardown_s", p[LABCOST_CGROUP_TEARDOWN]);
	add_s(o, "sampling_s", cost.sampling_s);
	add_s(o, "parent_cpu_s", cost.sampling_cpu_s);
	add_s(o, "parent_cpu_share", cost.sampling_s > 0 ? cost.sampling_cpu_s / cost.sampling_s : 0);
	add_s(o, "parent_cpu_share_median", cost.share_median);
	add_s(o, "window_edges_cpu_s", cost.edge_cpu_s);
	json_object_object_add(o, "workers_max", json_object_new_int(cost.workers_max));
	/* ru_maxrss: the largest resident set of this process, in KiB. */
	json_object_object_add(o, "peak_rss_kb",
			       json_object_new_int64(getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss));
	return o;
}
