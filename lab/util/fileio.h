/* SPDX-License-Identifier: GPL-2.0 */
/* Small file helpers for sysfs, procfs, cgroupfs and tracefs files. */
#ifndef LAB_UTIL_FILEIO_H
#define LAB_UTIL_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Whole file as a NUL-terminated string (malloc'd); NULL with errno set. */
char *read_text(const char *path, size_t *len);
/* Into a caller buffer (no malloc: safe in cleanup paths); bytes or -errno. */
ssize_t read_buf(const char *path, char *buf, size_t size);
/* First integer of the file ("max" reads as LLONG_MAX); 0 or -errno. */
int read_ll(const char *path, long long *out);
/* Write a string with one write(2); 0 or -errno (the kernel's answer). */
int write_text(const char *path, const char *s);
int write_ll(const char *path, long long v);
/* Write a whole file atomically (temp file + rename); 0 or -errno. */
int write_file_atomic(const char *path, const char *data, size_t len);
/* mkdir -p; 0 or -errno. */
int mkdir_p(const char *path, mode_t mode);
bool path_exists(const char *path);
/* The next line of a text at *pos into line (newline and a trailing \r
 * removed, cut at size - 1); advances *pos.  False at the end of the text. */
bool text_next_line(const char **pos, char *line, size_t size);
/*
 * A file nobody else can open, in dir: O_TMPFILE, else a fresh name
 * (O_CREAT|O_EXCL, 0600) unlinked at once; nothing is left behind even
 * after a SIGKILL.  cloexec: closed across exec (else a child may read it
 * as /proc/self/fd/N).  The fd, or -errno.
 */
int anon_tmpfile(const char *dir, bool cloexec);
/* s in single quotes for sh (a ' becomes '\''); malloc'd. */
char *shell_quote(const char *s);
/* A path's last component, trailing slashes aside ("results/x/" -> "x");
 * malloc'd. */
char *path_last_name(const char *path);

#endif
