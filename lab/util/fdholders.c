// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/fdholders.h"
#include "util/fileio.h"
#include "util/rawdir.h"
#include "util/strfmt.h"

#define MAX_NAMED 4

struct holder_scan {
	char needle[512];
	char *buf;
	size_t n;
	int found;
};

/* Does any fd of process dir/pid point below the needle?  1 stops a walk. */
static int fd_matches(const char *dir, const char *name, bool is_dir, void *arg)
{
	const char *needle = arg;
	char path[512], link[1024];
	ssize_t len;

	(void)is_dir;
	if (path_join(path, sizeof(path), dir, name))
		return 0;
	len = readlink(path, link, sizeof(link) - 1);
	if (len <= 0)
		return 0;
	link[len] = '\0';
	return strstr(link, needle) != NULL;
}

static int scan_pid(const char *dir, const char *name, bool is_dir, void *arg)
{
	struct holder_scan *s = arg;
	char fds[512], comm[64] = "?", path[512];
	ssize_t len;

	(void)dir;
	if (!is_dir || name[strspn(name, "0123456789")] != '\0')
		return 0;
	snprintf(fds, sizeof(fds), "/proc/%s/fd", name);
	if (rawdir_foreach(fds, fd_matches, s->needle) != 1)
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/comm", name);
	len = read_buf(path, comm, sizeof(comm));
	if (len > 0 && comm[len - 1] == '\n')
		comm[len - 1] = '\0';
	if (s->found < MAX_NAMED)
		str_appendf(s->buf, s->n, "%spid %s (%s)", s->found ? ", " : "", name, comm);
	else if (s->found == MAX_NAMED)
		str_appendf(s->buf, s->n, ", ...");
	s->found++;
	return 0;
}

int fd_holders(const char *name, char *buf, size_t n)
{
	struct holder_scan s = { .buf = buf, .n = n };

	if (n)
		buf[0] = '\0';
	snprintf(s.needle, sizeof(s.needle), "/%s/", name);
	rawdir_foreach("/proc", scan_pid, &s);
	return s.found;
}

struct close_scan {
	const char *dir;
	size_t len;
	int closed;
};

static int close_if_under(const char *fddir, const char *name, bool is_dir, void *arg)
{
	struct close_scan *c = arg;
	char path[64], link[1024];
	ssize_t len;
	char *end;
	long fd;

	(void)is_dir;
	fd = strtol(name, &end, 10);
	if (*end || fd < 0 || path_join(path, sizeof(path), fddir, name))
		return 0;
	len = readlink(path, link, sizeof(link) - 1);
	if (len <= 0)
		return 0;
	link[len] = '\0';
	if (!strncmp(link, c->dir, c->len) && (link[c->len] == '/' || !link[c->len]) && close((int)fd) == 0)
		c->closed++;
	return 0;
}

int fd_close_under(const char *dir)
{
	struct close_scan c = { dir, strlen(dir), 0 };

	while (c.len > 1 && dir[c.len - 1] == '/')
		c.len--;
	if (!c.len)
		return 0;
	rawdir_foreach("/proc/self/fd", close_if_under, &c);
	return c.closed;
}
