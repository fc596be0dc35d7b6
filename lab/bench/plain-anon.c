// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline of bench/charge.sh: the anon mode's faults as the loop of
 * will-it-scale's page_fault1 (tests/page_fault1.c: `c[i] = 0;
 * (*iterations)++;`, the count in memory shared with its parent), without
 * the harness (no barrier, no sampler, no cgroup or CPU plumbing): fault
 * every page of a 1 MiB private anonymous range (no THP), MADV_DONTNEED it,
 * again.  Pinned to one CPU; prints "ops_per_s user_share_percent
 * ops_per_cpu_second" over the seconds after the warm-up.
 *
 * The count is part of the baseline: a store after each faulting store
 * moves the kernel's tick-sampled user share by 3 to 5 points on this VM
 * (7.5% bare, 10-13% counted, at the same fault rate), so a bare loop
 * would charge that to the harness, which must count its operations as
 * will-it-scale does.
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
	unsigned long long *iterations;
	unsigned long n0 = 0;
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
	/* will-it-scale's per-task count lives in a shared mapping too. */
	iterations = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (iterations == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	t0 = now();
	for (;;) {
		double t;

		for (unsigned long off = 0; off < SIZE; off += page) {
			p[off] = 1;
			(*iterations)++;
		}
		madvise(p, SIZE, MADV_DONTNEED);
		t = now();
		if (!tw && t - t0 >= warm) {
			tw = t;
			n0 = *iterations;
			u0 = cpu(&s0);
		}
		if (tw && t - tw >= secs)
			break;
	}
	t1 = now();
	u1 = cpu(&s1);
	printf("%.1f %.2f %.1f\n", (*iterations - n0) / (t1 - tw), 100 * (u1 - u0) / ((u1 - u0) + (s1 - s0)),
	       (*iterations - n0) / ((u1 - u0) + (s1 - s0)));
	return 0;
}
