/* SPDX-License-Identifier: GPL-2.0 */
/* Legends in the words of the report, not of the file names. */
#ifndef LAB_PLOT_LEGEND_H
#define LAB_PLOT_LEGEND_H

/*
 * A histogram series key as the report says it: "leaf.total-readers=10"
 * -> "leaf cgroups, total-readers=10" (the statread report's "1 root,
 * N top-level, N leaves"); keys it has no words for stay as they are.
 * malloc'd.
 */
char *legend_of_series(const char *key);

#endif
