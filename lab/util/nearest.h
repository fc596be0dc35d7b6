/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names nearest to a path that does not exist (or to a name that is
 * none of a list's), for the one line that says so: `run
 * experiments/stock-slot.exp` suggests experiments/stock-slots.exp,
 * `layout --against layouts/6.12` suggests layouts/6.12.117.  Only the last component is matched, against the
 * entries of its directory: an edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours) of at most a third of the
 * name (at least 2), or a name the asked one begins (less an extension
 * both share: "lines.exp" begins "lines-charge.exp").
 */
#ifndef LAB_UTIL_NEAREST_H
#define LAB_UTIL_NEAREST_H

#include <stddef.h>

/* Optimal string alignment distance between a and b (swaps count 1). */
int edit_distance(const char *a, const char *b);

/*
 * Up to three nearest names to path, written as the user wrote the
 * directory ("experiments/stock-slots.exp"), comma-separated, into buf;
 * 0 when there is one, else -1 and buf "".
 */
int nearest_names(const char *path, char *buf, size_t n);

/* The same among a NULL-terminated list of names (the commands, for
 * `memcg-lab help chrage`): up to three, comma-separated, into buf; 0 when
 * there is one, else -1 and buf "". */
int nearest_of(const char *name, const char *const names[], char *buf, size_t n);

#endif
