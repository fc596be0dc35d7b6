/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf binary the lab runs: which version it is and what it was built
 * with, so that the domains (lock/, c2c/) pick the options that perf
 * takes.  The perf on PATH; a newer Debian perf runs with its own loader
 * (lab/scripts/perf-runtime.sh, vm --perf).
 */
#ifndef LAB_PERF_PERF_RUN_H
#define LAB_PERF_PERF_RUN_H

#include <stdbool.h>

struct perf_info {
	bool found;
	int major, minor;
	bool bpf_skel;			/* "bpf_skeletons: [ on ]" in the build options */
	char version[64];
};

/* `perf version` and its build options; found is false without perf. */
void perf_info_probe(struct perf_info *pi);
bool perf_has_csv(const struct perf_info *pi);	/* -x, 6.5+ */
bool perf_has_contention(const struct perf_info *pi);	/* perf lock contention, 5.19+ */

#endif
