/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counts users type on the command line, and the way the lab prints sizes
 * and rates back (binary sizes, SI rates).  Sizes and durations are parsed
 * by util/expfile.h (parse_bytes, parse_duration_ns), shared with the
 * experiment files.
 *
 * parse_long returns 0 or -EINVAL/-ERANGE and never prints: the caller
 * names the option in its one-line error.
 */
#ifndef LAB_UTIL_UNITS_H
#define LAB_UTIL_UNITS_H

#include <stddef.h>

/* A decimal integer in [min, max]. */
int parse_long(const char *s, long min, long max, long *out);

/* "256 KiB", "1.5 MiB" (exact integers print without a fraction). */
void format_bytes(char *buf, size_t n, double bytes);
/* "1.23M", "987K", "42" (SI, three significant digits). */
void format_si(char *buf, size_t n, double v);

#endif
