// SPDX-License-Identifier: GPL-2.0
/*
 * What the plots decide before gnuplot draws: the unit of a time axis, the
 * words of a legend, the cacheline map's boxes and labels (one box per
 * byte range, every label within its box), the false-sharing map's rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plot/plotmaps.h"
#include "plot/legend.h"
#include "plot/time_axis.h"
#include "tests/tap.h"

TEST(time_axis_units)
{
	static const struct { const char *unit; double max; const char *want; double scale; } cases[] = {
		{ "ns", 640, "ns", 1 }, { "ns", 67583, "µs", 1e-3 }, { "ns", 1e6, "ms", 1e-6 },
		{ "ns", 5.2e9, "s", 1e-9 }, { "s", 0.0021, "ms", 1e3 }, { "us", 12, "µs", 1 },
	};
	struct time_axis ax;
	char *tics;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool is_time = time_axis_for(cases[i].unit, cases[i].max, &ax);

		ok(is_time && !strcmp(ax.unit, cases[i].want) && ax.scale > cases[i].scale * 0.999 &&
		   ax.scale < cases[i].scale * 1.001,
		   "%g %s reads in %s (got %s, x%g)", cases[i].max, cases[i].unit, cases[i].want, ax.unit, ax.scale);
	}
	ok(!time_axis_for("ops/s", 1e6, &ax), "ops/s is not a time axis");
	{
		/* A name that says its unit keeps it: cpu_ns_per_charge read in µs
		 * would contradict itself (issue 31). */
		static const struct {
			const char *metric, *unit;
			double max;
			bool named;
			const char *want;
			double scale;
		} m[] = {
			{ "stock.cpu_ns_per_charge", "ns", 2600, true, "ns", 1 },
			{ "objstock.cpu_ns_per_charge", "ns", 2e6, true, "ns", 1 },
			{ "rtt_us", "us", 5000, true, "µs", 1 },
			{ "run.duration_s", "s", 0.5, true, "s", 1 },
			{ "lat", "ns", 3e6, false, "ms", 1e-6 },
			{ "stock.charges_per_s", "ops/s", 2.5e6, false, "ops/s", 1 },
			{ "nsamples", "ns", 5000, false, "µs", 1e-3 },
		};

		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
			bool named = time_axis_for_metric(m[i].metric, m[i].unit, m[i].max, &ax);

			ok(named == m[i].named && !strcmp(ax.unit, m[i].want) && ax.scale > m[i].scale * 0.999 &&
			   ax.scale < m[i].scale * 1.001, "%s (%g %s): %s, in %s (got %s x%g)", m[i].metric, m[i].max,
			   m[i].unit, m[i].named ? "the name says the unit" : "the name says none", m[i].want, ax.unit,
			   ax.scale);
		}
	}
	tics = time_axis_log_tics(500, 67583);
	ok(!strcmp(tics, "\"100 ns\" 100, \"1 µs\" 1000, \"10 µs\" 10000, \"100 µs\" 100000"),
	   "a log axis from 500 ns to 68 µs: a tic a decade, each in its unit (%s)", tics);
	free(tics);
}

TEST(legend_words)
{
	static const char *const cases[][2] = {
		{ "leaf.total-readers=10", "leaf cgroups, total-readers=10" },
		{ "top", "top-level cgroups" },
		{ "memory_cgrp_subsys.rstat_ss_lock.root4.level0", "memory_cgrp_subsys.rstat_ss_lock, root 4, level 0" },
		{ "cgroup_rstat_lock", "cgroup_rstat_lock" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = legend_of_series(cases[i][0]);

		ok(!strcmp(got, cases[i][1]), "legend of %s: %s (got %s)", cases[i][0], cases[i][1], got);
		free(got);
	}
}

static const struct cl_struct *find(const struct cl_struct *s, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return &s[i];
	return NULL;
}

TEST(cacheline_map_boxes)
{
	struct cl_struct *s;
	char err[256], **labels, *keys;
	int n, overlaps = 0, too_wide = 0, nkeys;
	int r = plotmap_cachelines_read("layouts/6.18.44/cachelines.txt", &s, &n, err, sizeof(err));
	const struct cl_struct *m = r < 0 ? NULL : find(s, n, "mem_cgroup");
	/* The 800-pixel map: 9.33-pixel em, 10.9 pixels a byte. */
	struct cl_geometry g = { 9.33 / 10.9, 1.5 / 10.9, 0 };
	const struct cl_box *usage = NULL;

	ok(n >= 4 && m, "layouts/6.18.44: %d structs, mem_cgroup among them (%s)", n, r < 0 ? err : "");
	if (!m)
		return;
	for (size_t i = 0; i < m->nboxes; i++) {
		const struct cl_box *b = &m->boxes[i];

		for (size_t j = i + 1; j < m->nboxes; j++)
			overlaps += m->boxes[j].line == b->line && m->boxes[j].start < b->end && b->start < m->boxes[j].end;
		if (b->line == 7 && b->start == 0)
			usage = b;
	}
	ok(!overlaps, "mem_cgroup: each byte range is one box (%d overlapping)", overlaps);
	ok(usage && !strcmp(usage->name, "swap|memsw.usage") && usage->tag == 1 && !strcmp(usage->leaf, "usage") &&
	   !strcmp(m->prefix[7], "swap|memsw"),
	   "the union of swap and memsw: one hot-written box 'usage' on a line named swap|memsw (%s)",
	   usage ? usage->name : "none");
	ok(!strcmp(m->prefix[5], "memory") && !m->prefix[0][0], "line 5 carries memory, line 0 (css) no prefix");
	nkeys = plotmap_cachelines_label(m, &g, &labels, &keys);
	for (size_t i = 0; i < m->nboxes; i++) {
		const struct cl_box *b = &m->boxes[i];

		too_wide += labels[i][0] && plotmap_label_ems(labels[i], 0) * g.em_bytes + 2 * g.pad_bytes > b->end - b->start;
		free(labels[i]);
	}
	free(labels);
	ok(!too_wide, "every drawn label fits its box (%d do not)", too_wide);
	ok(nkeys > 0 && strstr(keys, " children_min_usage\n") && !strstr(keys, " usage\n"),
	   "long names are keys in the list, short ones are not (%d keys)", nkeys);
	free(keys);
	plotmap_cachelines_free(s, n);
}

static char *fieldmap_of(const char *text, struct fieldmap_info *fi)
{
	char path[] = "/tmp/unit-plot-layout.XXXXXX", err[256], *out;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	out = plotmap_fieldmap(path, fi, err, sizeof(err));
	unlink(path);
	return out;
}

/*
 * The false-sharing map's rows: a field's readers (their HITMs) and its
 * writers (their stores).  c2c_attr.c writes each function twice, its
 * HITMs on a "read" row, its stores on a "write" row; the map summed HITMs
 * on both and so never drew a writer (issue 30).
 */
TEST(false_sharing_map_rows)
{
#define FM_HEAD "struct\tfield\tfield_offset\tfield_size\tstruct_line\tfunction\taccess\thitm\tpeer\tstores\trows\n"
	/* `memcg-lab c2c lines` of lab/tests/data/lines/charge-6.1 (host perf
	 * 6.1's c2c report): lines/c2c/fieldmap-mem_cgroup.tsv as written. */
	static const char lines61[] = FM_HEAD
		"mem_cgroup\tmem_cgroup.memory.usage\t256\t8\t4\tpage_counter_try_charge\tread\t66.0\t\t\t12\n"
		"mem_cgroup\tmem_cgroup.memory.usage\t256\t8\t4\tpage_counter_try_charge\twrite\t\t\t66.0\t12\n"
		"mem_cgroup\tmem_cgroup.memory.usage\t256\t8\t4\tpage_counter_uncharge\twrite\t\t\t3.0\t3\n";
	/* Arm SPE: peer snoops, no HITM; a field read and never written. */
	static const char spe[] = FM_HEAD
		"mem_cgroup\tmem_cgroup.css.cgroup\t0\t8\t0\tmem_cgroup_charge\tread\t\t12.5\t\t1\n"
		"mem_cgroup\tmem_cgroup.memory.usage\t256\t8\t4\tpage_counter_cancel\twrite\t\t\t7.0\t1\n";
	/* The golden attribution of sample 10: readers only. */
	static const char readers[] = FM_HEAD
		"mem_cgroup\tmem_cgroup.css.cgroup\t0\t8\t0\t__count_memcg_events\tread\t425.9\t\t\t1\n"
		"mem_cgroup\tmem_cgroup.css.cgroup\t0\t8\t0\t__mod_memcg_state\tread\t928.0\t\t\t1\n";
	struct fieldmap_info fi;
	char *t;

	t = fieldmap_of(lines61, &fi);
	ok(t && !strcmp(t, "field\treads\tstores\nmemory.usage\t66.0\t69.0\n") && fi.store_rows == 2 &&
	   !strcmp(fi.metric, "HITMs") && fi.nfields == 1,
	   "memory.usage: 66 HITMs of its reader beside 66 + 3 stores of its two writers");
	free(t);
	t = fieldmap_of(spe, &fi);
	ok(t && !strcmp(t, "field\treads\tstores\ncss.cgroup\t12.5\t0.0\nmemory.usage\t0.0\t7.0\n") &&
	   !strcmp(fi.metric, "peer snoops"),
	   "peer snoops where no HITM was measured; a field without a writer has 0 stores when others have some");
	free(t);
	t = fieldmap_of(readers, &fi);
	ok(t && !strcmp(t, "field\treads\tstores\ncss.cgroup\t1353.9\tNaN\n") && fi.store_rows == 0,
	   "no writer row at all: no store count (NaN), not a measured zero");
	free(t);
#undef FM_HEAD
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
