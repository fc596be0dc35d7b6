/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host-state journal on disk, shared by the two files that use it:
 * util/hoststate.c (this run's settings and mounts) and
 * util/hoststate_stale.c (the journals of runs that are gone).  Not for
 * use elsewhere: util/hoststate.h and util/hoststate_stale.h are the
 * interface.
 *
 * Where it is (hoststate_dir()), what an entry holds ("<path>\n<original>\n"
 * in <state dir>/<owner name>/<key>), how a mount is written as an entry,
 * which directories count as the lab's (util/owned.h), who else journals a
 * setting, and undoing a mount.  Everything here may run from a signal
 * handler: syscalls, util/rawdir.h, and no malloc.
 */
#ifndef LAB_UTIL_HOSTSTATE_JOURNAL_H
#define LAB_UTIL_HOSTSTATE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#define HS_VALUE 256
#define HS_PATH 512
#define HS_MOUNT_PREFIX "mount:"

/* "/proc/sys/kernel/x" -> "%proc%sys%kernel%x": an entry's file name. */
void hs_path_key(const char *path, char *key, size_t n);
/* Cuts trailing newlines and spaces. */
void hs_chomp(char *s);

/* Parses the journal file name in the owner directory dirfd,
 * "<path>\n<original>\n": a regular file of the lab's euid, never through a
 * link.  0, or -errno (-EPERM: a link, or another user's file). */
int hs_read_journal(int dirfd, const char *name, char *path, size_t pn, char *orig, size_t on);

/* The state directory, open: an fd, -1 with why when it is not the lab's,
 * or -errno (-ENOENT: no run ever journaled anything here). */
int hs_state_dir_open(char *why, size_t n);
/* An owner's journal directory in the state directory, open and checked:
 * an fd, or < 0 with why (not the lab's, or not there). */
int hs_owner_dir_open(int statefd, const char *owner, char *why, size_t n);

/*
 * A mount the lab made, journaled as the pseudo path
 * "mount:<mount namespace inode>:<mount point>" with the original
 * "<fstype> <mount id>" (see "mounts" in util/hoststate_journal.c).
 */
struct hs_mount {
	unsigned long long ns;		/* inode of the mount namespace */
	const char *target;		/* points into the pseudo path */
	char fstype[16];
	unsigned long long mnt_id;
};

/* True for a mount entry, parsed into m. */
bool hs_parse_mount(const char *path, const char *orig, struct hs_mount *m);
/* This process's mount namespace (its inode; 0 if unknown). */
unsigned long long hs_mount_ns(void);
/* The file system magic of a type the lab mounts ("tracefs", "debugfs"), else 0. */
long hs_fs_magic(const char *fstype);
/* The mount id when target is the root of a mount of fstype, else 0. */
unsigned long long hs_mounted_at(const char *target, const char *fstype);
/* Undoes a mount entry in this mount namespace: 0 unmounted, 1 it was not
 * mounted any more (or is not the lab's mount now), -errno. */
int hs_undo_mount(const struct hs_mount *m);
/* "/proc/sys/x" or "the tracefs mount at /sys/kernel/tracing", for messages. */
const char *hs_describe(const char *path, const char *orig, char *buf, size_t n);

/* Deciding and mounting, deciding and unmounting, under one lock on
 * <state dir>/.mounts.lock: its fd, or -1 when it cannot be had within 3 s
 * (then it goes on without). */
int hs_mounts_lock(void);
void hs_mounts_unlock(int fd);

/*
 * Other owners' journal entries for the setting key: found when one
 * exists (with the original want_orig, when not NULL), live when one of
 * their owners still runs, its original copied into orig (when not NULL).
 * Only journals the lab made count.
 */
struct hs_others {
	const char *key;
	const char *skip;	/* an owner name to ignore */
	const char *want_orig;	/* only entries with this original, or NULL */
	bool live;
	bool found;
	char *orig;
	size_t orig_len;
};

void hs_others_find(struct hs_others *o);

#endif
