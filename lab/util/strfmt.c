// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "util/err.h"
#include "util/strfmt.h"

void str_setf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (!n)
		return;
	buf[0] = '\0';
	va_start(ap, fmt);
	str_vappendf(buf, n, fmt, ap);
	va_end(ap);
}

void str_vappendf(char *buf, size_t n, const char *fmt, va_list ap)
{
	size_t len = strnlen(buf, n);

	if (len + 1 >= n)
		return;
	vsnprintf(buf + len, n - len, fmt, ap);
}

void str_appendf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	str_vappendf(buf, n, fmt, ap);
	va_end(ap);
}

bool str_is_digits(const char *s, int len)
{
	if (len <= 0)
		return false;
	for (int i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}
