// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "kernel/bpf_log.h"
#include "lock/lock_hold.h"
#include "kernel/tracefs_dir.h"
#include "util/fileio.h"

const char *hold_method_name(enum hold_method m)
{
	switch (m) {
	case HOLD_RSTAT_TP: return "rstat-tracepoints";
	case HOLD_BPF_KPROBE: return "bpf-kprobe";
	case HOLD_BPF_FENTRY: return "bpf-fentry";
	case HOLD_LOCK_STAT: return "lock_stat";
	case HOLD_NONE: break;
	}
	return "none";
}

bool hold_is_rstat_name(const char *s)
{
	return !strcmp(s, "rstat") || !strcmp(s, "cgroup_rstat_lock") || !strcmp(s, "rstat_ss_lock") ||
	       !strcmp(s, "rstat_base_lock") || strstr(s, ".rstat_ss_lock");
}

void lock_env_probe(struct lock_env *e, const struct ksyms *ks, const char *tracefs_dir)
{
	char path[512], mounted[256];
	const char *tdir = tracefs_dir;
	const struct ksym *m = ks ? ksyms_find(ks, USER_FLUSH_MUTEX) : NULL;
	const struct ksym *f = ks ? ksyms_find(ks, USER_FLUSH_FUNC) : NULL;
	void *log;

	memset(e, 0, sizeof(*e));
	if (!tdir) {
		/* Not mounted: the tracefs events read as absent (they are,
		 * for a collector without its tracer). */
		tracefs_mount_point(mounted, sizeof(mounted));
		tdir = mounted[0] ? mounted : "/nonexistent";
	}
	snprintf(path, sizeof(path), "%s/kprobe_events", tdir);
	e->kprobes = path_exists("/sys/bus/event_source/devices/kprobe/type") || path_exists(path);
	log = bpf_log_quiet();
	e->fentry = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACING, NULL) == 1;
	bpf_log_restore(log);
	e->lock_stat = access("/proc/lock_stat", R_OK) == 0;
	snprintf(path, sizeof(path), "%s/events/cgroup/cgroup_rstat_locked", tdir);
	e->rstat_tp = path_exists(path);
	snprintf(path, sizeof(path), "%s/events/cgroup/cgroup_rstat_unlock", tdir);
	e->rstat_tp = e->rstat_tp && path_exists(path);
	e->user_flush = m || f;
	if (m && ks->have_addrs)
		e->user_flush_addr = m->addr;
	snprintf(e->evidence, sizeof(e->evidence),
		 "kprobes %s (kprobe PMU / kprobe_events), fentry %s, /proc/lock_stat %s, "
		 "rstat tracepoints %s, %s %s and %s %s in %s",
		 e->kprobes ? "yes" : "no", e->fentry ? "yes" : "no", e->lock_stat ? "yes" : "no",
		 e->rstat_tp ? "yes" : "no", USER_FLUSH_MUTEX, m ? "found" : "absent", USER_FLUSH_FUNC,
		 f ? "found" : "absent", ks ? ks->source : "no kallsyms");
}

/* BPF on the lock's functions, when the kernel has kprobes or fentry. */
static bool choose_bpf(struct hold_plan *p, const struct lock_env *e, uint64_t addr, const char *holder)
{
	if (!e->kprobes && !e->fentry)
		return false;
	if (!addr && !holder)
		return false;
	/*
	 * fexit before kretprobes: a kretprobe on mutex_lock tracks only
	 * maxactive sleeping callers at once (10 on a small box, and libbpf
	 * cannot raise it), so under contention it drops exactly the long
	 * waits (seen in the lab kernel: half the holds lost with 32 readers).
	 */
	p->method = e->fentry ? HOLD_BPF_FENTRY : HOLD_BPF_KPROBE;
	p->addr = addr;
	snprintf(p->holder_func, sizeof(p->holder_func), "%s", holder ? holder : "");
	snprintf(p->lock_func, sizeof(p->lock_func), "mutex_lock");
	snprintf(p->unlock_func, sizeof(p->unlock_func), "mutex_unlock");
	return true;
}

void hold_plan_choose(struct hold_plan *p, const char *symbol, const struct lock_env *e,
		      const struct ksyms *ks)
{
	const struct ksym *s = NULL;
	const char *holder = NULL;
	uint64_t addr = 0;
	char why[512];
	size_t n;

	memset(p, 0, sizeof(*p));
	if (!symbol) {
		if (e->user_flush) {
			symbol = USER_FLUSH_MUTEX;
		} else {
			snprintf(p->target, sizeof(p->target), "the rstat flush lock");
			p->rstat_target = true;
			snprintf(why, sizeof(why), "no user-flush mutex on this kernel (no %s or %s in "
				 "kallsyms; it never reached a release), so the rstat flush lock instead",
				 USER_FLUSH_MUTEX, USER_FLUSH_FUNC);
			goto rstat;
		}
	}
	snprintf(p->target, sizeof(p->target), "%s", symbol);
	if (hold_is_rstat_name(symbol)) {
		p->rstat_target = true;
		why[0] = '\0';
		goto rstat;
	}
	/* A named lock: its address (data symbol) and the function holding it. */
	if (ks)
		s = ksyms_find(ks, symbol);
	if (!strcmp(symbol, USER_FLUSH_MUTEX)) {
		addr = e->user_flush_addr;
		if (ks && ksyms_find(ks, USER_FLUSH_FUNC))
			holder = USER_FLUSH_FUNC;
	} else if (s && ks->have_addrs && strchr("dDbB", s->type)) {
		addr = s->addr;
	} else if (s && strchr("tT", s->type)) {
		/* A function: time it, and the first mutex it takes. */
		holder = s->name;
	}
	if (choose_bpf(p, e, addr, holder)) {
		snprintf(p->reason, sizeof(p->reason), "%s: BPF %s on %s/%s %s%s%s", p->target,
			 p->method == HOLD_BPF_KPROBE ? "kprobes" : "fentry/fexit", p->lock_func,
			 p->unlock_func, addr ? "of its address" : "of the first mutex taken in ",
			 addr ? "" : holder, holder && addr ? ", holder function timed too" : "");
		return;
	}
	if (e->lock_stat) {
		p->method = HOLD_LOCK_STAT;
		snprintf(p->lock_stat_class, sizeof(p->lock_stat_class), "%s", symbol);
		snprintf(p->reason, sizeof(p->reason), "%s: /proc/lock_stat holdtime columns of class "
			 "'%s' (count, total, mean, max; no percentiles)%s", p->target, symbol,
			 e->kprobes || e->fentry ? "" : "; no kprobes or fentry for BPF");
		return;
	}
	n = snprintf(p->reason, sizeof(p->reason), "%s: no method can measure holds on this kernel: ",
		     p->target);
	if (!ks || (!s && !holder && !addr))
		n += snprintf(p->reason + n, sizeof(p->reason) - n, "the symbol is not in kallsyms, ");
	snprintf(p->reason + n, sizeof(p->reason) - n,
		 "no tracepoint pair (not the rstat lock), %s, no /proc/lock_stat "
		 "(CONFIG_LOCK_STAT off); only the readers' read() latency bounds it",
		 e->kprobes || e->fentry ? "no address or holder function for BPF" :
		 "no kprobes (CONFIG_KPROBES off) and no fentry for BPF");
	return;
rstat:
	if (e->rstat_tp) {
		p->method = HOLD_RSTAT_TP;
		snprintf(p->reason, sizeof(p->reason), "%s: cgroup_rstat_locked -> cgroup_rstat_unlock "
			 "tracepoints%s%s", p->target, why[0] ? "; " : "", why);
		return;
	}
	if (e->lock_stat) {
		p->method = HOLD_LOCK_STAT;
		snprintf(p->lock_stat_class, sizeof(p->lock_stat_class), "cgroup_rstat_lock");
		snprintf(p->reason, sizeof(p->reason), "%s: /proc/lock_stat class cgroup_rstat_lock "
			 "(no rstat tracepoints before 6.10)%s%s", p->target, why[0] ? "; " : "", why);
		return;
	}
	snprintf(p->reason, sizeof(p->reason), "%s: no method can measure holds on this kernel: no "
		 "cgroup_rstat_locked/unlock tracepoints (before 6.10) and no /proc/lock_stat "
		 "(CONFIG_LOCK_STAT off); only the readers' read() latency bounds it%s%s",
		 p->target, why[0] ? "; " : "", why);
}
