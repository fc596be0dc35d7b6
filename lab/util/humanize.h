/* SPDX-License-Identifier: GPL-2.0 */
/* Numbers for people: durations and sizes with the unit that reads best. */
#ifndef LAB_UTIL_HUMANIZE_H
#define LAB_UTIL_HUMANIZE_H

#include <stddef.h>
#include <stdint.h>

/* "800ns", "45.1us", "8.20ms", "1.20s" (buf of 16 bytes or more). */
const char *format_ns(char *buf, int len, uint64_t ns);
/* "512 B", "25.0 MiB" (buf of 16 bytes or more). */
const char *format_bytes(char *buf, int len, uint64_t bytes);
/* Rates and counts: "42", "987K", "1.23M" (SI, three significant digits). */
const char *format_si(char *buf, int len, double v);
/* A number as the 0-day robot prints means: integers from 1000 on, one or
 * two decimals below (trailing zeros dropped), %.3e outside 0.01..1e11. */
const char *format_number(char *buf, size_t n, double v);

#endif
