/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memcg:memcg_flush_stats counted in the kernel by a BPF program
 * (lab/bpf/flushctr.bpf.c), per (force, needs_flush).  The lock
 * tracer uses it when BPF on tracepoints works and traces the event through
 * tracefs otherwise: one event per memory.stat read would else dominate the
 * tracer's cost on a stat-read loop.
 */
#ifndef LAB_COLLECT_FLUSH_COUNT_H
#define LAB_COLLECT_FLUSH_COUNT_H

#include <stddef.h>
#include <stdint.h>

struct flush_count;

/* Offsets of the force and needs_flush fields in the event record. */
struct flush_count *flush_count_start(int force_off, int needs_off, char *err, size_t errlen);
/* counts[force << 1 | needs_flush], summed over CPUs; detaches. */
void flush_count_stop(struct flush_count *f, uint64_t counts[4]);
void flush_count_free(struct flush_count *f);

#endif
