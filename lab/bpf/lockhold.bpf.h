/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records lockhold.bpf.c puts in its ring buffer, shared with the
 * user-space consumer (lock/lock_bpf.c), and its configuration.
 * Fixed-size, native-endian.
 */
#ifndef LAB_BPF_LOCKHOLD_H
#define LAB_BPF_LOCKHOLD_H

enum lock_hold_kind {
	LH_HOLD = 1,		/* lock returned -> unlock of the target lock */
	LH_WAIT = 2,		/* lock entered -> lock returned, target lock */
	LH_FUNC = 3,		/* holder function entry -> return */
	LH_RSTAT_HOLD = 4,	/* cgroup_rstat_locked -> cgroup_rstat_unlock */
};

struct lock_hold_rec {
	__u64 ts;		/* end, bpf_ktime_get_ns() */
	__u64 dur;		/* ns */
	__u64 addr;		/* lock address; rstat: root << 32 | level */
	__u32 tid;
	__u32 kind;		/* enum lock_hold_kind */
};

/* Slots of the counters array map. */
enum { LH_CNT_LOST, LH_CNT_LEARNED, LH_CNT_MAX };

/* The config map's one value, written by user space before attaching. */
struct lockhold_cfg {
	__u64 target_addr;	/* the lock; 0: learn it */
	__u32 learn;		/* learn the first lock the holder function takes */
	__u32 pad;
};

#endif
