/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lab runs left on the host when they could not clean up (SIGKILL, a
 * crash, a power cut): cgroup trees, tracefs instances, changed host
 * settings and temporary directories (vm's guest images), all named after
 * their owner (util/owner.h).  Only those whose owner is gone are touched,
 * unless force is set, and only when the lab made them (util/owned.h).
 */
#ifndef LAB_KERNEL_LEFTOVERS_H
#define LAB_KERNEL_LEFTOVERS_H

#include <stdbool.h>
#include <stdio.h>

struct leftovers {
	int cgroups;	/* trees removed (or that would be, with dry_run) */
	int instances;	/* tracefs instances */
	int settings;	/* host settings restored */
	int tmpdirs;	/* temporary directories in $TMPDIR (or /tmp) */
	int kept;	/* named like the lab's but not made by it: left, one line each */
	int failed;	/* things that could not be removed */
	int unreadable;	/* places a dry run could not look into (not root) */
};

/* Everything, one line per thing on out.  0, or -1 when something failed. */
int leftovers_cleanup(FILE *out, bool force, bool dry_run, struct leftovers *n);
/*
 * For the start of every run that creates host objects: removes what runs
 * that are gone left behind, reporting on stderr.  Never fails the run
 * (not root: nothing to do).
 */
void leftovers_cleanup_dead(void);

/* tracefs instances named memcg-lab-<pid>-<start>, owned by the lab's
 * euid and of mode 0700 (the tracer's); count or -errno, and those named so
 * but left added to *kept (when not NULL).  tracefs_dir NULL: the mounted
 * tracefs, or (not with dry_run) tracefs mounted for this process through
 * kernel/tracefs_dir.h. */
int tracefs_cleanup_stale(FILE *out, const char *tracefs_dir, bool force, bool dry_run, int *kept);
/* Directories named memcg-lab-<pid>-<start>[.XXXXXX] in tmpdir (NULL:
 * $TMPDIR or /tmp) that the lab made (util/owned.h), removed with their
 * contents; count or -errno, the others added to *kept. */
int tmpdir_cleanup_stale(FILE *out, const char *tmpdir, bool force, bool dry_run, int *kept);

#endif
