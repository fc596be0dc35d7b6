// SPDX-License-Identifier: GPL-2.0
/*
 * From options and host facts to a tree, a reader list and the control
 * files of this hierarchy version, or one line saying why not.  Nothing
 * here touches the host, so every refusal and both hierarchy versions are
 * tested with made-up hosts (tests/unit-statread-plan.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/statread/driver.h"
#include "util/err.h"
#include "util/humanize.h"

const char *const statread_level_names[SR_NLEVELS] = { "root", "top", "leaf" };
const char *const statread_file_names[SR_NFILES] = { "memory.stat", "memory.numa_stat" };

/* Leaves below this limit would reclaim on almost every charge batch. */
#define MIN_DEFAULT_LIMIT (16ll << 20)

void statread_config_defaults(struct statread_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->top = cfg->children = cfg->allocators = -1;
	cfg->readers_per_cg = 1;
	cfg->level_mask = SR_LEVEL_ALL;
	cfg->file_mask = 1u << SR_STAT;
	cfg->interval_ns = 1000000000ll;	/* stress.sh reads once a second */
	cfg->duration_ns = 10000000000ll;
	cfg->warmup_ns = 2000000000ll;
	cfg->kind = ALLOC_FILE;
}

/* The reference shape scaled to the machine: about one leaf per CPU, as
 * 250 leaves on 256 CPUs, five per top-level cgroup; 10 allocators per leaf
 * from 16 CPUs up, fewer on small machines so the run stays short. */
static void scale_shape(struct statread_plan *p, const struct statread_host *h)
{
	struct statread_config *c = &p->cfg;
	int top = SR_REF_TOP, children = SR_REF_CHILDREN, allocators = SR_REF_ALLOCATORS;

	if (h->ncpus < SR_REF_CPUS) {
		int leaves = h->ncpus * SR_REF_TOP * SR_REF_CHILDREN / SR_REF_CPUS;

		if (leaves < 2)
			leaves = 2;
		children = leaves < SR_REF_CHILDREN ? leaves : SR_REF_CHILDREN;
		top = leaves / children;
		allocators = h->ncpus >= 16 ? SR_REF_ALLOCATORS : (h->ncpus > 2 ? h->ncpus : 2);
	}
	if ((c->top < 0 && top != SR_REF_TOP) || (c->children < 0 && children != SR_REF_CHILDREN) ||
	    (c->allocators < 0 && allocators != SR_REF_ALLOCATORS))
		snprintf(p->scaled_note, sizeof(p->scaled_note),
			 "defaults scaled down for %d CPUs from the reference %d x %d x %d (%d CPUs); "
			 "--top, --children and --allocators override",
			 h->ncpus, SR_REF_TOP, SR_REF_CHILDREN, SR_REF_ALLOCATORS, SR_REF_CPUS);
	if (c->top < 0)
		c->top = top;
	if (c->children < 0)
		c->children = children;
	if (c->allocators < 0)
		c->allocators = allocators;
}

/* Leaf limit a quarter of its allocators' demand (stress.sh), and each
 * allocator's working set large enough that the leaf always reclaims. */
static void size_memory(struct statread_config *c)
{
	long long page = 4096;

	if (c->limit_bytes == 0) {
		c->limit_bytes = (long long)c->allocators * SR_REF_ALLOC_BYTES / SR_REF_LIMIT_DIVISOR;
		if (c->limit_bytes < MIN_DEFAULT_LIMIT)
			c->limit_bytes = MIN_DEFAULT_LIMIT;
	}
	if (c->alloc_bytes == 0) {
		c->alloc_bytes = SR_REF_ALLOC_BYTES;
		if (c->limit_bytes > 0 && c->allocators > 0) {
			long long need = c->limit_bytes * SR_REF_LIMIT_DIVISOR / c->allocators;

			if (need > c->alloc_bytes)
				c->alloc_bytes = need;
		}
	}
	c->alloc_bytes = (c->alloc_bytes + page - 1) / page * page;
}

static void control_files(struct statread_plan *p, const struct cg_env *env)
{
	p->v2 = env->memory_v2;
	p->limit_file = cg_file_limit(env);
	if (p->v2) {
		p->oom_file = "memory.events";
		p->hit_limit_file = "memory.events";
		p->hit_limit_key = "max";
		p->reclaim_keys[0] = "pgscan";
		p->reclaim_keys[1] = "pgsteal";
		p->reclaim_keys[2] = "workingset_refault_file";
	} else {
		/* v1 memory.stat has no scan counters: failcnt says the limit
		 * was hit, pgpgout and refaults say pages went and came back. */
		p->oom_file = "memory.oom_control";
		p->hit_limit_file = "memory.failcnt";
		p->hit_limit_key = NULL;
		p->reclaim_keys[0] = "total_pgpgout";
		p->reclaim_keys[1] = "total_workingset_refault_file";
		p->reclaim_keys[2] = NULL;
	}
}

static void build_tree(struct statread_plan *p)
{
	const struct statread_config *c = &p->cfg;
	int n = 0;

	p->nleaves = c->top * c->children;
	p->ncgs = 1 + c->top + p->nleaves;
	p->nallocators = p->nleaves * c->allocators;
	p->cgs = xcalloc(p->ncgs, sizeof(*p->cgs));
	p->cgs[n++].level = SR_ROOT;
	for (int t = 0; t < c->top; t++) {
		snprintf(p->cgs[n].rel, sizeof(p->cgs[n].rel), "top%d", t);
		p->cgs[n++].level = SR_TOP;
		for (int l = 0; l < c->children; l++) {
			snprintf(p->cgs[n].rel, sizeof(p->cgs[n].rel), "top%d/leaf%d", t, l);
			p->cgs[n++].level = SR_LEAF;
		}
	}
	for (int i = 0; i < p->ncgs; i++)
		p->cgs_at[p->cgs[i].level]++;
}

static void assign_readers(struct statread_plan *p)
{
	const struct statread_config *c = &p->cfg;
	int *eligible = xcalloc(p->ncgs, sizeof(*eligible)), ne = 0;

	for (int i = 0; i < p->ncgs; i++)
		if (c->level_mask & (1u << p->cgs[i].level))
			eligible[ne++] = i;
	if (c->total_readers > 0)
		p->nreaders = (int)c->total_readers;
	else
		p->nreaders = ne * c->readers_per_cg;
	if (!ne)
		p->nreaders = 0;
	p->readers = xcalloc(p->nreaders ? p->nreaders : 1, sizeof(*p->readers));
	/* Round robin, so a total that is not a multiple spreads evenly and
	 * every level gets its share. */
	for (int r = 0; r < p->nreaders; r++) {
		p->readers[r].cg = eligible[r % ne];
		p->readers_at[p->cgs[p->readers[r].cg].level]++;
	}
	free(eligible);
}

static const char *bytes_str(char *buf, int64_t v)
{
	return format_bytes(buf, 32, (uint64_t)v);
}

int statread_plan(struct statread_plan *p, const struct statread_config *cfg,
		  const struct cg_env *env, const struct statread_host *h,
		  char *err, size_t errlen)
{
	struct statread_config *c = &p->cfg;
	char b1[32], b2[32], b3[32];
	long long ncgs;

	memset(p, 0, sizeof(*p));
	*c = *cfg;
	if (env->mode == CG_NONE)
		return set_err(err, errlen, "no memory controller is mounted (neither a cgroup v1 "
			    "'memory' hierarchy nor cgroup2 with memory in cgroup.controllers)");
	if (!c->flat_out && c->interval_ns <= 0)
		return set_err(err, errlen, "--interval must be longer than 0 (use --interval flat "
			    "to read back to back)");
	if (c->duration_ns <= 0 && c->work_bytes <= 0)
		return set_err(err, errlen, "--duration must be longer than 0");
	if (c->warmup_ns < 0)
		return set_err(err, errlen, "--warmup must not be negative");
	if (!c->file_mask)
		return set_err(err, errlen, "--files selects no file (memory.stat, memory.numa_stat)");
	if (!c->level_mask)
		return set_err(err, errlen, "--levels selects no level (root, top, leaf)");
	if (c->top == 0 || c->children == 0)
		return set_err(err, errlen, "--top and --children must be at least 1");
	if (c->readers_per_cg < 1 && c->total_readers <= 0)
		return set_err(err, errlen, "--readers must be at least 1");

	scale_shape(p, h);
	/* Checked before anything multiplies them: the tree against the
	 * kernel's limits on cgroups. */
	ncgs = 1 + (long long)c->top + (long long)c->top * c->children;
	if (h->memcgs_in_use + ncgs > h->memcgs_max)
		return set_err(err, errlen, "--top %d --children %d: a tree of %lld cgroups does not fit "
			    "the kernel's memory cgroup limit (%lld in use of %lld)",
			    c->top, c->children, ncgs, h->memcgs_in_use, h->memcgs_max);
	if (ncgs > h->descendants_left)
		return set_err(err, errlen, "--top %d --children %d: a tree of %lld cgroups exceeds "
			    "cgroup.max.descendants above it (%lld more allowed)",
			    c->top, c->children, ncgs, h->descendants_left);
	if (h->depth_left < 3)
		return set_err(err, errlen, "the tree is 3 levels deep but cgroup.max.depth allows %lld",
			    h->depth_left);
	size_memory(c);
	build_tree(p);
	assign_readers(p);
	control_files(p, env);

	if (!p->nreaders)
		return set_err(err, errlen, "no readers: --levels and the tree leave no cgroup to read");
	p->fds = SR_BASE_FDS + (c->reopen ? 0 : (long long)p->nreaders * __builtin_popcount(c->file_mask));
	if (p->fds > h->nofile_max) {
		char opt[64];

		/* The option in the message, so that run names the key at fault. */
		if (c->total_readers > 0)
			snprintf(opt, sizeof(opt), "--total-readers %lld", c->total_readers);
		else
			snprintf(opt, sizeof(opt), "--readers %d", c->readers_per_cg);
		return set_err(err, errlen, "%s: %d readers keep %lld files open, over the %lld this process "
			    "can have (RLIMIT_NOFILE; raised as root with CAP_SYS_RESOURCE up to fs.nr_open)",
			    opt, p->nreaders, p->fds, h->nofile_max);
	}
	if ((long long)p->nreaders + p->nallocators > h->threads_left)
		return set_err(err, errlen, "%d readers and %d allocators exceed the %lld threads the "
			    "kernel still allows (threads-max, pid_max)",
			    p->nreaders, p->nallocators, h->threads_left);

	if (p->nallocators) {
		int64_t demand = (int64_t)p->nallocators * c->alloc_bytes;
		int64_t leaf_demand = (int64_t)c->allocators * c->alloc_bytes;
		int64_t cap = c->limit_bytes > 0 ? (int64_t)p->nleaves * c->limit_bytes : demand;

		if (c->top_limit_bytes > 0 && (int64_t)c->top * c->top_limit_bytes < cap)
			cap = (int64_t)c->top * c->top_limit_bytes;
		if (c->limit_bytes < 0 && c->top_limit_bytes <= 0 && demand > h->mem_available)
			return set_err(err, errlen, "with no limit, %d allocators x %s = %s exceed the %s "
				    "of available memory; set --limit or lower --alloc-size",
				    p->nallocators, bytes_str(b1, c->alloc_bytes),
				    bytes_str(b2, demand), bytes_str(b3, h->mem_available));
		if (cap > h->mem_available / 2)
			return set_err(err, errlen, "the limits let the tree use %s, more than half of the "
				    "%s available, so the machine would reclaim globally; lower "
				    "--limit or the tree", bytes_str(b1, cap),
				    bytes_str(b2, h->mem_available));
		if (c->limit_bytes > 0 && leaf_demand <= c->limit_bytes)
			return set_err(err, errlen, "--alloc-size: %d allocators x %s = %s fit in the leaf "
				    "limit of %s, so nothing would be reclaimed",
				    c->allocators, bytes_str(b1, c->alloc_bytes),
				    bytes_str(b2, leaf_demand), bytes_str(b3, c->limit_bytes));
		if (alloc_kind_needs_swap(c->kind)) {
			int64_t swap_need = demand - cap;

			if (h->swap_free <= 0)
				return set_err(err, errlen, "--alloc %s needs swap and none is on: without "
					    "it, reclaim cannot free these pages and the allocators "
					    "end in OOM kills; use --alloc file or enable swap (e.g. zram)",
					    alloc_kind_names[c->kind]);
			if (swap_need > h->swap_free)
				return set_err(err, errlen, "--alloc %s: the allocators would swap out %s but "
					    "only %s of swap is free", alloc_kind_names[c->kind],
					    bytes_str(b1, swap_need), bytes_str(b2, h->swap_free));
		}
		if (c->kind == ALLOC_FILE && !h->file_dir_ok)
			return set_err(err, errlen, "--alloc file needs a directory on a disk filesystem: %s",
				    h->file_dir_why);
	}
	return 0;
}

void statread_plan_free(struct statread_plan *p)
{
	free(p->cgs);
	free(p->readers);
	p->cgs = NULL;
	p->readers = NULL;
}
