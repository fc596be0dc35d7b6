/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which processes hold files open below a directory: the reason an rmdir
 * of a tracefs instance says EBUSY (an open trace_pipe_raw, or any file of
 * the instance, pins it), named so a user knows whom to wait for or kill.
 */
#ifndef LAB_UTIL_FDHOLDERS_H
#define LAB_UTIL_FDHOLDERS_H

#include <stddef.h>

/*
 * Writes "pid N (comm), ..." for every process with an open file whose
 * path has "/<name>/" in it (fd links keep the path even after the mount
 * is gone), at most a few, into buf.  The number of processes found.
 */
int fd_holders(const char *name, char *buf, size_t n);

#endif
