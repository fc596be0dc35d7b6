/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between lab/bpf/kread.bpf.c and lab/kernel/kread.c: one request
 * slot of the kernel-memory reader.  The BPF side follows a pointer chain
 * (p = *(u64 *)(p + off[i])) starting at `start`, or at the current
 * task_struct when start is 0, for the thread `tid` only.
 */
#ifndef LAB_BPF_KREAD_H
#define LAB_BPF_KREAD_H

#define KREAD_STEPS 6

struct kread_req {
	__u32 tid;		/* in: the thread whose trigger is served */
	__u32 nsteps;		/* in: 1..KREAD_STEPS */
	__u64 start;		/* in: first address; 0 = current task_struct */
	__u64 off[KREAD_STEPS];	/* in: offset added before each 8-byte read */
	__u64 val[KREAD_STEPS];	/* out: the value each step read */
	__u64 seq;		/* out: bumped once per served trigger */
	__s64 err;		/* out: bpf_probe_read_kernel()'s error, 0 */
	__u32 failed_step;	/* out: the step that failed */
	__u32 pad;
};

#endif
