// SPDX-License-Identifier: GPL-2.0
/*
 * What the stat-read workload's instruments cost, next to the tools a user
 * would otherwise reach for, measured in the same run:
 *
 *  1. Reader self-cost: the statread reader reading memory.stat back to back
 *     (drivers/statread/stat_reader.c, the same loop the workload runs).  Time in the
 *     loop outside the timed read()s, per read, as a share of the read
 *     itself (target: <= 5%).  Compared with a bare untimed pread() loop and
 *     with `cat memory.stat` in a shell loop.
 *  2. Histogram record cost per value (util/hist.h), compared with what
 *     one would otherwise do: keep every value and sort at the end.
 *
 * usage: statread-selfcost [FILE]   (default: memory.stat of the memory
 * controller's root cgroup; only read, nothing is created)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "util/hist.h"
#include "drivers/statread/stat_reader.h"
#include "kernel/cgroup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/run.h"

#define NS 1000000000ull

static double bare_reads(const char *path, uint64_t ns)
{
	char *buf = xmalloc(64 << 10);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t t0 = mono_ns(), n = 0, t;

	if (fd < 0)
		die("%s: cannot open", path);
	/* The clock is read once per 64 reads: close to a free loop. */
	do {
		for (int i = 0; i < 64; i++)
			if (pread(fd, buf, 64 << 10, 0) < 0)
				die("%s: read failed", path);
		n += 64;
		t = mono_ns();
	} while (t - t0 < ns);
	close(fd);
	free(buf);
	return (double)(t - t0) / n;
}

static double cat_reads(const char *path, int n)
{
	/* The loop a user's script runs; the file and the count are its
	 * arguments, never part of the script. */
	static const char loop[] = "i=0; while [ $i -lt \"$2\" ]; do cat -- \"$1\" >/dev/null; i=$((i+1)); done";
	char *count = xasprintf("%d", n), *out;
	uint64_t t0 = mono_ns();
	struct run_result r;

	out = run_capture_argv((const char *const[]){ "sh", "-c", loop, "sh", path, count, NULL }, RUN_STDERR_DISCARD, &r);
	free(out);
	free(count);
	return r.status == 0 ? (double)(mono_ns() - t0) / n : -1;
}

/* One timed run of the statread reader loop, back to back, for ns. */
static void timed_reads(const char *path, uint64_t ns, uint64_t *reads, uint64_t *loop_ns,
			uint64_t *read_ns)
{
	static const volatile int never;
	struct stat_reader *r;

	if (posix_memalign((void **)&r, 64, sizeof(*r)))
		die("out of memory");
	memset(r, 0, sizeof(*r));
	r->nfiles = 1;
	r->path[0] = (char *)path;
	r->stop = &never;
	if (stat_reader_prepare(r) < 0)
		die("%s: cannot open", path);
	r->first_ns = mono_ns();
	r->measure_ns = r->first_ns + ns / 10;	/* warm-up */
	r->end_ns = r->measure_ns + ns;
	stat_reader_loop(r);
	*reads += r->reads[0];
	*loop_ns += r->loop_ns;
	*read_ns += r->hist[0]->sum;
	stat_reader_release(r);
	free(r);
}

/* Rounds alternate the two loops, so that load from elsewhere on the
 * machine hits both alike; the best round of each is compared. */
#define READ_ROUNDS 5
#define ROUND_NS (NS / 2)

static void reader_selfcost(const char *path)
{
	uint64_t reads = 0, loop_ns = 0, read_ns = 0;
	double best_timed = 1e18, best_bare = 1e18, cat, self, mean;

	for (int i = 0; i < READ_ROUNDS; i++) {
		uint64_t n = 0, l = 0, rd = 0;
		double bare;

		timed_reads(path, ROUND_NS, &n, &l, &rd);
		reads += n;
		loop_ns += l;
		read_ns += rd;
		if ((double)l / n < best_timed)
			best_timed = (double)l / n;
		bare = bare_reads(path, ROUND_NS);
		if (bare < best_bare)
			best_bare = bare;
	}
	cat = cat_reads(path, 200);
	mean = (double)read_ns / reads;
	self = ((double)loop_ns - (double)read_ns) / reads;
	printf("reader self-cost (%s, %llu reads back to back in %d rounds):\n", path,
	       (unsigned long long)reads, READ_ROUNDS);
	printf("  timed read            %10.0f ns per read (mean of the histograms)\n", mean);
	printf("  outside the read      %10.0f ns per read = %.2f%% of the read (target <= 5%%)\n",
	       self, 100 * self / mean);
	printf("  whole loop, best round %9.0f ns per read; untimed pread loop, best round %.0f ns: "
	       "ratio %.3f\n", best_timed, best_bare, best_timed / best_bare);
	if (cat > 0)
		printf("  `cat` in a shell loop %10.0f ns per read: %.0fx the statread reader\n",
		       cat, cat / best_timed);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void hist_cost(void)
{
	enum { N = 1 << 20, ROUNDS = 20 };
	uint64_t *v = xmalloc(N * sizeof(*v)), *copy = xmalloc(N * sizeof(*v));
	uint64_t rng = 88172645463325252ull, t0, t_hist, t_sort, sink = 0;
	static struct hist h;

	/* Read latencies from ~5 us to ~1 s, log-uniform-ish. */
	for (int i = 0; i < N; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		v[i] = 5000 + (rng >> (28 + rng % 36));
	}
	hist_init(&h);
	t0 = mono_ns();
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < N; i++)
			hist_record(&h, v[i]);
	t_hist = mono_ns() - t0;
	sink += hist_quantile(&h, 0.99);

	t0 = mono_ns();
	for (int r = 0; r < ROUNDS; r++) {
		memcpy(copy, v, N * sizeof(*v));
		qsort(copy, N, sizeof(*copy), cmp_u64);
		sink += copy[(size_t)(N * 0.99)];
	}
	t_sort = mono_ns() - t0;
	printf("histogram record cost (%d values):\n", N * ROUNDS);
	printf("  hist_record           %10.2f ns per value (%d buckets, 1/32 relative error)\n",
	       (double)t_hist / ((double)N * ROUNDS), HIST_NBUCKETS);
	printf("  keep all + qsort      %10.2f ns per value: %.1fx hist_record (and %zu bytes per value "
	       "instead of a fixed %zu KiB)\n", (double)t_sort / ((double)N * ROUNDS),
	       (double)t_sort / (double)t_hist, sizeof(uint64_t), sizeof(struct hist) >> 10);
	if (sink == 42)
		putchar(' ');
	free(v);
	free(copy);
}

int main(int argc, char **argv)
{
	struct cg_env env;
	char *path;

	if (argc > 1) {
		path = xstrdup(argv[1]);
	} else {
		if (cg_detect(&env, NULL) < 0 || env.mode == CG_NONE) {
			printf("reader self-cost: SKIPPED: no memory controller mounted (give a file to read)\n");
			hist_cost();
			return 0;
		}
		path = xasprintf("%s/memory.stat", env.memory_root);
	}
	if (!path_exists(path)) {
		printf("reader self-cost: SKIPPED: %s does not exist\n", path);
	} else {
		reader_selfcost(path);
	}
	hist_cost();
	free(path);
	return 0;
}
