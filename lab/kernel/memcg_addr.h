/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Addresses of the kernel objects a run's c2c data touches, so that c2c's
 * data addresses can be named down to the struct field:
 *   - the struct mem_cgroup of a memcg the lab created: a helper thread
 *     joins the cgroup and the BPF reader follows
 *     current->cgroups->subsys[memory_cgrp_id] (offsets from BTF); the
 *     answer is checked against the cgroup directory's inode number
 *     (css->cgroup->kn->id);
 *   - each CPU's copy of a per-CPU variable (memcg_stock, obj_stock): its
 *     kallsyms address plus __per_cpu_offset[cpu], read through BPF.
 * Each function says in err, in one plain line, why an address cannot be
 * found (no root, no BPF, no data symbols in kallsyms, ...).
 */
#ifndef LAB_KERNEL_MEMCG_ADDR_H
#define LAB_KERNEL_MEMCG_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include "kernel/btf.h"
#include "kernel/kallsyms.h"
#include "kernel/kread.h"

int memcg_addr_of(struct kread *kr, const struct kbtf *k, const char *cgroup_dir, uint64_t *addr,
		  char *err, size_t errlen);

/* Number of possible CPUs (/sys/devices/system/cpu/possible), at least 1. */
int possible_cpus(void);

/* addrs[cpu] for cpu < ncpus; 0 or -1 with err. */
int percpu_var_addrs(struct kread *kr, const struct ksyms *syms, const char *var, uint64_t *addrs,
		     int ncpus, char *err, size_t errlen);

#endif
