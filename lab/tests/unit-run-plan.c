// SPDX-License-Identifier: GPL-2.0
/*
 * run --plan on a 256-CPU box we do not have: every shipped experiment
 * planned for the described two-socket EPYC (tests/data/topology/), the
 * shapes checked (the 50x5 stat-read tree, stock-netperf's 36 pairs, the
 * topology steps, c2c's ldlat and sample rate), and one made-up host per
 * kernel limit that breaks it.
 */
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "experiment/plan.h"
#include "tests/tap.h"

#define FIXTURE TEST_DATA "/topology/epyc-9554-2s-nps4.xml"
#define SYNTHETIC "package:2 numa:4 core:16 pu:2"

/* A plan borrows from the experiment it was made from (plan.ph[i].ph points
 * into planned.ph), so the two live together: plan_for() frees the last
 * experiment only when it plans the next. */
static struct experiment planned;
static struct exp_plan plan;
/* The fixture's host, described once in main() (host_err when it is not). */
static struct exp_plan_host host;
static char host_err[512];

static void load(struct experiment *x, const char *path, const struct exp_plan_host *h, char *set)
{
	char *ov[1] = { set };

	memset(x, 0, sizeof(*x));
	load_exp_for(x, path, ov, set ? 1 : 0, &h->model);
}

/* Plans path (with one -s override) for h; returns exp_plan's status. */
static int plan_for(const char *path, const struct exp_plan_host *h, char *set, char *err, size_t n)
{
	expfile_free(&planned.f);
	load(&planned, path, h, set);
	err[0] = '\0';
	return exp_plan(&plan, &planned, h, err, n);
}

static void refused(const char *path, const struct exp_plan_host *h, char *set, const char *want, const char *what)
{
	char err[1024];
	int r = plan_for(path, h, set, err, sizeof(err));

	ok(r == -1 && strstr(err, want), "refused: %s", what);
	if (r != -1 || !strstr(err, want))
		tap_diag("  got %d '%s', want an error with '%s'", r, err, want);
	else
		tap_diag("  %s", err);
}

TEST(topology_steps)
{
	static const int want[] = { 1, 2, 16, 32, 64, 128, 256 };
	static const char *const levels[] = { "1 CPU", "SMT set", "L3", "node", "2 nodes", "package", "machine" };
	int s[TOPO_MAX_STEPS], n, same = 1;
	const char *names[TOPO_MAX_STEPS];
	struct topo t;
	char err[512];

	ok(!topo_load_spec(&t, FIXTURE, err, sizeof(err)), "the 256-CPU fixture loads (%s)", err);
	ok(t.npu == 256 && t.smt == 2 && t.llc == 16 && !strcmp(t.llc_name, "L3") && t.node == 32 &&
	   t.nnodes == 8 && t.package == 128, "fixture: %d CPUs, SMT %d, %s %d, node %d x %d, package %d", t.npu,
	   t.smt, t.llc_name, t.llc, t.node, t.nnodes, t.package);
	ok(t.mem_bytes == 8 * 206158430208ll, "fixture: 8 nodes of 192 GiB (%lld bytes)", t.mem_bytes);
	n = topo_steps(&t, s, names);
	for (int i = 0; i < n && i < 7; i++)
		same &= s[i] == want[i] && !strcmp(names[i], levels[i]);
	ok(n == 7 && same, "fixture steps: 1, 2, 16, 32, 64, 128, 256 named by level (%d steps)", n);
	for (int i = 0; i < n; i++)
		tap_diag("  step %d: %d (%s)", i, s[i], names[i]);
	ok(t.spread[0] == 0 && t.spread[1] == 2 && t.compact[1] == 1, "spread takes one CPU per core first");
	topo_free(&t);

	ok(!topo_load_spec(&t, SYNTHETIC, err, sizeof(err)) && t.npu == 256 && t.node == 32 && t.package == 128,
	   "synthetic '" SYNTHETIC "': %d CPUs, nodes of %d, packages of %d", t.npu, t.node, t.package);
	n = topo_steps(&t, s, NULL);
	ok(n == 6 && s[0] == 1 && s[1] == 2 && s[2] == 32 && s[3] == 64 && s[4] == 128 && s[5] == 256,
	   "synthetic steps without caches: 1, 2, 32, 64, 128, 256 (%d steps)", n);
	topo_free(&t);
	ok(topo_load_spec(&t, "package:2 core:x", err, sizeof(err)) == -1 && strstr(err, "package:2 core:x"),
	   "a bad description is one line naming it (%s)", err);
	ok(topo_load_spec(&t, "/etc/hostname", err, sizeof(err)) == -1 && strstr(err, "/etc/hostname"),
	   "a file that is not lstopo XML is refused (%s)", err);
}

TEST(described_host)
{
	if (host_err[0]) {
		ok(0, "the fixture describes a host: %s", host_err);
		return;
	}
	ok(host.model.ncpus == 256 && host.pid_max == 262144 && host.nofile_max == 1048576 &&
	   host.memcgs_max == 65535,
	   "described host: 256 CPUs, pid_max 262144 (1024 per CPU), open files 1048576 (root: fs.nr_open), 65535 memcg ids");
}

static const struct exp_phase_plan *phase(const char *name)
{
	for (int i = 0; i < plan.nph; i++)
		if (!strcmp(plan.ph[i].ph->name, name))
			return &plan.ph[i];
	return NULL;
}

TEST(shipped_experiments_shapes)
{
	const struct exp_plan_host *h = &host;
	const struct exp_phase_plan *pp;
	char err[1024];

	if (host_err[0]) {
		tap_skip(__func__, "the fixture describes no host");
		return;
	}
	glob_t g;
	int all = 1;

	if (glob("experiments/*.exp", 0, NULL, &g) || g.gl_pathc < 8) {
		ok(0, "the shipped experiments are found (run from the repository root)");
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		int r = plan_for(g.gl_pathv[i], h, NULL, err, sizeof(err));

		if (r)
			tap_diag("  %s: %s", g.gl_pathv[i], err);
		all &= !r && plan.nph >= 1 && (plan.seconds > 0 || plan.work_bound) &&
		       strstr(plan.values_why, "full size") && !strstr(plan.values_why, "[small] (");
	}
	ok(all, "all %zu shipped experiments plan at full size for 256 CPUs", g.gl_pathc);
	globfree(&g);

	/* stress.sh's tree; the experiment puts one reader on every cgroup
	 * (1 + 50 + 250 = 301: the changelog's "251 threads (one per cgroup)"
	 * counts only the root and the leaves). */
	plan_for("experiments/statread-flush.exp", h, NULL, err, sizeof(err));
	pp = &plan.ph[0];
	ok(strstr(pp->tree, "50 top x 5 leaves = 301") && pp->step[0].memcgs == 301,
	   "statread-flush: a 50x5 tree, 301 cgroups (%s)", pp->tree);
	ok(pp->step[0].readers == 301 && strstr(pp->workers, "root 1, top 50, leaf 250"),
	   "statread-flush: one reader per cgroup, 301 (%s)", pp->workers);
	is_int(pp->step[0].allocators, 2500, "statread-flush: 250 leaves x 10 allocators");
	ok(pp->step[0].seconds < 0 && plan.work_bound, "statread-flush: work-bound (--work 100M), not estimated");

	plan_for("experiments/stock-netperf.exp", h, NULL, err, sizeof(err));
	pp = &plan.ph[0];
	ok(pp->nsteps == 6 && pp->step[5].value == 36 && pp->step[5].pairs == 36 && pp->step[5].memcgs == 37,
	   "stock-netperf: 6..36 pairs, each pair's memcg under the run's root (%lld pairs, %lld memcgs)",
	   pp->step[5].pairs, pp->step[5].memcgs);
	is_int((int)pp->step[5].tasks, 36 * 2 + 2, "stock-netperf: a client and a receiver per pair, and the lab's two");
	ok(plan.seconds == 6 * 3 * 65.0, "stock-netperf: 6 steps x 3 repeats x (60 s + 5 s warm-up) = %.0f s",
	   plan.seconds);

	plan_for("experiments/charge-anon-scaling.exp", h, NULL, err, sizeof(err));
	pp = &plan.ph[0];
	ok(pp->nsteps == 7 && pp->step[0].value == 1 && pp->step[1].value == 2 && pp->step[2].value == 16 &&
	   pp->step[3].value == 32 && pp->step[4].value == 64 && pp->step[5].value == 128 && pp->step[6].value == 256,
	   "charge-anon-scaling: values = topology steps 1, 2, 16, 32, 64, 128, 256");
	ok(pp->step[2].level && !strcmp(pp->step[2].level, "L3") && !strcmp(pp->step[6].level, "machine"),
	   "each topology step names its level");

	plan_for("experiments/statread-read-contention.exp", h, NULL, err, sizeof(err));
	pp = &plan.ph[0];
	ok(pp->nsteps == 4 && pp->step[3].readers == 10000 && pp->step[3].memcgs == 1201 &&
	   pp->step[3].fds == 10000 + 64, "statread-read-contention: 10000 readers over 1000 leaves, one file each");

	plan_for("experiments/charge-batch.exp", h, NULL, err, sizeof(err));
	ok((pp = phase("hierarchy")) && pp->step[0].pairs == 36 && pp->step[0].depth == 4 &&
	   phase("root") && phase("root")->step[0].memcgs == 0,
	   "charge-batch: 36 pairs in a 3-level hierarchy, then in the root memcg");
	ok(pp && strstr(pp->workers, "in 1 memcg") && strstr(phase("root")->workers, "in the root memcg"),
	   "charge-batch: the pairs share the hierarchy's one leaf, then the root memcg, as the driver places them");

	/* The driver's own plan: objstock sweeps K = 1 .. 2 x its objcg
	 * slots + 2, or to 16 where BTF gives none (a described box). */
	plan_for("experiments/obj-stock-slots.exp", h, NULL, err, sizeof(err));
	pp = &plan.ph[0];
	ok(pp->step[0].workers == 16 && pp->step[0].memcgs == 17 && pp->step[0].seconds == 16 * (3 + 1) &&
	   strstr(pp->workers, "K = 1..16"), "obj-stock-slots: K = 1..16, a memcg each, 3 s + 1 s per K (%s)",
	   pp->workers);
	refused("experiments/stock-slots.exp", h, "driver.pin=pack:300", "stock-slots.exp:14: step -: charge: --pin "
		"'pack:300': CPU 300 is offline or absent (online: 0-255)", "a CPU the box lacks, by the charge driver's own plan");

	/* The described box has no PMU said: c2c is off, and the plan says why. */
	plan_for("experiments/charge-batch.exp", h, NULL, err, sizeof(err));
	ok(!plan.c2c_on && strstr(plan.c2c_why, "not described"), "no --pmu: c2c off, the plan says why (%s)",
	   plan.c2c_why);
	{
		/* c2c's choices at 256 CPUs on Intel: ldlat 70 from 256 CPUs, 50
		 * above 148 (Joe Mario); the rate from the box-wide budget. */
		struct exp_plan_host c2c = *h;

		exp_plan_host_pmu(&c2c, c2c_pmu_by_name("intel"));
		plan_for("experiments/charge-batch.exp", &c2c, NULL, err, sizeof(err));
		ok(plan.c2c_on, "Intel PEBS: c2c windows on ([collect] c2c = auto by default)");
		is_int(plan.ldlat, 70, "c2c at 256 CPUs: ldlat 70");
		is_int(plan.freq, C2C_BUDGET_DEFAULT / 256 / 2, "c2c at 256 CPUs: -F 1953 (1M samples/s over 2 x 256)");
		ok(plan.rate.samples_s <= C2C_BUDGET_DEFAULT, "within the budget: %.0f samples/s", plan.rate.samples_s);
		c2c.model.ncpus = 200;
		plan_for("experiments/charge-batch.exp", &c2c, NULL, err, sizeof(err));
		is_int(plan.ldlat, 50, "c2c at 200 CPUs: ldlat 50");
		c2c.model.ncpus = 64;
		plan_for("experiments/charge-batch.exp", &c2c, NULL, err, sizeof(err));
		is_int(plan.ldlat, 0, "c2c at 64 CPUs: perf's default ldlat");
		c2c.model.ncpus = 2;
		plan_for("experiments/stock-netperf.exp", &c2c, NULL, err, sizeof(err));
		ok(strstr(plan.values_why, "[small] (2 CPUs < 16)") && plan.ph[0].nsteps == 2,
		   "on 2 CPUs the [small] values apply, and the plan says why (%s)", plan.values_why);
		is_int(plan.freq, 60000, "c2c at 2 CPUs: -F 60000, the most a CPU gets");
		c2c.model.ncpus = 256;
		c2c.sample_rate_max = 1000;
		ok(!plan_for("experiments/stock-slots.exp", &c2c, NULL, err, sizeof(err)) && plan.rate_raised,
		   "c2c -F 1953 over a 1000 sample rate: raised for the window (root)");
		ok(!plan_for("experiments/stock-slots.exp", &c2c, "collect.c2c=no", err, sizeof(err)) &&
		   !plan.c2c_on && !plan.rate_raised, "[collect] c2c = no: off, nothing raised");
		/* AMD IBS: no ldlat from the lab (ibs.c: it keeps loads only). */
		exp_plan_host_pmu(&c2c, c2c_pmu_by_name("amd-zen5"));
		ok(!plan_for("experiments/stock-slots.exp", &c2c, NULL, err, sizeof(err)) && plan.ldlat == 0 &&
		   !strstr(plan.c2c_cmd, "--ldlat") && !strstr(plan.c2c_cmd, "--all-kernel"),
		   "AMD Zen 5 at 256 CPUs: no ldlat, no kernel filter: %s", plan.c2c_cmd);
		/* Arm SPE: a period, never -F (arm_spe_pmu_event_init refuses attr.freq). */
		exp_plan_host_pmu(&c2c, c2c_pmu_by_name("arm-v2"));
		ok(!plan_for("experiments/stock-slots.exp", &c2c, NULL, err, sizeof(err)) && plan.freq == 0 &&
		   !plan.rate_raised && strstr(plan.c2c_cmd, " -c ") && !strstr(plan.c2c_cmd, " -F "),
		   "Arm SPE: -c, no -F, no sample-rate raise: %s", plan.c2c_cmd);
	}
}

TEST(kernel_limits_refused)
{
	const struct exp_plan_host *h = &host;
	struct exp_plan_host m;

	if (host_err[0]) {
		tap_skip(__func__, "the fixture describes no host");
		return;
	}

	m = *h, m.pid_max = 2615;
	refused("experiments/stock-netperf.exp", &m, NULL, "step tasks=36: 74 tasks needed, over kernel.pid_max 2615 "
		"with 2548 running", "pid_max");
	refused("experiments/statread-flush.exp", &m, NULL, "exceed the 67 threads the kernel still allows",
		"pid_max (statread's own plan)");
	m = *h, m.threads_max = 3000, m.tasks_now = 100;
	refused("experiments/stock-netperf.exp", &m, "schedule.values=6,1500", "over kernel.threads-max 3000",
		"threads-max");
	m = *h, m.pids_left = 70;
	refused("experiments/stock-netperf.exp", &m, NULL, "step tasks=36: 74 tasks needed, over the 70 the pids controller",
		"the pids controller");
	m = *h, m.nofile_max = 4096;
	refused("experiments/statread-read-contention.exp", &m, NULL,
		"statread-read-contention.exp:25: step total-readers=5000: 5064 files open in one process, over "
		"the 4096 it can have (RLIMIT_NOFILE; root: fs.nr_open)", "open files, at the step and line at fault");
	m = *h, m.memcgs_in_use = 65500;
	refused("experiments/stock-netperf.exp", &m, NULL, "37 memory cgroups do not fit the memcg ids: 65500 in use "
		"of 65535", "memcg ids (charge)");
	refused("experiments/statread-flush.exp", &m, NULL, "65500 in use of 65535", "memcg ids (statread's own plan)");
	m = *h, m.descendants_left = 20;
	refused("experiments/stock-netperf.exp", &m, NULL, "step tasks=24: 25 cgroups, over the 20 more cgroup.max.descendants",
		"cgroup.max.descendants");
	m = *h, m.depth_left = 3;
	refused("experiments/charge-batch.exp", &m, NULL, "4 levels deep, over cgroup.max.depth 3", "cgroup.max.depth");
	m = *h, m.sample_rate_max = 1000, m.cpu_time_max_percent = 0;
	exp_plan_host_pmu(&m, c2c_pmu_by_name("intel"));
	refused("experiments/stock-slots.exp", &m, "collect.c2c=yes",
		"command line (-s collect.c2c): c2c -F 1953 needs kernel.perf_event_max_sample_rate >= 1953; it is "
		"1000 and kernel.perf_cpu_time_max_percent = 0", "a sample rate the kernel will not raise");
	m = *h, m.sample_rate_max = 1000, m.root = false;
	exp_plan_host_pmu(&m, c2c_pmu_by_name("intel"));
	refused("experiments/stock-slots.exp", &m, "collect.c2c=yes", "only root can raise it",
		"a sample rate only root could raise");
	m = *h, m.mem_bytes = 8ll << 30;
	refused("experiments/statread-flush.exp", &m, NULL, "more than half of the", "memory (statread's own plan)");
}

/* On a small box [small] replaces the [driver] values of the file, but not
 * one the user gave on the command line (-s driver.KEY=V). */
TEST(small_values_and_overrides)
{
	struct exp_plan_host h = host;
	struct experiment x;
	char **av, *joined;
	int ac;

	if (host_err[0]) {
		tap_skip(__func__, "the fixture describes no host");
		return;
	}

	h.model.ncpus = 2;
	load(&x, "experiments/stock-slots.exp", &h, "driver.duration=7");
	av = driver_argv(&x, &x.ph[0], 1, false, &ac);
	joined = av[0] ? av[0] : "";
	for (int i = 0; i < ac; i++)
		if (!strcmp(av[i], "--duration=7"))
			joined = av[i];
	ok(x.ph[0].small && !strcmp(joined, "--duration=7") && phase_duration(&x, &x.ph[0]) == 7,
	   "2 CPUs: -s driver.duration=7 wins over [small] duration = 1 (argv and window)");
	free_argv(av);
	expfile_free(&x.f);
	load(&x, "experiments/stock-slots.exp", &h, NULL);
	ok(x.ph[0].small && phase_duration(&x, &x.ph[0]) == 1, "2 CPUs, no -s: [small] duration = 1 applies");
	expfile_free(&x.f);
}

int main(int argc, char **argv)
{
	int rc;

	if (exp_plan_host_describe(&host, FIXTURE, host_err, sizeof(host_err)) && !host_err[0])
		snprintf(host_err, sizeof(host_err), "failed, no reason given");
	rc = tap_main(argc, argv);
	if (!host_err[0])
		exp_plan_host_free(&host);
	return rc;
}
