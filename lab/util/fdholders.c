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

/* What the fd entry fddir/name points to, into link: false when it is
 * not a link (or is gone). */
static bool fd_target(const char *fddir, const char *name, char *link, size_t n)
{
	char path[512];
	ssize_t len;

	if (path_join(path, sizeof(path), fddir, name))
		return false;
	len = readlink(path, link, n - 1);
	if (len <= 0)
		return false;
	link[len] = '\0';
	return true;
}

/* Does any fd of process dir/pid point below the needle?  1 stops a walk. */
static int fd_matches(const char *dir, const char *name, bool is_dir, void *arg)
{
	const char *needle = arg;
	char link[1024];

	(void)is_dir;
	return fd_target(dir, name, link, sizeof(link)) && strstr(link, needle) != NULL;
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
	char link[1024];
	char *end;
	long fd;

	(void)is_dir;
	fd = strtol(name, &end, 10);
	if (*end || fd < 0 || !fd_target(fddir, name, link, sizeof(link)))
		return 0;
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
