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
#include "cmd/report.h"
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

enum {
	OPT_TOP = 256, OPT_CHILDREN, OPT_ALLOCATORS, OPT_READERS, OPT_TOTAL_READERS, OPT_LEVELS,
	OPT_FILES, OPT_INTERVAL, OPT_DURATION, OPT_WARMUP, OPT_ALLOC, OPT_LIMIT, OPT_TOP_LIMIT,
	OPT_ALLOC_SIZE, OPT_WORK, OPT_FILE_DIR, OPT_REOPEN, OPT_HOST_ROOT, OPT_RESULTS,
	OPT_DRY_RUN, OPT_MOUNTS, OPT_VALIDATE,
};

struct cli {
	const char *results;
	const char *mounts;
	bool dry_run;
	bool validate;
};

static const struct option options[] = {
	{ "top", required_argument, NULL, OPT_TOP },
	{ "children", required_argument, NULL, OPT_CHILDREN },
	{ "allocators", required_argument, NULL, OPT_ALLOCATORS },
	{ "readers", required_argument, NULL, OPT_READERS },
	{ "total-readers", required_argument, NULL, OPT_TOTAL_READERS },
	{ "levels", required_argument, NULL, OPT_LEVELS },
	{ "files", required_argument, NULL, OPT_FILES },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "alloc", required_argument, NULL, OPT_ALLOC },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "top-limit", required_argument, NULL, OPT_TOP_LIMIT },
	{ "alloc-size", required_argument, NULL, OPT_ALLOC_SIZE },
	{ "work", required_argument, NULL, OPT_WORK },
	{ "file-dir", required_argument, NULL, OPT_FILE_DIR },
	{ "reopen", no_argument, NULL, OPT_REOPEN },
	{ "host-root", no_argument, NULL, OPT_HOST_ROOT },
	{ "results", required_argument, NULL, OPT_RESULTS },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "mounts", required_argument, NULL, OPT_MOUNTS },
	{ "validate", no_argument, NULL, OPT_VALIDATE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Counts are capped well above any real tree so the products cannot
 * overflow; the plan then checks them against the kernel's limits. */
#define MAX_COUNT 10000000

static int count_opt(const char *opt, const char *s, long long min)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < min || v > MAX_COUNT)
		die("%s: '%s' is not a whole number from %lld to %d", opt, s, min, MAX_COUNT);
	return (int)v;
}

/* The shared parsers (util/expfile.h) go through strtod, which also takes
 * "inf" and "nan": only plain decimals here. */
static bool plain_number(const char *s)
{
	return (*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9');
}

static int64_t duration_opt(const char *opt, const char *s)
{
	unsigned long long v;

	if (!plain_number(s) || parse_duration_ns(s, &v) || v > (unsigned long long)INT64_MAX / 2)
		die("%s: '%s' is not a duration (e.g. 100ms, 1s, 2m)", opt, s);
	return (int64_t)v;
}

static int64_t size_opt(const char *opt, const char *s)
{
	unsigned long long v;

	if (!plain_number(s) || parse_bytes(s, &v) || v == 0 || v > (unsigned long long)INT64_MAX / 2)
		die("%s: '%s' is not a size above 0 (e.g. 25M, 1G)", opt, s);
	return (int64_t)v;
}

/* "root,top" -> mask over names; dies naming the bad element. */
static unsigned list_opt(const char *opt, const char *s, const char *const *names, int n,
			 const char *strip)
{
	char *copy = xstrdup(s), *save, *tok;
	unsigned mask = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < n; i++) {
			const char *name = names[i];

			if (strip && !strncmp(name, strip, strlen(strip)))
				name += strlen(strip);
			if (!strcmp(tok, name))
				break;
		}
		if (i == n)
			die("%s: unknown element '%s' in '%s'", opt, tok, s);
		mask |= 1u << i;
	}
	free(copy);
	return mask;
}

static void parse_options(int argc, char **argv, struct statread_config *c, struct cli *cli)
{
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case OPT_TOP:
			c->top = count_opt("--top", optarg, 1);
			break;
		case OPT_CHILDREN:
			c->children = count_opt("--children", optarg, 1);
			break;
		case OPT_ALLOCATORS:
			c->allocators = count_opt("--allocators", optarg, 0);
			break;
		case OPT_READERS:
			c->readers_per_cg = count_opt("--readers", optarg, 1);
			break;
		case OPT_TOTAL_READERS:
			c->total_readers = count_opt("--total-readers", optarg, 1);
			break;
		case OPT_LEVELS:
			c->level_mask = list_opt("--levels", optarg, statread_level_names, SR_NLEVELS, NULL);
			break;
		case OPT_FILES:
			c->file_mask = list_opt("--files", optarg, statread_file_names, SR_NFILES, "memory.");
			break;
		case OPT_INTERVAL:
			if (!strcmp(optarg, "flat")) {
				c->flat_out = true;
				c->interval_ns = 0;
			} else {
				c->flat_out = false;
				c->interval_ns = duration_opt("--interval", optarg);
			}
			break;
		case OPT_DURATION:
			c->duration_ns = duration_opt("--duration", optarg);
			break;
		case OPT_WARMUP:
			c->warmup_ns = duration_opt("--warmup", optarg);
			break;
		case OPT_ALLOC:
			if (alloc_kind_parse(optarg, &c->kind))
				die("--alloc: '%s' is not file, tmpfs or anon", optarg);
			break;
		case OPT_LIMIT:
			c->limit_bytes = !strcmp(optarg, "none") ? -1 : size_opt("--limit", optarg);
			break;
		case OPT_TOP_LIMIT:
			c->top_limit_bytes = size_opt("--top-limit", optarg);
			break;
		case OPT_ALLOC_SIZE:
			c->alloc_bytes = size_opt("--alloc-size", optarg);
			break;
		case OPT_WORK:
			c->work_bytes = size_opt("--work", optarg);
			break;
		case OPT_FILE_DIR:
			c->file_dir = optarg;
			break;
		case OPT_REOPEN:
			c->reopen = true;
			break;
		case OPT_HOST_ROOT:
			c->host_root = true;
			break;
		case OPT_RESULTS:
			cli->results = optarg;
			break;
		case OPT_DRY_RUN:
			cli->dry_run = true;
			break;
		case OPT_MOUNTS:
			cli->mounts = optarg;
			break;
		case OPT_VALIDATE:
			cli->validate = true;
			break;
		case 'h':
			usage_exit(usage, 0);
		default:
			usage_exit(usage, EXIT_LAB_ERR);
		}
	}
	if (optind < argc)
		die("statread: unexpected argument '%s' (see --help)", argv[optind]);
	if (cli->mounts && !cli->dry_run && !cli->validate)
		die("--mounts: only with --dry-run or --validate (a real run uses this machine's mounts)");
}

static void detect(struct cg_env *env, const struct cli *cli)
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
	struct cli cli = { 0 };
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
