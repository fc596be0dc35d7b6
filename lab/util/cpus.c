// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
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
	hwloc_bitmap_t b = hwloc_bitmap_alloc();

	buf[0] = '\0';
	if (!b)
		return;
	hwloc_cpuset_from_glibc_sched_affinity(NULL, b, set, sizeof(*set));
	hwloc_bitmap_list_snprintf(buf, n, b);
	hwloc_bitmap_free(b);
}

int cpus_online(cpu_set_t *set, const char *path)
{
	char buf[4096];
	hwloc_bitmap_t b;
	ssize_t r;
	int e = 0;

	r = read_buf(path ? path : "/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (r < 0)
		return (int)r;
	buf[strcspn(buf, "\n")] = '\0';
	b = hwloc_bitmap_alloc();
	if (!b)
		return -ENOMEM;
	/* The kernel's own list, a set: hwloc's parse.  None, an open range
	 * or a CPU past a cpu_set_t is no list of online CPUs. */
	if (hwloc_bitmap_list_sscanf(b, buf) || hwloc_bitmap_iszero(b) || hwloc_bitmap_weight(b) < 0 ||
	    hwloc_bitmap_last(b) >= CPU_SETSIZE)
		e = -EINVAL;
	else
		hwloc_cpuset_to_glibc_sched_affinity(NULL, b, set, sizeof(*set));
	hwloc_bitmap_free(b);
	return e;
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
