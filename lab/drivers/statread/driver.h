/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stat-read workload: concurrent memory.stat readers at every level of
 * a cgroup tree while allocators in the leaves push past their limits, so
 * reclaim (an in-kernel stats flusher) runs the whole time.  It reproduces
 * the tests behind the memcg stats-flushing changes (Yosry's stress.sh,
 * Wei Xu's read-contention benchmark; lab/README sections 1.4, 4.2, 4.3).
 *
 * The work splits in three: statread_plan() turns options plus host facts
 * into a tree and a reader list, or one line saying why not (pure, so the
 * v1 and v2 cases are tested without a kernel); statread_run() builds the
 * tree, runs allocators and readers and fills a statread_result;
 * statread_report_*() prints and stores it.
 */
#ifndef LAB_DRIVERS_STATREAD_DRIVER_H
#define LAB_DRIVERS_STATREAD_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "util/hist.h"
#include "drivers/statread/reclaim_alloc.h"
#include "kernel/cgroup.h"

enum statread_level { SR_ROOT, SR_TOP, SR_LEAF, SR_NLEVELS };
enum statread_file { SR_STAT, SR_NUMA_STAT, SR_NFILES };

#define SR_LEVEL_ALL ((1u << SR_NLEVELS) - 1)

extern const char *const statread_level_names[SR_NLEVELS];	/* "root", "top", "leaf" */
extern const char *const statread_file_names[SR_NFILES];	/* "memory.stat", "memory.numa_stat" */

/* The reference shape (stress.sh on 256 CPUs): 50 x 5 leaves, 10 allocators each. */
#define SR_REF_CPUS 256
#define SR_REF_TOP 50
#define SR_REF_CHILDREN 5
#define SR_REF_ALLOCATORS 10
/* Per-allocator working set of the reference (10 MiB files) and its limit
 * ratio: a leaf gets a quarter of its allocators' demand. */
#define SR_REF_ALLOC_BYTES (10ll << 20)
#define SR_REF_LIMIT_DIVISOR 4

struct statread_config {
	int top, children, allocators;	/* 0: the default for this machine */
	int readers_per_cg;		/* readers on each cgroup of a level (default 1) */
	long long total_readers;	/* > 0: this many, spread over the cgroups */
	unsigned level_mask;		/* levels that get readers (1 << SR_ROOT ...) */
	unsigned file_mask;		/* files each reader reads (1 << SR_STAT ...) */
	bool flat_out;			/* read back to back instead of every interval */
	int64_t interval_ns;		/* period of each reader (> 0 unless flat_out) */
	int64_t duration_ns;		/* measured phase; 0 with work_bytes: until done */
	int64_t warmup_ns;		/* reads before this are discarded */
	enum alloc_kind kind;
	int64_t limit_bytes;		/* leaf limit; 0: default; -1: no limit */
	int64_t top_limit_bytes;	/* top-level limit; 0: none */
	int64_t alloc_bytes;		/* each allocator's working set; 0: default */
	int64_t work_bytes;		/* > 0: each allocator does this much, then exits */
	const char *file_dir;		/* where page-cache files live; NULL: choose */
	bool reopen;			/* open+read+close per read, like `cat` */
	bool host_root;			/* root-level readers read the host's root cgroup */
};

/* What the machine allows; statread_host_probe() fills it, tests fake it. */
/* Descriptors beside the readers' own: stdio, results, the tracefs
 * collectors, the cgroup walks. */
#define SR_BASE_FDS 64

struct statread_host {
	int ncpus;
	int64_t mem_available;		/* MemAvailable */
	int64_t swap_free;		/* SwapFree; 0 when no swap is on */
	long long memcgs_in_use;	/* memory cgroups that exist now */
	long long memcgs_max;		/* what the kernel allows (memcg ids: 65535) */
	long long descendants_left;	/* cgroup.max.descendants headroom above us */
	long long depth_left;		/* cgroup.max.depth headroom above us */
	long long threads_left;		/* threads-max and pid_max headroom */
	long long nofile_max;		/* files one process can open (util/nofile.h) */
	bool file_dir_ok;		/* file_dir is on a disk filesystem */
	char file_dir[256];
	char file_dir_why[160];		/* why file_dir was chosen or refused */
};

struct statread_cg {
	char rel[40];			/* path below the run's root: "", "top3", "top3/leaf1" */
	enum statread_level level;
};

struct statread_reader_spec {
	int cg;				/* index into plan->cgs */
};

struct statread_plan {
	struct statread_config cfg;	/* with every default resolved */
	bool v2;
	int ncgs, nleaves, nallocators;
	struct statread_cg *cgs;	/* root first, then each top followed by its leaves */
	int nreaders;
	/* Files the run keeps open: SR_BASE_FDS, and one per reader and file
	 * unless --reopen. */
	long long fds;
	struct statread_reader_spec *readers;
	int readers_at[SR_NLEVELS];
	int cgs_at[SR_NLEVELS];
	char scaled_note[200];		/* "" unless the defaults were scaled for this machine */
	/* Control files of this hierarchy version. */
	const char *limit_file;		/* memory.limit_in_bytes | memory.max */
	const char *oom_file;		/* memory.oom_control | memory.events (key oom_kill) */
	const char *hit_limit_file;	/* memory.failcnt | memory.events (key max) */
	const char *hit_limit_key;	/* NULL (whole file) | "max" */
	const char *reclaim_keys[3];	/* memory.stat keys that show reclaim */
	/* vm --lines: the label of the window this run opens itself over its
	 * measured phase (c2c/lines_session.h); NULL: none (under `memcg-lab
	 * run` the runner opens it). */
	const char *lines_label;
};

/* Fills cfg with the defaults; options then override fields. */
void statread_config_defaults(struct statread_config *cfg);

/* What the command line asks of the command itself, not of the workload. */
struct statread_cli {
	const char *results;
	const char *mounts;
	bool dry_run;
	bool validate;
};

/*
 * argv (statread's options, argv[0] the command) into c and cli: 0, 1 for
 * --help, -1 for an option getopt refused (options_usage_error() says
 * which); a bad value ends the process with one line naming the option
 * (exit 2).  Options and help come from one table (util/options.h).
 */
int statread_parse_options(int argc, char **argv, struct statread_config *c, struct statread_cli *cli);
/* statread's --help text. */
void statread_print_help(FILE *f);

/*
 * Resolves defaults (scaling the reference shape down for small machines,
 * saying so in scaled_note) and checks the request against the host.
 * Returns 0, or -1 with one line in err naming the option at fault.
 */
int statread_plan(struct statread_plan *p, const struct statread_config *cfg,
		  const struct cg_env *env, const struct statread_host *host,
		  char *err, size_t errlen);
void statread_plan_free(struct statread_plan *p);

/* Fills host from /proc, sysfs and the cgroup mount; file_dir as requested. */
void statread_host_probe(struct statread_host *host, const struct cg_env *env,
			 const char *file_dir);
/* The same without the file directory (which it would test by creating a
 * temporary file): only reads. */
void statread_host_limits(struct statread_host *host, const struct cg_env *env);

/*
 * Something to run around the measured phase only, e.g. a tracefs collector
 * counting memcg:memcg_flush_stats, on the main thread:
 *
 *   prepare()  before the warm-up begins (allocators forked, no reader
 *              running yet): whatever takes long, recording nothing;
 *   start()    at the measured phase's first moment: must be cheap (a
 *              few writes), since the readers are measuring already;
 *   stop()     when the measured phase ends.
 *
 * Each is optional.  A failing prepare() or start() is reported and the run
 * goes on without that hook.  The driver times the window each started
 * hook really ran in (on_ns .. off_ns) against the measured phase
 * (statread_result.traced_*), so a hook that started late shows as a
 * share below 1, never as a whole phase traced.
 */
struct statread_run_info {
	const struct statread_plan *plan;
	const char *tree_root;		/* absolute path of the run's root cgroup */
};

struct statread_hook {
	const char *name;
	int (*prepare)(void *ctx, const struct statread_run_info *info);
	int (*start)(void *ctx, const struct statread_run_info *info);
	void (*stop)(void *ctx, const struct statread_run_info *info);
	void *ctx;
	/* Set by the driver. */
	bool prepared, started;
	uint64_t on_ns, off_ns;		/* CLOCK_MONOTONIC: start() returned, stop() called */
};

struct statread_leaf_result {
	long long hit_limit;		/* failcnt (v1) or memory.events max (v2) */
	long long reclaim[3];		/* plan->reclaim_keys; -1 if absent */
	long long oom_kills;		/* the cgroup's own oom_kill counter; -1 if absent */
};

struct statread_result {
	/* Readers, merged per level and file. */
	struct hist hist[SR_NLEVELS][SR_NFILES];
	uint64_t reads[SR_NLEVELS][SR_NFILES];	/* counted apart from the histograms */
	uint64_t errors[SR_NLEVELS][SR_NFILES];
	int first_errno;
	uint64_t missed_ticks;		/* periods skipped because a read overran */
	double measured_s;		/* length of the measured phase */
	/* The part of the measured phase every started hook ran in, in
	 * seconds from its start (traced_from_s > 0: a hook started late),
	 * and its share of the phase; hooks_started 0: no hook ran and these
	 * are 0. */
	int hooks_started;
	double traced_from_s, traced_to_s, traced_share;
	/* Allocators. */
	uint64_t alloc_bytes_measured;	/* during the measured phase */
	double alloc_real_s, alloc_user_s, alloc_sys_s;	/* the whole allocation phase */
	uint64_t alloc_min_bytes, alloc_max_bytes;	/* per allocator, measured phase */
	int nsamples;
	double *sample_t, *sample_mib_s;	/* allocator throughput once a second */
	int oom_killed;			/* allocators that died of SIGKILL we did not send */
	int died_other;			/* allocators that exited on their own otherwise */
	int first_exit_status;
	struct statread_leaf_result *leaves;
	long long oom_kills_total;
	bool interrupted;		/* stopped by a signal before the end */
	bool tree_removed;		/* the tree was gone after the run */
	char tree_root[512];
};

/* Absolute path of every planned cgroup below root (free with
 * statread_free_paths). */
char **statread_cg_paths(const struct statread_plan *p, const char *root);
void statread_free_paths(const struct statread_plan *p, char **path);
/* What statread_run() would create, write and read under root (--dry-run). */
void statread_describe_setup(FILE *f, const struct statread_plan *p, const struct cg_env *env,
			     const char *root);

/* Runs the plan; a setup failure (cgroup creation, fork, open) ends the
 * process with one line through die(), after the undo steps removed what
 * was made.  Returns 0. */
int statread_run(const struct statread_plan *p, struct statread_hook *hooks, int nhooks,
		 struct statread_result *res);
void statread_result_free(struct statread_result *res);

/* Reads in the measured phase over all levels and files. */
uint64_t statread_measured_reads(const struct statread_result *res);
/* Human summary: the per-level table, allocators, reclaim evidence. */
void statread_report_text(FILE *f, const struct statread_plan *p,
			  const struct statread_result *res);
struct results;
/*
 * Into a results directory (standalone or the runner's, util/results.h):
 * data/statread.txt (the text summary), data/statread-summary.tsv (one row
 * per level and file), data/hist-stat-read.<level>.tsv (histograms for the
 * plot step's CDFs; hist-numa-stat-read.* for memory.numa_stat),
 * data/statread-allocators.tsv (throughput once a second),
 * data/statread-allocation.tsv (real/user/sys), data/statread-reclaim.tsv
 * (per leaf), rows in data/metrics.tsv, and an entry in meta.json's
 * "statread" array.
 */
void statread_report_results(struct results *r, const struct statread_plan *p,
			     const struct statread_result *res);

#endif
