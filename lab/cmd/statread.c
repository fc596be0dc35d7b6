// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab statread: how long a memory.stat read takes at each level of a
 * cgroup tree while allocators keep its leaves in reclaim.  The workload is
 * lab/drivers/statread*.c; this file is options and output.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd/builtin.h"
#include "analyze/report.h"
#include "collect/lock_statread.h"
#include "drivers/statread.h"
#include "util/cleanup.h"
#include "util/expfile.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/owner.h"
#include "util/humanize.h"
#include "util/results.h"

static const char usage[] =
"usage: memcg-lab statread [--top T] [--children C] [--allocators P] [--readers R]\n"
"                          [--interval I] [--duration D] [--warmup W] [options]\n"
"\n"
"Builds a tree of memory cgroups (a root, T top-level cgroups, C leaves under\n"
"each), runs P allocators per leaf that allocate past the leaf's limit so\n"
"reclaim runs the whole time, and times every memory.stat read of readers at\n"
"each level.  Prints p50/p90/p99/p99.9/max per level and the share of reads over\n"
"1 ms, 10 ms and 1 s; with --results, also writes histograms (data/hist-stat-read.*),\n"
"allocator throughput and the reclaim counters.  Reproduces stress.sh (50 x 5\n"
"leaves, 10 allocators each, 1 reader per cgroup every second) and Wei Xu's\n"
"read-contention benchmark (--levels leaf --total-readers N --interval 100ms).\n"
"\n"
"Tree and allocators:\n"
"  --top T            top-level cgroups (default 50 from 256 CPUs, scaled down below)\n"
"  --children C       leaves under each top-level cgroup (default 5, fewer below 256 CPUs)\n"
"  --allocators P     allocators per leaf (default 10, fewer below 16 CPUs; 0: readers alone)\n"
"  --alloc KIND       file: page cache of a sparse file on a disk filesystem, reclaimed\n"
"                     without swap (default); tmpfs: write/read/truncate a memfd, anon:\n"
"                     touch anonymous pages (both need swap, refused without it)\n"
"  --limit SIZE       each leaf's limit (default a quarter of its allocators' demand,\n"
"                     at least 16M); 'none' for no limit\n"
"  --top-limit SIZE   also limit each top-level cgroup (stress.sh limits that level)\n"
"  --alloc-size SIZE  each allocator's working set (default 10M, or more so that a\n"
"                     leaf's allocators need 4x its limit)\n"
"  --work SIZE        each allocator stops after this much (stress.sh's fixed work);\n"
"                     the run then ends with the allocators unless --duration is shorter\n"
"  --file-dir DIR     where --alloc file keeps its files (default: $TMPDIR, /var/tmp or\n"
"                     the lab's tree, the first on ext4/xfs/btrfs/f2fs); the files are\n"
"                     anonymous (O_TMPFILE) and sparse: no disk space, nothing left behind\n"
"\n"
"Readers:\n"
"  --readers R        readers per cgroup (default 1)\n"
"  --total-readers N  N readers in all, spread round robin over the cgroups\n"
"  --levels LIST      levels that get readers: root,top,leaf (default all)\n"
"  --files LIST       stat, numa_stat or both (default stat)\n"
"  --interval I       each reader reads every I (default 1s; e.g. 100ms), or 'flat'\n"
"                     to read back to back\n"
"  --reopen           open+read+close per read, as cat does (default: pread at 0 on\n"
"                     a file opened once)\n"
"  --host-root        the root level reads the host's root cgroup, as stress.sh does\n"
"                     (default: the run's own root cgroup)\n"
"\n"
"Run:\n"
"  --duration D       measured phase (default 10s)\n"
"  --warmup W         discarded first part (default 2s)\n"
"  --results NAME     write results/<date>-NAME/: report.txt, data/statread.txt,\n"
"                     data/hist-stat-read.<level>.tsv, data/metrics.tsv, ...\n"
"                     (under `memcg-lab run`: the runner's directory)\n"
"  --dry-run          check the request and print what would be created and read\n"
"  --validate         check the request only (exit 0 or 2; for `memcg-lab run`)\n"
"  --mounts FILE      with --dry-run/--validate: decide the hierarchy from this\n"
"                     copy of /proc/self/mounts (e.g. a cgroup v2 machine's)\n"
"  -h, --help         this text\n"
"\n"
"Durations take ns/us/ms/s/m suffixes (a bare number is seconds), sizes K/M/G.\n"
"Exit status: 0 done; 1 the run finished but allocators were OOM-killed or failed,\n"
"reads failed, or nothing was measured; 2 bad input or an error; 128+N stopped by\n"
"signal N.\n";

static void parse_options(int argc, char **argv, struct statread_config *c, struct statread_cli *cli)
{
	int r = statread_parse_options(argc, argv, c, cli);

	if (r > 0)
		usage_exit(usage, 0);
	if (r < 0)
		usage_exit(usage, EXIT_LAB_ERR);
}

static void detect(struct cg_env *env, const struct statread_cli *cli)
{
	char *text = NULL;

	if (cli->mounts) {
		text = read_text(cli->mounts, NULL);
		if (!text)
			die("--mounts: %s: %s", cli->mounts, strerror(errno));
	}
	if (cg_detect(env, text) < 0)
		die("statread: cannot tell the cgroup hierarchy from %s",
		    cli->mounts ? cli->mounts : "/proc/self/mounts");
	free(text);
}

int cmd_statread(int argc, char **argv)
{
	static struct statread_result res;
	struct statread_config cfg;
	struct statread_plan plan;
	struct statread_host host;
	struct results *r = NULL;
	struct statread_cli cli = { 0 };
	/* Collectors run around the measured phase: the lock collector
	 * counts memcg:memcg_flush_stats and times the flush lock's holds. */
	struct statread_hook hooks[4];
	struct lock_statread lockc;
	int nhooks = 0, status = 0;
	struct cg_env env;
	char err[512];

	statread_config_defaults(&cfg);
	parse_options(argc, argv, &cfg, &cli);
	detect(&env, &cli);
	statread_host_probe(&host, &env, cfg.file_dir);
	if (!cfg.file_dir && host.file_dir_ok)
		cfg.file_dir = host.file_dir;
	if (statread_plan(&plan, &cfg, &env, &host, err, sizeof(err)) < 0)
		die("statread: %s", err);
	if (cli.validate) {
		statread_plan_free(&plan);
		return 0;
	}
	if (cli.dry_run) {
		char owner[96], *root;

		lab_owner_name(owner, sizeof(owner));
		root = xasprintf("%s/%s", env.memory_root, owner);
		if (plan.scaled_note[0])
			printf("note: %s\n", plan.scaled_note);
		if (plan.nallocators && cfg.kind == ALLOC_FILE)
			printf("allocator files: %s\n", host.file_dir_why);
		statread_describe_setup(stdout, &plan, &env, root);
		free(root);
		statread_plan_free(&plan);
		return 0;
	}
	if (geteuid() != 0)
		die("statread: needs root to create cgroups under %s", env.memory_root);
	if (plan.scaled_note[0])
		note("statread: %s", plan.scaled_note);
	/* Under `memcg-lab run` this is the runner's directory. */
	r = results_attach(cli.results, argc + 1, argv - 1);
	results_log(r, "statread: %d cgroups, %d allocators, %d readers; allocator files: %s",
		    plan.ncgs, plan.nallocators, plan.nreaders,
		    plan.nallocators && cfg.kind == ALLOC_FILE ? host.file_dir_why : "none");
	memset(hooks, 0, sizeof(hooks));
	lock_statread_hook(&hooks[nhooks++], &lockc);
	statread_run(&plan, hooks, nhooks, &res);

	statread_report_text(stdout, &plan, &res);
	if (!lock_statread_finish(&lockc, &res, r, stdout)) {
		char why[600];

		snprintf(why, sizeof(why), "the lock collector did not start: %s",
			 lockc.err[0] ? lockc.err : "see its warning");
		if (r)
			results_skip(r, "kernel flush counts (memcg:memcg_flush_stats)", why);
		else
			printf("kernel flushes: not counted (%s)\n", why);
	}
	if (res.oom_killed || res.died_other || res.first_errno || !statread_measured_reads(&res))
		status = 1;
	if (res.interrupted)
		status = 128 + (lab_stop_signal() ? lab_stop_signal() : SIGINT);
	if (r) {
		statread_report_results(r, &plan, &res);
		report_finish(r, res.interrupted ? "interrupted" : status ? "failed" : "complete");
		printf("results: %s\n", r->dir);
		results_free(r);
	}
	statread_result_free(&res);
	statread_plan_free(&plan);
	return status;
}
