/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The summary report.txt opens with: what the run found, on one screen.
 * First what the run could not have measured (socket memory on cgroup v1
 * bypasses the per-CPU stock, throughput under qemu TCG, a [small] shape),
 * then the verdicts (layout rules, runtime probes against BTF), the stock
 * cliffs, the derived ratios, what was skipped, and each phase's headline
 * numbers.  Everything comes from the results directory (meta.json,
 * data/metrics.tsv, data/layout-check.txt); nothing touches the host, so it
 * is tested on made-up directories.
 */
#ifndef LAB_REPORT_REPORT_SUMMARY_H
#define LAB_REPORT_REPORT_SUMMARY_H

#include <stdio.h>
#include <json-c/json.h>

/* The summary's most lines below its title and underline: 20 with them. */
#define REPORT_SUMMARY_LINES 18

struct report_summary {
	char **line;		/* each without its newline, indented */
	int n;
};

/* Builds the summary of the results directory dir, whose meta.json is meta. */
void report_summary_build(struct report_summary *s, const char *dir, json_object *meta);
/* Prints its lines (the report puts the title above), cut to
 * REPORT_SUMMARY_LINES: the last then says how many more were left out. */
void report_summary_print(FILE *out, const struct report_summary *s);
void report_summary_free(struct report_summary *s);

struct metrics;
/*
 * Socket memory charges the per-CPU stock only on cgroup v2: why this run's
 * did not ("charged to memory.kmem.tcp (cgroup v1), not through the
 * stock"), malloc'd; NULL when it did or the run charged no sockets.
 */
char *report_socket_bypass(json_object *meta, const struct metrics *m);

#endif
