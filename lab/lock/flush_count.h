/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memcg:memcg_flush_stats counted in the kernel by a BPF program
 * (lab/bpf/flushctr.bpf.c), per (force, needs_flush).  The lock
 * tracer uses it when BPF on tracepoints works and traces the event through
 * tracefs otherwise: one event per memory.stat read would else dominate the
 * tracer's cost on a stat-read loop.
 */
#ifndef LAB_LOCK_FLUSH_COUNT_H
#define LAB_LOCK_FLUSH_COUNT_H

#include <stddef.h>
#include <stdint.h>

struct flush_count;

/*
 * Loads the program (the expensive part: verifier, maps) with the offsets
 * of the force and needs_flush fields in the event record, and attaches it
 * once to prove it can, so that a kernel where it cannot falls back before
 * the window opens; it is left detached.
 */
struct flush_count *flush_count_load(int force_off, int needs_off, char *err, size_t errlen);
/* Zeroes the counts and attaches: the window opens (cheap). 0 or -1 with err. */
int flush_count_attach(struct flush_count *f, char *err, size_t errlen);
/* Detaches: the window closes.  Idempotent. */
void flush_count_detach(struct flush_count *f);
/* counts[force << 1 | needs_flush], summed over CPUs; detaches first. */
void flush_count_stop(struct flush_count *f, uint64_t counts[4]);
void flush_count_free(struct flush_count *f);

#endif
