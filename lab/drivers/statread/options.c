// SPDX-License-Identifier: GPL-2.0
/*
 * The statread driver's options into a statread_config: one parser for the
 * command (cmd/statread.c) and for the experiment plan, which reads the
 * same command lines the runner would start (experiment/plan.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/statread/driver.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/options.h"

/* Counts are capped well above any real tree so the products cannot
 * overflow; the plan then checks them against the kernel's limits. */
#define MAX_COUNT 10000000
/* Durations and sizes: far above any run, and twice them still fits. */
#define MAX_NS (INT64_MAX / 2)
#define MAX_BYTES (INT64_MAX / 2)

static void total_opt(const struct lab_option *o, const char *s)
{
	*(long long *)o->value = option_int(o, s, 1, MAX_COUNT);
}

static void interval_opt(const struct lab_option *o, const char *s)
{
	struct statread_config *c = o->value;

	c->flat_out = !strcmp(s, "flat");
	c->interval_ns = c->flat_out ? 0 : option_duration_ns(o, s, 0, MAX_NS);
}

static void limit_opt(const struct lab_option *o, const char *s)
{
	*(int64_t *)o->value = !strcmp(s, "none") ? -1 : option_size(o, s, 1, MAX_BYTES);
}

static void alloc_opt(const struct lab_option *o, const char *s)
{
	if (alloc_kind_parse(s, o->value))
		option_bad(o, s, "want file, tmpfs or anon");
}

/* "root,top" -> mask over names; dies naming the bad element. */
static unsigned list_of(const struct lab_option *o, const char *s, const char *const *names, int n,
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
			option_bad(o, s, "unknown element '%s'", tok);
		mask |= 1u << i;
	}
	free(copy);
	return mask;
}

static void levels_opt(const struct lab_option *o, const char *s)
{
	*(unsigned *)o->value = list_of(o, s, statread_level_names, SR_NLEVELS, NULL);
}

static void files_opt(const struct lab_option *o, const char *s)
{
	*(unsigned *)o->value = list_of(o, s, statread_file_names, SR_NFILES, "memory.");
}

static const struct options_cmd statread_cmd = {
	.name = "statread",
	.usage =
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
	"read-contention benchmark (--levels leaf --total-readers N --interval 100ms).\n",
	.footer =
	"\n"
	"Durations take ns/us/ms/s/m suffixes (a bare number is seconds), sizes K/M/G.\n"
	"Exit status: 0 done; 1 the run finished but allocators were OOM-killed or failed,\n"
	"reads failed, or nothing was measured; 2 bad input or an error; 128+N stopped by\n"
	"signal N.\n",
};

#define STATREAD_NOPTS 32

/* The one table, writing into c and cli. */
static void option_table(struct lab_option t[STATREAD_NOPTS], struct statread_config *c, struct statread_cli *cli)
{
	const struct lab_option opts[] = {
		OPT_GROUP("Tree and allocators:"),
		OPT_INT(0, "top", &c->top, "T", "50 from 256 CPUs, scaled down below", "top-level cgroups", 1,
			MAX_COUNT),
		OPT_INT(0, "children", &c->children, "C", "5, fewer below 256 CPUs",
			"leaves under each top-level cgroup", 1, MAX_COUNT),
		OPT_INT(0, "allocators", &c->allocators, "P", "10, fewer below 16 CPUs; 0: readers alone",
			"allocators per leaf", 0, MAX_COUNT),
		OPT_CALLBACK(0, "alloc", &c->kind, "KIND", NULL, "file: page cache of a sparse file on a disk "
			     "filesystem, reclaimed without swap (default); tmpfs: write/read/truncate a memfd, anon: "
			     "touch anonymous pages (both need swap, refused without it)", alloc_opt),
		OPT_CALLBACK(0, "limit", &c->limit_bytes, "SIZE", NULL, "each leaf's limit (default a quarter of its "
			     "allocators' demand, at least 16M); 'none' for no limit", limit_opt),
		OPT_SIZE(0, "top-limit", &c->top_limit_bytes, "SIZE", NULL, "also limit each top-level cgroup "
			     "(stress.sh limits that level)", 1, MAX_BYTES),
		OPT_SIZE(0, "alloc-size", &c->alloc_bytes, "SIZE", NULL, "each allocator's working set (default "
			     "10M, or more so that a leaf's allocators need 4x its limit)", 1, MAX_BYTES),
		OPT_SIZE(0, "work", &c->work_bytes, "SIZE", NULL, "each allocator stops after this much "
			     "(stress.sh's fixed work); the run then ends with the allocators unless --duration is "
			     "shorter", 1, MAX_BYTES),
		OPT_STRING(0, "file-dir", &c->file_dir, "DIR", NULL, "where --alloc file keeps its files (default: "
			   "$TMPDIR, /var/tmp or the lab's tree, the first on ext4/xfs/btrfs/f2fs); the files are "
			   "anonymous (O_TMPFILE) and sparse: no disk space, nothing left behind"),
		OPT_GROUP("Readers:"),
		OPT_INT(0, "readers", &c->readers_per_cg, "R", "1", "readers per cgroup", 1, MAX_COUNT),
		OPT_CALLBACK(0, "total-readers", &c->total_readers, "N", NULL, "N readers in all, spread round robin "
			     "over the cgroups", total_opt),
		OPT_CALLBACK(0, "levels", &c->level_mask, "LIST", "all", "levels that get readers: root,top,leaf",
			     levels_opt),
		OPT_CALLBACK(0, "files", &c->file_mask, "LIST", "stat", "stat, numa_stat or both", files_opt),
		OPT_CALLBACK(0, "interval", c, "I", NULL, "each reader reads every I (default 1s; e.g. 100ms), or "
			     "'flat' to read back to back", interval_opt),
		OPT_FLAG(0, "reopen", &c->reopen, "open+read+close per read, as cat does (default: pread at 0 on a "
			 "file opened once)"),
		OPT_FLAG(0, "host-root", &c->host_root, "the root level reads the host's root cgroup, as stress.sh "
			 "does (default: the run's own root cgroup)"),
		OPT_GROUP("Run:"),
		OPT_DURATION(0, "duration", &c->duration_ns, "D", "10s", "measured phase", 0, MAX_NS),
		OPT_DURATION(0, "warmup", &c->warmup_ns, "W", "2s", "discarded first part", 0, MAX_NS),
		OPT_STRING(0, "results", &cli->results, "NAME", NULL, "write results/<date>-NAME/: report.txt, "
			   "data/statread.txt, data/hist-stat-read.<level>.tsv, data/metrics.tsv, ... (under "
			   "`memcg-lab run`: the runner's directory)"),
		OPT_FLAG(0, "dry-run", &cli->dry_run, "check the request and print what would be created and read"),
		OPT_FLAG(0, "validate", &cli->validate, "check the request only (exit 0 or 2; for `memcg-lab run`)"),
		OPT_STRING(0, "mounts", &cli->mounts, "FILE", NULL, "with --dry-run/--validate: decide the hierarchy "
			   "from this copy of /proc/self/mounts (e.g. a cgroup v2 machine's)"),
		OPT_END(),
	};

	_Static_assert(sizeof(opts) / sizeof(opts[0]) <= STATREAD_NOPTS, "STATREAD_NOPTS is too small");
	memcpy(t, opts, sizeof(opts));
}

void statread_print_help(FILE *f)
{
	struct lab_option t[STATREAD_NOPTS];
	struct statread_config c;
	struct statread_cli cli;

	option_table(t, &c, &cli);
	options_help(f, &statread_cmd, t);
}

int statread_parse_options(int argc, char **argv, struct statread_config *c, struct statread_cli *cli)
{
	struct lab_option t[STATREAD_NOPTS];
	int first, r;

	option_table(t, c, cli);
	r = options_scan(&statread_cmd, t, argc, argv, &first);
	if (r)
		return r;
	if (first < argc)
		die("statread: unexpected argument '%s' (see --help)", argv[first]);
	if (cli->mounts && !cli->dry_run && !cli->validate)
		die("--mounts: only with --dry-run or --validate (a real run uses this machine's mounts)");
	return 0;
}

