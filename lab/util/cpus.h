/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU lists in the kernel's format ("0-3,8,10-11"), the online CPUs and the
 * CPUs this process may run on.  A cpu_set_t holds CPU_SETSIZE (1024) CPUs,
 * enough for the 256-CPU machines the lab targets.
 */
#ifndef LAB_UTIL_CPUS_H
#define LAB_UTIL_CPUS_H

#include <sched.h>
#include <stddef.h>

/*
 * Parses a list in order ("2,0-1" gives 2, 0, 1), duplicates kept out.
 * Returns the number of CPUs (>= 1) with the list in cpus[max], or -1 with
 * the reason in err ("'3-1': range runs backwards").  The lab's own parse:
 * hwloc_bitmap_list_sscanf() gives a set, not an order, and takes what a
 * pin list must not ("0,,1" as 0-1, "0-" as every CPU from 0 on, "3-1" and
 * "1x" as none, "010" as 8); the sets below (the kernel's lists) are hwloc's.
 */
int cpulist_parse(const char *s, int *cpus, int max, char *err, size_t errlen);
/* cpu_set_t -> "0-3,8" (empty string for an empty set), by hwloc. */
void cpulist_format(const cpu_set_t *set, char *buf, size_t n);
/* /sys/devices/system/cpu/online (or the given path, for tests) through
 * hwloc_bitmap_list_sscanf(); 0 or -errno (-EINVAL: no CPU, or not a list). */
int cpus_online(cpu_set_t *set, const char *path);
/* Online CPUs this process may run on (its affinity mask); 0 or -errno. */
int cpus_usable(cpu_set_t *set);
/* Pins the calling thread to one CPU; 0 or -errno. */
int cpu_pin_self(int cpu);

#endif
