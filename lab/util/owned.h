/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the lab made on the host, told from what it did not.
 *
 * The lab runs as root on shared machines.  A leftover named after a lab
 * run that is gone (util/owner.h) is removed only when the lab made it:
 *   - it is a directory (never a link), owned by the lab's euid;
 *   - it has the mode the lab gave it, LAB_DIR_MODE (0700);
 *   - it carries the lab's marker: the extended attribute lab_mark_name()
 *     (trusted.memcg-lab as root: only CAP_SYS_ADMIN may write a trusted.*
 *     attribute, so no other user can forge it; user.memcg-lab otherwise)
 *     holding the owner's name, written right after the mkdir, before
 *     anything goes in.  Where the file system keeps no extended attributes
 *     (tracefs; a cgroupfs of an old kernel) the mode is the marker: the
 *     lab sets it itself after the mkdir, and no default gives 0700.
 * Anything else gets one line naming why it stays.  Everything here works
 * on directory fds (openat with O_NOFOLLOW|O_DIRECTORY, fstat, fgetxattr,
 * unlinkat), never on a path that could be swapped under it, and nothing
 * mallocs.
 */
#ifndef LAB_UTIL_OWNED_H
#define LAB_UTIL_OWNED_H

#include <stdbool.h>
#include <stddef.h>

#define LAB_DIR_MODE 0700

/* The marker's attribute name for this process's euid. */
const char *lab_mark_name(void);
/* Marks the directory open at fd as made by owner: 0, or -errno
 * (-EOPNOTSUPP: the file system keeps no extended attributes). */
int lab_mark(int fd, const char *owner);
/* Opens name in dirfd as a directory, never through a link: an fd, or
 * -errno (-ELOOP: a symbolic link; -ENOTDIR: not a directory). */
int lab_open_dir_at(int dirfd, const char *name);
/*
 * Whether the directory open at fd is one the lab made for owner: 0; or 1
 * with why ("owned by uid 65534, not the lab's uid 0", "mode 0755, not the
 * lab's 0700", "no lab marker (xattr trusted.memcg-lab)", "its lab marker
 * names memcg-lab-1-2"); or -errno.  marker false: the mode is the marker
 * (tracefs), no attribute is looked for.
 */
int lab_owned(int fd, const char *owner, bool marker, char *why, size_t n);
/* The same for a lab run as uid (a dry run by another user looks at what
 * root's cleanup would take: uid 0, without the mark, which only root may
 * read). */
int lab_owned_by(int fd, unsigned uid, const char *owner, bool marker, char *why, size_t n);
/*
 * lab_open_dir_at() and lab_owned() in one: an fd of the directory name in
 * dirfd when the lab made it for owner; -1 with why when it is not the
 * lab's (a link, not a directory, lab_owned()'s reasons, or lab_owned()'s
 * -errno as text); or -errno when it cannot be opened (-ENOENT: not there),
 * with why set to its text too.
 */
int lab_open_owned_at(int dirfd, const char *name, const char *owner, bool marker, char *why, size_t n);
/* "a symbolic link", "not a directory", or strerror: why lab_open_dir_at()
 * refused (err is its -errno). */
const char *lab_open_dir_why(int err);

/*
 * Removes everything inside the directory open at fd, by fds only: each
 * entry is opened with O_NOFOLLOW|O_DIRECTORY before the walk goes into it,
 * so a link (one swapped in mid-walk too) is unlinked, never followed; the
 * walk does not cross into another mount (-EXDEV) nor go deeper than 64
 * levels (-ELOOP).  0 or the first -errno (the rest is still tried).
 */
int lab_rm_contents(int fd);
/* The directory name in dirfd and everything in it, as lab_rm_contents():
 * 0 (gone already counts), or -errno (-ELOOP/-ENOTDIR: not a directory,
 * left alone). */
int lab_rmtree_at(int dirfd, const char *name);

/* $TMPDIR when set and not empty, else /tmp. */
const char *lab_tmpdir_base(void);
/*
 * A fresh private temporary directory for this run: mkdtemp() of
 * <lab_tmpdir_base()>/memcg-lab-<pid>-<start>.XXXXXX (0700), marked; its
 * path in buf.  0, or -1 with a one-line reason naming it in err.
 */
int lab_tmpdir_create(char *buf, size_t n, char *err, size_t errlen);

#endif
