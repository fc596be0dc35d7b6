/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The old name of util/tsv.h's reader, kept for c2c/lines_guest.c alone
 * until it calls util/tsv.h itself (then this header goes): the guest's
 * TSV files (windows.tsv, window-objects.tsv, window-ranges.tsv,
 * window-ops.tsv: c2c/lines_session.h) read by column name, an absent
 * file as no rows.  Nothing new includes it.
 */
#ifndef LAB_C2C_LINES_TSV_H
#define LAB_C2C_LINES_TSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "util/fileio.h"
#include "util/tsv.h"

#define lines_tsv tsv

/* Opens path (absent: 0 and t->text NULL); -1 with one line in err. */
static inline int lines_tsv_open(struct tsv *t, const char *path, const char *const *want, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	return path_exists(path) ? tsv_open(t, path, want, 0, err, errlen) : 0;
}

/* The next data row (false at the end, or with *rc -1 and err). */
static inline bool lines_tsv_next(struct tsv *t, const char *const *want, int *rc, char *err, size_t errlen)
{
	int r = tsv_next(t);

	(void)want, (void)err, (void)errlen;
	if (r < 0)
		*rc = -1;
	return r == TSV_ROW;
}

static inline const char *lines_tsv_get(const struct tsv *t, int i)
{
	return tsv_get(t, i);
}

static inline int lines_tsv_u64(struct tsv *t, const char *const *want, int i, uint64_t *v, char *err, size_t errlen)
{
	(void)want, (void)err, (void)errlen;
	return tsv_u64(t, i, v);
}

static inline void lines_tsv_close(struct tsv *t)
{
	tsv_close(t);
}

#endif
