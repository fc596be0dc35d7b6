// SPDX-License-Identifier: GPL-2.0
/*
 * The c2c collector: capability detection (on this machine, and on the
 * PMU layouts of Intel, AMD and Arm as sysfs trees), the steady-state
 * window, the perf command line, and the whole record -> report -> parse ->
 * attribute path with a stand-in for perf that replays a real report (this
 * machine has no PMU: the path is still exercised on recorded data).
 *
 * The `perf c2c record -e list` texts below follow perf's own format
 * ("%-13s%-*s%s", tools/perf/util/mem-events.c) and its failure messages.
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "c2c/c2c.h"
#include "tests/tap.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"

static char tmp[256];

static void touch(const char *rel, const char *content)
{
	char *p = xasprintf("%s/%s", tmp, rel), *d = xstrdup(p);

	*strrchr(d, '/') = '\0';
	mkdir_p(d, 0755);
	write_file_atomic(p, content, strlen(content));
	free(p);
	free(d);
}

static int amd_family;
static unsigned midr;

static void decide(struct c2c_caps *c, const char *pmus, const char *elist, int st, const char *vendor,
		   bool priv)
{
	struct c2c_caps_input in = { 0 };
	char *root = xasprintf("%s/%s", tmp, pmus);

	mkdir_p(root, 0755);
	in.amd_family = amd_family;
	in.midr = midr;
	in.elist = elist;
	in.elist_status = st;
	in.cpu_vendor = vendor;
	in.hypervisor = !strcmp(pmus, "vm");
	in.pmu_root = root;
	in.report_help = "    -a, --double-cl       Detect adjacent cacheline false sharing\n";
	in.perf_version = "perf version 6.8.0\n";
	in.privileged = priv;
	c2c_caps_decide(c, &in);
	free(root);
}

static const char intel_list[] =
	"ldlat-loads  cpu/mem-loads,ldlat=30/P     : available\n"
	"ldlat-stores cpu/mem-stores/P             : available\n";
static const char amd_list[] = "mem-ldst     ibs_op//                 : available\n";
static const char spe_list[] =
	"ldlat-loads  arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter=0,min_latency=30/: available\n"
	"ldlat-stores arm_spe_0/ts_enable=1,pa_enable=1,load_filter=0,store_filter=1/: available\n";

TEST(caps_decide_per_vendor)
{
	struct c2c_caps c;

	decide(&c, "vm", "failed: memory events not supported\n", 255, "GenuineIntel", true);
	ok(!c.supported && !strncmp(c.line, "c2c: unsupported here: ", 23) &&
	   strstr(c.line, "memory events not supported") && strstr(c.line, "VM"),
	   "a VM without a PMU: unsupported, one line: %s", c.line);

	touch("intel/cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	decide(&c, "intel", intel_list, 0, "GenuineIntel", true);
	ok(c.supported && c.vendor == C2C_INTEL && c.ldlat && c.kernel_filter && !c.peer && c.double_cl &&
	   strstr(c.line, "cpu/mem-loads,ldlat=30/P"), "Intel load latency: supported, HITM, -k, ldlat: %s",
	   c.line);
	decide(&c, "intel", intel_list, 0, "GenuineIntel", false);
	ok(!c.supported && strstr(c.line, "perf_event_paranoid"), "without privileges: says it needs root");

	touch("zen3/ibs_op/type", "11\n");
	decide(&c, "zen3", amd_list, 0, "AuthenticAMD", true);
	ok(!c.supported && strstr(c.line, "Zen 4"), "AMD IBS before Zen 4: unsupported, says why");
	touch("zen4/ibs_op/caps/zen4_ibs_extensions", "1\n");
	amd_family = 0x19;
	decide(&c, "zen4", amd_list, 0, "AuthenticAMD", true);
	ok(c.supported && c.vendor == C2C_AMD && !c.kernel_filter && !c.ldlat && !strcmp(c.pmu->name, "amd-zen4"),
	   "AMD Zen 4 IBS (family 0x19): supported, no kernel-only filter, no ldlat");
	ok(c.nlimits && strstr(c.limits[c.nlimits - 1], "another CCX"),
	   "AMD: says its Rmt HITMs are another CCX: %s", c.nlimits ? c.limits[c.nlimits - 1] : "");
	touch("zen5/ibs_op/caps/zen4_ibs_extensions", "1\n");
	touch("zen5/ibs_op/caps/ldlat", "1\n");
	amd_family = 0x1a;
	decide(&c, "zen5", amd_list, 0, "AuthenticAMD", true);
	/* ibs.c perf_ibs_init (6.15+): an ldlat keeps only loads that missed
	 * L1 (L3 on Zen 5): caps/ldlat or not, the lab passes none. */
	ok(c.supported && !c.ldlat && !strcmp(c.pmu->name, "amd-zen5"),
	   "AMD Zen 5 (family 0x1a) with caps/ldlat: no ldlat all the same (it drops stores)");
	amd_family = 0;

	touch("arm/arm_spe_0/type", "8\n");
	midr = 0x410fd0c0;	/* Neoverse N1 r4p0 */
	decide(&c, "arm", spe_list, 0, "", true);
	ok(c.supported && c.vendor == C2C_ARM && c.peer && strstr(c.line, "peer snoop display") &&
	   !strcmp(c.pmu->name, "arm-n1") && c.decodes,
	   "Arm SPE on a Neoverse N1: supported, peer snoops instead of HITM, decoded by perf 6.8");
	midr = 0x410fd4f0;	/* Neoverse V2: decoded from perf 6.13 (util/arm-spe.c) */
	decide(&c, "arm", spe_list, 0, "", true);
	ok(c.supported && !strcmp(c.pmu->name, "arm-v2") && !c.decodes && c.nlimits &&
	   strstr(c.limits[0], "6.13") && strstr(c.limits[0], "not a measurement"),
	   "Neoverse V2 under perf 6.8: its zeros are said not to be a measurement: %s", c.limits[0]);
	midr = 0x411fd870;	/* a Cortex-A715-class part perf 6.8 does not know */
	decide(&c, "arm", spe_list, 0, "", true);
	ok(c.supported && !strcmp(c.pmu->name, "arm-other") && c.nlimits && strstr(c.limits[0], "no SPE data sources"),
	   "an Arm core perf decodes nothing of: arm-other, said: %s", c.limits[0]);
	midr = 0;

	decide(&c, "vm", NULL, -1, "GenuineIntel", true);
	ok(!c.supported && strstr(c.line, "linux-perf"), "no perf installed: says which package");
}

static bool any_memory_pmu(void)
{
	const char *r = "/sys/bus/event_source/devices";
	char p[256];
	bool spe = false;
	DIR *d = opendir(r);
	struct dirent *e;

	while (d && (e = readdir(d)))
		spe |= strstr(e->d_name, "arm_spe") != NULL;
	if (d)
		closedir(d);
	snprintf(p, sizeof(p), "%s/cpu/events/mem-loads", r);
	if (path_exists(p) || spe)
		return true;
	snprintf(p, sizeof(p), "%s/cpu_core/events/mem-loads", r);
	if (path_exists(p))
		return true;
	snprintf(p, sizeof(p), "%s/ibs_op", r);
	return path_exists(p);
}

TEST(caps_this_machine)
{
	struct c2c_caps c;

	cleanup_init();	/* the lab's own undo, as a lab command runs perf */
	c2c_caps_detect(&c);
	tap_diag("this machine: %s", c.line);
	if (!any_memory_pmu()) {
		ok(!c.supported && !strncmp(c.line, "c2c: unsupported here: ", 23) &&
		   strstr(c.line, "c2c collection skipped") && !strchr(c.line, '\n'),
		   "this machine has no memory-sampling PMU: detection says unsupported in one line");
	} else {
		ok(c.line[0] && !strchr(c.line, '\n'), "this machine has a memory-sampling PMU: one line says %s",
		   c.supported ? "supported" : "why not");
	}
}

TEST(steady_state_window)
{
	struct c2c_opts o;
	struct c2c_window w;

	c2c_opts_default(&o);
	ok(c2c_plan_window(&o, 20, &w) == 0 && w.start_s == 15 && w.len_s == 4 && !w.note[0],
	   "20 s driver: window of 4 s at 15 s (3/4)");
	ok(c2c_plan_window(&o, 60, &w) == 0 && w.start_s == 45 && w.len_s == 5, "60 s driver: 5 s at 45 s");
	ok(c2c_plan_window(&o, 10, &w) == 0 && w.len_s == 2 && strstr(w.note, "shorter than 3 s"),
	   "10 s driver: a 2 s window, and a note: %s", w.note);
	ok(c2c_plan_window(&o, 3, &w) < 0 && strstr(w.note, "no steady-state window"),
	   "3 s driver: no window, says why: %s", w.note);
	o.start_frac = 0.5;
	o.window_s = 3;
	ok(c2c_plan_window(&o, 100, &w) == 0 && w.start_s == 50 && w.len_s == 3, "start and length configurable");
	o.start_s = 98;
	ok(c2c_plan_window(&o, 100, &w) == 0 && w.start_s == 98 && strstr(w.note, "past the driver's end"),
	   "a window running past the driver's end is accepted with a note");
	c2c_opts_default(&o);
	ok(c2c_plan_window(&o, 0, &w) < 0, "no duration and no start: no window");
}

static bool has_args(char **argv, const char *a, const char *b)
{
	for (int i = 0; argv[i]; i++)
		if (!strcmp(argv[i], a) && (!b || (argv[i + 1] && !strcmp(argv[i + 1], b))))
			return true;
	return false;
}

TEST(record_argv)
{
	struct c2c_caps intel, amd, arm;
	struct c2c_opts o;
	char **a, why[300];

	c2c_caps_for_pmu(&intel, c2c_pmu_by_name("intel"), "perf version 6.1.187");
	c2c_caps_for_pmu(&amd, c2c_pmu_by_name("amd-zen5"), "perf version 6.1.187");
	c2c_caps_for_pmu(&arm, c2c_pmu_by_name("arm-n1"), "perf version 6.1.187");
	c2c_opts_default(&o);
	o.ncpus = 16;
	is_int(c2c_pick_ldlat(&intel, &o), 0, "16 CPUs: perf's default ldlat");
	o.ncpus = 192;
	is_int(c2c_pick_ldlat(&intel, &o), 50, "192 CPUs: ldlat 50");
	o.ncpus = 256;
	is_int(c2c_pick_ldlat(&intel, &o), 70, "256 CPUs: ldlat 70");
	is_int(c2c_pick_ldlat(&amd, &o), 0, "AMD IBS at 256 CPUs: none (it would keep loads only)");
	is_int(c2c_pick_ldlat(&arm, &o), 0, "Arm SPE at 256 CPUs: perf's min_latency, not raised");
	o.ldlat = 90;
	is_int(c2c_pick_ldlat(&intel, &o), 90, "an explicit ldlat wins");
	ok(!c2c_record_argv(&amd, &o, 4, "/r/d", 0, why, sizeof(why)) && strstr(why, "stores"),
	   "an explicit ldlat on AMD IBS is refused, saying why: %s", why);
	o.ldlat = 0;
	o.ncpus = 192;
	a = c2c_record_argv(&intel, &o, 4, "/r/perf.c2c.data", 1ULL << 30, why, sizeof(why));
	ok(a && has_args(a, "c2c", "record") && has_args(a, "--ldlat", "50") && has_args(a, "--all-kernel", NULL) &&
	   has_args(a, "-a", NULL) && has_args(a, "-F", "2604") && has_args(a, "-o", "/r/perf.c2c.data") &&
	   has_args(a, "--max-size=1G", NULL) && has_args(a, "sleep", "4.000"),
	   "record: system-wide, kernel-only, ldlat, -F within the budget, a size cap, bounded by sleep");
	c2c_argv_free(a);
	a = c2c_record_argv(&amd, &o, 4, "/r/d", 0, why, sizeof(why));
	ok(a && !has_args(a, "--all-kernel", NULL) && !has_args(a, "--ldlat", NULL) &&
	   !has_args(a, "--max-size", NULL), "AMD IBS: no kernel-only modifier (IBS rejects it), no ldlat, no cap "
	   "when none is given");
	c2c_argv_free(a);
	a = c2c_record_argv(&arm, &o, 4, "/r/d", 0, why, sizeof(why));
	ok(a && !has_args(a, "-F", NULL) && has_args(a, "-c", NULL), "Arm SPE: a period (-c), never -F");
	c2c_argv_free(a);
	o.freq = 1000;
	ok(!c2c_record_argv(&arm, &o, 4, "/r/d", 0, why, sizeof(why)) && strstr(why, "-F"),
	   "a -F for Arm SPE is refused, saying why: %s", why);
	o.freq = 0;
	o.user = true;
	a = c2c_record_argv(&intel, &o, 4, "/r/d", 0, why, sizeof(why));
	ok(a && !has_args(a, "--all-kernel", NULL), "--user: user samples too");
	c2c_argv_free(a);
}

static const char fake_perf[] =
	"#!/bin/sh\n"
	"# Stand-in for perf: logs its calls, records nothing, replays a real report.\n"
	"echo \"$*\" >> \"$FAKE_PERF_LOG\"\n"
	"case \"$1 $2\" in\n"
	"'c2c record')\n"
	"\techo \"rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)\" >> \"$FAKE_PERF_LOG\"\n"
	"\tout=; prev=; last=\n"
	"\tfor a; do [ \"$prev\" = -o ] && out=$a; prev=$a; last=$a; done\n"
	/* As perf record on the lab's SIGINT: stop the workload, write the
	 * data, die of the signal (a late start under load gets one). */
	"\tsleep \"$last\" & s=$!\n"
	"\ttrap 'kill $s; echo data > \"$out\"; trap - INT; kill -INT $$' INT\n"
	"\twait $s; echo data > \"$out\" ;;\n"
	"'c2c report') case \"$*\" in\n"
	"\t*--double-cl*) cat \"$FAKE_REPORT_DCL\" ;;\n"
	"\t*) cat \"$FAKE_REPORT\" ;;\n"
	"\tesac ;;\n"
	"*) exit 1 ;;\n"
	"esac\n";

TEST(collector_replays_report)
{
	struct c2c_caps caps;
	struct c2c_objects objs = { 0 };
	struct c2c_collector *c;
	struct c2c_opts o;
	struct kbtf k;
	char why[512], err[256], *perf = xasprintf("%s/perf", tmp), *log = xasprintf("%s/perf.log", tmp);
	char *dir = xasprintf("%s/run", tmp), *text;
	long long rate0 = -1, rate1 = -1;
	bool root = geteuid() == 0, bound;

	cleanup_init();	/* this case's own: the rate's undo step is its process's */
	c2c_caps_for_pmu(&caps, c2c_pmu_by_name("intel"), "perf version 6.1.187");
	caps.double_cl = true;
	touch("perf", fake_perf);
	chmod(perf, 0755);
	setenv("FAKE_PERF_LOG", log, 1);
	setenv("FAKE_REPORT", TEST_DATA "/samples/c2c/10-lkml-fengtang-memcg-rstat-cascadelake.txt", 1);
	/* Another report for --double-cl, so that its parse can be told apart. */
	setenv("FAKE_REPORT_DCL", TEST_DATA "/samples/c2c/09-kernel-doc-false-sharing-memcg-lruvec.txt", 1);
	if (kbtf_open(&k, TEST_BTF("5.10.262"), NULL, err, sizeof(err)) < 0) {
		tap_skip("collector", err);
		return;
	}
	c2c_objects_add(&objs, &k, "mem_cgroup", 0xffff8881c0642000ull, "memcg of the 2021 report", "test", err,
			sizeof(err));
	c2c_opts_default(&o);
	o.perf = perf;
	o.start_frac = 0.25;
	read_ll("/proc/sys/kernel/perf_event_max_sample_rate", &rate0);
	o.freq = (int)rate0 + 1000;	/* above the limit: it must be raised, then restored */
	o.double_cl = true;		/* asked for: a second report */
	c = c2c_collector_start(&caps, &o, 2.0, dir, &bound, why, sizeof(why));
	ok(c != NULL, "collector started: %s", c ? c->status : why);
	if (!c)
		goto out;
	usleep(2000 * 1000);	/* the "driver" */
	ok(c2c_collector_finish(c, &k, &objs) == 0, "finish: %s", c->status);
	read_ll("/proc/sys/kernel/perf_event_max_sample_rate", &rate1);
	text = read_text(log, NULL);
	ok(text && strstr(text, "c2c record --all-kernel -- -a -F") && strstr(text, " sleep 1.200"),
	   "perf c2c record ran system-wide, kernel-only, for the planned 1.2 s");
	ok(text && strstr(text, "c2c report -i ") &&
	   strstr(text, "--stdio -NN -c pid,tid,iaddr --full-symbols --no-source\n") &&
	   strstr(text, "--full-symbols --no-source --double-cl"),
	   "both reports, as asked: -NN -c pid,tid,iaddr --full-symbols --no-source, and --double-cl");
	if (root) {
		char want[64];

		snprintf(want, sizeof(want), "rate %d\n", o.freq);
		ok(text && strstr(text, want), "perf_event_max_sample_rate raised to -F during the window");
		is_int(rate1, rate0, "and restored afterwards");
	} else {
		tap_skip("perf_event_max_sample_rate raised and restored", "needs root");
	}
	free(text);
	{
		char *fields = xasprintf("%s/c2c/fields.tsv", dir), *t = read_text(fields, NULL);
		char *att = xasprintf("%s/c2c/attribution.txt", dir), *a = read_text(att, NULL);
		char *dcl = xasprintf("%s/c2c-double-cl/offsets.tsv", dir), *d = read_text(dcl, NULL);
		char *plain = xasprintf("%s/c2c/offsets.tsv", dir), *p = read_text(plain, NULL);

		ok(t && strstr(t, "mem_cgroup.css.refcnt.percpu_count_ptr\t16\t8\t0\t364.0"),
		   "the replayed report is parsed and its offsets named from BTF");
		ok(a && strstr(a, "mem_cgroup.css.cgroup"), "attribution.txt written");
		/* Only perf's --double-cl output has this line (0xff1100088366d880). */
		ok(d && strstr(d, "__mod_lruvec_page_state") && p && !strstr(p, "__mod_lruvec_page_state"),
		   "the --double-cl report is parsed into c2c-double-cl/, apart from the plain one");
		free(d);
		free(p);
		free(plain);
		free(fields);
		free(t);
		free(att);
		free(a);
		free(dcl);
	}
	c2c_collector_free(c);

	/* A driver that ends before the window: nothing recorded, said plainly. */
	o.start_s = 30;
	o.window_s = 3;
	c = c2c_collector_start(&caps, &o, 40, dir, &bound, why, sizeof(why));
	ok(c && c2c_collector_finish(c, &k, &objs) < 0 && strstr(c->status, "before the c2c window"),
	   "a driver ending before the window: %s", c ? c->status : why);
	read_ll("/proc/sys/kernel/perf_event_max_sample_rate", &rate1);
	is_int(rate1, rate0, "the sample rate is restored then too");
	c2c_collector_free(c);
out:
	c2c_objects_free(&objs);
	kbtf_close(&k);
	free(perf);
	free(log);
	free(dir);
}

int main(int argc, char **argv)
{
	int rc;

	snprintf(tmp, sizeof(tmp), "/tmp/memcg-lab-c2c-test-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	rc = tap_main(argc, argv);
	if (tap_rm_rf(tmp))
		tap_diag("could not remove %s", tmp);
	return rc;
}
