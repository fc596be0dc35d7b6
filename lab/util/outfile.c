// SPDX-License-Identifier: GPL-2.0
/*
 * The checks live in the stream (fopencookie): stdio calls write_fn with
 * each buffer it flushes and close_fn at fclose, so a failure is caught
 * where it happens, with its errno, whatever the caller does with the
 * return values of fprintf and fclose.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"

struct outfile {
	int fd;			/* -1 when it could not be opened */
	int err;		/* the first errno of this file; 0 while all is well */
	bool cut_short_goes;	/* a regular file opened "w": removed when cut short */
	off_t appended_at;	/* a regular file opened "a": its size then (-1: not one) */
	char path[];
};

static char first_failure[1024];
static int nfailures;
static int last_close_err;	/* for outfile_close's errno */

/* The runner reads what its children write to this fd (see outfile.h). */
static void tell_runner(const char *line)
{
	const char *env = getenv(OUTFILE_ENV_FD);
	char *end, buf[sizeof(first_failure) + 1];
	long fd;
	int n;

	if (!env || !env[0])
		return;
	fd = strtol(env, &end, 10);
	if (*end || fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%s\n", line);
	if (write((int)fd, buf, (size_t)n) < 0) {
		/* Nothing more to do: the exit status still says so. */
	}
}

void outfile_failure_line(const char *line)
{
	if (nfailures++)
		return;
	snprintf(first_failure, sizeof(first_failure), "%s", line);
	fflush(stdout);
	/* One line: the failures after the first are almost always the same
	 * full or read-only disk. */
	fprintf(stderr, "%s: %s\n", lab_progname, first_failure);
	tell_runner(first_failure);
}

void outfile_failure(const char *path, const char *verb, int err)
{
	char line[sizeof(first_failure)];

	snprintf(line, sizeof(line), "%s: %s: %s", path, verb, strerror(err));
	outfile_failure_line(line);
}

bool outfile_failed(void)
{
	return nfailures > 0;
}

const char *outfile_first_failure(void)
{
	return first_failure;
}

int outfile_nfailures(void)
{
	return nfailures;
}

static void fail(struct outfile *o, const char *verb, int err)
{
	if (o->err)
		return;
	o->err = err ? err : EIO;
	outfile_failure(o->path, verb, o->err);
}

static ssize_t write_fn(void *cookie, const char *buf, size_t n)
{
	struct outfile *o = cookie;
	size_t off = 0;

	if (o->err)
		return (ssize_t)n;	/* already reported: discard the rest */
	while (off < n) {
		ssize_t w = write(o->fd, buf + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fail(o, "cannot write", w < 0 ? errno : ENOSPC);
			return 0;	/* an error, for fopencookie (never negative) */
		}
		off += (size_t)w;
	}
	return (ssize_t)n;
}

static int close_fn(void *cookie)
{
	struct outfile *o = cookie;
	int ret;

	if (o->fd >= 0 && close(o->fd) < 0)
		fail(o, "cannot write", errno);
	/* Half a table must not pass for the table: a file written is
	 * removed; a file appended to keeps the rows that were there, and
	 * loses what this writer added (half a row, maybe): the run's status
	 * says it is short.  One that was empty (this writer made it) goes:
	 * an empty table has no header to pass for a table either. */
	if (o->err && o->fd >= 0 && o->cut_short_goes)
		unlink(o->path);
	else if (o->err && o->appended_at == 0)
		unlink(o->path);
	else if (o->err && o->appended_at > 0 && truncate(o->path, o->appended_at) < 0)
		unlink(o->path);
	ret = o->err ? -1 : 0;
	last_close_err = o->err;
	free(o);
	return ret;
}

FILE *outfile_open(const char *path, const char *mode)
{
	size_t len = strlen(path) + 1;
	struct outfile *o = xmalloc(sizeof(*o) + len);
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (mode[0] == 'a' ? O_APPEND : O_TRUNC);
	cookie_io_functions_t io = { .write = write_fn, .close = close_fn };
	FILE *f;

	memcpy(o->path, path, len);
	o->err = 0;
	o->fd = open(path, flags, 0644);
	o->cut_short_goes = false;
	o->appended_at = -1;
	if (o->fd < 0) {
		fail(o, "cannot write", errno);
	} else {
		struct stat st;
		bool reg = !fstat(o->fd, &st) && S_ISREG(st.st_mode);

		if (mode[0] != 'a')
			o->cut_short_goes = reg;
		else if (reg)
			o->appended_at = st.st_size;
	}
	f = fopencookie(o, mode[0] == 'a' ? "a" : "w", io);
	if (!f)
		die("%s: cannot open a stream: %s", path, strerror(errno));
	return f;
}

int outfile_close(FILE *f)
{
	last_close_err = 0;
	if (fclose(f) == 0 && !last_close_err)
		return 0;
	errno = last_close_err ? last_close_err : EIO;
	return -1;
}

void outfile_die(const char *err)
{
	if (outfile_failed() && !strcmp(err, first_failure))
		exit(EXIT_LAB_ERR);	/* that line is on stderr already */
	die("%s", err);
}

int outfile_capture(const char *name)
{
	return memfd_create(name, MFD_CLOEXEC);
}

int outfile_save_capture(int fd, const char *path)
{
	FILE *f = outfile_open(path, "w");
	char buf[65536];
	off_t off = 0;
	int ret = 0;

	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			outfile_failure(path, "cannot read what was captured for it", errno);
			ret = -1;
			break;
		}
		if (n == 0)
			break;
		fwrite(buf, 1, (size_t)n, f);
		off += n;
	}
	close(fd);
	return outfile_close(f) ? -1 : ret;
}

int outfile_write(const char *path, const char *data, size_t len)
{
	int e = write_file_atomic(path, data, len);

	if (e < 0) {
		outfile_failure(path, "cannot write", -e);
		errno = -e;
		return -1;
	}
	return 0;
}
