/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host settings the lab changes (sysctls and other /proc or /sys files),
 * journaled so that they always come back.
 *
 * hoststate_set() records the original value in
 * <state dir>/<owner name>/<key> before it writes the new one (both
 * directories 0700, the owner's marked as the lab's: util/owned.h), where the
 * state dir is /run/memcg-lab ($MEMCG_LAB_STATE_DIR overrides it, for tests),
 * the owner name is lab_owner_name() (util/owner.h) and the key is the path
 * with '/' turned into '%'; the file holds "<path>\n<original>\n".  The
 * restore is registered with util/cleanup.h (normal exit, die(), SIGINT,
 * SIGTERM); after a SIGKILL `memcg-lab cleanup` (or the next run) restores
 * it from the journal (util/hoststate_stale.h).
 *
 * Mounts the lab makes (tracefs where a run needs it) are journaled the
 * same way with hoststate_mount(), and unmounted like a setting is
 * restored: at the end, on a signal, by cleanup after a SIGKILL; overlapping
 * runs share the mount and the last one unmounts it.  See "mounts" in
 * util/hoststate_journal.c for how a journaled mount is told from one made
 * by others.
 *
 * Runs that overlap share the host's true original: a second run that
 * changes the same file journals the first one's original, and whichever
 * finishes while another live run still journals the file leaves the value
 * alone; the last one restores.
 */
#ifndef LAB_UTIL_HOSTSTATE_H
#define LAB_UTIL_HOSTSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes value to path, journaling and registering the restore first.
 * 0, or -1 with a one-line reason naming the file in err. */
int hoststate_set(const char *path, const char *value, char *err, size_t errlen);
/* Mounts fstype ("tracefs", "debugfs") at target unless it is mounted
 * there: 1 when this run holds a lab-made mount there now (made here, or
 * shared with an overlapping lab run), journaled and unmounted at the end;
 * 0 when it was mounted by someone else (left alone); -1 with a one-line
 * reason naming the mount point in err ("cannot mount tracefs at
 * /sys/kernel/tracing: Operation not permitted"). */
int hoststate_mount(const char *fstype, const char *target, char *err, size_t errlen);
/* Restores what this process changed (the undo steps do it too). */
void hoststate_restore_all(void);
/* Restores one setting this process changed, now (e.g. after a bounded
 * perf window); nothing when it did not change path. */
void hoststate_restore(const char *path);
/* The journal's directory (/run/memcg-lab or $MEMCG_LAB_STATE_DIR). */
const char *hoststate_dir(void);

#endif
