// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline of bench/charge.sh: the anon mode's faults as a plain C loop,
 * without the harness (no shared counters, no barrier, no sampler): fault
 * every page of a 1 MiB private anonymous range (no THP), MADV_DONTNEED it,
 * again.  Pinned to one CPU; prints "ops_per_s user_share_percent
 * ops_per_cpu_second" over the seconds after the warm-up.
 *
 *   plain-anon CPU SECONDS WARMUP
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#define SIZE (1UL << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu(double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	double secs, warm, t0, tw = 0, u0 = 0, s0 = 0, u1, s1, t1;
	unsigned long n = 0, n0 = 0;
	long page = 4096;
	cpu_set_t set;
	char *p;

	if (argc != 4) {
		fprintf(stderr, "usage: plain-anon CPU SECONDS WARMUP\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	secs = atof(argv[2]);
	warm = atof(argv[3]);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("sched_setaffinity");
		return 2;
	}
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	madvise(p, SIZE, MADV_NOHUGEPAGE);
	t0 = now();
	for (;;) {
		double t;

		for (unsigned long off = 0; off < SIZE; off += page) {
			p[off] = 1;
			n++;
		}
		madvise(p, SIZE, MADV_DONTNEED);
		t = now();
		if (!tw && t - t0 >= warm) {
			tw = t;
			n0 = n;
			u0 = cpu(&s0);
		}
		if (tw && t - tw >= secs)
			break;
	}
	t1 = now();
	u1 = cpu(&s1);
	printf("%.1f %.2f %.1f\n", (n - n0) / (t1 - tw), 100 * (u1 - u0) / ((u1 - u0) + (s1 - s0)),
	       (n - n0) / ((u1 - u0) + (s1 - s0)));
	return 0;
}
