/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel under test has, decided from BTF first, kernel symbols
 * second, each answer with the evidence that decided it.  Never from
 * `uname -r`.  The upstream sources of each fact: lab/README section 1.
 */
#ifndef LAB_KERNEL_FEATURES_H
#define LAB_KERNEL_FEATURES_H

#include <stdbool.h>
#include <json-c/json.h>
#include "kernel/btf.h"
#include "kernel/kallsyms.h"

#define KF_EVIDENCE 320

/* Tracepoints the lab uses; presence from btf_trace_<event> and tracefs. */
struct kf_tracepoint {
	const char *name;	/* "lock:contention_begin" */
	bool in_btf;
	int in_tracefs;		/* 1, 0, or -1 when not asked (offline) */
};

#define KF_MAX_TRACEPOINTS 16

struct kfeatures {
	int cacheline_size;
	char cacheline_size_evidence[KF_EVIDENCE];

	bool cacheline_split;		/* (a): page_counter usage alone on line 0 */
	char cacheline_split_evidence[KF_EVIDENCE];

	int stock_slots;		/* (b): memcg_stock_pcp.cached[] length, 1 scalar, 0 absent */
	char stock_slots_evidence[KF_EVIDENCE];

	bool user_flush_mutex;		/* (c): stats_user_flush_mutex et al. */
	char user_flush_mutex_evidence[KF_EVIDENCE];

	bool obj_stock_split;		/* struct obj_stock_pcp exists (6.16+) */
	char obj_stock_split_evidence[KF_EVIDENCE];

	/* Where the per-CPU charge stock lives: "memcg_stock_pcp" (a memcg
	 * stock of stock_slots slots), "page_counter" (the per-page_counter
	 * stock: memcg_stock_pcp gone, page_counter.stock), or "none". */
	const char *stock_class;
	char stock_class_evidence[KF_EVIDENCE];

	/* obj_stock_pcp's objcg slots: 1 (cached_objcg), N (cached[N]), -1 none. */
	int obj_stock_slots;
	char obj_stock_slots_evidence[KF_EVIDENCE];

	bool lock_debug;		/* lockdep-sized locks in the stock */
	bool lock_rt;			/* PREEMPT_RT: local_trylock_t is a sleeping spinlock_t */
	int lock_size;			/* bytes of the stock's lock, -1 when it has none */
	char lock_debug_evidence[KF_EVIDENCE];

	bool memcg_v1_counters;		/* mem_cgroup has kmem/tcpmem (CONFIG_MEMCG_V1) */

	/* Flush scheme (section 7's table). */
	const char *flush_scope;	/* "none" (pre-rstat), "unified", "subtree" */
	const char *flush_threshold;	/* "none", "global", "per-memcg" */
	const char *flush_rstat_lock;	/* "none", "global cgroup_rstat_lock", "per-subsystem rstat_ss_lock" */
	bool flush_force_flag;		/* __mem_cgroup_flush_stats(memcg, force) */
	bool flush_lockless_updates;	/* 6.17+ llist update path */
	char flush_scheme[160];		/* one-line summary */
	char flush_evidence[KF_EVIDENCE];

	int ntracepoints;
	struct kf_tracepoint tracepoints[KF_MAX_TRACEPOINTS];
};

/*
 * Fills f from BTF and, where given, kernel symbols (kallsyms of the
 * running kernel or a vmlinux symbol table; NULL for a raw BTF blob).
 * tracefs_dir: a mounted tracefs to also look for events in, or NULL.
 */
void kfeatures_detect(struct kfeatures *f, const struct kbtf *k, const struct ksyms *syms,
		      const char *tracefs_dir);
/* {"cacheline_split": true, ..., "evidence": {...}} */
json_object *kfeatures_json(const struct kfeatures *f);
json_object *kfeatures_tracepoints_json(const struct kfeatures *f);
bool kfeatures_has_tracepoint(const struct kfeatures *f, const char *name);

#endif
