// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "util/humanize.h"

const char *format_ns(char *buf, int len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

const char *format_bytes(char *buf, int len, uint64_t bytes)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int i = 0;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, names[i]);
	return buf;
}

const char *format_si(char *buf, int len, double v)
{
	static const char suffix[] = " KMGT";
	int i = 0;

	while (fabs(v) >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	if (!i)
		snprintf(buf, len, "%.*f", v == floor(v) ? 0 : 1, v);
	else
		snprintf(buf, len, "%.*f%c", fabs(v) < 10 ? 2 : fabs(v) < 100 ? 1 : 0, v, suffix[i]);
	return buf;
}

const char *format_number(char *buf, size_t n, double v)
{
	double a = fabs(v);

	/* As the robot prints: integers for big numbers, a few digits else. */
	if (a != 0 && (a < 0.01 || a >= 1e11))
		snprintf(buf, n, "%.3e", v);
	else if (a >= 1000)
		snprintf(buf, n, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.2f", v);
	/* Trim ".00" / ".0" from values that are whole. */
	if (!strchr(buf, 'e') && strchr(buf, '.')) {
		char *end = buf + strlen(buf) - 1;

		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
	return buf;
}
