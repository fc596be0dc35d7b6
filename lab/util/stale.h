/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host objects named after a lab run (util/owner.h) whose run is gone: the
 * directories of one kind (cgroup tree roots, tracefs instances, temporary
 * directories) found in a parent directory, each removed only when the lab
 * made it (util/owned.h), one line each.
 */
#ifndef LAB_UTIL_STALE_H
#define LAB_UTIL_STALE_H

#include <stdbool.h>
#include <stdio.h>

struct stale_pass {
	const char *noun;		/* "cgroup", "tracefs instance" */
	/* Removes the object, once found to be the lab's: 0 or -errno (gone
	 * already counts as 0).  remove_fd gets the parent's fd, the name and
	 * the object's own fd (checked); remove gets the path, for places only
	 * root may change (cgroupfs, tracefs instances). */
	int (*remove)(const char *path);
	int (*remove_fd)(int dirfd, const char *name, int fd);
	bool marker;			/* the lab's xattr marker is looked for (false: tracefs) */
	bool suffix_ok;			/* names may end in mkdtemp's ".XXXXXX" */
	bool force;			/* also objects of runs still going */
	bool dry_run;			/* only say what would be removed */
	FILE *out;
	int removed, failed;
	int kept;			/* named like the lab's, not made by it: left, one line each */
	/* Optional: why path could not be removed (who holds it), or "". */
	void (*why)(const char *path, int err, char *buf, size_t n);
};

/*
 * Removes every directory in dir named memcg-lab-<pid>-<start> whose owner
 * is gone (all of them with force) and that the lab made (util/owned.h),
 * printing "removed <noun> <path> (owner pid N gone)" or "would remove
 * ..." per directory, "could not remove ..." on failure, and "not removing
 * <noun> <path>: <why>" for one named like the lab's that it did not make
 * (another user's, a link, no marker): those stay.  Other names, such as
 * instances other tools made, are never touched.  0, or -errno when dir
 * cannot be listed (-ENOENT too).
 */
int stale_pass_run(struct stale_pass *p, const char *dir);
/*
 * stale_pass_run as one kind of cleanup: a missing dir is nothing to do, one
 * that cannot be listed is said on p->out ("could not look for lab WHAT in
 * DIR: ...").  The count removed, or -errno (-EBUSY: some could not be).
 */
int stale_pass_count(struct stale_pass *p, const char *dir, const char *what);

#endif
