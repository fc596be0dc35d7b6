/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One memory.stat reader: reads its files every interval (or back to back)
 * and times every read with CLOCK_MONOTONIC into its own histograms.
 *
 * The hot loop does no locking and no shared writes: the reader owns its
 * struct (cacheline-aligned), reads only its own fields plus one stop flag
 * that is written once, and decides from timestamps fixed before the start
 * whether a read falls into the warm-up (discarded) or the measured phase.
 * A read is one pread() at offset 0 on a file opened once (the kernel's
 * seq_file regenerates the text at offset 0), or with reopen set,
 * open+read+close as `cat` does.
 */
#ifndef LAB_DRIVERS_STAT_READER_H
#define LAB_DRIVERS_STAT_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "util/hist.h"

#define STAT_READER_MAX_FILES 2

struct stat_reader {
	/* Set before the start. */
	int nfiles;
	char *path[STAT_READER_MAX_FILES];
	int fd[STAT_READER_MAX_FILES];
	bool reopen;
	int64_t interval_ns;		/* 0: flat out */
	uint64_t first_ns;		/* first read (CLOCK_MONOTONIC), staggered per reader */
	uint64_t measure_ns;		/* reads starting before this are warm-up */
	uint64_t end_ns;		/* no read starts at or after this */
	const volatile int *stop;	/* ends the loop early when set */

	/* Results, owned by the reader until it returns. */
	struct hist *hist[STAT_READER_MAX_FILES];
	uint64_t reads[STAT_READER_MAX_FILES];	/* measured reads, counted apart from hist */
	uint64_t errors[STAT_READER_MAX_FILES];
	int first_errno;
	uint64_t missed_ticks;		/* periods skipped because a read overran */
	uint64_t loop_ns;		/* from the first measured read to the last one's end */
	char *buf;
	size_t bufsz;
} __attribute__((aligned(64)));

/* Opens the files (unless reopen) and allocates buffer and histograms;
 * 0 or -errno with r->first_errno set to the file that failed. */
int stat_reader_prepare(struct stat_reader *r);
/* The loop; returns when end_ns is reached or *stop is set. */
void stat_reader_loop(struct stat_reader *r);
void stat_reader_release(struct stat_reader *r);

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
