/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bump allocator for many small strings that die together (the cells of
 * one parsed report, or of one row that is streamed out and forgotten).
 * One malloc per 64 KiB block instead of one per string; arena_reset()
 * keeps the first block so a per-row arena stops allocating after row one.
 */
#ifndef LAB_UTIL_ARENA_H
#define LAB_UTIL_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;
	size_t bytes;		/* payload bytes handed out since the last reset */
};

void *arena_alloc(struct arena *a, size_t n);
/* Copies n bytes of s and NUL-terminates the copy. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Forgets every allocation but keeps one block for reuse. */
void arena_reset(struct arena *a);
void arena_free(struct arena *a);

#endif
