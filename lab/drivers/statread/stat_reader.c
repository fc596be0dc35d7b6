// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "drivers/statread/stat_reader.h"
#include "util/err.h"

/* memory.stat is ~1.5 KiB (v1 with total_*) to ~3 KiB (v2); numa_stat grows
 * with the node count.  The buffer doubles if a read ever fills it. */
#define INITIAL_BUF (64 << 10)

int stat_reader_prepare(struct stat_reader *r)
{
	r->bufsz = INITIAL_BUF;
	r->buf = xmalloc(r->bufsz);
	for (int i = 0; i < r->nfiles; i++) {
		/* Own cachelines: another reader's hot count/min/max must not
		 * share a line with this one's buckets. */
		if (posix_memalign((void **)&r->hist[i], 64, sizeof(*r->hist[i])))
			die("out of memory for a reader's histogram");
		hist_init(r->hist[i]);
		r->fd[i] = -1;
		if (r->reopen)
			continue;
		r->fd[i] = open(r->path[i], O_RDONLY | O_CLOEXEC);
		if (r->fd[i] < 0) {
			r->first_errno = errno;
			return -errno;
		}
	}
	return 0;
}

void stat_reader_release(struct stat_reader *r)
{
	for (int i = 0; i < r->nfiles; i++) {
		if (r->fd[i] >= 0)
			close(r->fd[i]);
		r->fd[i] = -1;
		free(r->hist[i]);
		r->hist[i] = NULL;
	}
	free(r->buf);
	r->buf = NULL;
}

/* One read of the whole file; bytes or -errno.  Not timed here. */
static ssize_t read_once(struct stat_reader *r, int i)
{
	ssize_t n;
	int fd = r->fd[i];

	if (r->reopen) {
		fd = open(r->path[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	n = pread(fd, r->buf, r->bufsz, 0);
	if (n < 0)
		n = -errno;
	if (r->reopen)
		close(fd);
	return n;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ull, .tv_nsec = t % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void stat_reader_loop(struct stat_reader *r)
{
	uint64_t next = r->first_ns, first_measured = 0, last_end = 0, t1 = 0;

	sleep_until(r->first_ns);
	for (;;) {
		for (int i = 0; i < r->nfiles; i++) {
			uint64_t t0 = mono_ns();
			ssize_t n;

			if (t0 >= r->end_ns || *r->stop)
				goto out;
			n = read_once(r, i);
			t1 = mono_ns();
			if (n >= (ssize_t)r->bufsz) {
				/* Truncated: grow and do not count this one. */
				r->bufsz *= 2;
				r->buf = xrealloc(r->buf, r->bufsz);
				continue;
			}
			if (t0 < r->measure_ns)
				continue;
			if (n < 0) {
				r->errors[i]++;
				if (!r->first_errno)
					r->first_errno = (int)-n;
				continue;
			}
			if (!first_measured)
				first_measured = t0;
			last_end = t1;
			hist_record(r->hist[i], t1 - t0);
			r->reads[i]++;
		}
		if (!r->interval_ns)
			continue;
		next += r->interval_ns;
		if (next <= t1) {
			/* Overran one or more periods: skip them rather than burst. */
			uint64_t skip = (t1 - next) / r->interval_ns + 1;

			if (t1 >= r->measure_ns)
				r->missed_ticks += skip;
			next += skip * r->interval_ns;
		}
		sleep_until(next);
	}
out:
	r->loop_ns = first_measured ? last_end - first_measured : 0;
}
