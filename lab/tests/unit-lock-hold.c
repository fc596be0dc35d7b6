// SPDX-License-Identifier: GPL-2.0
/*
 * Which hold-time method is chosen for which kernel, with the one-line
 * reasons; and the BPF ring-buffer consumer on records in the layout
 * lock_hold.bpf.c writes (the kprobe path itself needs a kernel with
 * kprobes: lock-bpf.sh runs it where one is available).
 */
#include <string.h>
#include <linux/types.h>
#include "bpf/lockhold.bpf.h"
#include "lock/lock_bpf.h"
#include "lock/lock_hold.h"
#include "tests/tap.h"
#include "util/err.h"

static const char syms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81100000 T mem_cgroup_user_flush_stats\n"
	"ffffffff81100400 t do_stats_flush\n"
	"ffffffff82000000 D stats_user_flush_mutex\n"
	"ffffffff82000100 D other_mutex\n";

/* A kernel's symbols with the user-flush mutex and without (main() parses them). */
static struct ksyms with, without;

/* This machine's shape: rstat tracepoints, nothing else. */
TEST(rstat_tracepoints_only)
{
	struct lock_env e = { .rstat_tp = true };
	struct hold_plan p;

	hold_plan_choose(&p, NULL, &e, &without);
	ok(p.method == HOLD_RSTAT_TP && p.rstat_target && strstr(p.reason, "no user-flush mutex"),
	   "no user-flush mutex: the rstat lock by its tracepoints, and the line says why");
	hold_plan_choose(&p, "stats_user_flush_mutex", &e, &without);
	ok(p.method == HOLD_NONE && strstr(p.reason, "no method") && strstr(p.reason, "kprobes") &&
	   strstr(p.reason, "lock_stat") && strstr(p.reason, "read() latency"),
	   "--hold of a lock this kernel cannot measure: one line naming each missing method");
	tap_diag("%s", p.reason);
}

/* The lab kernel: user-flush mutex and kprobes, data symbols. */
TEST(user_flush_mutex_with_kprobes)
{
	struct lock_env e = { .rstat_tp = true, .kprobes = true, .user_flush = true,
			      .user_flush_addr = 0xffffffff82000000 };
	struct hold_plan p;

	hold_plan_choose(&p, NULL, &e, &with);
	ok(p.method == HOLD_BPF_KPROBE && !strcmp(p.target, USER_FLUSH_MUTEX) && p.addr == 0xffffffff82000000 &&
	   !strcmp(p.holder_func, USER_FLUSH_FUNC) && !strcmp(p.lock_func, "mutex_lock"),
	   "user-flush mutex with kprobes: BPF on mutex_lock/unlock of its address");
	/* Without data symbols the address is learned in the holder. */
	e.user_flush_addr = 0;
	hold_plan_choose(&p, NULL, &e, &with);
	ok(p.method == HOLD_BPF_KPROBE && p.addr == 0 && !strcmp(p.holder_func, USER_FLUSH_FUNC) &&
	   strstr(p.reason, "first mutex taken in"), "no data symbols: learn the mutex inside the holder function");
}

/* No kprobes: fentry, then lock_stat when BPF cannot. */
TEST(fentry_then_lock_stat)
{
	struct lock_env e = { .rstat_tp = true, .user_flush = true, .fentry = true };
	struct hold_plan p;

	hold_plan_choose(&p, "other_mutex", &e, &with);
	ok(p.method == HOLD_BPF_FENTRY && p.addr == 0xffffffff82000100, "fentry when there are no kprobes");
	/* lock_stat only. */
	e.fentry = false;
	e.lock_stat = true;
	hold_plan_choose(&p, "other_mutex", &e, &with);
	ok(p.method == HOLD_LOCK_STAT && !strcmp(p.lock_stat_class, "other_mutex"), "lock_stat when BPF cannot");
}

/* The rstat lock by name, before 6.10. */
TEST(rstat_lock_before_6_10)
{
	struct lock_env e = { .user_flush = true, .lock_stat = true };
	struct hold_plan p;

	hold_plan_choose(&p, "cgroup_rstat_lock", &e, &with);
	ok(p.method == HOLD_LOCK_STAT && p.rstat_target, "the rstat lock without tracepoints: lock_stat");
	e.lock_stat = false;
	hold_plan_choose(&p, "cgroup_rstat_lock", &e, &with);
	ok(p.method == HOLD_NONE && strstr(p.reason, "before 6.10"), "and with nothing: none, saying why");
}

/* The consumer, on records as the BPF side writes them. */
TEST(ring_buffer_consumer)
{
	struct lock_bpf_results r;
	struct lock_hold_rec rec = { .ts = 1, .dur = 1500, .addr = 0xffffffff82000000, .tid = 5,
				     .kind = LH_HOLD };

	lock_bpf_results_init(&r);
	lock_bpf_consume(&r, &rec, sizeof(rec));
	rec.kind = LH_WAIT;
	rec.dur = 900;
	lock_bpf_consume(&r, &rec, sizeof(rec));
	rec.kind = LH_FUNC;
	rec.dur = 3000;
	lock_bpf_consume(&r, &rec, sizeof(rec));
	rec.kind = 77;
	lock_bpf_consume(&r, &rec, sizeof(rec));
	lock_bpf_consume(&r, &rec, 8);
	ok(r.hold.count == 1 && r.hold.sum == 1500 && r.wait.count == 1 && r.func.count == 1 &&
	   r.addr == 0xffffffff82000000, "hold, wait and holder-function records land in their histograms");
	ok(r.records == 3 && r.bad_records == 2, "unknown kinds and short records are counted, not used");
}

int main(int argc, char **argv)
{
	char err[256];
	int rc;

	if (ksyms_parse(&with, syms_text, "k-with", err, sizeof(err)) ||
	    ksyms_parse(&without, "ffffffff81000000 T _text\n", "k-without", err, sizeof(err)))
		tap_skip_all(err);
	rc = tap_main(argc, argv);
	ksyms_free(&with);
	ksyms_free(&without);
	return rc;
}
