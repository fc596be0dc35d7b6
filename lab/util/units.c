// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/units.h"

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

void format_bytes(char *buf, size_t n, double bytes)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;

	while (fabs(bytes) >= 1024 && i < 4) {
		bytes /= 1024;
		i++;
	}
	if (bytes == floor(bytes))
		snprintf(buf, n, "%.0f %s", bytes, names[i]);
	else
		snprintf(buf, n, "%.*f %s", fabs(bytes) < 10 ? 2 : 1, bytes, names[i]);
}

void format_si(char *buf, size_t n, double v)
{
	static const char suffix[] = " KMGT";
	int i = 0;

	while (fabs(v) >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	if (!i)
		snprintf(buf, n, "%.*f", v == floor(v) ? 0 : 1, v);
	else
		snprintf(buf, n, "%.*f%c", fabs(v) < 10 ? 2 : fabs(v) < 100 ? 1 : 0, v, suffix[i]);
}
