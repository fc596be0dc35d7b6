// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util/err.h"
#include "util/fileio.h"

char *read_text(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

ssize_t read_buf(const char *path, char *buf, size_t size)
{
	ssize_t r, n = 0;
	int fd;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)n < size - 1) {
		r = read(fd, buf + n, size - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return r;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	return n;
}

int read_ll(const char *path, long long *out)
{
	char buf[64], *end;
	ssize_t n = read_buf(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	if (!strncmp(buf, "max", 3)) {
		*out = LLONG_MAX;
		return 0;
	}
	errno = 0;
	*out = strtoll(buf, &end, 10);
	if (end == buf || errno)
		return -EINVAL;
	return 0;
}

int write_text(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t r;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, s, len);
	if (r < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)r == len ? 0 : -EIO;
}

int write_ll(const char *path, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	return write_text(path, buf);
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	size_t off = 0;
	int fd, e;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t r = write(fd, data + off, len - off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += r;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return -e;
}

int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

bool path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

bool text_next_line(const char **pos, char *line, size_t size)
{
	const char *p = *pos, *nl;
	size_t len;

	if (!*p)
		return false;
	nl = strchr(p, '\n');
	len = nl ? (size_t)(nl - p) : strlen(p);
	*pos = nl ? nl + 1 : p + len;
	if (len >= size)
		len = size - 1;
	memcpy(line, p, len);
	line[len] = '\0';
	if (len && line[len - 1] == '\r')
		line[len - 1] = '\0';
	return true;
}

char *shell_quote(const char *s)
{
	size_t n = 3;
	char *q, *p;

	for (const char *c = s; *c; c++)
		n += *c == '\'' ? 4 : 1;
	q = p = xmalloc(n);
	*p++ = '\'';
	for (const char *c = s; *c; c++) {
		if (*c == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *c;
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

int anon_tmpfile(const char *dir, bool cloexec)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | (cloexec ? O_CLOEXEC : 0), 0600);

	if (fd >= 0)
		return fd;
	/* No O_TMPFILE on this filesystem: a name that lives for a moment. */
	for (int i = 0; i < 100; i++) {
		char *p = xasprintf("%s/memcg-lab-tmp.%ld.%d.%u", dir, (long)getpid(), i, (unsigned)random());

		fd = open(p, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | (cloexec ? O_CLOEXEC : 0), 0600);
		if (fd >= 0)
			unlink(p);
		free(p);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

char *path_last_name(const char *path)
{
	size_t len = strlen(path), start;

	while (len > 1 && path[len - 1] == '/')
		len--;
	start = len;
	while (start && path[start - 1] != '/')
		start--;
	return xasprintf("%.*s", (int)(len - start), path + start);
}
