// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "lock/lock_types.h"

/* tools/perf/builtin-lock.c: lock_type_table (first match wins). */
static const struct {
	unsigned int flags;
	const char *name;
} table[] = {
	{ 0,				"semaphore" },
	{ LCB_F_SPIN,			"spinlock" },
	{ LCB_F_SPIN | LCB_F_READ,	"rwlock:R" },
	{ LCB_F_SPIN | LCB_F_WRITE,	"rwlock:W" },
	{ LCB_F_READ,			"rwsem:R" },
	{ LCB_F_WRITE,			"rwsem:W" },
	{ LCB_F_RT,			"rtmutex" },
	{ LCB_F_RT | LCB_F_READ,	"rwlock-rt:R" },
	{ LCB_F_RT | LCB_F_WRITE,	"rwlock-rt:W" },
	{ LCB_F_PERCPU | LCB_F_READ,	"pcpu-sem:R" },
	{ LCB_F_PERCPU | LCB_F_WRITE,	"pcpu-sem:W" },
	{ LCB_F_MUTEX,			"mutex" },
	{ LCB_F_MUTEX | LCB_F_SPIN,	"mutex" },
};

const char *lock_type_name(unsigned int flags)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].flags == flags)
			return table[i].name;
	return "unknown";
}

int lock_type_flags(const char *name)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].name, name))
			return table[i].flags;
	/* Older perf spelled the RT mutex "rt-mutex". */
	if (!strcmp(name, "rt-mutex"))
		return LCB_F_RT;
	return -1;
}
