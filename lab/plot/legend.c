// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "plot/legend.h"
#include "util/err.h"

/* Parts of a series key as the reports say them: the levels of a
 * stat-read tree (drivers/statread/driver.h: "1 root, N top-level, N leaves") and
 * the lock collector's hold-time bound. */
static const struct { const char *key, *words; } words[] = {
	{ "root", "root cgroup" },
	{ "top", "top-level cgroups" },
	{ "leaf", "leaf cgroups" },
	{ "all", "all levels" },
	{ "read-latency-upper-bound", "upper bound, the readers' read() latency" },
};

/* "root4" -> "root 4", "level0" -> "level 0": the lock table's columns. */
static char *numbered(const char *part, size_t len)
{
	static const char *const names[] = { "root", "level" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t nl = strlen(names[i]);

		if (len > nl && !strncmp(part, names[i], nl) && strspn(part + nl, "0123456789") == len - nl)
			return xasprintf("%s %.*s", names[i], (int)(len - nl), part + nl);
	}
	return NULL;
}

static char *words_of(const char *part, size_t len)
{
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].key) == len && !strncmp(part, words[i].key, len))
			return xstrdup(words[i].words);
	return numbered(part, len);
}

char *legend_of_series(const char *key)
{
	char *out = xstrdup("");
	bool said = false;	/* the last part was put in words: a comma follows */

	for (const char *p = key; *p;) {
		/* A step ("total-readers=10") is one part, dots and all. */
		bool step = strcspn(p, ".") > strcspn(p, "=");
		size_t len = step ? strlen(p) : strcspn(p, ".");
		char *w = words_of(p, len), *t;
		/* Parts in words, and the step, are listed; the rest is a name. */
		const char *sep = !out[0] ? "" : w || said || step ? ", " : ".";

		if (w)
			t = xasprintf("%s%s%s", out, sep, w);
		else
			t = xasprintf("%s%s%.*s", out, sep, (int)len, p);
		said = w != NULL;
		free(out);
		free(w);
		out = t;
		p += len;
		if (*p == '.')
			p++;
	}
	return out;
}
