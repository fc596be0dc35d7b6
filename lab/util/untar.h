/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tar.gz that someone else made (a guest's results, sent back over a
 * serial port) into a directory, and nothing outside it.
 *
 * libarchive reads the headers, as tar writes them (ustar, GNU, pax, v7);
 * every member is checked before anything is written; one that fails is
 * refused with one line naming it, and then nothing at all is extracted:
 *   - absolute names and '..' components;
 *   - symbolic links to an absolute path, or to one that leaves the
 *     directory, or that go through another link of the archive;
 *   - members under a symbolic link of the archive;
 *   - hard links to anything but a file the archive extracted before;
 *   - device nodes, FIFOs, sparse files and members of no kind (GNU's
 *     'M'; sockets cannot be in a tar);
 *   - a second member of the same name, and names the directory holds
 *     already (the host's own files stay the host's).
 * A typeflag no tar defines is a regular file (POSIX's rule, libarchive's
 * and GNU tar's), and a volume label ('V') is no member.  A damaged archive
 * (a header whose checksum is wrong, or that libarchive cannot read, a
 * member cut short, no end) is refused the same way, naming the byte.  The
 * extraction itself works on directory fds: mkdirat, openat with
 * O_CREAT|O_EXCL|O_NOFOLLOW, symlinkat, linkat, each parent opened with
 * O_NOFOLLOW, so even an archive that got past the checks could not write
 * through a link.  Files get the archive's permission bits without set-id
 * and sticky bits, and no one's ownership but the extracting user's.
 */
#ifndef LAB_UTIL_UNTAR_H
#define LAB_UTIL_UNTAR_H

#include <stddef.h>
#include <stdio.h>

/*
 * Extracts the tar.gz file tgz into the directory dest.  0, or the number
 * of lines written to err (each "<what>: member '<name>': <why>" or
 * "<what>: <why> at byte N", <what> naming the archive): nothing was
 * extracted when a member was refused.
 */
int untar_safe(const char *tgz, const char *what, const char *dest, FILE *err);

/* The checks alone, on an uncompressed tar in memory (for the fuzz target):
 * the number of refusal lines written to err. */
int untar_check_buf(const void *buf, size_t len, const char *what, FILE *err);

#endif
