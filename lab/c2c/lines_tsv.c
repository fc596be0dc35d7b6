// SPDX-License-Identifier: GPL-2.0
/* TSV files by column name (c2c/lines_tsv.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_tsv.h"
#include "util/err.h"
#include "util/fileio.h"

static int split(char *line, char **f, int max)
{
	int n = 0;

	for (char *p = line; n < max;) {
		f[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

/* Opens path (absent: 0 and t->text NULL); the columns want[] found; -1 with err. */
int lines_tsv_open(struct lines_tsv *t, const char *path, const char *const *want, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->path = path;
	if (!path_exists(path))
		return 0;
	t->text = read_text(path, NULL);
	if (!t->text)
		return set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
	t->pos = t->text;
	while (t->pos && *t->pos) {
		char *line = t->pos, *nl = strchr(line, '\n');

		t->pos = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		t->lineno++;
		if (*line == '#' || !*line)
			continue;
		t->nhdr = split(line, t->hdr, 32);
		for (int i = 0; want[i]; i++) {
			t->col[i] = -1;
			for (int j = 0; j < t->nhdr; j++)
				if (!strcmp(t->hdr[j], want[i]))
					t->col[i] = j;
			if (t->col[i] < 0)
				return set_err(err, errlen, "%s:%d: no column '%s' in the header", path, t->lineno,
					       want[i]);
		}
		return 0;
	}
	return set_err(err, errlen, "%s: no header line", path);
}

/* The next row's fields (NULL at the end); -1 in *rc with err on a short row. */
bool lines_tsv_next(struct lines_tsv *t, const char *const *want, int *rc, char *err, size_t errlen)
{
	while (t->pos && *t->pos) {
		char *line = t->pos, *nl = strchr(line, '\n');

		t->pos = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		t->lineno++;
		if (*line == '#' || !*line)
			continue;
		t->nf = split(line, t->f, 32);
		for (int i = 0; want[i]; i++)
			if (t->col[i] >= t->nf) {
				*rc = set_err(err, errlen, "%s:%d: field %s: missing (the row is short)", t->path,
					      t->lineno, want[i]);
				return false;
			}
		return true;
	}
	return false;
}

const char *lines_tsv_get(const struct lines_tsv *t, int i)
{
	return t->f[t->col[i]];
}

int lines_tsv_u64(const struct lines_tsv *t, const char *const *want, int i, uint64_t *v, char *err, size_t errlen)
{
	const char *s = lines_tsv_get(t, i);
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (!*s || *s == '-' || *end || errno)
		return set_err(err, errlen, "%s:%d: field %s: '%s' is not a number", t->path, t->lineno, want[i], s);
	return 0;
}

void lines_tsv_close(struct lines_tsv *t)
{
	free(t->text);
	memset(t, 0, sizeof(*t));
}

