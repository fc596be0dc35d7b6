/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory-sampling PMUs perf c2c records with, one row each, and the
 * rules perf itself applies to them (lab/c2c/c2c_pmu.c cites the perf and
 * kernel source of every rule): which events `perf c2c record` opens,
 * whether a sampling frequency (-F) is allowed or only a period (-c),
 * whether --ldlat keeps what c2c needs, whether the kernel-only filter
 * works, which perf first decodes the PMU's data sources, and what the
 * data cannot show.
 *
 * On top of perf's rules the lab chooses the sampling rate from a budget of
 * samples per second over the whole box (not 60 kHz on each of 224 CPUs)
 * and states the data a window writes per second.
 */
#ifndef LAB_C2C_C2C_PMU_H
#define LAB_C2C_C2C_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include "c2c/c2c_vendor.h"

/* Samples per second over the whole box that a window aims for by default,
 * every event and CPU together. */
#define C2C_BUDGET_DEFAULT 1000000
/* The per-CPU frequency the lab never exceeds (Joe Mario's -F 60000). */
#define C2C_FREQ_MAX 60000
/* and never goes below, whatever the budget: fewer samples say nothing. */
#define C2C_FREQ_MIN 100
/* Arm SPE counts operations, not time: the period is chosen for this many
 * operations per second on each CPU (an assumption, said with the rate). */
#define C2C_SPE_OPS_PER_S 2500000000.0

struct c2c_pmu {
	const char *name;		/* --pmu NAME: "intel", "amd-zen4", "arm-v2" ... */
	enum c2c_vendor vendor;
	const char *what;		/* "Intel PEBS load latency + precise stores" */
	const char *events;		/* what perf c2c record opens (tools/perf/arch/.../mem-events.c) */
	int nevents;			/* sampled events per CPU */
	bool freq;			/* perf record -F is accepted (SPE: a period only) */
	bool ldlat;			/* --ldlat keeps loads and stores alike (Intel: loads only have it) */
	bool kernel_filter;		/* --all-kernel works (:k on the events) */
	bool peer;			/* perf c2c report's peer-snoop display (Arm) */
	int sample_bytes;		/* perf.data bytes per sample (SPE: per AUX record) */
	unsigned midr_impl, midr_part;	/* Arm: MIDR_EL1 implementer and part number; 0: any */
	int decode_major, decode_minor;	/* the first perf that decodes its data sources */
	const char *limit;		/* what its data cannot show (one line), or NULL */
};

/* The table; NULL-named row last. */
extern const struct c2c_pmu c2c_pmus[];

/* By --pmu name, or NULL; names in a buffer for messages. */
const struct c2c_pmu *c2c_pmu_by_name(const char *name);
void c2c_pmu_names(char *buf, size_t n);

/*
 * The row for this machine's CPU: cpuinfo's vendor_id, AMD's family, an
 * Arm core's MIDR_EL1 (implementer, part), the PMUs in sysfs (pmu_root).
 * NULL when none fits; an Arm core perf knows no data sources of gets the
 * generic Arm row (arm-other).
 */
const struct c2c_pmu *c2c_pmu_detect(const char *pmu_root, const char *cpu_vendor, int amd_family,
				     unsigned midr);

/* Whether perf VERSION ("perf version 6.1.187") decodes the row's data
 * sources; an unknown version: false. */
bool c2c_pmu_perf_decodes(const struct c2c_pmu *p, const char *perf_version);

/* The sampling of one window: per-CPU -F, or the -c period (SPE). */
struct c2c_rate {
	int freq;			/* -F per CPU and event; 0: a period instead */
	long long period;		/* -c (SPE: operations between samples); 0: none */
	double samples_s;		/* at most, over the box */
	double bytes_s;			/* perf.data bytes per second at most */
	char why[256];			/* how it was chosen, in words */
};

/*
 * The rate for ncpus CPUs within budget samples/s (0: the default),
 * freq_max per CPU at most (0: C2C_FREQ_MAX); user_freq > 0 is the user's
 * own -F (refused for a PMU that takes no frequency: -1 with why).
 */
int c2c_pmu_rate(const struct c2c_pmu *p, int ncpus, long budget, int user_freq, long long min_period,
		 struct c2c_rate *r);

#endif
