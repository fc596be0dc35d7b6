/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compressed input files, told by their magic bytes (never by the name
 * alone): xz (liblzma), gzip (zlib) and zstd (libzstd), decompressed by
 * the libraries themselves, never through a shell pipe.  A kernel's BTF
 * ships as vmlinux.btf.xz, a vmlinux as vmlinux.zst: the readers take
 * them as they come (kernel/btf.c).
 */
#ifndef LAB_UTIL_DECOMPRESS_H
#define LAB_UTIL_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

enum zkind { Z_NONE, Z_XZ, Z_GZIP, Z_ZSTD };

/* The compression the first n bytes of a file announce, or Z_NONE. */
enum zkind z_kind(const unsigned char *magic, size_t n);
/* "xz", "gzip", "zstd" ("none"). */
const char *z_name(enum zkind k);

/*
 * Decompresses the file path (of kind k, every concatenated stream or
 * frame) into fd, writing at most max bytes.  0 with *out the bytes
 * written, or -1 with one line in err naming path: unreadable, damaged or
 * cut-off data (the library's words), or more than max bytes.
 */
int z_decompress_fd(const char *path, enum zkind k, int fd, uint64_t max, uint64_t *out, char *err,
		    size_t errlen);

#endif
