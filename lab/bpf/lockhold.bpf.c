// SPDX-License-Identifier: GPL-2.0
/*
 * Hold times of one kernel lock, for kernels where the lock has no
 * tracepoint pair (user space: lock/lock_bpf.c).  Attached with kprobes (or fentry/fexit when the kernel
 * has trampolines) by lock/lock_bpf.c:
 *
 *   lock_enter   entry of the lock function (mutex_lock): remember when a
 *                thread asks for the target lock
 *   lock_exit    return of it: the thread holds the lock from now (and its
 *                wait ends)
 *   unlock_enter entry of the unlock function (mutex_unlock) on the target:
 *                the hold ends
 *   func_enter / func_exit   the holder function (mem_cgroup_user_flush_stats)
 *                around it; with learn set, the first lock the holder takes
 *                becomes the target, for kernels whose kallsyms has no data
 *                symbols (the mutex's address is then unknown)
 *   rstat_locked / rstat_unlock   the same measurement on the rstat
 *                tracepoints, which lets this path run end to end on kernels
 *                without kprobes
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "lockhold.bpf.h"

char LICENSE[] SEC("license") = "GPL";


struct tstate {
	__u64 func_entry;
	__u64 lock_req;		/* when the target was requested */
	__u64 lock_acq;		/* when it was obtained */
	__u64 rstat_acq;
	__u64 rstat_key;
	__u32 in_func;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lockhold_cfg);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LH_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct tstate);
} threads SEC(".maps");

static __always_inline struct tstate *state(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct tstate *s = bpf_map_lookup_elem(&threads, &tid);

	if (!s) {
		struct tstate zero = {};

		bpf_map_update_elem(&threads, &tid, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&threads, &tid);
	}
	return s;
}

static __always_inline void emit(__u32 kind, __u64 dur, __u64 addr, __u64 now)
{
	struct lock_hold_rec *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);

	if (!r) {
		__u32 k = LH_CNT_LOST;
		__u64 *lost = bpf_map_lookup_elem(&counters, &k);

		if (lost)
			__sync_fetch_and_add(lost, 1);
		return;
	}
	r->ts = now;
	r->dur = dur;
	r->addr = addr;
	r->tid = (__u32)bpf_get_current_pid_tgid();
	r->kind = kind;
	bpf_ringbuf_submit(r, 0);
}

static __always_inline struct lockhold_cfg *cfg(void)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&config, &k);
}

static __always_inline __u64 target(void)
{
	struct lockhold_cfg *c = cfg();
	__u32 k = LH_CNT_LEARNED;
	__u64 *learned;

	if (c && c->target_addr)
		return c->target_addr;
	learned = bpf_map_lookup_elem(&counters, &k);
	return learned ? *learned : 0;
}

static __always_inline int on_lock(__u64 addr)
{
	struct tstate *s = state();
	struct lockhold_cfg *c = cfg();
	__u64 t;

	if (!s || !c)
		return 0;
	if (c->learn && !c->target_addr && s->in_func == 1) {
		__u32 k = LH_CNT_LEARNED;
		__u64 *learned = bpf_map_lookup_elem(&counters, &k);

		if (learned && !*learned)
			__sync_val_compare_and_swap(learned, 0, addr);
	}
	if (s->in_func)
		s->in_func++;
	t = target();
	if (t && addr == t)
		s->lock_req = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_lock_ret(void)
{
	struct tstate *s = state();
	__u64 now = bpf_ktime_get_ns();

	if (!s || !s->lock_req)
		return 0;
	emit(LH_WAIT, now - s->lock_req, target(), now);
	s->lock_req = 0;
	s->lock_acq = now;
	return 0;
}

static __always_inline int on_unlock(__u64 addr)
{
	struct tstate *s = state();
	__u64 now = bpf_ktime_get_ns();

	if (!s || !s->lock_acq || addr != target())
		return 0;
	emit(LH_HOLD, now - s->lock_acq, addr, now);
	s->lock_acq = 0;
	return 0;
}

static __always_inline int on_func(void)
{
	struct tstate *s = state();

	if (s) {
		s->in_func = 1;
		s->func_entry = bpf_ktime_get_ns();
	}
	return 0;
}

static __always_inline int on_func_ret(void)
{
	struct tstate *s = state();
	__u64 now = bpf_ktime_get_ns();

	if (!s || !s->func_entry)
		return 0;
	emit(LH_FUNC, now - s->func_entry, target(), now);
	s->func_entry = 0;
	s->in_func = 0;
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(lock_enter, void *lock)
{
	return on_lock((__u64)lock);
}

SEC("kretprobe")
int BPF_KRETPROBE(lock_exit)
{
	return on_lock_ret();
}

SEC("kprobe")
int BPF_KPROBE(unlock_enter, void *lock)
{
	return on_unlock((__u64)lock);
}

SEC("kprobe")
int BPF_KPROBE(func_enter)
{
	return on_func();
}

SEC("kretprobe")
int BPF_KRETPROBE(func_exit)
{
	return on_func_ret();
}

/* fentry/fexit twins, for kernels with BPF trampolines but no kprobes. */
SEC("fentry")
int BPF_PROG(lock_enter_fe, void *lock)
{
	return on_lock((__u64)lock);
}

SEC("fexit")
int BPF_PROG(lock_exit_fe, void *lock)
{
	return on_lock_ret();
}

SEC("fentry")
int BPF_PROG(unlock_enter_fe, void *lock)
{
	return on_unlock((__u64)lock);
}

SEC("fentry")
int BPF_PROG(func_enter_fe)
{
	return on_func();
}

SEC("fexit")
int BPF_PROG(func_exit_fe)
{
	return on_func_ret();
}

/* include/trace/events/cgroup.h cgroup_rstat: common header, then
 * int root, int level (the layout of 6.10 to today). */
struct rstat_ctx {
	__u64 common;
	int root;
	int level;
};

SEC("tracepoint/cgroup/cgroup_rstat_locked")
int rstat_locked(struct rstat_ctx *ctx)
{
	struct tstate *s = state();

	if (s) {
		s->rstat_acq = bpf_ktime_get_ns();
		s->rstat_key = (__u64)(__u32)ctx->root << 32 | (__u32)ctx->level;
	}
	return 0;
}

SEC("tracepoint/cgroup/cgroup_rstat_unlock")
int rstat_unlock(struct rstat_ctx *ctx)
{
	struct tstate *s = state();
	__u64 now = bpf_ktime_get_ns();

	(void)ctx;
	if (!s || !s->rstat_acq)
		return 0;
	emit(LH_RSTAT_HOLD, now - s->rstat_acq, s->rstat_key, now);
	s->rstat_acq = 0;
	return 0;
}
