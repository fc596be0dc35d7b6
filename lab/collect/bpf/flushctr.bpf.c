// SPDX-License-Identifier: GPL-2.0
/*
 * Counts memcg:memcg_flush_stats by (force, needs_flush) in the kernel.
 * The event fires on every memory.stat read; recording each one in a ring
 * buffer for user space to count would make the tracer the reader loop's
 * main overhead.  Field offsets come from the event's format at load time.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 force_off = 24;
const volatile __u32 needs_off = 25;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

SEC("tracepoint/memcg/memcg_flush_stats")
int count_flush(void *ctx)
{
	__u8 force = 0, needs = 0;
	__u32 k;
	__u64 *v;

	bpf_probe_read_kernel(&force, 1, ctx + force_off);
	bpf_probe_read_kernel(&needs, 1, ctx + needs_off);
	k = (force ? 2 : 0) | (needs ? 1 : 0);
	v = bpf_map_lookup_elem(&counts, &k);
	if (v)
		(*v)++;
	return 0;
}
