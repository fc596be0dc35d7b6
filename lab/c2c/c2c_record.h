/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_C2C_C2C_RECORD_H
#define LAB_C2C_C2C_RECORD_H

#include <stdbool.h>

struct c2c_opts;
struct c2c_pmu;

/*
 * Runs argv[cmd..] (expected to last duration seconds) with one perf c2c
 * window in its steady state, written to out (NULL: a results directory
 * results/<date>-c2c/, its data/), and names the fields of the struct
 * mem_cgroup of each memcg directory and every CPU's stocks.  Where c2c
 * cannot record, one line says why and the command still runs.  Returns 0
 * when the command exited 0, else 1.
 */
int c2c_record_command(const struct c2c_opts *o, double duration, const char *out, const char *const *memcgs,
		       int nmemcgs, int argc, char **argv, int cmd);

/*
 * --dry-run: the perf command line a window of this PMU (NULL: this
 * machine's) and CPU count (o->ncpus; 0: this machine's) would run, the
 * rate and the data per second, and what its data cannot show; records
 * nothing.  0, or 2 with one line when the options do not fit the PMU.
 */
int c2c_record_dry_run(const struct c2c_opts *o, const struct c2c_pmu *pmu, double duration);

#endif
