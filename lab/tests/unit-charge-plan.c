// SPDX-License-Identifier: GPL-2.0
/*
 * The charge plan on made-up hosts: a 2-CPU cgroup v1 box (this lab's build
 * VM), a 256-CPU SMT cgroup v2 box, hosts whose BTF shows no multi-memcg
 * stock or no BTF at all, and one host fact per refusal.  Checked: the task
 * counts, cgroups and CPUs of each mode, what the plan rewrites (stock's K
 * and duration, sock's cgroup per worker, --size to whole pages), and that
 * every refusal is the one line the command prints after "charge: ".
 * kmem: the seed's module where the host has one (its loop, one file per
 * worker, the unaccounted side in the worker's memcg), else the stand-in
 * (the unaccounted side in the root memcg).  And what each mode's plan
 * writes to meta.json's "charge" (report.c: charge_report_config).
 * The mounts are the recorded ones of tests/data/statread/.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/charge/kmod.h"
#include "drivers/charge/loops.h"
#include "drivers/charge/plan.h"
#include "drivers/charge/report.h"
#include "tests/tap.h"
#include "util/fileio.h"

#define MOUNTS TEST_DATA "/statread/"
#define SMT256 "package:2 numa:4 core:16 pu:2"

/* A host of the described topology whose CPUs are all online and ours,
 * root, 4 KiB pages, no swap, 32 GiB, the kernel's default pid limits. */
static void host_make(struct charge_host *h, const char *topo_spec, const char *mounts_file)
{
	char err[512], *mounts = read_text(mounts_file, NULL);

	memset(h, 0, sizeof(*h));
	h->page = 4096;
	h->topo_ok = !topo_load_spec(&h->topo, topo_spec, err, sizeof(err));
	if (!h->topo_ok) {
		printf("Bail out! topology '%s': %s\n", topo_spec, err);
		exit(1);
	}
	for (int c = 0; c < h->topo.npu; c++) {
		CPU_SET(c, &h->cpus.online);
		CPU_SET(c, &h->cpus.usable);
	}
	if (!mounts) {
		printf("Bail out! cannot read %s\n", mounts_file);
		exit(1);
	}
	h->cg_detect_rc = cg_detect(&h->env, mounts);
	free(mounts);
	h->euid = 0;
	h->cg_limits = (struct hierarchy_limits){ .memcg_ids_used = 40, .max_depth = LLONG_MAX,
						  .max_descendants = LLONG_MAX };
	h->tasks = (struct task_limits){ .now = 200, .pid_max = 32768, .threads_max = 1 << 20,
					 .pids_left = LLONG_MAX };
	h->nofile_max = 1 << 20;
	h->meminfo_ok = true;
	h->mem = (struct meminfo){ .total = 32ll << 30, .available = 30ll << 30 };
	/* 6.18: seven memcg slots; the objcg stock is one cached_objcg. */
	h->stock_slots = 7;
	h->obj_stock_slots = 1;
	strcpy(h->stock_evidence, "memcg_stock_pcp.cached is struct mem_cgroup *[7], nr_pages is uint8_t[7]");
	strcpy(h->obj_stock_evidence, "memcg_stock_pcp.cached_objcg is one objcg");
	h->tmpfs_is_tmpfs = true;
}

/* The two hosts the cases plan on, made by main(): this lab's 2-CPU
 * cgroup v1 build VM and a 256-CPU SMT cgroup v2 box. */
static struct charge_host host_v1, host_v2;

/* argv-like options after --mode, applied to the defaults. */
static struct charge_config config(const char *mode)
{
	struct charge_config c;

	charge_config_defaults(&c);
	c.mode = mode;
	return c;
}

static int plan(struct charge_plan *p, const struct charge_config *c, const struct charge_host *h, char *err,
		size_t n)
{
	err[0] = '\0';
	return charge_plan(p, c, h, err, n);
}

/* Plans c on h and expects exactly the refusal want (the whole line). */
static void refused(const struct charge_config *c, const struct charge_host *h, const char *want,
		    const char *what)
{
	struct charge_plan p;
	char err[1024];
	int r = plan(&p, c, h, err, sizeof(err));

	ok(r == -1 && !strcmp(err, want) && !strchr(err, '\n'), "refused: %s", what);
	if (r != -1 || strcmp(err, want))
		tap_diag("  got %d '%s', want '%s'", r, err, want);
	charge_plan_free(&p);
}

TEST(two_cpus_v1)
{
	const struct charge_host *h = &host_v1;
	struct charge_config c = config("anon");
	struct charge_plan p;
	char err[1024];

	ok(h->topo.npu == 2 && !h->env.memory_v2, "host: 2 CPUs, memory on cgroup v1");
	is_int(plan(&p, &c, h, err, sizeof(err)), 0, "anon with the defaults is planned (%s)", err);
	ok(p.nsteps == 1 && p.steps[0] == 1 && !p.step_names[0], "anon: one step of 1 task");
	ok(p.use_cg && p.ncg == 1 && p.cfg.depth == 1 && p.cfg.fanout == 1, "anon: 1 cgroup, a 1x1 tree");
	is_int(p.pin.kind, PIN_SPREAD, "anon: spread by default");
	ok(!strcmp(p.loop->name, "anon") && !p.stock && p.page == 4096, "anon: the anon loop, 4 KiB pages");
	ok(!strcmp(p.env.memory_root, "/sys/fs/cgroup/memory"), "anon: the host's v1 memory root");
	ok(p.cfg.duration == 5 && p.cfg.warmup == 1 && p.cfg.size == 1 << 20, "anon: 5 s after 1 s, 1 MiB a pass");
	ok(p.memcgs == 2 && p.tasks == 2 && p.fds == CHARGE_BASE_FDS,
	   "anon: the run's root and its cgroup, a worker and the driver, no descriptors of its own");
	charge_plan_free(&p);

	c.size = 1;
	plan(&p, &c, h, err, sizeof(err));
	is_int(p.cfg.size, 4096, "--size 1 is rewritten to one whole page");
	charge_plan_free(&p);

	c = config("anon");
	c.steps = true;
	is_int(plan(&p, &c, h, err, sizeof(err)), 0, "anon --tasks steps is planned");
	ok(p.nsteps == 2 && p.steps[0] == 1 && p.steps[1] == 2, "2 CPUs: steps 1 and 2 (%d steps)", p.nsteps);
	is_int(p.pin.kind, PIN_COMPACT, "steps: compact by default");
	charge_plan_free(&p);

	c = config("anon");
	c.hierarchy_set = true;
	c.depth = c.fanout = 2;
	plan(&p, &c, h, err, sizeof(err));
	ok(p.ncg == 4 && p.cfg.cgroups == 4, "--hierarchy 2x2 without --cgroups: its 4 leaves");
	is_int((int)p.memcgs, 1 + 2 + 4, "--hierarchy 2x2: the run's root, 2 and 4 below it");
	charge_plan_free(&p);

	c = config("sock");
	c.tasks = 3;
	plan(&p, &c, h, err, sizeof(err));
	ok(p.ncg == 3 && p.cfg.fanout == 3, "sock --tasks 3: a cgroup per client/receiver pair (%d)", p.ncg);
	ok(p.memcgs == 4 && p.tasks == 3 * 2 + 1 && p.fds == CHARGE_BASE_FDS + 4,
	   "sock --tasks 3: 4 memcgs, a client and a receiver per pair and the driver, 4 descriptors a pair");
	charge_plan_free(&p);

	c = config("anon");
	c.cgroups = 0;
	c.cgroups_set = true;
	is_int(plan(&p, &c, h, err, sizeof(err)), 0, "--cgroups 0 is planned");
	ok(!p.use_cg && p.ncg == 0 && p.memcgs == 0, "--cgroups 0: the root memcg, no cgroups of its own");
	charge_plan_free(&p);

	c = config("kmem");
	c.tasks = 4;
	c.threads = true;
	c.cgroups = 0;
	c.cgroups_set = true;
	is_int(plan(&p, &c, h, err, sizeof(err)), 0, "kmem --tasks 4 --threads --cgroups 0 is planned (%s)", err);
	ok(p.tasks == 4 + 1 + 1 && p.fds == CHARGE_BASE_FDS + 4 * 512,
	   "--threads --cgroups 0: one process hosts all 4 workers and their 4 x 512 objects (%ld tasks, %lld fds)",
	   p.tasks, p.fds);
	charge_plan_free(&p);

	c = config("anon");
	c.pin = "pack:1";
	plan(&p, &c, h, err, sizeof(err));
	ok(p.pin.kind == PIN_PACK && p.pin.ncpus == 1 && p.pin.cpus[0] == 1, "--pin pack:1: every worker on CPU 1");
	charge_plan_free(&p);

	/* The stock sweep: K = 1 .. 2 x the slots, one memcg each, 2 s per K. */
	c = config("stock");
	is_int(plan(&p, &c, h, err, sizeof(err)), 0, "stock is planned (%s)", err);
	ok(p.stock && p.stock_slots == 7 && p.cfg.stock_max == 14, "stock: 7 slots, K up to 14 (%d)",
	   p.cfg.stock_max);
	ok(p.nsteps == 1 && p.steps[0] == 14 && p.ncg == 14, "stock: one step of 14 workers in 14 memcgs");
	ok(p.memcgs == 15 && p.tasks == 15, "stock: 14 memcgs under the run's root, 14 workers and the driver");
	is_int(p.cfg.duration, 2, "stock: the duration is rewritten to 2 s per K");
	is_int(p.stock_cpu, 1, "stock: the last CPU, so the parent keeps CPU 0");
	ok(!strcmp(p.stock_evidence, h->stock_evidence), "stock: BTF's evidence goes with the slots");
	ok(c.stock_max == 0 && c.duration == 5 && c.cgroups == 1, "stock: the rewrites are the plan's, not the request's");
	charge_plan_free(&p);

	c = config("objstock");
	plan(&p, &c, h, err, sizeof(err));
	ok(p.stock_slots == 1 && p.cfg.stock_max == 4 && p.ncg == 4,
	   "objstock: one objcg slot, K up to 2 x 1 + 2 = %d", p.cfg.stock_max);
	ok(!strcmp(p.stock_evidence, h->obj_stock_evidence), "objstock: the obj stock's evidence");
	charge_plan_free(&p);

	c = config("stock");
	c.stock_max = 3;
	c.duration = 4;
	c.duration_set = true;
	c.pin = "pack:0";
	plan(&p, &c, h, err, sizeof(err));
	ok(p.cfg.stock_max == 3 && p.ncg == 3 && p.cfg.duration == 4 && p.stock_cpu == 0,
	   "stock --stock-max 3 --duration 4 --pin pack:0: kept as asked");
	charge_plan_free(&p);
}

TEST(smt256_v2)
{
	const struct charge_host *h = &host_v2;
	static const int want[] = { 1, 2, 32, 64, 128, 256 };
	struct charge_config c = config("sock");
	struct charge_plan p;
	char err[1024];
	int same = 1;

	ok(h->topo.npu == 256 && h->topo.smt == 2 && h->env.memory_v2, "host: 256 CPUs, SMT 2, cgroup v2");
	c.steps = true;
	is_int(plan(&p, &c, h, err, sizeof(err)), 0, "sock --tasks steps is planned (%s)", err);
	for (int i = 0; i < 6 && i < p.nsteps; i++)
		same &= p.steps[i] == want[i];
	ok(p.nsteps == 6 && same, "256 CPUs: steps 1, 2, 32, 64, 128, 256 (%d steps)", p.nsteps);
	ok(p.step_names[1] && !strcmp(p.step_names[1], "SMT set") && !strcmp(p.step_names[5], "machine"),
	   "steps named by level (%s, %s)", p.step_names[1], p.step_names[5]);
	ok(p.ncg == 256 && p.cfg.fanout == 256, "sock: a cgroup per pair of the largest step (%d)", p.ncg);
	ok(!strcmp(p.env.memory_root, "/sys/fs/cgroup"), "sock: the unified hierarchy's root");
	charge_plan_free(&p);

	c = config("stock");
	plan(&p, &c, h, err, sizeof(err));
	is_int(p.stock_cpu, 255, "stock on 256 CPUs: CPU 255");
	charge_plan_free(&p);

	/* 256 sock pairs need 513 tasks: past a pids.max of 500. */
	{
		struct charge_host tight = *h;

		tight.tasks.pids_left = 300;
		tight.tasks.pids_max = 500;
		tight.tasks.pids_cur = 200;
		strcpy(tight.tasks.pids_file, "/sys/fs/cgroup/user.slice/pids.max");
		c = config("sock");
		c.steps = true;
		refused(&c, &tight, "--tasks 256: 513 tasks needed, over the pid limit: "
			"/sys/fs/cgroup/user.slice/pids.max is 500 and 200 are in use", "sock steps past pids.max");
		tight = *h;
		tight.cg_limits.max_depth = 2;
		c = config("anon");
		c.hierarchy_set = true;
		c.depth = 3;
		c.fanout = 2;
		refused(&c, &tight, "--hierarchy 3x2: the run's root and 3 levels below it need cgroup.max.depth 4, "
			"but /sys/fs/cgroup/cgroup.max.depth allows 2", "a tree deeper than cgroup.max.depth");
	}
	c = config("sock");
	c.tcp_limit = 1 << 20;
	refused(&c, h, "--tcp-limit: cgroup v2 has no tcp limit; socket memory is charged to memory there",
		"--tcp-limit on v2");
}

/* Kernels without the multi-memcg stock, or whose BTF cannot be read. */
TEST(without_stock)
{
	const struct charge_host *base = &host_v1;
	struct charge_host h = *base;
	struct charge_config c = config("stock");
	struct charge_plan p;
	char err[1024];

	h.stock_slots = 1;
	strcpy(h.stock_evidence, "memcg_stock_pcp.cached is one struct mem_cgroup *");
	is_int(plan(&p, &c, &h, err, sizeof(err)), 0, "stock on a one-slot kernel is planned");
	ok(p.stock_slots == 1 && p.cfg.stock_max == 2, "one slot: K = 1, 2 (%d)", p.cfg.stock_max);
	charge_plan_free(&p);

	h.stock_slots = h.obj_stock_slots = 0;
	strcpy(h.stock_evidence, "no BTF of the running kernel (/sys/kernel/btf/vmlinux: No such file)");
	plan(&p, &c, &h, err, sizeof(err));
	ok(p.stock_slots == 0 && p.cfg.stock_max == CHARGE_STOCK_K_UNKNOWN,
	   "no BTF: slots unknown, K swept to %d", p.cfg.stock_max);
	ok(strstr(p.stock_evidence, "no BTF") != NULL, "no BTF: the evidence says so");
	charge_plan_free(&p);
	c.stock_max = 100;
	plan(&p, &c, &h, err, sizeof(err));
	is_int(p.cfg.stock_max, 64, "K is capped at the stock driver's 64");
	charge_plan_free(&p);
}

TEST(refusals)
{
	const struct charge_host *h = &host_v1;
	struct charge_config c;
	struct charge_host bad;

	c = config(NULL);
	refused(&c, h, "--mode is required (anon, file, kmem, sock, stock, objstock)", "no --mode");
	c = config("bogus");
	refused(&c, h, "--mode 'bogus': unknown mode (want one of anon, file, kmem, sock, stock, objstock)",
		"an unknown mode");
	c = config("anon");
	c.results = ".x";
	refused(&c, h, "--results '.x': want a name that does not start with '.'", "a hidden results name");
	c.results = "a/b";
	refused(&c, h, "--results 'a/b': want letters, digits, '.', '_' and '-' only (it names a directory)",
		"a results name with a slash");
	c = config("anon");
	c.pin = "0,1000";
	refused(&c, h, "--pin '0,1000': CPU 1000 is offline or absent (online: 0-1)", "a CPU the host lacks");
	c = config("stock");
	c.tasks = 2;
	refused(&c, h, "--tasks: the stock mode sets its own worker counts (K = 1 .. --stock-max)", "stock --tasks");
	c = config("stock");
	c.threads = true;
	refused(&c, h, "--threads: the stock mode needs one process per memcg", "stock --threads");
	c = config("objstock");
	c.cgroups_set = true;
	refused(&c, h, "--cgroups/--hierarchy: the stock mode makes one memcg per worker", "objstock --cgroups");
	c = config("stock");
	c.pin = "spread";
	refused(&c, h, "--pin 'spread': the stock mode packs its workers on one CPU: want pack or pack:CPU",
		"stock --pin spread");
	c = config("anon");
	c.hierarchy_set = c.cgroups_set = true;
	c.depth = c.fanout = 2;
	c.cgroups = 5;
	refused(&c, h, "--cgroups 5: more than the 2x2 hierarchy's 4 leaves", "more cgroups than leaves");
	c = config("anon");
	c.cgroups = 0;
	c.cgroups_set = true;
	c.limit = 1 << 20;
	refused(&c, h, "--cgroups 0 runs the workers in the root memcg: --limit, --tcp-limit and --hierarchy need "
		"cgroups of the run's own", "--cgroups 0 --limit");
	c = config("anon");
	c.hierarchy_set = true;
	c.depth = 4;
	c.fanout = 20;
	refused(&c, h, "--hierarchy 4x20: over 65536 cgroups, more than the memory controller's free IDs (65535, "
		"40 in use)", "a tree past the memcg IDs");
	c = config("anon");
	c.limit = 100 << 10;
	refused(&c, h, "--limit 100.0 KiB: below one charge batch (64 pages = 256 KiB): a CPU's stock alone could "
		"hold more than the limit", "a limit below one batch");
	c.limit = -1;
	c.tcp_limit = 1 << 20;
	refused(&c, h, "--tcp-limit is for --mode sock", "--tcp-limit on anon");
	c = config("sock");
	c.tcp_limit = 100;
	refused(&c, h, "--tcp-limit 100: below one page", "a tcp limit below a page");
	c = config("anon");
	c.tasks = 40000;
	refused(&c, h, "--tasks 40000: 40001 tasks needed, over the pid limit: kernel.pid_max is 32768 and 200 tasks "
		"exist", "more tasks than pid_max");
	c = config("anon");
	c.size = 0;
	refused(&c, h, "--size: at least one page (4096 bytes)", "--size 0");
	c = config("file");
	c.populate = true;
	refused(&c, h, "--populate is for --mode anon", "file --populate");
	c = config("sock");
	c.msg = 100 << 20;
	refused(&c, h, "--msg-size 104857600: want 1 byte to 64M", "a message over 64M");
	c = config("anon");
	c.cgroups = 2;
	c.limit = 1ll << 40;
	refused(&c, h, "--limit x --cgroups = 2.0 TiB: above the host's 32.0 GiB of RAM with no swap: the limits "
		"would not protect it", "limits above RAM without swap");
	c = config("anon");
	c.tasks = 2;
	c.size = 1ll << 40;
	refused(&c, h, "--size x --tasks = 2.0 TiB: more than 80% of the 30.0 GiB available, with no swap and no "
		"--limit", "more than 80% of the available memory");

	/* One host fact each. */
	bad = *h;
	bad.mem.swap_free = 1 << 30;
	{
		struct charge_plan p;
		char err[1024];

		c = config("anon");
		c.tasks = 2;
		c.size = 1ll << 40;
		is_int(plan(&p, &c, &bad, err, sizeof(err)), 0, "with swap, the same size is left to the kernel");
		charge_plan_free(&p);
	}
	bad = *h;
	bad.euid = 1000;
	c = config("anon");
	refused(&c, &bad, "placing workers in memory cgroups needs root (uid 1000)", "not root");
	host_make(&bad, "core:2 pu:1", MOUNTS "mounts-none");
	refused(&c, &bad, "no memory controller to put workers in (no cgroup hierarchy with the memory controller in "
		"/proc/self/mounts)", "no memory controller");
	charge_host_free(&bad);
	bad = *h;
	bad.nofile_max = 20000;
	c = config("kmem");
	c.objects = 1 << 20;
	c.tasks = 4;
	c.threads = true;
	refused(&c, &bad, "--objects 1048576: 4194304 descriptors per process, over RLIMIT_NOFILE (20000)",
		"kmem threads past RLIMIT_NOFILE");
	bad = *h;
	bad.tmpfs_is_tmpfs = false;
	c = config("file");
	c.tmpfs = "/proc";
	refused(&c, &bad, "--tmpfs '/proc': not a tmpfs directory", "--tmpfs on procfs");
	bad.tmpfs_errno = ENOENT;
	c.tmpfs = "/nonexistent";
	refused(&c, &bad, "--tmpfs '/nonexistent': No such file or directory", "a --tmpfs that does not exist");
	bad = *h;
	bad.topo_ok = false;
	strcpy(bad.topo_err, "hwloc: cannot load the topology");
	c = config("anon");
	refused(&c, &bad, "hwloc: cannot load the topology", "a host whose topology cannot be read");
}

/* kmem: the module where the host has one, the stand-in where not. */
TEST(kmem_module)
{
	const struct charge_host *h = &host_v1;
	struct charge_host m = *h;
	struct charge_config c;
	struct charge_plan p;
	char err[512];

	m.kmod_found = 1;
	strcpy(m.kmod_path, "/lab/build/kmod/6.1.0-57-amd64/kmem_bench.ko");
	strcpy(m.kmod_built, "linux-headers-6.1.0-57-amd64, linux-kbuild-6.1 6.1.192-3 (bookworm)");
	c = config("kmem");
	c.tasks = 2;
	is_int(plan(&p, &c, &m, err, sizeof(err)), 0, "kmem with a module is planned (%s)", err);
	ok(p.kmod && p.loop == &loop_kmod && !strcmp(p.kmod_path, m.kmod_path),
	   "the module's loop runs, from the module the host has");
	ok(p.use_cg && p.ncg == 1 && p.fds == CHARGE_BASE_FDS + 1,
	   "accounted: the workers in a memcg, each with one /proc file open (%lld fds)", p.fds);
	charge_plan_free(&p);
	c.unaccounted = true;
	is_int(plan(&p, &c, &m, err, sizeof(err)), 0, "kmem --unaccounted with a module is planned (%s)", err);
	ok(p.kmod && p.use_cg && p.ncg == 1, "the module's unaccounted side: its plain cache, the workers still in "
	   "their memcg (as the seed's task was)");
	charge_plan_free(&p);

	/* No module: the stand-in, whose unaccounted side is the root memcg. */
	m.kmod_found = 0;
	m.kmod_path[0] = m.kmod_built[0] = '\0';
	strcpy(m.kmod_why, "no kmem_bench module for kernel 6.18.44: no headers (no /lib/modules/6.18.44/build)");
	is_int(plan(&p, &c, &m, err, sizeof(err)), 0, "kmem --unaccounted without a module is planned (%s)", err);
	ok(!p.kmod && p.loop == &loop_kmem && !p.use_cg && p.ncg == 0 && p.memcgs == 0 &&
	   !strcmp(p.kmod_why, m.kmod_why), "the stand-in's unaccounted side: the root memcg, and why no module");
	charge_plan_free(&p);
	c.unaccounted = false;
	is_int(plan(&p, &c, &m, err, sizeof(err)), 0, "kmem without a module is planned (%s)", err);
	ok(!p.kmod && p.loop == &loop_kmem && p.use_cg && p.fds == CHARGE_BASE_FDS + 512,
	   "the stand-in's accounted side: close()/open() in a memcg, 512 descriptors (%lld fds)", p.fds);
	charge_plan_free(&p);

	c.unaccounted = true;
	c.limit = 1 << 30;
	refused(&c, &m, "--unaccounted runs the stand-in's workers in the root memcg (no kmem_bench module for kernel "
		"6.18.44: no headers (no /lib/modules/6.18.44/build)): --limit and --hierarchy need cgroups of the "
		"run's own", "--unaccounted --limit with the stand-in");
	m.kmod_found = -1;
	strcpy(m.kmod_why, "cannot read it: No such file or directory");
	c = config("kmem");
	c.module = "/nope.ko";
	refused(&c, &m, "--module '/nope.ko': cannot read it: No such file or directory", "a --module that is not there");
	m.kmod_found = 0;
	strcpy(m.kmod_why, "--module none");
	c = config("kmem");
	c.module = "none";
	c.batch = 100;
	refused(&c, &m, "--object-size and --batch are the module's: --module none runs the close()/open() stand-in",
		"--batch with --module none");
	m.kmod_found = 1;
	c = config("kmem");
	c.object_size = 8192;
	refused(&c, &m, "--object-size 8192: want 8 to 4096 bytes (the module's caches)", "an object too large");
	c = config("anon");
	c.unaccounted = true;
	refused(&c, &m, "--module, --unaccounted, --object-size and --batch are for --mode kmem", "--unaccounted "
		"with --mode anon");
}

/* meta.json's "charge" of a plan on h (report.c: charge_report_config),
 * whole, or from its "on_death" on where tail: the common entries, then
 * the mode's own (anon's size and fault, file's tmpfs, kmem's workload and
 * module or objects, sock's socket counter; none for the stock sweeps). */
static void config_is(const struct charge_config *c, const struct charge_host *h, bool tail, const char *want,
		      const char *what)
{
	struct charge_plan p;
	char err[512];
	json_object *j;
	const char *got, *from;

	if (plan(&p, c, h, err, sizeof(err))) {
		ok(0, "meta.json charge: %s: planned (%s)", what, err);
		charge_plan_free(&p);
		return;
	}
	j = charge_report_config(&p, NULL);
	got = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	from = tail && strstr(got, "\"on_death\"") ? strstr(got, "\"on_death\"") : got;
	ok(!strcmp(from, want), "meta.json charge: %s", what);
	if (strcmp(from, want))
		tap_diag("  got  %s\n#   want %s", from, want);
	json_object_put(j);
	charge_plan_free(&p);
}

#define COMMON_V1(mode, op) "{\"mode\":\"" mode "\",\"op\":\"" op "\",\"model\":\"processes\",\"tasks\":1,"	\
	"\"cgroups\":1,\"cgroup_mode\":\"cgroup v1\",\"cgroup_mounts\":\"hybrid\",\"pin\":\"spread\","	\
	"\"limit_bytes\":-1,\"duration_s\":5,\"warmup_s\":1,\"on_death\":\"stop\","
#define OP_ANON "page faults on private anonymous memory dropped with MADV_DONTNEED (each: one 4 KiB page "	\
	"charged, later uncharged)"
#define OP_SOCK "sendfile() messages over loopback TCP to a receiver in the same cgroup (socket memory charged " \
	"on both ends)"

TEST(report_config)
{
	const struct charge_host *v1 = &host_v1, *v2 = &host_v2;
	struct charge_host m = *v1;
	struct charge_config c;

	c = config("anon");
	config_is(&c, v1, false, COMMON_V1("anon", OP_ANON) "\"size_bytes\":1048576,\"fault\":\"user-mode touch\"}",
		  "anon: its size and fault");
	c.populate = true;
	config_is(&c, v1, true, "\"on_death\":\"stop\",\"size_bytes\":1048576,\"fault\":\"MADV_POPULATE_WRITE\"}",
		  "anon --populate: MADV_POPULATE_WRITE");
	c = config("file");
	config_is(&c, v1, false, COMMON_V1("file", "tmpfs page-cache pages allocated by fallocate() and freed by a "
		  "hole punch (each: one page charged as shmem, later uncharged)") "\"size_bytes\":1048576,"
		  "\"tmpfs\":\"/dev/shm\"}", "file: its size and tmpfs");
	c = config("kmem");
	strcpy(m.kmod_why, "no kmem_bench module for kernel 6.18.44: no headers (no /lib/modules/6.18.44/build)");
	config_is(&c, &m, true, "\"on_death\":\"stop\",\"workload\":\"stand-in: close()/open() of /dev/null: a "
		  "stand-in for the seed's module (no kmem_bench module for kernel 6.18.44: no headers (no "
		  "/lib/modules/6.18.44/build))\",\"objects\":512,\"slab_cache\":\"filp\"}",
		  "kmem, the stand-in: the workload says so and why, its objects and slab cache");
	m.kmod_found = 1;
	strcpy(m.kmod_path, "/lab/build/kmod/6.1.0-57-amd64/kmem_bench.ko");
	strcpy(m.kmod_built, "linux-headers-6.1.0-57-amd64, linux-kbuild-6.1 6.1.192-3 (bookworm)");
	m.kmod_why[0] = '\0';
	c.unaccounted = true;
	config_is(&c, &m, true, "\"on_death\":\"stop\",\"workload\":\"the seed's module: kmem_bench's "
		  "kmem_cache_alloc()+kmem_cache_free() loop, 64-byte objects\",\"module\":{\"path\":"
		  "\"/lab/build/kmod/6.1.0-57-amd64/kmem_bench.ko\",\"built\":\"linux-headers-6.1.0-57-amd64, "
		  "linux-kbuild-6.1 6.1.192-3 (bookworm)\",\"object_bytes\":64,\"cache\":\"unaccounted\","
		  "\"batch\":10000}}", "kmem --unaccounted, the module: its path, build, object size, cache, batch");
	c = config("sock");
	config_is(&c, v1, false, COMMON_V1("sock", OP_SOCK) "\"msg_bytes\":10240,\"tcp_limit_bytes\":-1,"
		  "\"socket_counter\":\"none (v1 without a tcp limit)\"}", "sock on v1 without a tcp limit: no counter");
	c.tcp_limit = 1 << 20;
	c.hierarchy_set = true;
	c.depth = c.fanout = 2;
	config_is(&c, v1, false, "{\"mode\":\"sock\",\"op\":\"" OP_SOCK "\",\"model\":\"processes\",\"tasks\":1,"
		  "\"cgroups\":4,\"cgroup_mode\":\"cgroup v1\",\"cgroup_mounts\":\"hybrid\",\"hierarchy\":\"2x2\","
		  "\"pin\":\"spread\",\"limit_bytes\":-1,\"duration_s\":5,\"warmup_s\":1,\"on_death\":\"stop\","
		  "\"msg_bytes\":10240,\"tcp_limit_bytes\":1048576,\"socket_counter\":\"memory.kmem.tcp (v1, tcp limit "
		  "set)\"}", "sock on v1 with a tcp limit, --hierarchy 2x2: memory.kmem.tcp, the tree");
	c = config("sock");
	c.steps = true;
	config_is(&c, v2, false, "{\"mode\":\"sock\",\"op\":\"" OP_SOCK "\",\"model\":\"processes\",\"tasks\":\"steps\","
		  "\"cgroups\":256,\"cgroup_mode\":\"cgroup v2\",\"cgroup_mounts\":\"v2\",\"pin\":\"compact\","
		  "\"limit_bytes\":-1,\"duration_s\":5,\"warmup_s\":1,\"on_death\":\"stop\",\"msg_bytes\":10240,"
		  "\"tcp_limit_bytes\":-1,\"socket_counter\":\"memory (v2, per-CPU stock)\"}",
		  "sock on v2, --tasks steps: memory's per-CPU stock, steps, compact");
	c = config("sock");
	c.cgroups = 0;
	c.cgroups_set = true;
	config_is(&c, v1, false, "{\"mode\":\"sock\",\"op\":\"" OP_SOCK "\",\"model\":\"processes\",\"tasks\":1,"
		  "\"cgroups\":0,\"cgroup_mode\":\"the root memcg (not charged)\",\"pin\":\"spread\",\"limit_bytes\":-1,"
		  "\"duration_s\":5,\"warmup_s\":1,\"on_death\":\"stop\",\"msg_bytes\":10240,\"tcp_limit_bytes\":-1,"
		  "\"socket_counter\":\"none (root memcg)\"}", "sock --cgroups 0: the root memcg, no mounts, no counter");
	/* The sweeps' own figures are charge.stock and charge.objstock
	 * (charge_report_stock_meta): nothing after the common entries. */
	c = config("stock");
	config_is(&c, v1, true, "\"on_death\":\"stop\"}", "stock: the common entries alone");
	c = config("objstock");
	config_is(&c, v1, true, "\"on_death\":\"stop\"}", "objstock: the common entries alone");
}

int main(int argc, char **argv)
{
	int rc;

	host_make(&host_v1, "core:2 pu:1", MOUNTS "mounts-v1-hybrid");
	host_make(&host_v2, SMT256, MOUNTS "mounts-v2");
	rc = tap_main(argc, argv);
	charge_host_free(&host_v1);
	charge_host_free(&host_v2);
	return rc;
}
