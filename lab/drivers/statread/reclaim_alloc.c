// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "drivers/statread/reclaim_alloc.h"
#include "util/futexword.h"

/* One chunk per progress update: big enough that the update is noise,
 * small enough that a stop request is seen within a millisecond or so. */
#define CHUNK (256 << 10)

const char *const alloc_kind_names[] = { "file", "tmpfs", "anon" };

int alloc_kind_parse(const char *s, enum alloc_kind *k)
{
	for (int i = 0; i <= ALLOC_ANON; i++) {
		if (!strcmp(s, alloc_kind_names[i])) {
			*k = (enum alloc_kind)i;
			return 0;
		}
	}
	return -1;
}

bool alloc_kind_needs_swap(enum alloc_kind k)
{
	return k != ALLOC_FILE;
}

int reclaim_alloc_open_file(const char *dir, int64_t bytes)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		char path[PATH_MAX];

		/* No O_TMPFILE on this filesystem: a name that lives for a moment. */
		if (snprintf(path, sizeof(path), "%s/memcg-lab-alloc-XXXXXX", dir) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, bytes) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

static bool done(const struct reclaim_alloc *a)
{
	return *a->stop || (a->work > 0 && a->slot->bytes >= (uint64_t)a->work);
}

/* Page cache: read the sparse file front to back, again and again. */
static int run_file(struct reclaim_alloc *a)
{
	char *buf = malloc(CHUNK);
	int fd = reclaim_alloc_open_file(a->file_dir, a->bytes);
	off_t off = 0;

	if (fd < 0 || !buf)
		return fd < 0 ? -fd : ENOMEM;
	while (!done(a)) {
		ssize_t n = pread(fd, buf, CHUNK, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0) {
			off = 0;
			continue;
		}
		off += n;
		a->slot->bytes += n;
	}
	close(fd);
	free(buf);
	return 0;
}

/* Shmem: write the file, read it back, truncate it (stress.sh's dd loop). */
static int run_tmpfs(struct reclaim_alloc *a)
{
	char *buf = malloc(CHUNK);
	int fd = memfd_create("memcg-lab-alloc", MFD_CLOEXEC);

	if (fd < 0 || !buf)
		return fd < 0 ? errno : ENOMEM;
	memset(buf, 0x5a, CHUNK);
	while (!done(a)) {
		for (off_t off = 0; off < a->bytes && !done(a); off += CHUNK) {
			if (pwrite(fd, buf, CHUNK, off) < 0 && errno != EINTR)
				return errno;
			a->slot->bytes += CHUNK;
		}
		for (off_t off = 0; off < a->bytes && !done(a); off += CHUNK)
			if (pread(fd, buf, CHUNK, off) < 0 && errno != EINTR)
				return errno;
		if (ftruncate(fd, 0) < 0)
			return errno;
	}
	close(fd);
	free(buf);
	return 0;
}

/* Anonymous memory: dirty every page, again and again. */
static int run_anon(struct reclaim_alloc *a)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, a->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char v = 1;

	if (p == MAP_FAILED)
		return errno;
	while (!done(a)) {
		for (int64_t off = 0; off < a->bytes && !done(a); off += CHUNK) {
			int64_t end = off + CHUNK < a->bytes ? off + CHUNK : a->bytes;

			for (int64_t q = off; q < end; q += page)
				p[q] = v;
			a->slot->bytes += end - off;
		}
		v++;
	}
	munmap(p, a->bytes);
	return 0;
}

int reclaim_alloc_main(void *arg)
{
	struct reclaim_alloc *a = arg;

	while (!futex_word_load(a->go))
		futex_word_wait(a->go, 0, NULL);
	switch (a->kind) {
	case ALLOC_FILE:
		return run_file(a);
	case ALLOC_TMPFS:
		return run_tmpfs(a);
	case ALLOC_ANON:
		return run_anon(a);
	}
	return EINVAL;
}
