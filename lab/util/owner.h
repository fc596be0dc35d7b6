/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of what the lab creates on the host, and whether their owner lives.
 *
 * Every host object of a run (its cgroup tree roots, its tracefs instance)
 * is named "memcg-lab-<pid>-<starttime>", where starttime is the owner's
 * start time in clock ticks since boot (/proc/<pid>/stat field 22).  The
 * pair survives pid reuse, so `memcg-lab cleanup` can remove exactly the
 * objects whose owner is gone, and never those of a run still going.
 */
#ifndef LAB_UTIL_OWNER_H
#define LAB_UTIL_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define LAB_OWNER_PREFIX "memcg-lab-"

/* "memcg-lab-<pid>-<starttime>" for the calling process. */
void lab_owner_name(char *buf, size_t n);
/* Parses a name made by lab_owner_name(); false if it is not one. */
bool lab_owner_parse(const char *name, pid_t *pid, unsigned long long *start);
/*
 * A name that is an owner name, or one followed by mkdtemp's suffix
 * (".XXXXXX", letters and digits) when suffix_ok: true, with the owner's
 * name copied to owner (n bytes).  No malloc.
 */
bool lab_owner_split(const char *name, bool suffix_ok, char *owner, size_t n);
/* True when the name's owner still runs (same pid and same start time). */
bool lab_owner_alive(const char *name);
/* Start time of a process in ticks since boot; 0 if it does not exist or
 * has exited (a zombie). */
unsigned long long proc_start_time(pid_t pid);

#endif
