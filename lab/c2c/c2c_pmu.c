// SPDX-License-Identifier: GPL-2.0
/*
 * The memory-sampling PMUs and perf's rules for them (c2c/c2c_pmu.h).
 * Every rule below is perf's or the kernel driver's own; the file and
 * function are named beside it (torvalds/linux), and
 * lab/tests/unit-c2c-pmu.c holds each one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/c2c_pmu.h"
#include "util/fileio.h"

/* Arm MIDR_EL1 implementers and parts (arch/arm64/include/asm/cputype.h). */
#define ARM_IMPL_ARM 0x41
#define ARM_IMPL_AMPERE 0xc0
#define PART_NEOVERSE_N1 0xd0c
#define PART_NEOVERSE_N2 0xd49
#define PART_NEOVERSE_V1 0xd40
#define PART_NEOVERSE_V2 0xd4f
#define PART_AMPERE1A 0xac4

/*
 * perf 6.1 is Debian's linux-source-6.1 (6.1.187), "current" 7.2.13 (sid).
 *
 * Intel: tools/perf/arch/x86/util/mem-events.c perf_mem_events_intel[]:
 *   ldlat-loads "%s/mem-loads,ldlat=%u/P", ldlat-stores "%s/mem-stores/P";
 *   with mem-loads-aux (Sapphire Rapids on) the loads are the group
 *   "{%s/mem-loads-aux/,%s/mem-loads,ldlat=%u/}:P"; hybrid CPUs get one
 *   event per core type.  perf's default ldlat is 30 (util/mem-events.c).
 *   ldlat filters loads only: stores are all sampled.  -F and -c both.
 * AMD: perf_mem_events_amd[]: "ibs_op//" for loads and stores alike (one
 *   event); the Zen 4 IBS extensions give the data sources c2c needs
 *   (arch/x86/events/amd/ibs.c perf_ibs_get_data_src).  perf before 6.16
 *   ignores --ldlat on AMD; from 6.16, where caps/ldlat says so (Zen 5),
 *   an ldlat of 128..2048 keeps only load ops that missed L1 above it, and
 *   on Zen 5 only L3 misses (perf_ibs_init): no stores, no near hits, so
 *   the lab never passes one.  -F and -c both (perf_ibs_init takes
 *   attr.freq).  exclude_kernel/exclude_user: -EINVAL in perf_ibs_init
 *   (6.1), and from 6.14 only with the driver's swfilt=1, which perf c2c
 *   never sets: no kernel-only filter on any kernel.
 * Arm: tools/perf/arch/arm64/util/mem-events.c perf_mem_events_arm[]:
 *   "%s/ts_enable=1,pa_enable=1,load_filter=1,store_filter=1,min_latency=%u/"
 *   on the arm_spe_N PMU (--ldlat is min_latency, 30 by default).
 *   arm_spe_recording_options() (arch/arm64/util/arm-spe.c) sets attr.freq
 *   = 0 and sample_period = caps/min_interval (4096 without), but a user -F
 *   sets opts->user_freq and evsel__config() (util/evsel.c) turns freq back
 *   on, and arm_spe_pmu_event_init() (drivers/perf/arm_spe_pmu.c) returns
 *   -EINVAL for attr.freq; perf 6.15 on refuses -F itself ("Frequency is
 *   not supported. Set period with -c").  -c N only: N operations between
 *   samples, a multiple of 256 (PMSIRR_EL1.INTERVAL), at least
 *   caps/min_interval.  Data sources are decoded per core
 *   (util/arm-spe.c arm_spe__synth_data_source(), common_ds_encoding_cpus):
 *   Neoverse N1/N2/V1 in 6.1, V2 from 6.13, AmpereOne (MIDR_AMPERE1A,
 *   arm_spe__synth_data_source_ampereone) from 6.14; any other core gets
 *   the generic decoding with no snoop or peer bits, so every peer and
 *   HITM count is 0.  The peer display (perf c2c report -d peer, the
 *   default for an arm64 recording) is perf 6.0's.  The data source packet
 *   is a load's: SPE stores have no memory level.
 * POWER: tools/perf/arch/powerpc/util/mem-events.c: "cpu/mem-loads/" and
 *   "cpu/mem-stores/" (random instruction sampling); --ldlat ignored.
 * perf c2c record itself (builtin-c2c.c perf_c2c__record) adds -W -d
 * --phys-data --sample-cpu and no -F or -c: record's 4000 Hz default.
 */
const struct c2c_pmu c2c_pmus[] = {
	{ "intel", C2C_INTEL, "Intel PEBS load latency + precise stores",
	  "cpu/mem-loads,ldlat=L/P, cpu/mem-stores/P", 2, true, true, true, false, 96, 0, 0, 0, 0, NULL },
	{ "amd-zen4", C2C_AMD, "AMD IBS op sampling, Zen 4 extensions", "ibs_op//", 1, true, false, false, false,
	  104, 0, 0, 6, 1,
	  "IBS samples every op (loads and stores) but cannot filter kernel from user: all samples recorded; "
	  "\"Rmt\" HITMs are hits in another CCX, often on the same socket" },
	{ "amd-zen5", C2C_AMD, "AMD IBS op sampling, Zen 5", "ibs_op//", 1, true, false, false, false, 104, 0, 0, 6,
	  1,
	  "IBS samples every op (loads and stores) but cannot filter kernel from user: all samples recorded; "
	  "\"Rmt\" HITMs are hits in another CCX, often on the same socket" },
	{ "arm-n1", C2C_ARM, "Arm SPE, Neoverse N1", "arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,"
	  "store_filter=1,min_latency=L/", 1, false, true, true, true, 64, ARM_IMPL_ARM, PART_NEOVERSE_N1, 6, 1,
	  "SPE stores carry no data source: writers are counted, their memory level unknown" },
	{ "arm-n2", C2C_ARM, "Arm SPE, Neoverse N2", "arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,"
	  "store_filter=1,min_latency=L/", 1, false, true, true, true, 64, ARM_IMPL_ARM, PART_NEOVERSE_N2, 6, 1,
	  "SPE stores carry no data source: writers are counted, their memory level unknown" },
	{ "arm-v1", C2C_ARM, "Arm SPE, Neoverse V1", "arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,"
	  "store_filter=1,min_latency=L/", 1, false, true, true, true, 64, ARM_IMPL_ARM, PART_NEOVERSE_V1, 6, 1,
	  "SPE stores carry no data source: writers are counted, their memory level unknown" },
	{ "arm-v2", C2C_ARM, "Arm SPE, Neoverse V2", "arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,"
	  "store_filter=1,min_latency=L/", 1, false, true, true, true, 64, ARM_IMPL_ARM, PART_NEOVERSE_V2, 6, 13,
	  "SPE stores carry no data source: writers are counted, their memory level unknown" },
	{ "ampereone", C2C_ARM, "Arm SPE, AmpereOne", "arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,"
	  "store_filter=1,min_latency=L/", 1, false, true, true, true, 64, ARM_IMPL_AMPERE, PART_AMPERE1A, 6, 14,
	  "SPE stores carry no data source: writers are counted, their memory level unknown" },
	{ "arm-other", C2C_ARM, "Arm SPE, a core perf decodes no data sources of", "arm_spe_0/ts_enable=1,"
	  "pa_enable=1,load_filter=1,store_filter=1,min_latency=L/", 1, false, true, true, true, 64, 0, 0, 0, 0,
	  "perf decodes no SPE data sources for this core: no snoop or peer bits, so its peer counts are not a "
	  "measurement" },
	{ "power", C2C_POWER, "POWER random instruction sampling", "cpu/mem-loads/, cpu/mem-stores/", 2, true, false,
	  true, false, 96, 0, 0, 0, 0, NULL },
	{ 0 },
};

const struct c2c_pmu *c2c_pmu_by_name(const char *name)
{
	for (const struct c2c_pmu *p = c2c_pmus; name && p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

void c2c_pmu_names(char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (const struct c2c_pmu *p = c2c_pmus; p->name && o < n; p++)
		o += snprintf(buf + o, n - o, "%s%s", o ? ", " : "", p->name);
}

static bool has(const char *root, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return path_exists(p);
}

const struct c2c_pmu *c2c_pmu_detect(const char *pmu_root, const char *cpu_vendor, int amd_family,
				     unsigned midr)
{
	const char *v = cpu_vendor ? cpu_vendor : "";
	unsigned impl = (midr >> 24) & 0xff, part = (midr >> 4) & 0xfff;

	if (has(pmu_root, "ibs_op") || !strcmp(v, "AuthenticAMD") || !strcmp(v, "HygonGenuine"))
		/* Zen 5 is family 0x1a (arch/x86/kernel/cpu/amd.c); Zen 4 0x19 */
		return c2c_pmu_by_name(amd_family >= 0x1a ? "amd-zen5" : "amd-zen4");
	if (midr || has(pmu_root, "arm_spe_0")) {
		for (const struct c2c_pmu *p = c2c_pmus; p->name; p++)
			if (p->vendor == C2C_ARM && p->midr_impl && p->midr_impl == impl && p->midr_part == part)
				return p;
		return c2c_pmu_by_name("arm-other");
	}
	if (has(pmu_root, "cpu/events/mem-loads") || has(pmu_root, "cpu_core/events/mem-loads") ||
	    !strcmp(v, "GenuineIntel"))
		return c2c_pmu_by_name("intel");
	if (strstr(v, "POWER"))
		return c2c_pmu_by_name("power");
	return NULL;
}

bool c2c_pmu_perf_decodes(const struct c2c_pmu *p, const char *perf_version)
{
	const char *d = perf_version ? strpbrk(perf_version, "0123456789") : NULL;
	int major, minor;

	if (!p->decode_major)
		return p->vendor != C2C_ARM;	/* Intel, POWER: the kernel gives data_src itself */
	if (!d || sscanf(d, "%d.%d", &major, &minor) != 2)
		return false;
	return major > p->decode_major || (major == p->decode_major && minor >= p->decode_minor);
}

int c2c_pmu_rate(const struct c2c_pmu *p, int ncpus, long budget, int user_freq, long long min_period,
		 struct c2c_rate *r)
{
	double per_cpu;

	memset(r, 0, sizeof(*r));
	if (ncpus < 1)
		ncpus = 1;
	if (budget <= 0)
		budget = C2C_BUDGET_DEFAULT;
	per_cpu = (double)budget / ncpus / p->nevents;
	if (!p->freq) {
		if (user_freq > 0) {
			snprintf(r->why, sizeof(r->why), "%s takes no sampling frequency (-F): the kernel driver "
				 "refuses attr.freq; give a period instead", p->what);
			return -1;
		}
		/* Operations per sample: the budget's rate at the assumed op
		 * rate, in whole 256s (PMSIRR_EL1.INTERVAL), at least the
		 * PMU's caps/min_interval. */
		r->period = (long long)ceil(C2C_SPE_OPS_PER_S / per_cpu);
		if (r->period < min_period)
			r->period = min_period;
		r->period = (r->period + 255) / 256 * 256;
		r->samples_s = C2C_SPE_OPS_PER_S / r->period * ncpus * p->nevents;
		snprintf(r->why, sizeof(r->why), "-c %lld: one sample per %lld operations, %.0f/s per CPU at %.1f G "
			 "operations/s (assumed) within %ld samples/s over %d CPUs", r->period, r->period,
			 C2C_SPE_OPS_PER_S / r->period, C2C_SPE_OPS_PER_S / 1e9, budget, ncpus);
	} else if (user_freq > 0) {
		r->freq = user_freq;
		r->samples_s = (double)user_freq * ncpus * p->nevents;
		snprintf(r->why, sizeof(r->why), "-F %d (given): %d CPUs x %d event%s = %.2fM samples/s at most",
			 user_freq, ncpus, p->nevents, p->nevents == 1 ? "" : "s", r->samples_s / 1e6);
	} else {
		r->freq = per_cpu >= C2C_FREQ_MAX ? C2C_FREQ_MAX : per_cpu < C2C_FREQ_MIN ? C2C_FREQ_MIN : (int)per_cpu;
		r->samples_s = (double)r->freq * ncpus * p->nevents;
		snprintf(r->why, sizeof(r->why), "-F %d: %d CPUs x %d event%s x %d Hz = %.2fM samples/s at most, %s "
			 "the budget of %.2fM%s", r->freq, ncpus, p->nevents, p->nevents == 1 ? "" : "s", r->freq,
			 r->samples_s / 1e6, r->samples_s <= budget ? "within" : "over", budget / 1e6,
			 r->freq == C2C_FREQ_MAX ? " (60 kHz a CPU at most)" :
			 r->freq == C2C_FREQ_MIN ? " (100 Hz a CPU at least)" : "");
	}
	r->bytes_s = r->samples_s * p->sample_bytes;
	return 0;
}
