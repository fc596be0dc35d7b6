/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An open-addressing hash map from u64 keys to pointers, for the streaming
 * aggregations (per lock address, per thread, per call chain).  Lookups are a
 * multiply and a short probe; the table doubles at 50% load.  Keys are any
 * u64 (0 included); values are never NULL.
 */
#ifndef LAB_UTIL_U64MAP_H
#define LAB_UTIL_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	void **vals;		/* NULL marks an empty slot */
	size_t cap;		/* a power of two */
	size_t n;
};

void u64map_init(struct u64map *m);
void u64map_free(struct u64map *m);
void *u64map_get(const struct u64map *m, uint64_t key);
/* Sets key's value (replacing any); val must not be NULL. */
void u64map_put(struct u64map *m, uint64_t key, void *val);
/* Removes key; returns its value or NULL. */
void *u64map_del(struct u64map *m, uint64_t key);

/* Iteration: for (size_t i = 0; u64map_next(m, &i, &k, &v); ) ... */
int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, void **val);

static inline uint64_t u64_hash(uint64_t k)
{
	/* The golden-ratio multiply of the kernel's hash_64(), then a fold so
	 * that masked low bits depend on the high bits of k too. */
	k *= 0x61C8864680B583EBull;
	return k ^ (k >> 29);
}

#endif
