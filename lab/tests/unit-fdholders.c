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

int main(void)
{
	char tmp[] = "/tmp/unit-fdholders.XXXXXX", dir[128], sib[128], sub[128], path[160], who[256];
	int in1, in2, in3, out1, out2, n;

	if (!mkdtemp(tmp))
		return 1;
	snprintf(dir, sizeof(dir), "%s/inst", tmp);
	snprintf(sib, sizeof(sib), "%s/inst2", tmp);
	snprintf(sub, sizeof(sub), "%s/inst/per_cpu", tmp);
	mkdir(dir, 0700);
	mkdir(sib, 0700);
	mkdir(sub, 0700);
	snprintf(path, sizeof(path), "%s/trace", dir);
	in1 = open(path, O_RDWR | O_CREAT, 0600);
	snprintf(path, sizeof(path), "%s/trace_pipe_raw", sub);
	in2 = open(path, O_RDWR | O_CREAT, 0600);
	in3 = open(dir, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "%s/trace", sib);
	out1 = open(path, O_RDWR | O_CREAT, 0600);
	out2 = open(tmp, O_RDONLY | O_DIRECTORY);

	n = fd_holders("inst", who, sizeof(who));
	ok(n == 1 && strstr(who, "unit-fdholders"), "fd_holders names this process while it holds files in inst (%s)", who);
	n = fd_close_under(dir);
	ok(n == 3, "fd_close_under closes the 3 descriptors at and below the directory (%d)", n);
	ok(!is_open(in1) && !is_open(in2) && !is_open(in3), "the file, the one a level down and the directory itself");
	ok(is_open(out1), "a file of a sibling whose name starts the same stays open");
	ok(is_open(out2), "the parent directory stays open");
	ok(fd_close_under(dir) == 0, "a second call finds nothing to close");
	snprintf(path, sizeof(path), "%s/", sib);
	ok(fd_close_under(path) == 1 && !is_open(out1), "a trailing '/' names the same directory");
	close(out2);
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
	return tap_done();
}
