// SPDX-License-Identifier: GPL-2.0
/*
 * Counts memcg:memcg_flush_stats by (force, needs_flush) in the kernel.
 * The event fires on every memory.stat read; recording each one in a ring
 * buffer for user space to count would make the tracer the reader loop's
 * main overhead.  Field offsets come from the event's format through the
 * config map (user space: lock/flush_count.c).
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* Offsets of force and needs_flush in the record, from user space. */
struct flushctr_cfg {
	__u32 force_off, needs_off;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct flushctr_cfg);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

SEC("tracepoint/memcg/memcg_flush_stats")
int count_flush(void *ctx)
{
	struct flushctr_cfg *c;
	__u8 force = 0, needs = 0;
	__u64 base = (__u64)ctx;
	__u32 k = 0;
	__u64 *v;

	c = bpf_map_lookup_elem(&config, &k);
	if (!c)
		return 0;
	/* Offsets known only at run time: read through the address. */
	bpf_probe_read_kernel(&force, 1, (void *)(base + c->force_off));
	bpf_probe_read_kernel(&needs, 1, (void *)(base + c->needs_off));
	k = (force ? 2 : 0) | (needs ? 1 : 0);
	v = bpf_map_lookup_elem(&counts, &k);
	if (v)
		(*v)++;
	return 0;
}
