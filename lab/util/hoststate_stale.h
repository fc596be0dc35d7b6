/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host-state journals of lab runs that are gone (a SIGKILL, a crash):
 * their settings written back and their mounts undone, for the cleanup of
 * leftovers (kernel/leftovers.c: `memcg-lab cleanup`, and the start of a
 * run).  The journal itself is util/hoststate.h's.
 */
#ifndef LAB_UTIL_HOSTSTATE_STALE_H
#define LAB_UTIL_HOSTSTATE_STALE_H

#include <stdbool.h>
#include <stdio.h>

/* Restores the journaled settings of owners that are gone (every owner's
 * when force is set), one line per setting on out; returns how many were
 * restored (or would be, with dry_run) or -errno.  Only a journal the lab
 * made counts (util/owned.h): a state directory or an owner's directory
 * that is not gets one line ("not restoring ...") and is left, counted in
 * *kept (when not NULL).  A mount journaled in another mount namespace is
 * undone from a child that joins it through a process still in it; one
 * whose namespace is gone has its entry dropped. */
int hoststate_restore_stale(FILE *out, bool force, bool dry_run, int *kept);

#endif
