// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/rawdir.h"

int path_join(char *buf, size_t n, const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);

	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (dl + 1 + nl + 1 > n)
		return -ENAMETOOLONG;
	memmove(buf, dir, dl);
	buf[dl] = '/';
	memcpy(buf + dl + 1, name, nl + 1);
	return 0;
}

int rawdir_foreach_fd(int fd, rawdir_fd_fn fn, void *arg)
{
	/* 8-byte alignment for struct dirent64 records. */
	char buf[4096] __attribute__((aligned(8)));

	for (;;) {
		ssize_t n = getdents64(fd, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return 0;
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			bool is_dir = d->d_type == DT_DIR;
			int ret;

			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (d->d_type == DT_UNKNOWN) {
				struct stat st;

				is_dir = !fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
					 S_ISDIR(st.st_mode);
			}
			ret = fn(fd, d->d_name, is_dir, arg);
			if (ret)
				return ret;
		}
	}
}

struct by_path {
	const char *dir;
	rawdir_fn fn;
	void *arg;
};

static int by_path_fn(int fd, const char *name, bool is_dir, void *arg)
{
	struct by_path *b = arg;

	(void)fd;
	return b->fn(b->dir, name, is_dir, b->arg);
}

int rawdir_foreach(const char *dir, rawdir_fn fn, void *arg)
{
	struct by_path b = { dir, fn, arg };
	int fd, ret;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = rawdir_foreach_fd(fd, by_path_fn, &b);
	close(fd);
	return ret;
}
