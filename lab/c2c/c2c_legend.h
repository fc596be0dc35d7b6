/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a c2c report's Lcl and Rmt counts mean on the PMU that recorded it,
 * and what the report cannot show there, said in one line instead of a
 * count of zero.
 *
 * Intel PEBS (arch/x86/events/intel/ds.c): Lcl HITM is a load that found
 *   the line modified in another core's cache behind this socket's L3,
 *   Rmt HITM one that found it modified in another node's (socket's) cache.
 * AMD IBS on Zen 4 (arch/x86/events/amd/ibs.c perf_ibs_get_mem_lvl(),
 *   g_zen4_data_src[]; perf_ibs_get_mem_snoop() says HITM for a line in M
 *   state): Lcl HITM is DataSrc 1, "local L3 or other L1/L2 in CCX" (an L3
 *   hit): another core of the same CCX.  Rmt HITM is DataSrc 2, another
 *   CCX's cache in the same NUMA node (REM_CCE1, remote, HOPS_0), or
 *   DataSrc 5, another CCX in another node (REM_CCE2, remote, HOPS_1):
 *   c2c_decode_stats() (tools/perf/util/mem-events.c) counts both as
 *   rmt_hitm.  So Rmt is another CCX, often on the same socket, and near
 *   and far are not told apart in the report.
 * Arm SPE: no HITM.  perf decodes the SPE data source by the CPU's MIDR
 *   (tools/perf/util/arm-spe.c: arm_spe__synth_data_source_neoverse() in
 *   6.1 for Neoverse N1, N2, V1; _common() and more CPUs later): a load
 *   served by a peer core (0x9) or a cluster (0xa, 0xc) is SNOOPX_PEER at
 *   L2/L3 (lcl_peer), one served by another socket (0xd) remote + PEER
 *   (rmt_peer).  A perf that does not know the CPU decodes only the L1D
 *   and LLC events (hit or miss): no peer, no DRAM, and a report of 0
 *   shared cachelines that measures nothing.
 */
#ifndef LAB_C2C_C2C_LEGEND_H
#define LAB_C2C_C2C_LEGEND_H

#include <stddef.h>
#include "c2c/c2c_parse.h"

struct c2c_pmu_words {
	const char *pmu;	/* "AMD IBS (Zen 4)", "the PMU" when unknown */
	const char *kind;	/* "HITM" or "peer" (the report's display) */
	const char *lcl, *rmt;	/* column names: "lcl"/"rmt", AMD "same-CCX"/"other-CCX" */
	const char *legend;	/* one line: what Lcl and Rmt are on it (NULL: unknown PMU) */
};

/* The words for r's vendor (r->vendor) and display. */
void c2c_pmu_words(const struct c2c_report *r, struct c2c_pmu_words *w);
/*
 * One line saying what r cannot show on its PMU, in buf; NULL when
 * nothing: an Arm report without peer display (its HITM are always 0), an
 * Arm report whose perf decoded no SPE data source (loads, L1D/LLC misses,
 * but no peer and no DRAM: that perf does not know the CPU), a peer
 * display of a PMU that records no peer snoops.
 */
const char *c2c_report_limit(const struct c2c_report *r, char *buf, size_t len);
/* dir/pmu.tsv: key, value rows (vendor, pmu, display, lcl, rmt, legend, limit). */
int c2c_write_pmu_tsv(const char *dir, const struct c2c_report *r, char *err, size_t errlen);

#endif
