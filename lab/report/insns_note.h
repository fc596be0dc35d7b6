/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest instructions per operation (<driver>.<mode>.insns_per_op in
 * data/metrics.tsv: the lines plugin's count over a window's operations,
 * c2c/lines_out.h): what compare and the verdicts say wherever they show
 * or judge one.  A separate hook, so that compare.c and verdict.c carry one
 * two lines each.
 */
#ifndef LAB_REPORT_INSNS_NOTE_H
#define LAB_REPORT_INSNS_NOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define INSNS_METRIC_SUFFIX ".insns_per_op"
#define INSNS_WORDS "guest instructions: exact; a proxy for time that leaves out cache misses"

/* Whether metric is a guest-instructions-per-operation metric. */
bool insns_metric(const char *metric);
/* After a table: the words, once, when a row showed such a metric (shown). */
void insns_note(FILE *out, bool shown);

#endif
