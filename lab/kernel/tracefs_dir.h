/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where tracefs is: the one place that answers it for every collector,
 * probe and cleanup.
 *
 * A fresh machine does not have tracefs mounted.  As perf does, a run that
 * needs it mounts it at the standard place itself; unlike perf, it records
 * the mount in the host-state journal (util/hoststate.h) and unmounts it
 * again when the run ends, on a signal, or in `memcg-lab cleanup` after a
 * SIGKILL.  A tracefs mounted by someone else is used and never touched.
 */
#ifndef LAB_KERNEL_TRACEFS_DIR_H
#define LAB_KERNEL_TRACEFS_DIR_H

#include <stddef.h>

#define TRACEFS_STD_DIR "/sys/kernel/tracing"

/* Where tracefs is mounted ("" if nowhere), from /proc/self/mounts; the
 * standard mount wins over debugfs's tracing/ automount. */
void tracefs_mount_point(char *buf, size_t n);

/*
 * Where tracefs is for a collector about to use it: the mounted one, or,
 * as root, TRACEFS_STD_DIR mounted now (journaled, unmounted when this
 * process ends).  0 with the directory in dir, or -1 with one line in err:
 * what to mount when not root, or the mount point and the errno of a
 * refused mount.
 */
int lab_tracefs_find(char *dir, size_t n, char *err, size_t errlen);

/*
 * rmdir of a tracefs instance.  Any open file of an instance pins it (rmdir
 * says EBUSY): a killed run's worker that forked with the tracer's
 * trace_pipe_raw open keeps it while it exits, for a moment after its pid
 * no longer looks alive (it frees its memory first, then closes its
 * files); a reader thread inside read() keeps a file its process closed
 * until the read returns.  Waits for that, up to 5 s, not forever.  0
 * (also when already gone) or -errno; no malloc (an undo step).
 */
int tracefs_instance_remove(const char *path);

enum lab_tracefs_state {
	LAB_TRACEFS_MOUNTED,
	LAB_TRACEFS_MOUNTABLE,		/* not mounted; a run would mount it */
	LAB_TRACEFS_UNAVAILABLE,	/* not mounted, and it cannot be */
};

/* What probe reports, changing nothing on the host (a trial mount in a
 * throwaway mount namespace tells whether mounting would be allowed).
 * dir: the mount point when mounted; why: the evidence. */
enum lab_tracefs_state lab_tracefs_state(char *dir, size_t n, char *why, size_t whylen);
const char *lab_tracefs_state_name(enum lab_tracefs_state s);

#endif
