// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/cpus.h"
#include "util/fileio.h"

int cpulist_parse(const char *s, int *cpus, int max, char *err, size_t errlen)
{
	cpu_set_t seen;
	int n = 0;
	const char *p = s;

	CPU_ZERO(&seen);
	if (!s || !*s) {
		snprintf(err, errlen, "empty CPU list");
		return -1;
	}
	while (*p) {
		const char *tok = p;
		long a, b;
		char *end;

		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			b = strtol(p, &end, 10);
			p = end;
			if (b < a) {
				snprintf(err, errlen, "'%.*s': range runs backwards", (int)(p - tok), tok);
				return -1;
			}
		}
		if (*p && *p != ',')
			goto bad;
		if (*p == ',' && !p[1])
			goto bad;
		if (*p)
			p++;
		if (b >= CPU_SETSIZE) {
			snprintf(err, errlen, "CPU %ld: above the largest CPU number the lab handles (%d)",
				 b, CPU_SETSIZE - 1);
			return -1;
		}
		for (long c = a; c <= b; c++) {
			if (CPU_ISSET(c, &seen))
				continue;
			if (n == max) {
				snprintf(err, errlen, "more than %d CPUs in the list", max);
				return -1;
			}
			CPU_SET(c, &seen);
			cpus[n++] = (int)c;
		}
		continue;
bad:
		snprintf(err, errlen, "'%s': not a CPU list (expected e.g. 0-3,8)", s);
		return -1;
	}
	return n;
}

void cpulist_format(const cpu_set_t *set, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		if (len < n)
			len += snprintf(buf + len, n - len, e > c ? "%s%d-%d" : "%s%d",
					len ? "," : "", c, e);
		c = e;
	}
}

int cpus_online(cpu_set_t *set, const char *path)
{
	char buf[4096], err[128];
	int cpus[CPU_SETSIZE];
	ssize_t r;
	int n;

	r = read_buf(path ? path : "/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (r < 0)
		return (int)r;
	buf[strcspn(buf, "\n")] = '\0';
	n = cpulist_parse(buf, cpus, CPU_SETSIZE, err, sizeof(err));
	if (n < 0)
		return -EINVAL;
	CPU_ZERO(set);
	for (int i = 0; i < n; i++)
		CPU_SET(cpus[i], set);
	return 0;
}

int cpus_usable(cpu_set_t *set)
{
	cpu_set_t online, mine;
	int e = cpus_online(&online, NULL);

	if (e < 0)
		return e;
	if (sched_getaffinity(0, sizeof(mine), &mine) < 0)
		return -errno;
	CPU_AND(set, &online, &mine);
	return 0;
}

int cpu_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}
