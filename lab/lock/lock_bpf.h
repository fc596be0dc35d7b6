/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hold times by BPF (lab/bpf/lockhold.bpf.c), for a lock without a
 * tracepoint pair:
 *
 *   LOCK_BPF_KPROBE   kprobes on the lock/unlock functions (mutex_lock,
 *                     mutex_unlock) filtered by the lock's address, and on
 *                     the holder function's entry/return
 *   LOCK_BPF_FENTRY   the same with fentry/fexit (BPF trampolines)
 *   LOCK_BPF_RSTAT_TP the rstat lock tracepoints: the same ring buffer and
 *                     consumer on kernels without kprobes, and a cross-check
 *                     of the tracefs tracer
 *
 * The lock's address comes from kallsyms when it has data symbols; else
 * (learn) the first lock the holder function takes is the target.  Records
 * arrive through a ring buffer and go into log histograms; reservations
 * that failed are counted as lost.
 */
#ifndef LAB_LOCK_LOCK_BPF_H
#define LAB_LOCK_LOCK_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/hist.h"

enum lock_bpf_mode { LOCK_BPF_KPROBE, LOCK_BPF_FENTRY, LOCK_BPF_RSTAT_TP };

struct lock_bpf_opts {
	enum lock_bpf_mode mode;
	const char *lock_func;		/* default "mutex_lock" */
	const char *unlock_func;	/* default "mutex_unlock" */
	const char *holder_func;	/* NULL: no function timing, no learning */
	uint64_t addr;			/* the lock; 0: learn it inside holder_func */
};

struct lock_bpf_results {
	struct hist hold;		/* LH_HOLD */
	struct hist wait;		/* LH_WAIT */
	struct hist func;		/* LH_FUNC: holder function duration */
	struct hist rstat_hold;		/* LH_RSTAT_HOLD */
	uint64_t records, bad_records, lost;
	uint64_t addr;			/* the target (given or learned), 0 if never seen */
};

struct lock_bpf;

const char *lock_bpf_mode_name(enum lock_bpf_mode m);
/* Loads the programs (the verifier: the slow part), attached to nothing;
 * NULL with one line in err.  o's strings must live until free. */
struct lock_bpf *lock_bpf_load(const struct lock_bpf_opts *o, char *err, size_t errlen);
/* Attaches and starts polling: the window opens.  0, or -1 with one line
 * in err (e.g. kprobes missing) and nothing attached. */
int lock_bpf_attach(struct lock_bpf *b, char *err, size_t errlen);
/* Both; NULL with one line in err. */
struct lock_bpf *lock_bpf_start(const struct lock_bpf_opts *o, char *err, size_t errlen);
/* Detaches after a last poll; the results stay readable until free. */
void lock_bpf_stop(struct lock_bpf *b);
const struct lock_bpf_results *lock_bpf_results(const struct lock_bpf *b);
void lock_bpf_free(struct lock_bpf *b);

/* One ring-buffer record into r (the consumer; tests feed it records). */
int lock_bpf_consume(struct lock_bpf_results *r, const void *data, size_t size);
void lock_bpf_results_init(struct lock_bpf_results *r);

#endif
