/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Open-file limits for the drivers that keep a descriptor per reader or
 * worker: Wei Xu's benchmark keeps 10000 memory.stat files open in one
 * process, past the kernel's default hard RLIMIT_NOFILE of 4096 (what a
 * bare init, e.g. a guest's, hands down) and far past the usual soft 1024.
 * Root (CAP_SYS_RESOURCE) may raise its hard limit up to fs.nr_open
 * (1048576 by default).
 */
#ifndef LAB_UTIL_NOFILE_H
#define LAB_UTIL_NOFILE_H

/* fs.nr_open's default (include/linux/fs.h INR_OPEN_MAX is the hard
 * limit init starts with; sysctl_nr_open defaults to 1024 * 1024). */
#define NOFILE_NR_OPEN_DEFAULT (1024 * 1024)

/* How many files this process could have open: fs.nr_open with
 * CAP_SYS_RESOURCE, the hard RLIMIT_NOFILE otherwise. */
long long nofile_reachable(void);

/* Lifts the soft limit to the hard one, and the hard one (as root) to
 * need if it is below: 0 when need files fit now, else -errno (-EMFILE
 * when need is over what nofile_reachable() allows). */
int nofile_raise(long long need);

#endif
