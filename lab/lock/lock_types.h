/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock types of the lock:contention_begin tracepoint (the LCB_F_* flags of
 * include/trace/events/lock.h) and the names perf lock contention prints
 * for them.
 */
#ifndef LAB_LOCK_LOCK_TYPES_H
#define LAB_LOCK_LOCK_TYPES_H

#define LCB_F_SPIN	(1U << 0)
#define LCB_F_READ	(1U << 1)
#define LCB_F_WRITE	(1U << 2)
#define LCB_F_RT	(1U << 3)
#define LCB_F_PERCPU	(1U << 4)
#define LCB_F_MUTEX	(1U << 5)

/* "spinlock", "rwsem:R", "mutex", ... or "unknown" (perf's table). */
const char *lock_type_name(unsigned int flags);
/* Flags of a perf type name; -1 when the name is not one. */
int lock_type_flags(const char *name);

#endif
