/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `memcg-lab compare A B` for guest runs under the lines plugin: the exact
 * cacheline transfers of both runs' windows per struct field (their
 * lines/fields.tsv), false and true sharing apart, per operation the
 * windows counted (lines/ops.tsv: a page charged, a read), with the
 * change; and, where the windows carry several labels (the stock sweep's
 * K=1..N), the transfers per operation of each label, by struct.  Plain
 * text within the given width, for a mail.
 */
#ifndef LAB_REPORT_LINES_COMPARE_H
#define LAB_REPORT_LINES_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Prints the tables when both runs have cacheline counts (in_vm: the run
 * was made in a guest, its counts are its guest run's); one line saying
 * which side has none when only one does; nothing when neither.  A file
 * that cannot be read is one line too, naming it.
 */
void lines_compare(FILE *out, const char *dir_a, bool in_vm_a, const char *dir_b, bool in_vm_b, int width);

#endif
