// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "plot/legend.h"
#include "util/err.h"

/* The levels of a stat-read tree (drivers/statread.h), as its report reads. */
static const struct { const char *key, *words; } levels[] = {
	{ "root", "root cgroup" },
	{ "top", "top-level cgroups" },
	{ "leaf", "leaf cgroups" },
	{ "all", "all levels" },
};

char *legend_of_series(const char *key)
{
	size_t first = strcspn(key, ".");

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (strlen(levels[i].key) == first && !strncmp(key, levels[i].key, first))
			return key[first] ? xasprintf("%s, %s", levels[i].words, key + first + 1)
					  : xstrdup(levels[i].words);
	return xstrdup(key);
}
