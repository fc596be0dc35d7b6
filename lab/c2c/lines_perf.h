/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plugin's events as the memory samples of a PMU box (perf/perfdata_write.h),
 * so that the real `perf c2c report` reads them:
 *   - one sample per event of a site (a PC, a vCPU, an offset and size):
 *     a load HITM as a load with DATA_SRC local HITM; a store HITM and an
 *     invalidation as a store that missed L1 (perf c2c's "Store L1 Miss");
 *   - ADDR the line's virtual address + the site's offset, PHYS_ADDR its
 *     physical one, IP the site's PC, CPU the vCPU; TID: the plugin sees no
 *     guest task (qemu 7.2's API reads no registers), so each vCPU is a
 *     task of its own, pid and tid 10000 + vCPU, comm "vcpuN";
 *   - WEIGHT 0: TCG measures no latency;
 *   - over LINES_PERF_MAX_SAMPLES events, one sample per k events (PERIOD
 *     k), spread over the sites in proportion, as a sampling PMU would:
 *     perf c2c's counts are then the exact ones divided by k (fields.tsv
 *     has them exactly);
 *   - the guest kernel's text address and build ID (c2c/lines_guest.h) go
 *     in the header, so perf names code addresses from the guest's
 *     kallsyms, put in a build-id cache (lines_perf_buildid).
 */
#ifndef LAB_C2C_LINES_PERF_H
#define LAB_C2C_LINES_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "c2c/lines_guest.h"
#include "c2c/lines_parse.h"

#define LINES_PERF_TID_BASE 10000

/* Which lines of lf go in: the window's label is label (NULL: all). */
struct lines_perf_sel {
	const struct lines_file *lf;
	const struct lines_guest *g;
	const char *label;
	unsigned vcpus;
	uint64_t mem_bytes;	/* the guest's memory (0: from the largest address) */
};

/* Writes path; the samples written and the period each stands for; 0, or -1 with err. */
int lines_perf_write(const struct lines_perf_sel *s, const char *path, size_t *nsamples, uint64_t *period,
		     char *err, size_t errlen);

/* DIR/[kernel.kallsyms]/<build id>/kallsyms, from the guest's kallsyms:
 * what `perf --buildid-dir DIR` looks for.  0, 1 when the guest gave no
 * kallsyms or build ID (perf then names no kernel code), -1 with err. */
int lines_perf_buildid(const struct lines_guest *g, const char *dir, char *err, size_t errlen);

#endif
