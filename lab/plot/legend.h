/* SPDX-License-Identifier: GPL-2.0 */
/* Legends in the words of the report, not of the file names. */
#ifndef LAB_PLOT_LEGEND_H
#define LAB_PLOT_LEGEND_H

/*
 * A histogram series key as the report says it: "leaf.total-readers=10"
 * -> "leaf cgroups, total-readers=10" (the statread report's "1 root,
 * N top-level, N leaves"), "memory_cgrp_subsys.rstat_ss_lock.root4.level0"
 * -> "memory_cgrp_subsys.rstat_ss_lock, root 4, level 0" (the lock
 * table's columns); parts it has no words for stay as they are.
 * malloc'd.
 */
char *legend_of_series(const char *key);

#endif
