// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "util/owned.h"
#include "util/owner.h"
#include "util/rawdir.h"

#define RM_MAX_DEPTH 64

const char *lab_mark_name(void)
{
	return geteuid() == 0 ? "trusted.memcg-lab" : "user.memcg-lab";
}

int lab_mark(int fd, const char *owner)
{
	return fsetxattr(fd, lab_mark_name(), owner, strlen(owner), 0) ? -errno : 0;
}

int lab_open_dir_at(int dirfd, const char *name)
{
	/* O_NONBLOCK: a FIFO of that name must not hang the open (O_DIRECTORY
	 * refuses it anyway, before opening). */
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

const char *lab_open_dir_why(int err)
{
	if (err == -ELOOP)
		return "a symbolic link";
	if (err == -ENOTDIR)
		return "not a directory";
	return strerror(-err);
}

int lab_owned(int fd, const char *owner, bool marker, char *why, size_t n)
{
	return lab_owned_by(fd, geteuid(), owner, marker, why, n);
}

int lab_owned_by(int fd, unsigned uid, const char *owner, bool marker, char *why, size_t n)
{
	char val[128];
	struct stat st;
	ssize_t len;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, n, "not a directory");
		return 1;
	}
	if (st.st_uid != uid) {
		snprintf(why, n, "owned by uid %u, not the lab's uid %u", (unsigned)st.st_uid, uid);
		return 1;
	}
	if ((st.st_mode & 07777) != LAB_DIR_MODE) {
		snprintf(why, n, "mode %04o, not the lab's %04o", (unsigned)(st.st_mode & 07777), LAB_DIR_MODE);
		return 1;
	}
	if (!marker)
		return 0;
	len = fgetxattr(fd, lab_mark_name(), val, sizeof(val) - 1);
	if (len < 0) {
		/* No attributes on this file system: the mode is the marker. */
		if (errno == EOPNOTSUPP)
			return 0;
		if (errno == ENODATA) {
			snprintf(why, n, "no lab marker (xattr %s)", lab_mark_name());
			return 1;
		}
		if (errno == ERANGE) {
			snprintf(why, n, "its xattr %s is not a lab marker", lab_mark_name());
			return 1;
		}
		return -errno;
	}
	val[len] = '\0';
	if (strcmp(val, owner)) {
		snprintf(why, n, "its lab marker names %.64s, not %s", val, owner);
		return 1;
	}
	return 0;
}

int lab_open_owned_at(int dirfd, const char *name, const char *owner, bool marker, char *why, size_t n)
{
	int fd = lab_open_dir_at(dirfd, name), r;

	if (fd < 0) {
		snprintf(why, n, "%s", lab_open_dir_why(fd));
		return fd == -ELOOP || fd == -ENOTDIR ? -1 : fd;
	}
	r = lab_owned(fd, owner, marker, why, n);
	if (r == 0)
		return fd;
	close(fd);
	if (r < 0)
		snprintf(why, n, "%s", strerror(-r));
	return -1;
}

/* ---- removal by fds ----------------------------------------------------- */

struct rm_ctx {
	unsigned long long mnt;	/* the mount the walk stays on */
	int depth;
	int err;		/* the first error */
	int removed;		/* entries removed in this pass */
};

static unsigned long long mnt_of(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) || !(stx.stx_mask & STATX_MNT_ID))
		return 0;
	return stx.stx_mnt_id;
}

static int rm_dir(int fd, unsigned long long mnt, int depth);

static void rm_err(struct rm_ctx *r, int e)
{
	if (e && e != -ENOENT && !r->err)
		r->err = e;
}

static int rm_entry(int dirfd, const char *name, bool is_dir, void *arg)
{
	struct rm_ctx *r = arg;
	int fd, e;

	(void)is_dir;	/* d_type is a hint: the open below decides */
	fd = lab_open_dir_at(dirfd, name);
	if (fd == -ELOOP || fd == -ENOTDIR) {
		/* A file, a device, a FIFO, a socket or a link: the name goes,
		 * never what a link points to. */
		if (unlinkat(dirfd, name, 0) == 0)
			r->removed++;
		else
			rm_err(r, -errno);
		return 0;
	}
	if (fd < 0) {
		rm_err(r, fd);
		return 0;
	}
	e = rm_dir(fd, r->mnt, r->depth + 1);
	close(fd);
	if (e) {
		rm_err(r, e);
		return 0;
	}
	/* Whatever holds the name now: only an empty directory can go. */
	if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0)
		r->removed++;
	else
		rm_err(r, -errno);
	return 0;
}

static int rm_dir(int fd, unsigned long long mnt, int depth)
{
	struct rm_ctx r = { .mnt = mnt, .depth = depth };
	unsigned long long here = mnt_of(fd);

	if (depth > RM_MAX_DEPTH)
		return -ELOOP;
	if (mnt && here != mnt)
		return -EXDEV;
	/* Removing while listing may hide entries from the listing: list
	 * again until a pass removes nothing. */
	for (int pass = 0; pass < 8; pass++) {
		int e;

		r.removed = 0;
		if (lseek(fd, 0, SEEK_SET) < 0)
			return -errno;
		e = rawdir_foreach_fd(fd, rm_entry, &r);
		if (e)
			return e;
		if (!r.removed || r.err)
			break;
	}
	return r.err;
}

int lab_rm_contents(int fd)
{
	return rm_dir(fd, mnt_of(fd), 0);
}

int lab_rmtree_at(int dirfd, const char *name)
{
	int fd = lab_open_dir_at(dirfd, name), e;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	e = lab_rm_contents(fd);
	close(fd);
	if (e)
		return e;
	return unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -errno;
}

/* ---- temporary directories ---------------------------------------------- */

const char *lab_tmpdir_base(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

int lab_tmpdir_create(char *buf, size_t n, char *err, size_t errlen)
{
	char owner[64];
	int fd, e;

	lab_owner_name(owner, sizeof(owner));
	if (snprintf(buf, n, "%s/%s.XXXXXX", lab_tmpdir_base(), owner) >= (int)n) {
		snprintf(err, errlen, "%s: temporary directory path too long", lab_tmpdir_base());
		return -1;
	}
	/* mkdtemp: a name no one could have made ready for us, mode 0700. */
	if (!mkdtemp(buf)) {
		snprintf(err, errlen, "%s: cannot create a temporary directory: %s", buf, strerror(errno));
		return -1;
	}
	fd = lab_open_dir_at(AT_FDCWD, buf);
	e = fd < 0 ? fd : lab_mark(fd, owner);
	if (fd >= 0)
		close(fd);
	if (e && e != -EOPNOTSUPP) {
		rmdir(buf);
		snprintf(err, errlen, "%s: cannot mark the temporary directory as the lab's (xattr %s): %s", buf,
			 lab_mark_name(), strerror(-e));
		return -1;
	}
	return 0;
}
