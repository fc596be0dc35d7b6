/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An int in shared memory that processes wait on and wake each other
 * through (futex(2)): the hand-offs of the stock probes and experiments,
 * which must not allocate (an allocation could be charged and disturb the
 * per-CPU stock being measured).
 */
#ifndef LAB_UTIL_FUTEXWORD_H
#define LAB_UTIL_FUTEXWORD_H

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline long futex_word(int *uaddr, int op, int val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static inline int futex_word_load(int *w)
{
	return __atomic_load_n(w, __ATOMIC_SEQ_CST);
}

/* Stores v and wakes every waiter. */
static inline void futex_word_store_wake(int *w, int v)
{
	__atomic_store_n(w, v, __ATOMIC_SEQ_CST);
	futex_word(w, FUTEX_WAKE, INT_MAX, NULL);
}

/* Sleeps while *w == v, at most ts (NULL: no limit); spurious wakes happen. */
static inline void futex_word_wait(int *w, int v, const struct timespec *ts)
{
	futex_word(w, FUTEX_WAIT, v, ts);
}

#endif
