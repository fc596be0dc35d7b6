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

int rawdir_foreach(const char *dir, rawdir_fn fn, void *arg)
{
	/* 8-byte alignment for struct dirent64 records. */
	char buf[4096] __attribute__((aligned(8)));
	int fd, ret = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = getdents64(fd, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			bool is_dir = d->d_type == DT_DIR;

			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (d->d_type == DT_UNKNOWN) {
				struct stat st;

				is_dir = !fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
					 S_ISDIR(st.st_mode);
			}
			ret = fn(dir, d->d_name, is_dir, arg);
			if (ret)
				goto out;
		}
	}
out:
	close(fd);
	return ret;
}
