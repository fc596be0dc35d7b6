// SPDX-License-Identifier: GPL-2.0
/*
 * From charge's options and host facts to task counts, cgroups and CPUs, or
 * one line saying why not.  Every refusal comes before anything starts, in
 * the order the command has always checked them; options left open are
 * rewritten here (stock's K from the BTF slots, sock's cgroup per worker,
 * --size to whole pages).  Nothing here touches the host, so each mode is
 * tested on made-up hosts (tests/unit-charge-plan.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "drivers/charge/plan.h"
#include "drivers/charge/kmod.h"
#include "drivers/charge/loops.h"
#include "drivers/charge/stock.h"
#include "util/err.h"
#include "util/humanize.h"

void charge_config_defaults(struct charge_config *c)
{
	*c = (struct charge_config){ .tasks = 1, .cgroups = 1, .depth = 1, .limit = -1, .tcp_limit = -1,
				     .duration = 5, .warmup = 1, .stop_on_death = true, .size = 1 << 20,
				     .msg = 10240, .objects = 512, .tmpfs = "/dev/shm", .stock_rounds = 3,
				     .stock_cpus = 1, .object_size = KMOD_DEFAULT_SIZE, .batch = KMOD_DEFAULT_BATCH };
}

/* "--opt 'value': why", the shape of every refusal of an option's value. */
static int refuse(char *err, size_t errlen, const char *opt, const char *val, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int refuse(char *err, size_t errlen, const char *opt, const char *val, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return set_err(err, errlen, "%s '%s': %s", opt, val, msg);
}

static int check_results_name(const char *name, char *err, size_t errlen)
{
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      strchr("._-", *c)))
			return refuse(err, errlen, "--results", name,
				      "want letters, digits, '.', '_' and '-' only (it names a directory)");
	if (!name[0] || name[0] == '.')
		return refuse(err, errlen, "--results", name, "want a name that does not start with '.'");
	return 0;
}

/* The stock modes' CPUs: pack:CPU's and the usable ones after it, else
 * the last usable ones, so the parent can keep another. */
static int stock_cpu(struct charge_plan *p, const struct charge_host *h, char *err, size_t errlen)
{
	const char *pin = p->cfg.pin;
	int want = p->cfg.stock_cpus, n = 0, first = -1;

	if (p->pin.kind == PIN_PACK && pin && strchr(pin, ':'))
		first = p->pin.cpus[0];
	else if (pin && strncmp(pin, "pack", 4))
		return refuse(err, errlen, "--pin", pin,
			      "the stock mode packs its workers on one CPU: want pack or pack:CPU");
	if (first >= 0) {
		for (int c = first; c < CPU_SETSIZE && n < want; c++)
			if (c == first || CPU_ISSET(c, &h->cpus.usable))
				p->stock_cpu_list[n++] = c;
	} else {
		for (int c = CPU_SETSIZE - 1; c >= 0 && n < want; c--)
			if (CPU_ISSET(c, &h->cpus.usable))
				p->stock_cpu_list[n++] = c;
	}
	if (n < want)
		return set_err(err, errlen, "--stock-cpus %d: only %d usable CPU%s%s%s", want, n, n == 1 ? "" : "s",
			       first >= 0 ? " from --pin's CPU on" : "", n ? "" : " (none)");
	p->stock_cpu = n ? p->stock_cpu_list[0] : 0;
	return 0;
}

/* The stock modes' task counts: K = 1 .. --stock-max, one memcg each. */
static int plan_stock(struct charge_plan *p, const struct charge_host *h, char *err, size_t errlen)
{
	struct charge_config *o = &p->cfg;
	bool obj = !strcmp(o->mode, "objstock");

	if (o->steps || o->tasks != 1)
		return set_err(err, errlen, "--tasks: the stock mode sets its own worker counts (K = 1 .. --stock-max)");
	if (o->threads)
		return set_err(err, errlen, "--threads: the stock mode needs one process per memcg");
	if (o->cgroups_set || o->hierarchy_set)
		return set_err(err, errlen, "--cgroups/--hierarchy: the stock mode makes one memcg per worker");
	if (!o->duration_set)
		o->duration = CHARGE_STOCK_DURATION;
	if (stock_cpu(p, h, err, errlen))
		return -1;
	p->stock_slots = obj ? h->obj_stock_slots : h->stock_slots;
	snprintf(p->stock_evidence, sizeof(p->stock_evidence), "%s",
		 obj ? h->obj_stock_evidence : h->stock_evidence);
	/* Twice the slots shows the cliff; the obj stock's 2 more show it past
	 * the memcgs that share an objcg slot by chance. */
	if (!o->stock_max)
		o->stock_max = p->stock_slots > 0 ? 2 * p->stock_slots + (obj ? 2 : 0) : CHARGE_STOCK_K_UNKNOWN;
	if (o->stock_max > STOCK_MAX_K)
		o->stock_max = STOCK_MAX_K;
	p->nsteps = 1;
	p->steps[0] = o->stock_max;
	return 0;
}

/*
 * kmem: the seed's module where the lab has one for this kernel (kmod.h),
 * else the close()/open() stand-in.  The unaccounted side is the module's
 * plain cache, with the workers in their memcgs as the seed's task was;
 * the stand-in has no uncharged struct file, so there it is the root memcg.
 */
static int plan_kmem(struct charge_plan *p, const struct charge_host *h, char *err, size_t errlen)
{
	struct charge_config *o = &p->cfg;
	bool kmem = !strcmp(o->mode, "kmem");

	if (!kmem) {
		if (o->module || o->unaccounted || o->object_size != KMOD_DEFAULT_SIZE || o->batch != KMOD_DEFAULT_BATCH)
			return set_err(err, errlen, "--module, --unaccounted, --object-size and --batch are for --mode kmem");
		return 0;
	}
	if (h->kmod_found < 0)
		return refuse(err, errlen, "--module", o->module, "%s", h->kmod_why);
	if (o->object_size < 8 || o->object_size > 4096)
		return set_err(err, errlen, "--object-size %lld: want 8 to 4096 bytes (the module's caches)", o->object_size);
	if (o->module && !strcmp(o->module, "none") &&
	    (o->object_size != KMOD_DEFAULT_SIZE || o->batch != KMOD_DEFAULT_BATCH))
		return set_err(err, errlen, "--object-size and --batch are the module's: --module none runs the "
			       "close()/open() stand-in");
	p->kmod = h->kmod_found > 0;
	snprintf(p->kmod_path, sizeof(p->kmod_path), "%s", h->kmod_path);
	snprintf(p->kmod_built, sizeof(p->kmod_built), "%s", h->kmod_built);
	snprintf(p->kmod_why, sizeof(p->kmod_why), "%s", h->kmod_why);
	if (p->kmod) {
		p->loop = &loop_kmod;
		return 0;
	}
	if (o->unaccounted) {
		if (o->limit >= 0 || o->hierarchy_set)
			return set_err(err, errlen, "--unaccounted runs the stand-in's workers in the root memcg (%s): "
				       "--limit and --hierarchy need cgroups of the run's own", p->kmod_why);
		o->cgroups = 0;
	}
	return 0;
}

/* The cgroups: how many, the tree they are leaves of, and what needs them. */
static int plan_cgroups(struct charge_plan *p, const struct charge_host *h, char *err, size_t errlen)
{
	struct charge_config *o = &p->cfg;
	long leaves;
	char why[512];

	if (!strcmp(o->mode, "sock") && !o->cgroups_set && !o->hierarchy_set)
		o->cgroups = p->steps[p->nsteps - 1];	/* each pair its own cgroup */
	if (p->stock)
		o->cgroups = o->stock_max;
	leaves = hierarchy_leaves(o->depth, o->hierarchy_set ? o->fanout : (int)(o->cgroups ? o->cgroups : 1));
	if (o->hierarchy_set && !o->cgroups_set)
		o->cgroups = leaves;
	if (o->hierarchy_set && o->cgroups > leaves)
		return set_err(err, errlen, "--cgroups %ld: more than the %ldx%d hierarchy's %ld leaves", o->cgroups,
			       (long)o->depth, o->fanout, leaves);
	if (!o->hierarchy_set)
		o->fanout = (int)(o->cgroups ? o->cgroups : 1);
	p->use_cg = o->cgroups > 0;
	p->ncg = (int)o->cgroups;
	if (!p->use_cg && (o->limit >= 0 || o->tcp_limit >= 0 || o->hierarchy_set))
		return set_err(err, errlen, "--cgroups 0 runs the workers in the root memcg: --limit, --tcp-limit and "
			       "--hierarchy need cgroups of the run's own");
	if (h->cg_detect_rc < 0 || h->env.mode == CG_NONE)
		return set_err(err, errlen, "no memory controller to put workers in (%s)", h->env.evidence);
	p->env = h->env;
	/* --validate checks the options and places nothing: no root needed
	 * (`memcg-lab run` checks root itself before a run starts). */
	if (h->euid != 0 && !o->validate)
		return set_err(err, errlen, "placing workers in memory cgroups needs root (uid %d)", (int)h->euid);
	if (p->use_cg && hierarchy_fits(&p->env, &h->cg_limits, o->depth, o->fanout, why, sizeof(why)))
		return set_err(err, errlen, "--hierarchy %dx%d: %s", o->depth, o->fanout, why);
	/* The run's root and every level below it (placement_build); the
	 * fit above bounds the product. */
	for (long long l = 0, level = 1; p->use_cg && l <= o->depth; l++, level *= o->fanout)
		p->memcgs += level;
	if (o->limit >= 0 && o->limit < CHARGE_BATCH_PAGES * p->page) {
		char b[32];

		format_bytes(b, sizeof(b), (uint64_t)o->limit);
		return set_err(err, errlen, "--limit %s: below one charge batch (%d pages = %ld KiB): a CPU's stock "
			       "alone could hold more than the limit", b, CHARGE_BATCH_PAGES,
			       CHARGE_BATCH_PAGES * p->page / 1024);
	}
	if (o->tcp_limit >= 0) {
		if (strcmp(o->mode, "sock"))
			return set_err(err, errlen, "--tcp-limit is for --mode sock");
		if (p->env.memory_v2)
			return set_err(err, errlen, "--tcp-limit: cgroup v2 has no tcp limit; socket memory is charged "
				       "to memory there");
		if (o->tcp_limit < p->page)
			return set_err(err, errlen, "--tcp-limit %lld: below one page", o->tcp_limit);
	}
	return 0;
}

/* Memory the run would take from a host without swap: refuse what only an
 * OOM kill ends. */
static int plan_memory(struct charge_plan *p, const struct charge_host *h, char *err, size_t errlen)
{
	const struct charge_config *o = &p->cfg;
	int maxn = p->steps[p->nsteps - 1];
	char b1[32], b2[32];

	if (!h->meminfo_ok || h->mem.swap_free > 0)
		return 0;
	if (o->limit >= 0 && p->use_cg && (double)o->limit * p->ncg > (double)h->mem.total) {
		format_bytes(b1, sizeof(b1), (uint64_t)o->limit * p->ncg);
		format_bytes(b2, sizeof(b2), (uint64_t)h->mem.total);
		return set_err(err, errlen, "--limit x --cgroups = %s: above the host's %s of RAM with no swap: the "
			       "limits would not protect it", b1, b2);
	}
	if ((!strcmp(o->mode, "anon") || !strcmp(o->mode, "file")) && o->limit < 0 &&
	    (double)o->size * maxn > 0.8 * (double)h->mem.available) {
		format_bytes(b1, sizeof(b1), (uint64_t)o->size * maxn);
		format_bytes(b2, sizeof(b2), (uint64_t)h->mem.available);
		return set_err(err, errlen, "--size x --tasks = %s: more than 80%% of the %s available, with no swap "
			       "and no --limit", b1, b2);
	}
	return 0;
}

/* The workload's own knobs, and the tasks and descriptors they need. */
static int plan_workload(struct charge_plan *p, const struct charge_host *h, char *err, size_t errlen)
{
	struct charge_config *o = &p->cfg;
	bool sock = !strcmp(o->mode, "sock");
	int maxn = p->steps[p->nsteps - 1];
	long need, per_process, hosts = p->ncg ? p->ncg : 1;
	char why[512];

	/* Tasks against the pid limits: workers, receivers, hosts, us. */
	need = maxn * (p->stock ? o->stock_cpus : 1);
	if (sock)
		need *= 2;
	if (o->threads)
		need += hosts;
	p->tasks = need + 1;
	if (task_limits_check(&h->tasks, p->tasks, why, sizeof(why)))
		return set_err(err, errlen, "--tasks %d: %s", maxn, why);

	o->size = (o->size + p->page - 1) / p->page * p->page;
	if ((!strcmp(o->mode, "anon") || !strcmp(o->mode, "file")) && o->size < p->page)
		return set_err(err, errlen, "--size: at least one page (%ld bytes)", p->page);
	if (o->populate && strcmp(o->mode, "anon"))
		return set_err(err, errlen, "--populate is for --mode anon");
	if (sock && (o->msg < 1 || o->msg > (64 << 20)))
		return set_err(err, errlen, "--msg-size %lld: want 1 byte to 64M", o->msg);
	/* Threads: a process per cgroup (one with --cgroups 0) holds its workers. */
	per_process = o->threads ? (maxn + hosts - 1) / hosts : 1;
	/* kmem keeps --objects open (with the module: one /proc file); a
	 * sock pair a listener, both ends and the memfd it sends from
	 * (drivers/charge/sock.c). */
	p->fds = CHARGE_BASE_FDS + per_process * (p->kmod ? 1 : !strcmp(o->mode, "kmem") ? o->objects : sock ? 4 : 0);
	if (!strcmp(o->mode, "kmem") && !p->kmod && h->nofile_max >= 0 && p->fds > h->nofile_max)
		return set_err(err, errlen, "--objects %ld: %ld descriptors per process, over RLIMIT_NOFILE (%lu)",
			       o->objects, o->objects * per_process, (unsigned long)h->nofile_max);
	if (plan_memory(p, h, err, errlen))
		return -1;
	if (!strcmp(o->mode, "file")) {
		if (h->tmpfs_errno)
			return refuse(err, errlen, "--tmpfs", o->tmpfs, "%s", strerror(h->tmpfs_errno));
		if (!h->tmpfs_is_tmpfs)
			return refuse(err, errlen, "--tmpfs", o->tmpfs, "not a tmpfs directory");
	}
	return 0;
}

int charge_plan(struct charge_plan *p, const struct charge_config *c, const struct charge_host *h,
		char *err, size_t errlen)
{
	struct charge_config *o = &p->cfg;
	char why[512];

	memset(p, 0, sizeof(*p));
	*o = *c;
	p->page = h->page;
	p->topo = &h->topo;
	if (!o->mode)
		return set_err(err, errlen, "--mode is required (%s)", loop_names);
	p->loop = loop_by_name(o->mode);
	if (!p->loop)
		return refuse(err, errlen, "--mode", o->mode, "unknown mode (want one of %s)", loop_names);
	p->stock = !strcmp(o->mode, "stock") || !strcmp(o->mode, "objstock");
	if (o->results && check_results_name(o->results, err, errlen))
		return -1;
	if (!h->topo_ok)
		return set_err(err, errlen, "%s", h->topo_err);
	if (o->pin && pin_parse_on(o->pin, &h->topo, &h->cpus, &p->pin, why, sizeof(why)))
		return refuse(err, errlen, "--pin", o->pin, "%s", why);
	if (!o->pin)
		p->pin.kind = o->steps ? PIN_COMPACT : PIN_SPREAD;

	if (!p->stock && o->stock_cpus != 1)
		return set_err(err, errlen, "--stock-cpus: only the stock and objstock modes take turns on CPUs");
	if (p->stock) {
		if (plan_stock(p, h, err, errlen))
			return -1;
	} else if (o->steps) {
		p->nsteps = topo_steps(&h->topo, p->steps, p->step_names);
	} else {
		p->nsteps = 1;
		p->steps[0] = (int)o->tasks;
		p->step_names[0] = NULL;
	}
	if (plan_kmem(p, h, err, errlen) || plan_cgroups(p, h, err, errlen))
		return -1;
	return plan_workload(p, h, err, errlen);
}

void charge_plan_free(struct charge_plan *p)
{
	pin_free(&p->pin);
}
