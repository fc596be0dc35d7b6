/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Directory listing without malloc (getdents64 into a stack buffer).
 *
 * The undo steps of util/cleanup.h may run from a signal handler, where
 * opendir()/readdir() are not safe (they allocate); removing a cgroup tree
 * or a journal directory there walks directories with this instead.
 */
#ifndef LAB_UTIL_RAWDIR_H
#define LAB_UTIL_RAWDIR_H

#include <stdbool.h>
#include <stddef.h>

/* Called for each entry but "." and ".."; is_dir from d_type (DT_UNKNOWN
 * is resolved with fstatat).  Returning non-zero stops the walk. */
typedef int (*rawdir_fn)(const char *dir, const char *name, bool is_dir, void *arg);

/* 0 when every entry was visited, the callback's non-zero value, or -errno. */
int rawdir_foreach(const char *dir, rawdir_fn fn, void *arg);

/* The same over a directory already open (read from its current offset;
 * dirfd stays open): the callback gets the directory's fd, for *at() calls
 * that name nothing by path. */
typedef int (*rawdir_fd_fn)(int dirfd, const char *name, bool is_dir, void *arg);
int rawdir_foreach_fd(int dirfd, rawdir_fd_fn fn, void *arg);

/* "<dir>/<name>" into buf without malloc; 0 or -ENAMETOOLONG. */
int path_join(char *buf, size_t n, const char *dir, const char *name);

#endif
