/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which method can measure how long a named lock is HELD on this kernel,
 * and why (`perf lock contention` measures waits only).  In order of
 * preference:
 *
 *   rstat-tracepoints  cgroup_rstat_locked -> cgroup_rstat_unlock (6.10+),
 *                      for the rstat flush lock
 *   bpf-kprobe         BPF on the lock/unlock of the lock's address, or on
 *   bpf-fentry         the lock the holder function takes (its address
 *                      learned when kallsyms has no data symbols)
 *   lock_stat          /proc/lock_stat holdtime columns (CONFIG_LOCK_STAT):
 *                      count, total, mean, max; no percentiles
 *   none               one line says why
 *
 * and, always, the readers' own read() latency as an upper bound (the
 * stat-read driver passes its histogram to the collector).
 *
 * The default target is the user-flush mutex (stats_user_flush_mutex, taken
 * in mem_cgroup_user_flush_stats) where the kernel has it; it never reached
 * a release (lab/README section 1.4), so elsewhere the
 * default is the rstat flush lock.
 */
#ifndef LAB_LOCK_LOCK_HOLD_H
#define LAB_LOCK_LOCK_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/kallsyms.h"

/* What the kernel offers for measuring holds. */
struct lock_env {
	bool kprobes;			/* kprobe PMU or tracefs kprobe_events */
	bool fentry;			/* BPF trampolines (BPF_PROG_TYPE_TRACING) */
	bool lock_stat;			/* /proc/lock_stat readable */
	bool rstat_tp;			/* cgroup:cgroup_rstat_locked and _unlock */
	bool user_flush;		/* the user-flush mutex exists */
	uint64_t user_flush_addr;	/* stats_user_flush_mutex, when kallsyms has data symbols */
	char evidence[512];		/* one line: what was looked at */
};

enum hold_method {
	HOLD_NONE,
	HOLD_RSTAT_TP,
	HOLD_BPF_KPROBE,
	HOLD_BPF_FENTRY,
	HOLD_LOCK_STAT,
};

struct hold_plan {
	char target[128];		/* the lock, as the user knows it */
	bool rstat_target;		/* the target is the rstat flush lock */
	enum hold_method method;
	uint64_t addr;			/* BPF: the lock; 0 = learn it in holder_func */
	char holder_func[128];		/* BPF: the function around the lock, or "" */
	char lock_func[64], unlock_func[64];	/* BPF: mutex_lock, mutex_unlock */
	char lock_stat_class[160];	/* lock_stat: the class name */
	char reason[768];		/* one line: why this method, what is missing */
};

#define USER_FLUSH_MUTEX "stats_user_flush_mutex"
#define USER_FLUSH_FUNC "mem_cgroup_user_flush_stats"

/* tracefs_dir: where events/ is; NULL: the mounted tracefs, if any. */
void lock_env_probe(struct lock_env *e, const struct ksyms *ks, const char *tracefs_dir);
/* symbol: --hold SYMBOL, or NULL for the default target. */
void hold_plan_choose(struct hold_plan *p, const char *symbol, const struct lock_env *e,
		      const struct ksyms *ks);
const char *hold_method_name(enum hold_method m);
bool hold_is_rstat_name(const char *symbol);

#endif
