/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data for the two map plots: the cacheline map of a struct layout (from
 * a layout capture's cachelines.txt) and the false-sharing map of a struct
 * (from c2c's fieldmap-<struct>.tsv), each shaped into the TSV its gnuplot
 * template draws.
 */
#ifndef LAB_ANALYZE_PLOTMAPS_H
#define LAB_ANALYZE_PLOTMAPS_H

#include <stdio.h>

/*
 * Reads cachelines.txt and, for each struct in it, calls emit(struct, size,
 * lines, tsv_text) with rows "line start end tag label" (one per field
 * segment on a line; tag 1 hot-written, 2 read-mostly, 0 other).  Returns the
 * number of structs, or -1 with a line-numbered reason in err.
 */
int plotmap_cachelines(const char *path, void (*emit)(const char *st, int size, int lines, const char *tsv,
						       void *arg),
		       void *arg, char *err, size_t errlen);

/*
 * Sums a fieldmap-<struct>.tsv per field into rows "field read write" in
 * field-offset order, with the metric used (hitm, or peer on Arm SPE).
 * Returns a malloc'd TSV (header row first) or NULL with err.
 */
char *plotmap_fieldmap(const char *path, const char **metric, char *err, size_t errlen);

#endif
