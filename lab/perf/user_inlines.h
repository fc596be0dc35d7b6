/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The inline frames newer perf puts into a user call chain.
 *
 * perf 7.x's add_callchain_ip() calls append_inlines(): where the DSO of a
 * user address has DWARF (its own, or /usr/lib/debug/.build-id/...), the
 * callchain cursor gets one node per function of the inline chain at that
 * address (the inlined functions, then the one they were inlined into), all
 * with the same ip.  perf lock contention counts cursor nodes against
 * --max-stack and XORs every node's hash into the caller key, so an address
 * with one inlined level (two nodes) drops out of the key and pushes the
 * frames after it out of the stack.  perf 6.1 appends one node per address.
 *
 * Which DSO holds a user address comes from the file's MMAP/MMAP2 records,
 * per process, as perf lock contention keeps them: a new mapping replaces
 * what it overlaps; FORK records are not processed (its perf_tool has no
 * .fork handler), so a forked child has only the mappings recorded for its
 * own pid, and its other user addresses are one node each.
 */
#ifndef LAB_PERF_USER_INLINES_H
#define LAB_PERF_USER_INLINES_H

#include <stdint.h>

struct user_inlines;

struct user_inlines *uinl_new(void);
void uinl_free(struct user_inlines *u);

/* A mapping of process pid: [start, start + len) at file offset pgoff. */
void uinl_mmap(struct user_inlines *u, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	       const char *filename);

/*
 * The cursor nodes perf makes of user address ip in process pid: 1 + the
 * depth of the inline chain there, or 1 where the address is in no mapping
 * or its DSO has no DWARF for it.
 */
int uinl_nodes(struct user_inlines *u, uint32_t pid, uint64_t ip);

#endif
