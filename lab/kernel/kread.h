/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a few words of kernel memory the lab needs to name its own
 * objects (the struct mem_cgroup of a memcg it created, per-CPU offsets),
 * through a small BPF program (lab/bpf/kread.bpf.c) on the task:task_rename
 * raw tracepoint.  Needs root (CAP_BPF + CAP_PERFMON) and CONFIG_BPF_EVENTS;
 * kread_open() says in one line why not, otherwise.
 *
 * A read is a pointer chain: p = start (or the triggering thread's
 * task_struct when start is 0); for each offset: p = *(u64 *)(p + off).
 */
#ifndef LAB_KERNEL_KREAD_H
#define LAB_KERNEL_KREAD_H

#include <stddef.h>
#include <stdint.h>

#define KREAD_MAX_STEPS 6

struct bpf_object;
struct bpf_link;

struct kread {
	struct bpf_object *obj;
	struct bpf_link *link;
	int map_fd;
};

int kread_open(struct kread *kr, char *err, size_t errlen);
void kread_close(struct kread *kr);

/* Follows the chain in the calling thread's context. 0 or -1 with err. */
int kread_chain(struct kread *kr, uint64_t start, const uint64_t *offs, int nsteps, uint64_t *vals,
		char *err, size_t errlen);
/*
 * Follows the chain from the task_struct of a short-lived child that first
 * joins cgroup_dir (an absolute cgroupfs directory: it writes itself into
 * cgroup.procs), so the chain sees that cgroup's css.  0 or -1 with err.
 */
int kread_chain_in_cgroup(struct kread *kr, const char *cgroup_dir, const uint64_t *offs, int nsteps,
			  uint64_t *vals, char *err, size_t errlen);

#endif
