// SPDX-License-Identifier: GPL-2.0
/*
 * file: page cache on tmpfs.  Each worker opens an unnamed O_TMPFILE file
 * in the tmpfs directory (nothing to remove, even after SIGKILL: it goes
 * away with its last descriptor), fills it with fallocate() and frees it by
 * punching a hole.  Every page allocated charges the worker's memcg as shmem
 * page cache; the hole punch uncharges it.  Kernels or directories without
 * O_TMPFILE get a named file that is unlinked right after it is created.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "drivers/charge/loops.h"
#include "util/owner.h"

struct file_state {
	int fd;
	size_t size, page;
};

static int open_tmpfile(const char *dir, int index, char *err, size_t errlen)
{
	char name[128], path[4096];
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		goto out;
	lab_owner_name(name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s-file-%d", dir, name, index);
	fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		unlink(path);
out:
	if (fd < 0)
		snprintf(err, errlen, "%s: cannot create a file: %s", dir, strerror(errno));
	return fd;
}

static int file_setup(struct hworker *w, void **state)
{
	const struct charge_opts *o = w->cfg;
	struct file_state *f = calloc(1, sizeof(*f));
	struct statfs sfs;
	int e;

	if (!f)
		return -ENOMEM;
	f->size = o->size;
	f->page = o->page;
	f->fd = open_tmpfile(o->tmpfs, w->index, w->err, sizeof(w->err));
	if (f->fd < 0) {
		e = errno;
		free(f);
		return -e;
	}
	if (fstatfs(f->fd, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC) {
		snprintf(w->err, sizeof(w->err), "%s: not on tmpfs", o->tmpfs);
		close(f->fd);
		free(f);
		return -EINVAL;
	}
	*state = f;
	return 0;
}

static int file_loop(void *state, uint64_t *count, const int *stop)
{
	struct file_state *f = state;
	uint64_t pages = f->size / f->page;

	while (!hstop(stop)) {
		if (fallocate(f->fd, 0, 0, (off_t)f->size) < 0)
			return -errno;
		hcount_add(count, pages);
		if (fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)f->size) < 0)
			return -errno;
	}
	return 0;
}

static void file_teardown(void *state)
{
	struct file_state *f = state;

	close(f->fd);
	free(f);
}

const struct hloop loop_file = {
	.name = "file",
	.what = "tmpfs page-cache pages allocated by fallocate() and freed by a hole punch "
		"(each: one page charged as shmem, later uncharged)",
	.unit = "pages",
	.rate_unit = "ops/s",
	.rate_scale = 1,
	.setup = file_setup,
	.loop = file_loop,
	.teardown = file_teardown,
};
