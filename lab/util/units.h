/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers users type on the command line (sizes, counts, seconds) and the
 * way the lab prints them back (binary sizes, SI rates).
 *
 * Parsers return 0 or -EINVAL/-ERANGE and never print: the caller names the
 * option in its one-line error.
 */
#ifndef LAB_UTIL_UNITS_H
#define LAB_UTIL_UNITS_H

#include <stddef.h>

/* "4096", "10K", "64M", "1G", "2T" (binary multiples; "k"/"KiB"/"KB" alike). */
int parse_size(const char *s, long long *bytes);
/* A decimal integer in [min, max]. */
int parse_long(const char *s, long min, long max, long *out);
/* "5", "5s", "500ms", "2m" -> seconds (> 0). */
int parse_seconds(const char *s, double *out);

/* "256 KiB", "1.5 MiB" (exact integers print without a fraction). */
void format_bytes(char *buf, size_t n, double bytes);
/* "1.23M", "987K", "42" (SI, three significant digits). */
void format_si(char *buf, size_t n, double v);

#endif
