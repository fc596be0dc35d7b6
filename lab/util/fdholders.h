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

/*
 * Closes every descriptor of this process that points at dir or below it,
 * the number closed.  No malloc: an undo step run from a signal handler
 * uses it, for a file the interrupted code had open there (a library's
 * write to the instance's files between its open and its close) would
 * keep the rmdir at EBUSY for as long as the handler runs.
 */
int fd_close_under(const char *dir);

#endif
