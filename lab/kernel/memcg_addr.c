// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "kernel/memcg_addr.h"
#include "util/err.h"
#include "util/fileio.h"

static int member_off(const struct kbtf *k, const char *type, const char *member, uint64_t *off,
		      char *err, size_t errlen)
{
	struct kbtf_field f;
	int id = kbtf_find_struct(k, type);

	if (id < 0 || kbtf_member(k, id, member, &f) < 0) {
		snprintf(err, errlen, "BTF has no %s.%s", type, member);
		return -1;
	}
	*off = f.offset;
	return 0;
}

static int enum_value(const struct kbtf *k, const char *type, const char *name, long long *val)
{
	int id = btf__find_by_name_kind(k->btf, type, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id <= 0)
		return -1;
	t = btf__type_by_id(k->btf, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(k->btf, e->name_off), name)) {
			*val = e->val;
			return 0;
		}
	}
	return -1;
}

/*
 * A leaf below dir (its first subdirectory, and so on): on cgroup v2 an
 * inner cgroup takes no task (no internal processes), so its css is found
 * from a leaf's through css.parent.  The leaf (malloc'd) and its depth
 * below dir, or NULL when dir has no subdirectory.
 */
static char *leaf_below(const char *dir, int *depth)
{
	char *cur = xstrdup(dir);

	*depth = 0;
	for (;;) {
		DIR *d = opendir(cur);
		struct dirent *de;
		char *next = NULL;

		while (d && (de = readdir(d)))
			if (de->d_type == DT_DIR && de->d_name[0] != '.') {
				next = xasprintf("%s/%s", cur, de->d_name);
				break;
			}
		if (d)
			closedir(d);
		if (!next)
			break;
		free(cur);
		cur = next;
		(*depth)++;
	}
	if (!*depth) {
		free(cur);
		return NULL;
	}
	return cur;
}

int memcg_addr_of(struct kread *kr, const struct kbtf *k, const char *cgroup_dir, uint64_t *addr,
		  char *err, size_t errlen)
{
	uint64_t o_cgroups, o_subsys, o_css, o_cgroup, o_kn, o_id, o_parent, chain[3], val[3];
	char *leaf = NULL;
	int depth = 0;
	long long memid;
	struct stat st;
	char why[256];

	if (member_off(k, "task_struct", "cgroups", &o_cgroups, why, sizeof(why)) ||
	    member_off(k, "css_set", "subsys", &o_subsys, why, sizeof(why)) ||
	    member_off(k, "mem_cgroup", "css", &o_css, why, sizeof(why)) ||
	    member_off(k, "cgroup_subsys_state", "cgroup", &o_cgroup, why, sizeof(why)) ||
	    member_off(k, "cgroup_subsys_state", "parent", &o_parent, why, sizeof(why)) ||
	    member_off(k, "cgroup", "kn", &o_kn, why, sizeof(why)) ||
	    member_off(k, "kernfs_node", "id", &o_id, why, sizeof(why))) {
		snprintf(err, errlen, "struct mem_cgroup of %s: %s", cgroup_dir, why);
		return -1;
	}
	if (enum_value(k, "cgroup_subsys_id", "memory_cgrp_id", &memid) < 0) {
		snprintf(err, errlen, "struct mem_cgroup of %s: BTF has no memory_cgrp_id "
			 "(kernel without CONFIG_MEMCG?)", cgroup_dir);
		return -1;
	}
	if (stat(cgroup_dir, &st) < 0) {
		snprintf(err, errlen, "struct mem_cgroup of %s: %s", cgroup_dir, strerror(errno));
		return -1;
	}
	chain[0] = o_cgroups;
	chain[1] = o_subsys + 8 * (uint64_t)memid;
	if (kread_chain_in_cgroup(kr, cgroup_dir, chain, 2, val, why, sizeof(why)) < 0) {
		/* An inner cgroup of v2 (EBUSY): from a leaf below, up its parents. */
		leaf = leaf_below(cgroup_dir, &depth);
		if (!leaf || kread_chain_in_cgroup(kr, leaf, chain, 2, val, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "struct mem_cgroup of %s: %s", leaf ? leaf : cgroup_dir, why);
			free(leaf);
			return -1;
		}
		free(leaf);
		for (int i = 0; i < depth && val[1]; i++) {
			uint64_t p;

			if (kread_chain(kr, val[1] + o_parent, (uint64_t[]){ 0 }, 1, &p, why, sizeof(why)) < 0) {
				snprintf(err, errlen, "struct mem_cgroup of %s: css.parent: %s", cgroup_dir, why);
				return -1;
			}
			val[1] = p;
		}
	}
	if (!val[1]) {
		snprintf(err, errlen, "struct mem_cgroup of %s: the task has no memory css", cgroup_dir);
		return -1;
	}
	*addr = val[1] - o_css;
	/* Check: the css's cgroup is this directory (kernfs id == inode). */
	chain[0] = o_cgroup;
	chain[1] = o_kn;
	chain[2] = o_id;
	if (kread_chain(kr, val[1], chain, 3, val, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "struct mem_cgroup of %s: found 0x%llx but cannot check it: %s",
			 cgroup_dir, (unsigned long long)*addr, why);
		return -1;
	}
	if ((val[2] & 0xffffffffu) != ((uint64_t)st.st_ino & 0xffffffffu)) {
		char v1[4200], v2[4200];

		snprintf(v1, sizeof(v1), "%s/memory.usage_in_bytes", cgroup_dir);
		snprintf(v2, sizeof(v2), "%s/memory.current", cgroup_dir);
		if (!path_exists(v1) && !path_exists(v2))
			snprintf(err, errlen, "struct mem_cgroup of %s: the cgroup has no memory controller of its "
				 "own (cgroup v2: +memory is not in its parent's cgroup.subtree_control); its tasks "
				 "are charged to an ancestor's memcg", cgroup_dir);
		else
			snprintf(err, errlen, "struct mem_cgroup of %s: found 0x%llx, but its cgroup's kernfs id "
				 "%llu is not the directory's inode %llu", cgroup_dir, (unsigned long long)*addr,
				 (unsigned long long)val[2], (unsigned long long)st.st_ino);
		return -1;
	}
	return 0;
}

int possible_cpus(void)
{
	char buf[256], *p = buf;
	int max = -1;

	if (read_buf("/sys/devices/system/cpu/possible", buf, sizeof(buf)) <= 0)
		return 1;
	/* "0-255" or "0,2-5": the highest CPU number + 1. */
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (v > max)
			max = (int)v;
		p = end;
		if (*p == '-' || *p == ',')
			p++;
		else
			break;
	}
	return max < 0 ? 1 : max + 1;
}

int percpu_var_addrs(struct kread *kr, const struct ksyms *syms, const char *var, uint64_t *addrs,
		     int ncpus, char *err, size_t errlen)
{
	const struct ksym *v = ksyms_find(syms, var), *off = ksyms_find(syms, "__per_cpu_offset");
	char why[256];

	if (!syms->have_addrs) {
		snprintf(err, errlen, "per-CPU %s: %s shows no addresses (not root, or kptr_restrict)", var,
			 syms->source);
		return -1;
	}
	if (!v || !off) {
		snprintf(err, errlen, "per-CPU %s: %s has no symbol %s (data symbols need "
			 "CONFIG_KALLSYMS_ALL=y)", var, syms->source, !v ? var : "__per_cpu_offset");
		return -1;
	}
	for (int cpu = 0; cpu < ncpus; cpu++) {
		uint64_t zero = 0, pcpu_off;

		if (kread_chain(kr, off->addr + 8 * (uint64_t)cpu, &zero, 1, &pcpu_off, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "per-CPU %s: __per_cpu_offset[%d]: %s", var, cpu, why);
			return -1;
		}
		addrs[cpu] = v->addr + pcpu_off;
	}
	return 0;
}
