// SPDX-License-Identifier: GPL-2.0
/*
 * Structs shaped like the kernel's memcg structs, compiled with -g into a
 * DWARF-only object that `memcg-lab layout --vmlinux` converts to BTF with
 * pahole --btf_encode_detached (lab/tests/layout-dwarf.sh).  One shape per
 * build (-DSHAPE_...):
 *
 *   SHAPE_PRESPLIT  a 5.10-like page_counter (usage shares line 0 with the
 *                   limits), mem_cgroup.memory at 208, no kmem/tcpmem, and a
 *                   single-slot stock whose nr_pages sits a line after cached
 *   SHAPE_SPLIT     a 6.18-like split page_counter, 7-slot stock, obj_stock:
 *                   every rule passes
 *   SHAPE_BROKEN    split-looking shapes that break every other rule: high on
 *                   usage's line, _pad2_ on _pad1_, misaligned page_counters,
 *                   6 pointers for 7 u16 counts, 32-byte aligned per-cpu stocks
 *   SHAPE_LOCKDEP   SHAPE_SPLIT with lockdep's dep_map in the stock locks
 *   SHAPE_RT        a 7.3-rt-like kernel: PREEMPT_RT's local_trylock_t is a
 *                   spinlock_t over struct rt_mutex_base (32 B), 7-slot stock
 *                   and the 7.2 multi-objcg obj stock (cached[5])
 *   SHAPE_RT_BROKEN SHAPE_RT with work and flags between the memcg stock's
 *                   lock and its slots: the hot block takes three lines
 *   SHAPE_PCSTOCK   the pending per-page_counter stock (Joshua Hahn's series,
 *                   v4): page_counter gains a percpu `stock` pointer and
 *                   `batch` after parent, memcg_stock_pcp is gone
 *   SHAPE_PCSTOCK_BROKEN  the same with stock and batch on usage's line
 *
 * The "Linux version" banner gives the capture its release, as in a vmlinux.
 * Per-cpu variables go to .data..percpu, which pahole encodes as a DATASEC;
 * build with -fno-toplevel-reorder so their offsets are as declared.
 */
#include <stdbool.h>
#include <stdint.h>

typedef struct { long counter; } atomic_long_t;
struct list_head { struct list_head *next, *prev; };
struct work_struct { atomic_long_t data; struct list_head entry; void (*func)(struct work_struct *); };
struct cgroup_subsys_state { char opaque[200]; };
struct mem_cgroup_id { int id; int ref; };
struct obj_cgroup;
struct pglist_data;
struct task_struct;
struct mem_cgroup;

#define PERCPU __attribute__((section(".data..percpu")))

#if defined(SHAPE_PRESPLIT)
const char linux_banner[] = "Linux version 5.10.0-fixture-presplit (fixture@lab) (gcc) #1 SMP";

struct page_counter {			/* 5.10: 112 B, no padding */
	atomic_long_t usage;
	unsigned long min;
	unsigned long low;
	unsigned long high;
	unsigned long max;
	struct page_counter *parent;
	unsigned long emin;
	atomic_long_t min_usage;
	atomic_long_t children_min_usage;
	unsigned long elow;
	atomic_long_t low_usage;
	atomic_long_t children_low_usage;
	unsigned long watermark;
	unsigned long failcnt;
};

struct mem_cgroup {
	struct cgroup_subsys_state css;	/* 0..199 */
	struct mem_cgroup_id id;	/* 200 */
	struct page_counter memory;	/* 208: 16 bytes into line 3 */
	union {
		struct page_counter swap;	/* 320 */
		struct page_counter memsw;
	};
	struct work_struct high_work;
};

struct memcg_stock_pcp {		/* single slot, hot pair split across lines */
	struct mem_cgroup *cached;	/* 0 */
	struct obj_cgroup *cached_objcg;
	char scratch[48];
	unsigned int nr_pages;		/* 64 */
	unsigned int nr_bytes;
	struct work_struct work;
	unsigned long flags;
};

PERCPU __attribute__((aligned(64))) struct memcg_stock_pcp memcg_stock;

#elif defined(SHAPE_SPLIT) || defined(SHAPE_LOCKDEP)
# ifdef SHAPE_SPLIT
const char linux_banner[] = "Linux version 6.18.0-fixture-split (fixture@lab) (gcc) #1 SMP";
typedef struct { uint8_t acquired; } local_trylock_t;
# else
const char linux_banner[] = "Linux version 6.18.0-fixture-lockdep (fixture@lab) (gcc) #1 SMP";
struct lock_class_key;
struct lock_class;
struct lockdep_map {
	struct lock_class_key *key;
	struct lock_class *class_cache[2];
	const char *name;
	uint8_t wait_type_outer, wait_type_inner, lock_type;
};
typedef struct {
	struct lockdep_map dep_map;
	struct task_struct *owner;
	uint8_t acquired;
} local_trylock_t;
# endif

struct cacheline_padding { char x[0]; } __attribute__((aligned(64)));

struct page_counter {			/* 6.18: 192 B */
	atomic_long_t usage;
	unsigned long failcnt;
	struct cacheline_padding _pad1_;
	unsigned long emin;
	atomic_long_t min_usage;
	atomic_long_t children_min_usage;
	unsigned long elow;
	atomic_long_t low_usage;
	atomic_long_t children_low_usage;
	unsigned long watermark;
	unsigned long local_watermark;
	struct cacheline_padding _pad2_;
	bool protection_support;
	bool track_failcnt;
	unsigned long min;
	unsigned long low;
	unsigned long high;
	unsigned long max;
	struct page_counter *parent;
};

struct mem_cgroup {
	struct cgroup_subsys_state css;
	struct mem_cgroup_id id;
	struct page_counter memory;	/* 256 */
	union {
		struct page_counter swap;	/* 448 */
		struct page_counter memsw;
	};
	struct work_struct high_work;
	struct page_counter kmem;
	struct page_counter tcpmem;
};

struct memcg_stock_pcp {
	local_trylock_t lock;
	uint8_t nr_pages[7];
	struct mem_cgroup *cached[7];
	struct work_struct work;
	unsigned long flags;
	uint8_t drain_idx;
};

struct obj_stock_pcp {
	local_trylock_t lock;
	unsigned int nr_bytes;
	struct obj_cgroup *cached_objcg;
	struct pglist_data *cached_pgdat;
	int nr_slab_reclaimable_b;
	int nr_slab_unreclaimable_b;
	struct work_struct work;
	unsigned long flags;
};

PERCPU __attribute__((aligned(64))) struct obj_stock_pcp obj_stock;
PERCPU __attribute__((aligned(64))) struct memcg_stock_pcp memcg_stock;

#elif defined(SHAPE_BROKEN)
const char linux_banner[] = "Linux version 6.99.0-fixture-broken (fixture@lab) (gcc) #1 SMP";
typedef struct { uint8_t acquired; } local_trylock_t;

/* Not cacheline aligned: the members below are placed by hand. */
struct cacheline_padding { char x[0]; };

struct page_counter {
	unsigned long high;		/* 0: a limit on usage's line, before _pad2_ */
	atomic_long_t usage;		/* 8: not at offset 0 */
	char scratch[48];
	struct cacheline_padding _pad1_;	/* 64 */
	struct cacheline_padding _pad2_;	/* 64: on top of _pad1_ */
	unsigned long emin;		/* the "sometimes written" group after _pad2_ */
	atomic_long_t min_usage;
	atomic_long_t children_min_usage;
	unsigned long elow;
	atomic_long_t low_usage;
	atomic_long_t children_low_usage;
	unsigned long watermark;
	unsigned long local_watermark;
	unsigned long failcnt;
	unsigned long min;
	unsigned long low;
	unsigned long max;
	struct page_counter *parent;	/* size 168, not 3 lines */
};

struct mem_cgroup {
	long id[2];
	struct page_counter memory;	/* 16 */
	union {
		struct page_counter swap;	/* 184 */
		struct page_counter memsw;
	};
	struct page_counter kmem;	/* 352 */
	struct page_counter tcpmem;	/* 520 */
	long tail;
};

struct memcg_stock_pcp {
	unsigned long flags;		/* 0: cold, on line 0; the lock is not first */
	local_trylock_t lock;		/* 8 */
	uint16_t nr_pages[7];		/* 10: 2-byte counts */
	struct mem_cgroup *cached[6];	/* 24..71: 6 slots, into line 1 */
	struct work_struct work;
	uint8_t drain_idx;
};

struct obj_stock_pcp {
	local_trylock_t lock;
	unsigned int nr_bytes;
	struct obj_cgroup *cached_objcg;
	struct work_struct work;	/* 16..47: cold, between the hot members */
	struct pglist_data *cached_pgdat;	/* 48 */
	unsigned long pad;
	int nr_slab_reclaimable_b;	/* 64: line 1 */
	int nr_slab_unreclaimable_b;
	unsigned long flags;
};

/* Both stocks 32 bytes into a cacheline: DEFINE_PER_CPU, not _ALIGNED. */
PERCPU __attribute__((aligned(64))) char percpu_head[32];
PERCPU __attribute__((aligned(32))) struct memcg_stock_pcp memcg_stock;
PERCPU __attribute__((aligned(32))) struct obj_stock_pcp obj_stock;

#elif defined(SHAPE_RT) || defined(SHAPE_RT_BROKEN) || defined(SHAPE_PCSTOCK) || defined(SHAPE_PCSTOCK_BROKEN)
# if defined(SHAPE_RT) || defined(SHAPE_RT_BROKEN)
const char linux_banner[] = "Linux version 7.3.0-fixture-rt (fixture@lab) (gcc) #1 SMP PREEMPT_RT";
struct rb_root_cached { void *rb_root, *rb_leftmost; };
struct raw_spinlock { unsigned int raw_lock; };
struct rt_mutex_base {			/* 32 B, as on x86-64 */
	struct raw_spinlock wait_lock;
	struct rb_root_cached waiters;
	struct task_struct *owner;
};
struct spinlock { struct rt_mutex_base lock; };
typedef struct spinlock spinlock_t;
typedef spinlock_t local_trylock_t;	/* PREEMPT_RT */
# else
const char linux_banner[] = "Linux version 7.4.0-fixture-pcstock (fixture@lab) (gcc) #1 SMP";
typedef struct { uint8_t acquired; } local_trylock_t;
typedef struct { int counter; } atomic_t;
struct page_counter_stock {		/* the series' v4: one atomic per CPU */
	atomic_t nr_pages;
};
# endif

struct cacheline_padding { char x[0]; } __attribute__((aligned(64)));

struct page_counter {
	atomic_long_t usage;
	unsigned long failcnt;
# ifdef SHAPE_PCSTOCK_BROKEN
	struct page_counter_stock *stock;	/* read on every charge, on usage's line */
	unsigned int batch;
# endif
	struct cacheline_padding _pad1_;
	unsigned long emin;
	atomic_long_t min_usage;
	atomic_long_t children_min_usage;
	unsigned long elow;
	atomic_long_t low_usage;
	atomic_long_t children_low_usage;
	unsigned long watermark;
	unsigned long local_watermark;
	struct cacheline_padding _pad2_;
	bool protection_support;
	bool track_failcnt;
	unsigned long min;
	unsigned long low;
	unsigned long high;
	unsigned long max;
	struct page_counter *parent;
# ifdef SHAPE_PCSTOCK
	struct page_counter_stock *stock;	/* __percpu in the kernel */
	unsigned int batch;
# endif
};

struct mem_cgroup {
	struct cgroup_subsys_state css;
	struct mem_cgroup_id id;
	struct page_counter memory;
	union {
		struct page_counter swap;
		struct page_counter memsw;
	};
	struct work_struct high_work;
};

# if defined(SHAPE_RT) || defined(SHAPE_RT_BROKEN)
struct memcg_stock_pcp {
	local_trylock_t lock;		/* 0..31 */
#  ifdef SHAPE_RT_BROKEN
	struct work_struct work;	/* 32..63: cold, before the slots */
	unsigned long flags;		/* 64 */
#  endif
	uint8_t nr_pages[7];
	struct mem_cgroup *cached[7];
#  ifndef SHAPE_RT_BROKEN
	struct work_struct work;
	unsigned long flags;
#  endif
	uint8_t drain_idx;
};

PERCPU __attribute__((aligned(64))) struct memcg_stock_pcp memcg_stock;
# endif

struct obj_stock_pcp {			/* 7.2: the multi-objcg obj stock */
	local_trylock_t lock;
	int8_t index;
	int16_t node_id;
	int16_t nr_slab_reclaimable_b;
	int16_t nr_slab_unreclaimable_b;
	uint16_t nr_bytes[5];
	struct obj_cgroup *cached[5];
	struct work_struct work;
	unsigned long flags;
	uint8_t drain_idx;
};

PERCPU __attribute__((aligned(64))) struct obj_stock_pcp obj_stock;

#else
#error "build with -DSHAPE_PRESPLIT, -DSHAPE_SPLIT, -DSHAPE_BROKEN, -DSHAPE_LOCKDEP, -DSHAPE_RT, -DSHAPE_RT_BROKEN, -DSHAPE_PCSTOCK or -DSHAPE_PCSTOCK_BROKEN"
#endif

struct memcg_vmstats_percpu {
	unsigned int stats_updates;
	long state[4];
	unsigned long events[4];
};

/* Used, so that the types and variables reach the debug info. */
struct mem_cgroup fixture_memcg;
struct memcg_vmstats_percpu fixture_vmstats_percpu;
