/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building one-line messages in fixed buffers: formatted text set or
 * appended, truncated quietly at the buffer's end (messages are bounded;
 * a cut message beats a failed run).
 */
#ifndef LAB_UTIL_STRFMT_H
#define LAB_UTIL_STRFMT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

void str_setf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void str_appendf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void str_vappendf(char *buf, size_t n, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/* True when the len bytes at s are all decimal digits (and len > 0): the
 * token test of the text parsers (perf c2c and perf lock columns). */
bool str_is_digits(const char *s, int len);

#endif
