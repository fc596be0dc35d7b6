// SPDX-License-Identifier: GPL-2.0
/*
 * A step's shape from its driver's own parser and planner
 * (experiment/plan_steps.h).  The host each driver plans on is the plan's
 * host in the driver's terms; the limits experiment/plan.c checks for every
 * driver the same way (tasks with the runner's own, open files, memcg ids,
 * cgroup.max.descendants and depth) are handed to the charge plan open, so
 * that a step over one is refused once, with the step and the number.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "drivers/charge/options.h"
#include "drivers/charge/kmod.h"
#include "drivers/charge/plan.h"
#include "drivers/statread/driver.h"
#include "experiment/plan_steps.h"
#include "util/err.h"
#include "util/humanize.h"
#include "util/strfmt.h"

/* The memory controller of the host's cgroup version at its usual mount. */
static void cg_env_of(struct cg_env *env, const struct exp_plan_host *h)
{
	memset(env, 0, sizeof(*env));
	env->mode = h->model.memory_v1 ? CG_V1 : CG_V2;
	env->memory_v2 = !h->model.memory_v1;
	snprintf(env->memory_root, sizeof(env->memory_root), "/sys/fs/cgroup%s", h->model.memory_v1 ? "/memory" : "");
}

/* ---- charge ---- */

/* The run is root's on a memory controller (the runner checks this
 * machine's uid and mounts through the driver's --validate); the CPUs a
 * pin may name are the topology's. */
static void charge_host_of(struct charge_host *ch, const struct exp_plan_host *h)
{
	memset(ch, 0, sizeof(*ch));
	ch->page = h->page_size;
	ch->topo_ok = h->model.topo != NULL;
	if (ch->topo_ok)
		ch->topo = *h->model.topo;	/* borrowed: never charge_host_free()d */
	else
		snprintf(ch->topo_err, sizeof(ch->topo_err), "%s", h->model.topo_err);
	for (int i = 0; ch->topo_ok && i < ch->topo.npu; i++) {
		CPU_SET(ch->topo.compact[i], &ch->cpus.online);
		CPU_SET(ch->topo.compact[i], &ch->cpus.usable);
	}
	cg_env_of(&ch->env, h);
	ch->euid = 0;
	ch->cg_limits = (struct hierarchy_limits){ .memcg_ids_used = -1, .max_depth = LLONG_MAX,
						   .max_descendants = LLONG_MAX };
	ch->tasks = (struct task_limits){ .pid_max = LLONG_MAX, .threads_max = LLONG_MAX, .pids_left = LLONG_MAX };
	ch->nofile_max = -1;
	/* Unknown memory: charge's memory checks are left out (the plan says so). */
	ch->meminfo_ok = h->mem_bytes > 0;
	ch->mem = (struct meminfo){ .total = h->mem_total, .available = h->mem_bytes, .swap_free = h->swap_free };
	ch->stock_slots = h->stock_slots;
	ch->obj_stock_slots = h->obj_stock_slots;
	ch->tmpfs_is_tmpfs = true;
}

/* Where stock's largest K came from. */
static const char *stock_k_why(const struct charge_plan *cp, const struct charge_config *asked)
{
	bool obj = !strcmp(cp->cfg.mode, "objstock");

	if (asked->stock_max)
		return "--stock-max";
	if (cp->stock_slots <= 0)
		return "slots unknown: K to 16";
	return obj ? "twice the obj stock's slots from BTF, plus 2" : "twice the stock's slots from BTF";
}

/* Which memcgs sock's pairs are in. */
static const char *pairs_where(const struct charge_plan *cp, int maxn, char *buf, size_t n)
{
	if (!cp->use_cg)
		return "in the root memcg";
	if (cp->ncg == maxn)
		return "each pair in its memcg";
	snprintf(buf, n, "in %d memcg%s", cp->ncg, cp->ncg == 1 ? "" : "s");
	return buf;
}

static void charge_words(struct exp_phase_plan *pp, const struct charge_plan *cp, const struct charge_config *asked)
{
	const struct charge_config *o = &cp->cfg;
	bool sock = !strcmp(o->mode, "sock");
	int maxn = cp->steps[cp->nsteps - 1];
	char where[64];

	snprintf(pp->what, sizeof(pp->what), "charge %s", o->mode);
	if (!cp->use_cg)
		snprintf(pp->tree, sizeof(pp->tree), "none: the workers run in the root memcg (not charged)");
	else if (o->hierarchy_set)
		snprintf(pp->tree, sizeof(pp->tree), "the run's root + a %dx%d hierarchy = %lld memory cgroups, "
			 "%d levels deep; the workers in its first %ld of %ld leaves", o->depth, o->fanout, cp->memcgs,
			 o->depth + 1, o->cgroups, hierarchy_leaves(o->depth, o->fanout));
	else
		snprintf(pp->tree, sizeof(pp->tree), "the run's root + %ld memory cgroup%s = %lld%s", o->cgroups,
			 o->cgroups == 1 ? "" : "s", cp->memcgs, cp->stock ? " (one per K)" :
			 sock && cp->ncg == maxn ? " (each pair's own)" : "");
	if (cp->stock && o->stock_cpus > 1)
		snprintf(pp->workers, sizeof(pp->workers), "K = 1..%d workers taking turns on each of %d CPUs, the "
			 "i-th of each in memcg i (%s)", o->stock_max, o->stock_cpus, stock_k_why(cp, asked));
	else if (cp->stock)
		snprintf(pp->workers, sizeof(pp->workers), "K = 1..%d workers taking turns on one CPU, each in its "
			 "own memcg (%s)", o->stock_max, stock_k_why(cp, asked));
	else if (sock)
		snprintf(pp->workers, sizeof(pp->workers), "%d client/receiver pairs (a client process with a "
			 "receiver thread), %s%s", maxn, pairs_where(cp, maxn, where, sizeof(where)),
			 o->threads ? "; threads" : "");
	else
		snprintf(pp->workers, sizeof(pp->workers), "%d %s worker%s%s", maxn, o->mode, maxn == 1 ? "" : "s",
			 o->threads ? " (threads)" : " (processes)");
	if (o->steps)
		str_appendf(pp->workers, sizeof(pp->workers), ", topology steps up to %d run by the driver", maxn);
	if (!strcmp(o->mode, "kmem") && cp->kmod)
		str_appendf(pp->workers, sizeof(pp->workers), "; the seed's module kmem_bench, its %s cache",
			    o->unaccounted ? "plain" : "SLAB_ACCOUNT");
	else if (!strcmp(o->mode, "kmem"))
		str_appendf(pp->workers, sizeof(pp->workers), "; " KMOD_STANDIN);
}

int plan_step_charge(struct exp_phase_plan *pp, struct exp_step_plan *st, char **av, int ac,
		     const struct exp_plan_host *h, char *err, size_t errlen)
{
	struct charge_config c;
	struct charge_host ch;
	struct charge_plan cp;
	const struct charge_config *o = &cp.cfg;
	char why[512];
	int maxn;

	if (charge_parse_options(ac - 1, av + 1, &c))
		return set_err(err, errlen, "charge: a bad option, a missing value or --help in its command line");
	charge_host_of(&ch, h);
	if (charge_plan(&cp, &c, &ch, why, sizeof(why))) {
		charge_plan_free(&cp);
		return set_err(err, errlen, "charge: %s", why);
	}
	maxn = cp.steps[cp.nsteps - 1];
	st->workers = maxn * (cp.stock ? o->stock_cpus : 1);
	st->pairs = !strcmp(o->mode, "sock") ? maxn : 0;
	st->memcgs = cp.memcgs;
	st->depth = cp.use_cg ? 1 + o->depth : 0;
	st->tasks = cp.tasks + 1;	/* and the runner */
	st->fds = cp.fds;
	/* Each task count, or each K of the stock sweep, after its warm-up. */
	st->seconds = (cp.stock ? o->stock_max : cp.nsteps) * (double)(o->duration + o->warmup);
	/* One driver run sweeps its steps or K: its windows are timed over
	 * all of it, not over one step's duration. */
	st->sweep = cp.stock || cp.nsteps > 1;
	charge_words(pp, &cp, &c);
	charge_plan_free(&cp);
	return 0;
}

/* ---- statread ---- */

/* A file directory on a disk is assumed (the runner's --validate checks
 * this machine's). */
static void statread_host_of(struct statread_host *sh, const struct exp_plan_host *h)
{
	long long tleft = (h->pid_max < h->threads_max ? h->pid_max : h->threads_max) - h->tasks_now;

	*sh = (struct statread_host){
		.ncpus = h->model.ncpus,
		/* Unknown memory: the memory checks are left out (the plan says so). */
		.mem_available = h->mem_bytes > 0 ? h->mem_bytes : LLONG_MAX / 4,
		.swap_free = h->swap_free,
		.memcgs_in_use = h->memcgs_in_use, .memcgs_max = h->memcgs_max,
		.descendants_left = h->descendants_left, .depth_left = h->depth_left,
		.threads_left = tleft, .file_dir_ok = true,
		/* Checked per step by the experiment's plan, which names the step. */
		.nofile_max = LLONG_MAX,
	};
}

int plan_step_statread(struct exp_phase_plan *pp, struct exp_step_plan *st, char **av, int ac,
		       const struct exp_plan_host *h, char *err, size_t errlen)
{
	struct cg_env env;
	struct statread_host sh;
	struct statread_config c;
	struct statread_cli cli = { 0 };
	struct statread_plan sp;
	char b1[32], b2[32], b3[32], why[512];
	int nfiles;

	cg_env_of(&env, h);
	statread_host_of(&sh, h);
	statread_config_defaults(&c);
	if (statread_parse_options(ac - 1, av + 1, &c, &cli))
		return set_err(err, errlen, "statread: a bad option, a missing value or --help in its command line");
	if (statread_plan(&sp, &c, &env, &sh, why, sizeof(why))) {
		statread_plan_free(&sp);
		return set_err(err, errlen, "statread: %s", why);
	}
	nfiles = __builtin_popcount(sp.cfg.file_mask);
	st->readers = sp.nreaders;
	st->allocators = sp.nallocators;
	st->memcgs = sp.ncgs;
	st->depth = 3;
	st->tasks = sp.nreaders + sp.nallocators + 2;
	st->fds = sp.fds;
	st->seconds = sp.cfg.duration_ns > 0 ? (sp.cfg.duration_ns + sp.cfg.warmup_ns) / 1e9 : -1;
	snprintf(pp->what, sizeof(pp->what), "statread");
	snprintf(pp->tree, sizeof(pp->tree), "1 root + %d top x %d leaves = %d memory cgroups; leaf limit %s%s%s",
		 sp.cfg.top, sp.cfg.children, sp.ncgs,
		 sp.cfg.limit_bytes > 0 ? format_bytes(b1, 32, sp.cfg.limit_bytes) : "none",
		 sp.cfg.top_limit_bytes > 0 ? ", top limit " : "",
		 sp.cfg.top_limit_bytes > 0 ? format_bytes(b2, 32, sp.cfg.top_limit_bytes) : "");
	snprintf(pp->workers, sizeof(pp->workers), "%d readers (root %d, top %d, leaf %d) of %s every %s; ",
		 sp.nreaders, sp.readers_at[SR_ROOT], sp.readers_at[SR_TOP], sp.readers_at[SR_LEAF],
		 nfiles > 1 ? "memory.stat and memory.numa_stat" : "memory.stat",
		 sp.cfg.flat_out ? "read (flat out)" : format_ns(b3, 32, (uint64_t)sp.cfg.interval_ns));
	if (sp.nallocators)
		str_appendf(pp->workers, sizeof(pp->workers), "%d allocators (%d per leaf, %s each)", sp.nallocators,
			    sp.cfg.allocators, format_bytes(b1, 32, sp.cfg.alloc_bytes));
	else
		str_appendf(pp->workers, sizeof(pp->workers), "no allocators (readers alone)");
	snprintf(pp->note, sizeof(pp->note), "%s", sp.scaled_note);
	statread_plan_free(&sp);
	return 0;
}
