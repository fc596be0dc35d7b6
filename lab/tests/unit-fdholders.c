// SPDX-License-Identifier: GPL-2.0
/*
 * util/fdholders.h: fd_close_under() closes this process's descriptors
 * below a directory and no other (a sibling whose name starts the same
 * stays open), and fd_holders() names this process as a holder while they
 * are open.  No root needed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/tap.h"
#include "util/fdholders.h"

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* The tree main() makes: tmp/inst (the directory the cases close under),
 * tmp/inst/per_cpu below it, tmp/inst2 a sibling whose name starts the same. */
static char tmp[] = "/tmp/unit-fdholders.XXXXXX", dir[128], sib[128], sub[128];

/* Descriptors in and out of dir, opened by the case (so that main(), the
 * cases' parent, holds none). */
struct fds {
	int in1, in2, in3, out1, out2;
};

static void open_fds(struct fds *d)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/trace", dir);
	d->in1 = open(path, O_RDWR | O_CREAT, 0600);
	snprintf(path, sizeof(path), "%s/trace_pipe_raw", sub);
	d->in2 = open(path, O_RDWR | O_CREAT, 0600);
	d->in3 = open(dir, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "%s/trace", sib);
	d->out1 = open(path, O_RDWR | O_CREAT, 0600);
	d->out2 = open(tmp, O_RDONLY | O_DIRECTORY);
}

TEST(holders_name_this_process)
{
	char who[256];
	struct fds d;
	int n;

	open_fds(&d);
	n = fd_holders("inst", who, sizeof(who));
	ok(n == 1 && strstr(who, "unit-fdholders"), "fd_holders names this process while it holds files in inst (%s)", who);
}

TEST(close_under_closes_only_below)
{
	char path[160];
	struct fds d;
	int n;

	open_fds(&d);
	n = fd_close_under(dir);
	ok(n == 3, "fd_close_under closes the 3 descriptors at and below the directory (%d)", n);
	ok(!is_open(d.in1) && !is_open(d.in2) && !is_open(d.in3), "the file, the one a level down and the directory itself");
	ok(is_open(d.out1), "a file of a sibling whose name starts the same stays open");
	ok(is_open(d.out2), "the parent directory stays open");
	ok(fd_close_under(dir) == 0, "a second call finds nothing to close");
	snprintf(path, sizeof(path), "%s/", sib);
	ok(fd_close_under(path) == 1 && !is_open(d.out1), "a trailing '/' names the same directory");
	close(d.out2);
}

int main(int argc, char **argv)
{
	char path[160];
	int rc;

	if (!mkdtemp(tmp))
		return 1;
	snprintf(dir, sizeof(dir), "%s/inst", tmp);
	snprintf(sib, sizeof(sib), "%s/inst2", tmp);
	snprintf(sub, sizeof(sub), "%s/inst/per_cpu", tmp);
	mkdir(dir, 0700);
	mkdir(sib, 0700);
	mkdir(sub, 0700);
	rc = tap_main(argc, argv);
	snprintf(path, sizeof(path), "%s/trace", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/trace_pipe_raw", sub);
	unlink(path);
	snprintf(path, sizeof(path), "%s/trace", sib);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
	rmdir(sib);
	rmdir(tmp);
	return rc;
}
