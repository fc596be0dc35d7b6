/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/meminfo, for the limits that keep a run from harming its host. */
#ifndef LAB_UTIL_MEMINFO_H
#define LAB_UTIL_MEMINFO_H

#include <stdint.h>

struct meminfo {
	int64_t total;		/* MemTotal, bytes */
	int64_t available;	/* MemAvailable */
	int64_t swap_total;	/* SwapTotal (0: no swap) */
	int64_t swap_free;	/* SwapFree */
};

/* 0, or -1 when /proc/meminfo cannot be read (fields then 0). */
int meminfo_read(struct meminfo *m);
/* A "Key:  123 kB" field of meminfo text, in KiB; 0 when absent. */
int64_t meminfo_kib(const char *text, const char *key);

#endif
