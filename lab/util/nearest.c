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

int nearest_names(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char dir[4096];
	struct cand best[3];
	int nbest = 0, limit;
	const char *ext;
	size_t stem;
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
	ext = strrchr(base, '.');
	if (ext == base)
		ext = NULL;
	stem = ext ? (size_t)(ext - base) : 0;
	limit = (int)strlen(base) / 3;
	if (limit < 2)
		limit = 2;
	while ((e = readdir(d))) {
		size_t lb = strlen(base);
		int dist;
		bool prefix;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, base) ||
		    (e->d_name[0] == '.' && base[0] != '.'))
			continue;
		dist = edit_distance(base, e->d_name);
		/* "6.12" for "6.12.117", "lines.exp" for "lines-charge.exp":
		 * what was typed (less a shared extension) begins the name. */
		prefix = lb >= 3 && !strncmp(e->d_name, base, lb);
		if (!prefix && ext && stem >= 3 && strlen(e->d_name) > lb &&
		    !strcmp(e->d_name + strlen(e->d_name) - strlen(ext), ext))
			prefix = !strncmp(e->d_name, base, stem);
		if (dist > limit && !prefix)
			continue;
		/* Kept sorted by distance, then name; the three nearest. */
		for (int i = 0; i <= nbest && i < 3; i++) {
			if (i < nbest && (best[i].dist < dist ||
					  (best[i].dist == dist && strcmp(best[i].name, e->d_name) < 0)))
				continue;
			memmove(&best[i + 1], &best[i], (size_t)((nbest < 3 ? nbest : 2) - i) * sizeof(best[0]));
			snprintf(best[i].name, sizeof(best[i].name), "%s", e->d_name);
			best[i].dist = dist;
			if (nbest < 3)
				nbest++;
			break;
		}
	}
	closedir(d);
	for (int i = 0; i < nbest; i++)
		str_appendf(buf, n, "%s%.*s%s", i ? ", " : "", slash ? (int)(slash - path + 1) : 0, path, best[i].name);
	return nbest ? 0 : -1;
}
