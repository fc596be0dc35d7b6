// SPDX-License-Identifier: GPL-2.0
/*
 * The lock tracer's cost on the stat-read workload, measured on the real
 * driver (drivers/statread/driver.h) exactly as `memcg-lab statread` runs it: a
 * tree with allocators keeping the leaves in reclaim, readers at every
 * level reading memory.stat back to back, and the lock collector hooked
 * around the measured phase (drivers/statread/lock_statread.h) or not.  Rounds of
 * one untraced and one traced run, the order alternating, so the load
 * others put on the machine hits both alike.  Per run: the readers' reads/s
 * and reads per CPU-second of this process (readers and tracer), and the
 * read() latency (p50, p99) over all levels; the medians of the per-round
 * ratios traced/untraced on the last line, with the least share of a
 * measured phase that the tracer covered (see timed_hook):
 *
 *   ratios: reads_per_s R reads_per_cpu_s C p50 P p99 Q covered S
 *
 * A traced run whose tracer did not start, or counted no memcg_flush_stats
 * call over most of the phase, and a run that failed (reads failed, allocators died, nothing
 * measured), end the benchmark with status 2: no ratio from a run that
 * did not do what it claims.
 *
 * usage: statread-tracer ROUNDS SECONDS   (root; creates a memcg-lab-* tree
 * per run and removes it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "util/hist.h"
#include "drivers/statread/lock_statread.h"
#include "drivers/statread/stat_reader.h"
#include "drivers/statread/driver.h"
#include "kernel/cgroup.h"
#include "util/cleanup.h"
#include "util/err.h"

struct figures {
	double reads_per_s;
	double reads_per_cpu_s;	/* this process's CPU: readers and tracer */
	uint64_t p50_ns, p99_ns;
	uint64_t flush_calls;
	double covered;		/* share of the measured phase the tracer ran in */
};

/*
 * A hook around the measured phase in both runs, with the lock hook inside
 * it in the traced one: it takes this process's CPU time (the readers'
 * threads and the tracer's, whose cost per read is what others' load on
 * the machine moves least) over the measured phase.  The collector's
 * expensive set-up runs in prepare, before the warm-up, and is not
 * charged; its start, at the phase's first moment, is.  The share of the
 * measured phase the tracer ran in is the driver's (traced_share): a traced
 * run that was mostly untraced would flatter the tracer.
 */
struct timed_hook {
	struct statread_hook inner;	/* .start NULL: nothing inside */
	double cpu0_s, cpu_s;
};

static double self_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static int timed_prepare(void *ctx, const struct statread_run_info *info)
{
	struct timed_hook *t = ctx;

	return t->inner.prepare ? t->inner.prepare(t->inner.ctx, info) : 0;
}

static int timed_start(void *ctx, const struct statread_run_info *info)
{
	struct timed_hook *t = ctx;
	int e = 0;

	t->cpu0_s = self_cpu_s();
	if (t->inner.start)
		e = t->inner.start(t->inner.ctx, info);
	return e;
}

static void timed_stop(void *ctx, const struct statread_run_info *info)
{
	struct timed_hook *t = ctx;

	t->cpu_s = self_cpu_s() - t->cpu0_s;
	if (t->inner.stop)
		t->inner.stop(t->inner.ctx, info);
}

static void run_once(const struct statread_plan *plan, bool traced, struct figures *fig)
{
	static struct statread_result res;
	struct timed_hook timed = { 0 };
	struct statread_hook hook = { 0 };
	struct lock_statread ls;
	struct hist all;
	uint64_t reads;

	if (traced)
		lock_statread_hook(&timed.inner, &ls);
	hook.name = traced ? timed.inner.name : "timer";
	hook.prepare = timed_prepare;
	hook.start = timed_start;
	hook.stop = timed_stop;
	hook.ctx = &timed;
	statread_run(plan, &hook, 1, &res);
	reads = statread_measured_reads(&res);
	if (res.interrupted)
		exit(130);
	if (res.oom_killed || res.died_other || res.first_errno || !reads || !hook.started ||
	    timed.cpu_s <= 0)
		die("the %s run failed (%d OOM-killed, %d allocators died, first read error %d, "
		    "%llu reads measured, %s)", traced ? "traced" : "untraced", res.oom_killed,
		    res.died_other, res.first_errno, (unsigned long long)reads,
		    hook.started ? "hook ran" : "hook did not start");
	fig->flush_calls = 0;
	fig->covered = 0;
	if (traced) {
		const struct flush_counts *fc = ls.c ? lock_collector_flushes(ls.c) : NULL;

		if (!fc || !fc->available)
			die("the traced run traced nothing (%s)", !ls.c ? "the lock collector did not start" :
			    "memcg:memcg_flush_stats not traced");
		fig->flush_calls = fc->calls;
		fig->covered = res.traced_share;
		/* Readers back to back flush (or skip) on every read. */
		if (!fc->calls && fig->covered > 0.5)
			die("the tracer counted no memcg_flush_stats call in %.1f s of reads",
			    fig->covered * res.measured_s);
		lock_statread_finish(&ls, &res, NULL, NULL);
	}
	fig->reads_per_s = reads / res.measured_s;
	fig->reads_per_cpu_s = reads / timed.cpu_s;
	hist_init(&all);
	for (int l = 0; l < SR_NLEVELS; l++)
		hist_merge(&all, &res.hist[l][SR_STAT]);
	fig->p50_ns = hist_quantile(&all, 0.50);
	fig->p99_ns = hist_quantile(&all, 0.99);
	statread_result_free(&res);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	struct statread_config cfg;
	struct statread_plan plan;
	struct statread_host host;
	struct cg_env env;
	char err[512];
	int rounds;
	double secs, *rate, *cpu, *p50, *p99, covered = 1;

	lab_progname = "statread-tracer";
	if (argc != 3 || (rounds = atoi(argv[1])) < 1 || (secs = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: statread-tracer ROUNDS SECONDS\n");
		return 2;
	}
	if (geteuid() != 0)
		die("needs root to create cgroups");
	cleanup_init();
	if (cg_detect(&env, NULL) < 0 || env.mode == CG_NONE)
		die("no memory controller mounted");
	/* One top-level cgroup with one leaf and one allocator in reclaim;
	 * a reader per level, back to back: the read path under load,
	 * small enough for a shared 2-CPU machine. */
	statread_config_defaults(&cfg);
	cfg.top = 1;
	cfg.children = 1;
	cfg.allocators = 1;
	cfg.flat_out = true;
	cfg.interval_ns = 0;
	cfg.duration_ns = (int64_t)(secs * 1e9);
	cfg.warmup_ns = 1000000000;
	statread_host_probe(&host, &env, NULL);
	if (host.file_dir_ok)
		cfg.file_dir = host.file_dir;
	if (statread_plan(&plan, &cfg, &env, &host, err, sizeof(err)) < 0)
		die("%s", err);
	rate = calloc(rounds, sizeof(*rate));
	cpu = calloc(rounds, sizeof(*cpu));
	p50 = calloc(rounds, sizeof(*p50));
	p99 = calloc(rounds, sizeof(*p99));
	if (!rate || !cpu || !p50 || !p99)
		die("out of memory");
	printf("stat-read driver: %d readers (root, top, leaf) back to back, %d allocator in reclaim; "
	       "%d rounds of (1 s warm-up + %g s) untraced and traced, order alternating\n",
	       plan.nreaders, plan.nallocators, rounds, secs);
	printf("%5s %10s %10s %8s %8s | %10s %10s %8s %8s %9s %7s\n", "round", "untraced/s", "/cpu-s",
	       "p50", "p99", "traced/s", "/cpu-s", "p50", "p99", "flushes", "covered");
	for (int r = 0; r < rounds; r++) {
		struct figures u, t;

		if (r % 2 == 0) {
			run_once(&plan, false, &u);
			run_once(&plan, true, &t);
		} else {
			run_once(&plan, true, &t);
			run_once(&plan, false, &u);
		}
		rate[r] = t.reads_per_s / u.reads_per_s;
		cpu[r] = t.reads_per_cpu_s / u.reads_per_cpu_s;
		p50[r] = (double)t.p50_ns / (double)u.p50_ns;
		p99[r] = (double)t.p99_ns / (double)u.p99_ns;
		if (t.covered < covered)
			covered = t.covered;
		printf("%5d %10.0f %10.0f %6.2fus %6.2fus | %10.0f %10.0f %6.2fus %6.2fus %9llu %6.0f%%\n",
		       r + 1, u.reads_per_s, u.reads_per_cpu_s, u.p50_ns / 1e3, u.p99_ns / 1e3,
		       t.reads_per_s, t.reads_per_cpu_s, t.p50_ns / 1e3, t.p99_ns / 1e3,
		       (unsigned long long)t.flush_calls, 100 * t.covered);
		fflush(stdout);
	}
	printf("ratios: reads_per_s %.3f reads_per_cpu_s %.3f p50 %.3f p99 %.3f covered %.3f\n",
	       median(rate, rounds), median(cpu, rounds), median(p50, rounds), median(p99, rounds),
	       covered);
	free(rate);
	free(cpu);
	free(p50);
	free(p99);
	statread_plan_free(&plan);
	return 0;
}
