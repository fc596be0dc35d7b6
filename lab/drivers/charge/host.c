// SPDX-License-Identifier: GPL-2.0
/* The facts of this machine that charge_plan() checks a request against. */
#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "drivers/charge/kmod.h"
#include "drivers/charge/plan.h"
#include "kernel/btf.h"
#include "util/nofile.h"

void charge_host_stock_slots(struct charge_host *h)
{
	struct kbtf_field fld;
	struct kfeatures f;
	struct kbtf k;
	int st;
	char err[256];

	if (kbtf_open(&k, NULL, NULL, err, sizeof(err))) {
		snprintf(h->stock_evidence, sizeof(h->stock_evidence), "no BTF of the running kernel (%s)", err);
		snprintf(h->obj_stock_evidence, sizeof(h->obj_stock_evidence), "%s", h->stock_evidence);
		return;
	}
	kfeatures_detect(&f, &k, NULL, NULL);
	h->stock_slots = f.stock_slots;
	h->obj_stock_slots = f.obj_stock_slots > 0 ? f.obj_stock_slots : 0;
	snprintf(h->stock_evidence, sizeof(h->stock_evidence), "%s", f.stock_slots_evidence);
	snprintf(h->obj_stock_evidence, sizeof(h->obj_stock_evidence), "%s", f.obj_stock_slots_evidence);
	/* Before 6.16 the objcg stock is memcg_stock_pcp.cached_objcg: one objcg. */
	if (f.obj_stock_slots < 0 && (st = kbtf_find_struct(&k, "memcg_stock_pcp")) > 0 &&
	    !kbtf_member(&k, st, "cached_objcg", &fld))
		h->obj_stock_slots = 1;
	kbtf_close(&k);
}

void charge_host_probe(struct charge_host *h, const struct charge_config *c)
{
	struct statfs s;

	memset(h, 0, sizeof(*h));
	h->page = sysconf(_SC_PAGESIZE);
	h->topo_ok = !topo_load(&h->topo, h->topo_err, sizeof(h->topo_err));
	pin_cpus_read(&h->cpus);
	h->cg_detect_rc = cg_detect(&h->env, NULL);
	if (h->cg_detect_rc == 0 && h->env.mode != CG_NONE)
		hierarchy_limits_read(&h->env, &h->cg_limits);
	h->euid = geteuid();
	task_limits_read(&h->tasks);
	h->nofile_max = nofile_reachable();
	h->meminfo_ok = meminfo_read(&h->mem) == 0;
	if (c->mode && (!strcmp(c->mode, "stock") || !strcmp(c->mode, "objstock")))
		charge_host_stock_slots(h);
	if (c->mode && !strcmp(c->mode, "kmem"))
		h->kmod_found = kmod_resolve(c->module, h->kmod_path, sizeof(h->kmod_path), h->kmod_built,
					     sizeof(h->kmod_built), h->kmod_why, sizeof(h->kmod_why));
	if (c->mode && !strcmp(c->mode, "file")) {
		if (statfs(c->tmpfs, &s) < 0)
			h->tmpfs_errno = errno;
		else
			h->tmpfs_is_tmpfs = s.f_type == TMPFS_MAGIC;
	}
}

void charge_host_free(struct charge_host *h)
{
	if (h->topo_ok)
		topo_free(&h->topo);
	h->topo_ok = false;
}
