// SPDX-License-Identifier: GPL-2.0
/* The names nearest to a missing path (util/nearest.h). */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/err.h"
#include "util/nearest.h"
#include "util/strfmt.h"

#define NAME_MAX_LEN 255

int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *d, r;

	if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
		return (int)(la > lb ? la : lb);
	/* (la + 1) x (lb + 1), row-major. */
	d = xcalloc((la + 1) * (lb + 1), sizeof(*d));
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (size_t i = 0; i <= la; i++)
		D(i, 0) = (int)i;
	for (size_t j = 0; j <= lb; j++)
		D(0, j) = (int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1], v = D(i - 1, j) + 1;

			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < v)
				v = D(i - 1, j - 1) + cost;
			/* Two neighbours swapped: "slto" for "slot". */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && D(i - 2, j - 2) + 1 < v)
				v = D(i - 2, j - 2) + 1;
			D(i, j) = v;
		}
	}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}

struct cand {
	char name[NAME_MAX_LEN + 1];
	int dist;
};

/* The three nearest names to base offered so far (nearest_offer). */
struct nearest {
	const char *base;
	const char *ext;	/* base's extension, or NULL */
	size_t stem;		/* base's length less its extension */
	int limit;
	struct cand best[3];
	int nbest;
};

static void nearest_start(struct nearest *nr, const char *base)
{
	memset(nr, 0, sizeof(*nr));
	nr->base = base;
	nr->ext = strrchr(base, '.');
	if (nr->ext == base)
		nr->ext = NULL;
	nr->stem = nr->ext ? (size_t)(nr->ext - base) : 0;
	nr->limit = (int)strlen(base) / 3;
	if (nr->limit < 2)
		nr->limit = 2;
}

static void nearest_offer(struct nearest *nr, const char *name)
{
	const char *base = nr->base, *ext = nr->ext;
	size_t lb = strlen(base);
	int dist;
	bool prefix;

	if (!strcmp(name, base) || strlen(name) > NAME_MAX_LEN)
		return;
	dist = edit_distance(base, name);
	/* "6.12" for "6.12.117", "lines.exp" for "lines-charge.exp":
	 * what was typed (less a shared extension) begins the name. */
	prefix = lb >= 3 && !strncmp(name, base, lb);
	if (!prefix && ext && nr->stem >= 3 && strlen(name) > lb && !strcmp(name + strlen(name) - strlen(ext), ext))
		prefix = !strncmp(name, base, nr->stem);
	if (dist > nr->limit && !prefix)
		return;
	/* Kept sorted by distance, then name; the three nearest. */
	for (int i = 0; i <= nr->nbest && i < 3; i++) {
		if (i < nr->nbest &&
		    (nr->best[i].dist < dist || (nr->best[i].dist == dist && strcmp(nr->best[i].name, name) < 0)))
			continue;
		memmove(&nr->best[i + 1], &nr->best[i], (size_t)((nr->nbest < 3 ? nr->nbest : 2) - i) * sizeof(nr->best[0]));
		snprintf(nr->best[i].name, sizeof(nr->best[i].name), "%s", name);
		nr->best[i].dist = dist;
		if (nr->nbest < 3)
			nr->nbest++;
		break;
	}
}

/* The names found, each after prefix (prefix_len bytes of it), into buf. */
static int nearest_finish(const struct nearest *nr, const char *prefix, int prefix_len, char *buf, size_t n)
{
	for (int i = 0; i < nr->nbest; i++)
		str_appendf(buf, n, "%s%.*s%s", i ? ", " : "", prefix_len, prefix, nr->best[i].name);
	return nr->nbest ? 0 : -1;
}

int nearest_names(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char dir[4096];
	struct nearest nr;
	struct dirent *e;
	DIR *d;

	buf[0] = '\0';
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (!*base || strlen(base) > NAME_MAX_LEN || !(d = opendir(dir)))
		return -1;
	nearest_start(&nr, base);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || (e->d_name[0] == '.' && base[0] != '.'))
			continue;
		nearest_offer(&nr, e->d_name);
	}
	closedir(d);
	return nearest_finish(&nr, path, slash ? (int)(slash - path + 1) : 0, buf, n);
}

int nearest_of(const char *name, const char *const names[], char *buf, size_t n)
{
	struct nearest nr;

	buf[0] = '\0';
	if (!*name || strlen(name) > NAME_MAX_LEN)
		return -1;
	nearest_start(&nr, name);
	for (size_t i = 0; names[i]; i++)
		nearest_offer(&nr, names[i]);
	return nearest_finish(&nr, "", 0, buf, n);
}
