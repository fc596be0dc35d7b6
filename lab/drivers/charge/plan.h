/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The charge driver (memcg-lab charge): contended memcg charging by workers
 * in cgroups, or K memcgs taking turns on one CPU's stock.  The work splits
 * in three, as statread's does:
 *
 *   charge_plan()      options plus a described host into task counts,
 *                      cgroups and CPUs, or one line saying why not; it
 *                      touches no host, so tests plan on made-up ones
 *                      (tests/unit-charge-plan.c);
 *   charge_run()       runs a plan on this machine (run.h);
 *   charge_report_*()  prints and stores what it measured (report.h).
 *
 * charge_host_probe() (host.c) reads the facts a plan needs from this machine.
 */
#ifndef LAB_DRIVERS_CHARGE_PLAN_H
#define LAB_DRIVERS_CHARGE_PLAN_H

#include <stdbool.h>
#include <sys/types.h>
#include "drivers/harness.h"
#include "drivers/placement.h"
#include "kernel/cgroup.h"
#include "kernel/features.h"
#include "util/meminfo.h"
#include "util/topology.h"

#define CHARGE_BATCH_PAGES 64		/* MEMCG_CHARGE_BATCH since 6.1 (32 before) */
#define CHARGE_STOCK_DURATION 2		/* stock modes: seconds per K by default */
#define CHARGE_STOCK_K_UNKNOWN 16	/* stock modes: the largest K when BTF gives no slots */
#define STOCK_CPUS_MAX 256		/* stock modes: --stock-cpus at most */
#define CHARGE_BASE_FDS 64		/* a worker's descriptors before its mode's: stdio, libraries' */

/* What the command line asks for; charge_plan() resolves what it leaves open. */
struct charge_config {
	const char *mode;		/* anon, file, kmem, sock, stock, objstock */
	long tasks;
	bool steps, threads;		/* steps: --tasks steps */
	long cgroups;
	bool cgroups_set;
	int depth, fanout;
	bool hierarchy_set;
	const char *pin;		/* NULL: spread, or compact with steps */
	long long limit, tcp_limit;	/* -1: none */
	int duration, warmup;
	bool duration_set;
	bool stop_on_death;
	long long size, msg;
	long objects;
	const char *module;		/* kmem: auto (NULL), none, or a kmem_bench.ko path */
	bool unaccounted;		/* kmem: the unaccounted side (the module's plain cache;
					 * the stand-in's root memcg) */
	long long object_size;		/* kmem with the module: bytes per object */
	long batch;			/* kmem with the module: loops per write() */
	const char *tmpfs;
	int stock_max, stock_rounds;	/* stock_max 0: from the slots */
	int stock_cpus;			/* stock modes: CPUs each taking turns over the same K memcgs */
	const char *results;
	bool verbose, validate;
	bool populate;
};

/* The defaults of every option. */
void charge_config_defaults(struct charge_config *c);

/* What the machine is; charge_host_probe() reads this one, tests make one up. */
struct charge_host {
	long page;			/* the page size */
	bool topo_ok;			/* topo loaded; else topo_err says why */
	struct topo topo;
	char topo_err[512];
	struct pin_cpus cpus;		/* the CPUs a pin may name */
	int cg_detect_rc;		/* cg_detect(): < 0 when the mounts could not be read */
	struct cg_env env;
	uid_t euid;
	struct hierarchy_limits cg_limits;
	struct task_limits tasks;
	long long nofile_max;		/* files a process can open (util/nofile.h); -1: unknown */
	bool meminfo_ok;
	struct meminfo mem;
	/* The per-CPU stocks from BTF (stock modes only): memcg slots and
	 * objcg slots, 0 where unknown, with what BTF showed. */
	int stock_slots, obj_stock_slots;
	char stock_evidence[KF_EVIDENCE], obj_stock_evidence[KF_EVIDENCE];
	/* kmem mode: the module for this kernel (kmod_resolve: 1 found, 0 the
	 * stand-in with why, -1 a --module path that cannot be read). */
	int kmod_found;
	char kmod_path[4096], kmod_built[512], kmod_why[512];
	/* file mode: the --tmpfs directory (statfs errno, or 0 and whether tmpfs). */
	int tmpfs_errno;
	bool tmpfs_is_tmpfs;
};

/* Fills h from this machine for the request c (BTF for the stock modes,
 * the --tmpfs directory for file); only reads. */
void charge_host_probe(struct charge_host *h, const struct charge_config *c);
/* The memcg stock's and the obj stock's slots, with their evidence, from
 * the running kernel's BTF (the stock modes' part of the probe). */
void charge_host_stock_slots(struct charge_host *h);
void charge_host_free(struct charge_host *h);

struct charge_plan {
	struct charge_config cfg;	/* the request, with every default and rewrite applied */
	const struct hloop *loop;	/* the mode's loop (drivers/charge/loops.h) */
	/* kmem: the seed's module (kmod.h) at kmod_path, built against
	 * kmod_built; else the close()/open() stand-in, for kmod_why. */
	bool kmod;
	char kmod_path[4096], kmod_built[512], kmod_why[512];
	bool stock;			/* stock or objstock: K memcgs on one CPU */
	bool use_cg;			/* false: --cgroups 0, the root memcg */
	struct cg_env env;
	const struct topo *topo;	/* the host's */
	struct pin_plan pin;
	int nsteps;
	int steps[TOPO_MAX_STEPS];	/* task counts (stock: one, the largest K) */
	const char *step_names[TOPO_MAX_STEPS];
	long page;
	int ncg;
	/* What the largest step needs, for the limits a caller checks
	 * across drivers (the experiment plan): */
	long long memcgs;		/* memory cgroups made: the run's root and its tree; 0: none */
	long tasks;			/* workers, receivers, thread hosts and the driver itself */
	long long fds;			/* the most descriptors one worker process holds */
	int stock_cpu, stock_slots;	/* stock: memcg slots; objstock: objcg slots */
	int stock_cpu_list[STOCK_CPUS_MAX];	/* stock: the cfg.stock_cpus CPUs, stock_cpu first */
	char stock_evidence[KF_EVIDENCE];
};

/*
 * Checks the request c against the host h, every refusal before anything
 * starts, and resolves what c leaves open (e.g. stock's K from the slots,
 * sock's one cgroup per worker).  0, or -1 with one line in err (without
 * the "charge: " every message of the command starts with).  Free with
 * charge_plan_free either way.
 */
int charge_plan(struct charge_plan *p, const struct charge_config *c, const struct charge_host *h,
		char *err, size_t errlen);
void charge_plan_free(struct charge_plan *p);

#endif
