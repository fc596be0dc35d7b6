// SPDX-License-Identifier: GPL-2.0
/*
 * The run's own kernel objects, for the c2c field names (c2c/c2c.h):
 * each memcg directory's struct mem_cgroup (BPF), every CPU's memcg_stock
 * and obj_stock (kallsyms and __per_cpu_offset), and the stats flush's
 * locks by symbol.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "c2c/c2c.h"
#include "kernel/cgroup.h"
#include "kernel/kallsyms.h"
#include "kernel/kread.h"
#include "kernel/memcg_addr.h"
#include "util/err.h"

/* The struct type of a per-CPU variable, from its BTF VAR; before 5.11
 * BTF has no per-CPU VARs: then "<var>_pcp", the stocks' struct, where BTF
 * has it (kallsyms says whether the variable exists). */
static const char *percpu_struct(const struct kbtf *k, const char *var)
{
	int id = btf__find_by_name_kind(k->btf, var, BTF_KIND_VAR);
	const struct btf_type *t;

	if (id <= 0 && btf__find_by_name_kind(k->btf, ".data..percpu", BTF_KIND_DATASEC) <= 0) {
		char *name = xasprintf("%s_pcp", var);
		const char *type = NULL;

		id = btf__find_by_name_kind(k->btf, name, BTF_KIND_STRUCT);
		if (id > 0)
			type = btf__name_by_offset(k->btf, btf__type_by_id(k->btf, id)->name_off);
		free(name);
		return type;
	}
	if (id <= 0 || !kbtf_has_datasec_var(k, ".data..percpu", var))
		return NULL;
	t = btf__type_by_id(k->btf, kbtf_resolve(k, btf__type_by_id(k->btf, id)->type));
	if (!t || !btf_is_struct(t))
		return NULL;
	return btf__name_by_offset(k->btf, t->name_off);
}

/* Every directory below root (root included), depth first. */
static void collect_dirs(const char *root, char ***dirs, int *n, int *cap)
{
	DIR *d = opendir(root);
	struct dirent *de;

	if (!d)
		return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*dirs = xrealloc(*dirs, *cap * sizeof(**dirs));
	}
	(*dirs)[(*n)++] = xstrdup(root);
	while ((de = readdir(d))) {
		char *sub;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", root, de->d_name);
		collect_dirs(sub, dirs, n, cap);
		free(sub);
	}
	closedir(d);
}

void c2c_run_memcgs(const char *memory_root, const char *tree, char ***dirs, int *n)
{
	char *root = xasprintf("%s/%s", memory_root, tree);
	int cap = 1;

	*dirs = xcalloc(1, sizeof(**dirs));
	(*dirs)[0] = xstrdup(memory_root);
	*n = 1;
	collect_dirs(root, dirs, n, &cap);
	free(root);
}

void c2c_find_objects(struct c2c_objects *objs, const struct kbtf *k, const char *const *memcg_dirs,
		      int nmemcgs, void (*note_fn)(const char *line, void *arg), void *arg)
{
	static const char *const vars[] = { "memcg_stock", "obj_stock" };
	/* The stats flush's locks, by symbol (lab/README 1.4, 1.6). */
	static const struct {
		const char *sym, *type;
	} globals[] = {
		{ "stats_user_flush_mutex", "mutex" },		/* the lab kernel's user-flush mutex */
		{ "memory_cgrp_subsys", "cgroup_subsys" },	/* its rstat_ss_lock: 6.16 on */
		{ "cgroup_rstat_lock", "spinlock" },		/* the one rstat lock before 6.16 */
	};
	struct kread kr;
	struct ksyms syms;
	struct cg_env cg;
	char err[512], line[700];
	bool have_syms, have_cg = cg_detect(&cg, NULL) == 0;

	/* A union is named by its member live on this cgroup version. */
	objs->cgroup = have_cg ? field_cgroup_of(&cg) : FIELD_CG_UNKNOWN;

	if (kread_open(&kr, err, sizeof(err)) < 0) {
		snprintf(line, sizeof(line), "object addresses not found: %s; c2c offsets are attributed by "
			 "code symbol only", err);
		note_fn(line, arg);
		return;
	}
	for (int i = 0; i < nmemcgs; i++) {
		uint64_t addr;
		const char *base = strrchr(memcg_dirs[i], '/');
		char label[300];

		if (memcg_addr_of(&kr, k, memcg_dirs[i], &addr, err, sizeof(err)) < 0) {
			note_fn(err, arg);
			continue;
		}
		if (have_cg && !strcmp(memcg_dirs[i], cg.memory_root))
			snprintf(label, sizeof(label), "memcg (root)");
		else
			snprintf(label, sizeof(label), "memcg %s", base ? base + 1 : memcg_dirs[i]);
		if (c2c_objects_add(objs, k, "mem_cgroup", addr, label,
				    "bpf: task->cgroups->subsys[memory], checked by kernfs id", err, sizeof(err)) < 0)
			note_fn(err, arg);
	}
	have_syms = ksyms_load(&syms, NULL, err, sizeof(err)) == 0;
	if (!have_syms) {
		snprintf(line, sizeof(line), "per-CPU stock addresses not found: %s", err);
		note_fn(line, arg);
	}
	for (size_t v = 0; have_syms && v < sizeof(vars) / sizeof(vars[0]); v++) {
		const char *type = percpu_struct(k, vars[v]);
		int ncpus = possible_cpus();
		uint64_t *addrs;

		if (!type)
			continue;	/* e.g. obj_stock before 6.16: part of memcg_stock */
		addrs = xcalloc(ncpus, sizeof(*addrs));
		if (percpu_var_addrs(&kr, &syms, vars[v], addrs, ncpus, err, sizeof(err)) < 0) {
			note_fn(err, arg);
		} else {
			for (int cpu = 0; cpu < ncpus; cpu++) {
				char label[64];

				snprintf(label, sizeof(label), "%s cpu%d", vars[v], cpu);
				if (c2c_objects_add(objs, k, type, addrs[cpu], label,
						    "kallsyms + __per_cpu_offset (bpf)", err, sizeof(err)) < 0) {
					note_fn(err, arg);
					break;
				}
			}
		}
		free(addrs);
	}
	for (size_t i = 0; have_syms && i < sizeof(globals) / sizeof(globals[0]); i++) {
		const struct ksym *sym = ksyms_find(&syms, globals[i].sym);

		/* Absent from this kernel (the mutex from every release), or a
		 * struct its BTF does not have: nothing to name. */
		if (!sym || !sym->addr || kbtf_find_struct(k, globals[i].type) < 0)
			continue;
		if (c2c_objects_add(objs, k, globals[i].type, sym->addr, globals[i].sym, "kallsyms", err,
				    sizeof(err)) < 0)
			note_fn(err, arg);
	}
	if (have_syms)
		ksyms_free(&syms);
	kread_close(&kr);
}
