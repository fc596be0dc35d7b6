/*
 * A stand-in vmlinux for the probe's ELF and DWARF input paths: structs
 * shaped like Linux 6.18's page_counter (cacheline split) and
 * memcg_stock_pcp (seven slots), and a banner in .rodata as the kernel has.
 */
#define L 64
struct cacheline_padding { char x[0]; } __attribute__((aligned(L)));
struct page_counter {
	long usage;
	unsigned long failcnt;
	struct cacheline_padding _pad1_;
	unsigned long emin, min_usage, children_min_usage, elow, low_usage, children_low_usage;
	unsigned long watermark, local_watermark;
	struct cacheline_padding _pad2_;
	_Bool protection_support, track_failcnt;
	unsigned long min, low, high, max;
	struct page_counter *parent;
} __attribute__((aligned(L)));
struct mem_cgroup;
typedef struct { unsigned char acquired; } local_trylock_t;
typedef unsigned char uint8_t;
struct memcg_stock_pcp {
	local_trylock_t lock;
	uint8_t nr_pages[7];
	struct mem_cgroup *cached[7];
	unsigned long flags;
};
struct mem_cgroup { struct page_counter memory; };

const char linux_banner[] = "Linux version 9.9.9-lab (fake@vmlinux) #1 SMP";
struct mem_cgroup root_mem_cgroup;
struct memcg_stock_pcp memcg_stock;
int main(void) { return root_mem_cgroup.memory.usage + memcg_stock.flags + linux_banner[0]; }
