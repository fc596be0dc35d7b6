// SPDX-License-Identifier: GPL-2.0
/*
 * One perf c2c command line per PMU (c2c/c2c_pmu.h), held against the rules
 * of perf's and the kernel's own source (torvalds/linux; perf 6.1 as
 * Debian's linux-source-6.1 6.1.187, current as 7.2.13):
 *
 *  - Arm SPE takes no -F: arm_spe_recording_options()
 *    (tools/perf/arch/arm64/util/arm-spe.c) clears attr.freq, evsel__config()
 *    (tools/perf/util/evsel.c) applies a user -F again (opts->user_freq), and
 *    arm_spe_pmu_event_init() (drivers/perf/arm_spe_pmu.c) returns -EINVAL
 *    for attr.freq; a period (-c) in whole 256s (PMSIRR_EL1.INTERVAL), at
 *    least caps/min_interval.
 *  - AMD IBS gets no --ldlat: perf_ibs_init() (arch/x86/events/amd/ibs.c,
 *    6.15+) keeps only load ops that missed L1 above it (on Zen 5 only L3
 *    misses): no stores, no near hits.  No --all-kernel: perf_ibs_init()
 *    refuses exclude_kernel/exclude_user without swfilt, which perf c2c
 *    never sets.
 *  - Intel's ldlat filters loads only (perf_mem_events_intel[],
 *    tools/perf/arch/x86/util/mem-events.c): raised on big boxes (Joe
 *    Mario: 50 above 148 CPUs, 70 from 256).
 *  - Data sources decoded per Arm core (tools/perf/util/arm-spe.c
 *    arm_spe__synth_data_source, common_ds_encoding_cpus): N1/N2/V1 by 6.1,
 *    V2 from 6.13, AmpereOne (MIDR_AMPERE1A) from 6.14.
 * and the lab's own rule on top: a budget of samples per second over the
 * whole box, not 60 kHz on each of 224 CPUs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/c2c.h"
#include "tests/tap.h"
#include "util/err.h"

static char *cmdline(const char *pmu, int ncpus, const char *perf, char *why, size_t n)
{
	struct c2c_caps c;
	struct c2c_opts o;
	char **a, line[1024];

	c2c_caps_for_pmu(&c, c2c_pmu_by_name(pmu), perf);
	c2c_opts_default(&o);
	o.ncpus = ncpus;
	a = c2c_record_argv(&c, &o, 4, "perf.c2c.data", o.max_size, why, n);
	if (!a)
		return NULL;
	c2c_argv_line(a, line, sizeof(line));
	c2c_argv_free(a);
	return xstrdup(line);
}

static bool has_word(const char *line, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = line; (p = strstr(p, w)); p++)
		if ((p == line || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static long long arg_after(const char *line, const char *w)
{
	char key[16];
	const char *p;

	snprintf(key, sizeof(key), " %s ", w);
	p = strstr(line, key);
	return p ? atoll(p + strlen(key)) : -1;
}

/* The done-when of issue 30, item by item. */
TEST(issue30_done_when)
{
	char why[400], *l;
	struct c2c_rate r;

	l = cmdline("arm-v2", 144, "perf version 7.3.4", why, sizeof(why));
	ok(l && !has_word(l, "-F") && has_word(l, "-c") && arg_after(l, "-c") % 256 == 0,
	   "arm-v2, 144 CPUs: no -F, a period in whole 256s: %s", l ? l : why);
	free(l);
	l = cmdline("amd-zen5", 256, "perf version 7.3.4", why, sizeof(why));
	ok(l && !strstr(l, "--ldlat") && !strstr(l, "--all-kernel"), "amd-zen5, 256 CPUs: no --ldlat, no -k: %s",
	   l ? l : why);
	free(l);
	l = cmdline("intel", 224, "perf version 7.3.4", why, sizeof(why));
	ok(l && arg_after(l, "-F") * 224 * 2 <= C2C_BUDGET_DEFAULT && arg_after(l, "-F") > 1000,
	   "intel, 224 CPUs: -F %lld per CPU and event keeps 224 x 2 x F within %d samples/s: %s",
	   l ? arg_after(l, "-F") : -1, C2C_BUDGET_DEFAULT, l ? l : why);
	free(l);
	c2c_pmu_rate(c2c_pmu_by_name("intel"), 224, 0, 0, 0, &r);
	ok(r.samples_s <= C2C_BUDGET_DEFAULT && r.bytes_s > 0, "and the data it writes is stated: %.1f MB/s (%s)",
	   r.bytes_s / 1e6, r.why);
}

TEST(record_line_per_pmu)
{
	static const struct {
		const char *pmu;
		bool freq, ldlat_raised, kernel;
	} want[] = {
		/* PMU          -F     ldlat  -k */
		{ "intel",      true,  true,  true },
		{ "amd-zen4",   true,  false, false },
		{ "amd-zen5",   true,  false, false },
		{ "arm-n1",     false, false, true },
		{ "arm-n2",     false, false, true },
		{ "arm-v1",     false, false, true },
		{ "arm-v2",     false, false, true },
		{ "ampereone",  false, false, true },
		{ "arm-other",  false, false, true },
		{ "power",      true,  false, true },
	};
	char why[400], names[256];
	size_t n = 0;

	for (const struct c2c_pmu *p = c2c_pmus; p->name; p++)
		n++;
	c2c_pmu_names(names, sizeof(names));
	is_int(n, sizeof(want) / sizeof(want[0]), "every PMU of the table is checked (%s)", names);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *l = cmdline(want[i].pmu, 256, "perf version 7.3.4", why, sizeof(why));

		ok(l && has_word(l, "-F") == want[i].freq && has_word(l, "-c") == !want[i].freq &&
		   (arg_after(l, "--ldlat") == 70) == want[i].ldlat_raised &&
		   has_word(l, "--all-kernel") == want[i].kernel && has_word(l, "-a") && strstr(l, "--max-size=1G"),
		   "%s at 256 CPUs: %s", want[i].pmu, l ? l : why);
		free(l);
	}
}

TEST(sampling_rates)
{
	const struct c2c_pmu *intel = c2c_pmu_by_name("intel"), *spe = c2c_pmu_by_name("arm-n1");
	struct c2c_rate r;

	c2c_pmu_rate(intel, 2, 0, 0, 0, &r);
	is_int(r.freq, C2C_FREQ_MAX, "2 CPUs: 60 kHz a CPU at most, under the budget");
	c2c_pmu_rate(intel, 224, 4000000, 0, 0, &r);
	is_int(r.freq, 4000000 / 224 / 2, "a budget of 4M samples/s at 224 CPUs: -F 8928");
	c2c_pmu_rate(intel, 1 << 20, 0, 0, 0, &r);
	ok(r.freq == C2C_FREQ_MIN && strstr(r.why, "over"), "a budget too small for the box: 100 Hz at least, "
	   "and said to be over it: %s", r.why);
	c2c_pmu_rate(intel, 224, 0, 50000, 0, &r);
	ok(r.freq == 50000 && fabs(r.samples_s - 50000.0 * 224 * 2) < 1, "a given -F is kept, its samples/s said");
	ok(c2c_pmu_rate(spe, 224, 0, 1000, 0, &r) < 0 && strstr(r.why, "-F"), "a given -F on SPE: refused (%s)",
	   r.why);
	c2c_pmu_rate(spe, 2, 0, 0, 4096, &r);
	ok(r.period >= 4096 && r.period % 256 == 0, "SPE on 2 CPUs: at least caps/min_interval (-c %lld)",
	   r.period);
}

TEST(spe_decoding_by_perf_version)
{
	static const struct {
		const char *pmu, *perf;
		bool decodes;
	} want[] = {
		{ "arm-n1", "perf version 6.1.187", true },
		{ "arm-v1", "perf version 6.1.187", true },
		{ "arm-v2", "perf version 6.1.187", false },
		{ "arm-v2", "perf version 6.12.57", false },
		{ "arm-v2", "perf version 6.13.0", true },
		{ "ampereone", "perf version 6.13.12", false },
		{ "ampereone", "perf version 7.3.4", true },
		{ "arm-other", "perf version 7.3.4", false },
		{ "intel", "perf version 6.1.187", true },
		{ "arm-n2", "", false },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct c2c_caps c;

		c2c_caps_for_pmu(&c, c2c_pmu_by_name(want[i].pmu), want[i].perf);
		ok(c.decodes == want[i].decodes && (c.decodes || (c.nlimits && strstr(c.limits[0], "not a measurement"))),
		   "%s under '%s': data sources %s%s%s", want[i].pmu, want[i].perf,
		   c.decodes ? "decoded" : "not decoded, said: ", c.decodes ? "" : c.limits[0], "");
	}
}

TEST(arm_core_detection)
{
	static const struct {
		unsigned midr;
		const char *pmu;
	} arm[] = {
		{ 0x410fd0c0, "arm-n1" }, { 0x410fd490, "arm-n2" }, { 0x410fd400, "arm-v1" },
		{ 0x410fd4f0, "arm-v2" }, { 0xc00fac40, "ampereone" }, { 0xc00fac30, "arm-other" },
		{ 0x411fd870, "arm-other" },
	};

	for (size_t i = 0; i < sizeof(arm) / sizeof(arm[0]); i++) {
		const struct c2c_pmu *p = c2c_pmu_detect("/nonexistent", "", 0, arm[i].midr);

		ok(p && !strcmp(p->name, arm[i].pmu), "MIDR 0x%08x: %s", arm[i].midr, p ? p->name : "none");
	}
	ok(!strcmp(c2c_pmu_detect("/nonexistent", "AuthenticAMD", 0x19, 0)->name, "amd-zen4") &&
	   !strcmp(c2c_pmu_detect("/nonexistent", "AuthenticAMD", 0x1a, 0)->name, "amd-zen5"),
	   "AMD family 0x19: Zen 4; 0x1a: Zen 5");
	ok(!strcmp(c2c_pmu_detect("/nonexistent", "GenuineIntel", 6, 0)->name, "intel") &&
	   !c2c_pmu_detect("/nonexistent", "", 0, 0), "Intel by vendor; nothing known: none");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
