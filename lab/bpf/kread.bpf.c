// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-memory reader for the lab's own objects (lab/kernel/kread.h).
 *
 * Runs on the task:task_rename raw tracepoint, which a thread fires in its
 * own context with prctl(PR_SET_NAME): so "the current task" is a thread the
 * lab controls (e.g. one it just moved into a memcg).  Offsets come from
 * user space, which reads them from the kernel's BTF: no vmlinux.h and no
 * CO-RE are needed, and one object works on every kernel since 5.5.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "kread.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kread_req);
} kread_req SEC(".maps");

SEC("raw_tp/task_rename")
int kread(void *ctx)
{
	__u32 key = 0;
	struct kread_req *r = bpf_map_lookup_elem(&kread_req, &key);
	__u64 p;

	if (!r || (__u32)bpf_get_current_pid_tgid() != r->tid)
		return 0;
	p = r->start ? r->start : bpf_get_current_task();
	r->err = 0;
#pragma unroll
	for (int i = 0; i < KREAD_STEPS; i++) {
		__u64 v = 0;
		long e;

		if (i >= r->nsteps)
			break;
		e = bpf_probe_read_kernel(&v, sizeof(v), (void *)(p + r->off[i]));
		if (e) {
			r->err = e;
			r->failed_step = i;
			break;
		}
		r->val[i] = v;
		p = v;
	}
	r->seq++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
