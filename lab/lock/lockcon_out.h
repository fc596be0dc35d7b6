/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing lock contention tables: perf's own text layout (so that a
 * report can be diffed against `perf lock contention` line by line) or TSV
 * with a header row: key contended wait_total_ns wait_max_ns wait_avg_ns
 * wait_min_ns wait_p50_ns wait_p99_ns, then per view: type stack_id
 * (caller), comm (thread), addr type symbol (lock).
 */
#ifndef LAB_LOCK_LOCKCON_OUT_H
#define LAB_LOCK_LOCKCON_OUT_H

#include <stdbool.h>
#include <stdio.h>
#include "lock/lockcon.h"

/* Names a thread for the thread view (NULL: ":tid"). */
typedef const char *(*lockcon_comm_fn)(void *arg, uint32_t tid, char *buf, size_t n);

void lockcon_print_text(FILE *f, const struct lockcon *lc, lockcon_comm_fn comm, void *arg);
void lockcon_print_tsv(FILE *f, const struct lockcon *lc, lockcon_comm_fn comm, void *arg);
const char *lockcon_by_name(enum lockcon_by by);
/* "thread", "caller", "lock"; -1 for anything else. */
int lockcon_by_parse(const char *s);

#endif
