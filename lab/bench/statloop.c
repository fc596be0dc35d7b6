// SPDX-License-Identifier: GPL-2.0
/*
 * statloop FILE THREADS SECONDS: threads reading FILE (a memory.stat) in a
 * loop, for the tracer-overhead benchmark.  Per-thread counters on their own
 * cache lines, a start barrier, the first quarter second discarded; prints
 * "reads_per_sec N cpu_sec C reads R": the CPU time the readers used in the
 * window lets a benchmark compare cost per read on a machine others load.
 * (A stand-in until the lab's stat-read driver lands.)
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct worker {
	_Alignas(256) atomic_ulong reads;
	pthread_t t;
};

static const char *path;
static pthread_barrier_t start;
static atomic_int stop;

static void *run(void *arg)
{
	struct worker *w = arg;
	char buf[16384];

	pthread_barrier_wait(&start);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int fd = open(path, O_RDONLY);

		if (fd < 0) {
			perror(path);
			exit(2);
		}
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
		atomic_fetch_add_explicit(&w->reads, 1, memory_order_relaxed);
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static unsigned long total(struct worker *w, int n)
{
	unsigned long s = 0;

	for (int i = 0; i < n; i++)
		s += atomic_load(&w[i].reads);
	return s;
}

int main(int argc, char **argv)
{
	int n;
	double secs, t0, t1, c0, c1;
	unsigned long r0, r1;
	struct worker *w;

	if (argc != 4 || (n = atoi(argv[2])) < 1 || (secs = atof(argv[3])) <= 0) {
		fprintf(stderr, "usage: statloop FILE THREADS SECONDS\n");
		return 2;
	}
	path = argv[1];
	w = aligned_alloc(256, n * sizeof(*w));
	pthread_barrier_init(&start, NULL, n + 1);
	for (int i = 0; i < n; i++) {
		atomic_init(&w[i].reads, 0);
		pthread_create(&w[i].t, NULL, run, &w[i]);
	}
	pthread_barrier_wait(&start);
	usleep(250000);		/* warm-up, discarded */
	r0 = total(w, n);
	t0 = now();
	c0 = cpu();
	usleep((useconds_t)(secs * 1e6));
	r1 = total(w, n);
	t1 = now();
	c1 = cpu();
	atomic_store(&stop, 1);
	for (int i = 0; i < n; i++)
		pthread_join(w[i].t, NULL);
	printf("reads_per_sec %.0f cpu_sec %.3f reads %lu\n", (r1 - r0) / (t1 - t0), c1 - c0, r1 - r0);
	return 0;
}
