// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "util/err.h"
#include "util/u64map.h"

void u64map_init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static size_t slot_of(const struct u64map *m, uint64_t key)
{
	size_t i = u64_hash(key) & (m->cap - 1);

	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *u64map_get(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	return m->vals[slot_of(m, key)];
}

static void grow(struct u64map *m)
{
	struct u64map old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.vals[i])
			u64map_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
}

void u64map_put(struct u64map *m, uint64_t key, void *val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	i = slot_of(m, key);
	if (!m->vals[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
}

void *u64map_del(struct u64map *m, uint64_t key)
{
	size_t i, j;
	void *val;

	if (!m->cap)
		return NULL;
	i = slot_of(m, key);
	val = m->vals[i];
	if (!val)
		return NULL;
	m->vals[i] = NULL;
	m->n--;
	/* Backward-shift deletion: move later members of the probe run into
	 * the hole so that no tombstones are needed. */
	for (j = (i + 1) & (m->cap - 1); m->vals[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = u64_hash(m->keys[j]) & (m->cap - 1);

		/* Leave j alone if its home lies cyclically in (i, j]. */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		m->vals[j] = NULL;
		i = j;
	}
	return val;
}

int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, void **val)
{
	while (*pos < m->cap) {
		size_t i = (*pos)++;

		if (m->vals[i]) {
			if (key)
				*key = m->keys[i];
			if (val)
				*val = m->vals[i];
			return 1;
		}
	}
	return 0;
}
