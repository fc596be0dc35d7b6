// SPDX-License-Identifier: GPL-2.0
/*
 * charge's options and --help from one table (drivers/charge/options.h);
 * the values are checked against the machine by charge_plan().
 */
#include <stdio.h>
#include <string.h>
#include "drivers/charge/options.h"
#include "drivers/harness.h"
#include "drivers/placement.h"
#include "drivers/charge/stock.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/options.h"

static const struct options_cmd charge_cmd = {
	.name = "charge",
	.usage =
"usage: memcg-lab charge --mode MODE [options]\n"
"\n"
"Contended memcg charging: workers (processes or threads) in cgroups, pinned,\n"
"measured by a harness that does not measure itself (will-it-scale's contract:\n"
"padded counters, one start barrier, 1 Hz samples, warm-up discarded).  Prints\n"
"a summary; --results NAME also writes results/<date>-NAME/.\n"
"\n"
"Modes:\n"
"  anon    page faults on private anonymous memory, dropped with MADV_DONTNEED\n"
"  file    tmpfs page cache: fallocate() of the pages, then a hole punch\n"
"  kmem    the seed's module (lab/kmod/kmem_bench.c): kmem_cache_alloc()+free()\n"
"          of a 64-byte object on a SLAB_ACCOUNT cache in the worker's memcg\n"
"          (--unaccounted: on a plain cache), where the lab built it for this\n"
"          kernel (make kmod; vm --kmod); elsewhere close()+open() of /dev/null\n"
"          (a struct file from the 'filp' cache): a stand-in, and said so\n"
"  sock    loopback TCP, sendfile() of --msg-size messages to a receiver of\n"
"          its own; client and receiver in the worker's cgroup (netperf\n"
"          TCP_SENDFILE's shape); rates in Mbps\n"
"  stock   K memcgs taking turns on one CPU, K = 1 .. twice the per-CPU\n"
"          stock's slots (BTF): throughput and the memcgs keeping a precharge;\n"
"          --stock-cpus N: on N CPUs at once, each with its K workers\n"
"  objstock  the same through the per-CPU obj stock: each turn an open()+close()\n"
"          of /dev/null, K = 1 .. 2 x its objcg slots + 2 (BTF); the holders are\n"
"          read from memory.kmem.usage_in_bytes (v1) or memory.stat's kernel (v2)\n"
"\n",
	.footer =
"\n"
"Exit status: 0 ran, 1 cut short by a dead worker, 2 bad input or an error,\n"
"128+N interrupted by signal N (nothing is left behind either way).\n",
};

/* A size such as 64K into the long long opt->value points to. */
static void size_opt(const struct lab_option *opt, const char *v)
{
	*(long long *)opt->value = option_size(opt, v, 0, 1LL << 50);
}

/* Whole seconds: the harness samples once a second. */
#define MAX_SECONDS (24 * 3600)

/* The options that set more than one field get the whole config. */
static void tasks_opt(const struct lab_option *opt, const char *v)
{
	struct charge_config *c = opt->value;

	if (!strcmp(v, "steps"))
		c->steps = true;
	else
		c->tasks = option_int(opt, v, 1, HARNESS_MAX_WORKERS);
}

static void cgroups_opt(const struct lab_option *opt, const char *v)
{
	struct charge_config *c = opt->value;

	c->cgroups = option_int(opt, v, 0, 65535);
	c->cgroups_set = true;
}

static void hierarchy_opt(const struct lab_option *opt, const char *v)
{
	struct charge_config *c = opt->value;
	char err[256];

	if (hierarchy_parse(v, &c->depth, &c->fanout, err, sizeof(err)))
		option_bad(opt, v, "%s", err);
	c->hierarchy_set = true;
}

static void duration_opt(const struct lab_option *opt, const char *v)
{
	struct charge_config *c = opt->value;

	c->duration = option_whole_seconds(opt, v, 1, MAX_SECONDS);
	c->duration_set = true;
}

static void warmup_opt(const struct lab_option *opt, const char *v)
{
	*(int *)opt->value = option_whole_seconds(opt, v, 0, MAX_SECONDS);
}

static void on_death_opt(const struct lab_option *opt, const char *v)
{
	if (strcmp(v, "stop") && strcmp(v, "continue"))
		option_bad(opt, v, "want stop or continue");
	*(bool *)opt->value = !strcmp(v, "stop");
}

static void objects_opt(const struct lab_option *opt, const char *v)
{
	*(long *)opt->value = option_int(opt, v, 1, 1 << 20);
}

static void batch_opt(const struct lab_option *opt, const char *v)
{
	*(long *)opt->value = option_int(opt, v, 1, 1000000000);
}

/*
 * The one table, writing into o: with help, its --help text on help;
 * else argv scanned by it (options_scan's 0, 1 or -1, *first its optind).
 */
static int with_table(struct charge_config *o, int argc, char **argv, int *first, FILE *help)
{
	/* The defaults shown are charge_config_defaults()'s. */
	const struct lab_option opts[] = {
		OPT_STRING(0, "mode", &o->mode, "MODE", NULL, "one of the modes above (required)"),
		OPT_GROUP("Placement:"),
		OPT_CALLBACK(0, "tasks", o, "N|steps", "1", "workers; steps: 1, an SMT sibling set, an LLC, a "
			     "NUMA node, 2, 4 .. nodes, a package, the machine (hwloc)", tasks_opt),
		OPT_FLAG(0, "threads", &o->threads, "workers as threads (one process per cgroup: charges follow "
			 "the mm's owner) instead of processes"),
		OPT_CALLBACK(0, "cgroups", o, "M", "1", "cgroups the workers are spread over (sock: one per "
			     "worker; 0: the root memcg, where nothing is charged: the seeds' \"root memcg\" "
			     "baseline)", cgroups_opt),
		OPT_CALLBACK(0, "hierarchy", o, "DxF", NULL, "a tree of D levels with F children each; the "
			     "workers' cgroups are its first M leaves (default all)", hierarchy_opt),
		OPT_STRING(0, "pin", &o->pin, "POLICY", NULL, "spread (default: one CPU per core first), compact "
			   "(default with steps), pack, pack:CPU, none, or a CPU list such as 0,2-5"),
		OPT_CALLBACK(0, "limit", &o->limit, "SIZE", NULL, "memory limit of each worker cgroup (at least "
			     "one charge batch: 64 pages)", size_opt),
		OPT_GROUP("Timing:"),
		OPT_CALLBACK(0, "duration", o, "SECONDS", "5; stock: 2 per K", "measured seconds", duration_opt),
		OPT_CALLBACK(0, "warmup", &o->warmup, "SECONDS", "1", "discarded seconds before them", warmup_opt),
		OPT_CALLBACK(0, "on-death", &o->stop_on_death, "stop|continue", "stop", "a worker died (e.g. "
			     "OOM-killed): end the run (exit status 1) or carry on without it", on_death_opt),
		OPT_GROUP("Workload:"),
		OPT_CALLBACK(0, "size", &o->size, "SIZE", "1M", "anon, file: memory each worker charges per pass",
			     size_opt),
		OPT_FLAG(0, "populate", &o->populate, "anon: fault the pages in with MADV_POPULATE_WRITE (the "
			 "kernel's fault path without the user-mode exception)"),
		OPT_CALLBACK(0, "objects", &o->objects, "N", "512", "kmem, the stand-in: descriptors each worker "
			     "keeps open", objects_opt),
		OPT_STRING(0, "module", &o->module, "auto|none|PATH", "auto", "kmem: the kmem_bench module; auto: "
			   "build/kmod/<release>/kmem_bench.ko where the lab built it for this kernel, else the "
			   "close()/open() stand-in; none: the stand-in"),
		OPT_FLAG(0, "unaccounted", &o->unaccounted, "kmem: the unaccounted side (the module's plain cache, "
			 "workers still in their memcgs; the stand-in's workers in the root memcg)"),
		OPT_CALLBACK(0, "object-size", &o->object_size, "SIZE", "64", "kmem, the module: bytes per object "
			     "(8 to 4096)", size_opt),
		OPT_CALLBACK(0, "batch", &o->batch, "N", "10000", "kmem, the module: alloc/free pairs per write()",
			     batch_opt),
		OPT_CALLBACK(0, "msg-size", &o->msg, "SIZE", "10K", "sock: bytes per sendfile()", size_opt),
		OPT_CALLBACK(0, "tcp-limit", &o->tcp_limit, "SIZE", NULL, "sock, cgroup v1: "
			     "memory.kmem.tcp.limit_in_bytes of each cgroup; without it v1 does not charge sockets "
			     "at all", size_opt),
		OPT_STRING(0, "tmpfs", &o->tmpfs, "DIR", "/dev/shm", "file: a directory on tmpfs"),
		OPT_INT(0, "stock-max", &o->stock_max, "K", "twice the slots; objstock: twice plus 2",
			"stock, objstock: the largest K", 1, STOCK_MAX_K),
		OPT_INT(0, "stock-rounds", &o->stock_rounds, "N", "3", "stock, objstock: holder readings per K, "
			"largest kept", 1, STOCK_MAX_ROUNDS),
		OPT_INT(0, "stock-cpus", &o->stock_cpus, "N", "1", "stock, objstock: CPUs each taking turns over "
			"the same K memcgs (K workers on each: the memcgs' page_counters shared between CPUs, as "
			"under vm --lines; the holders are read on the first)", 1, STOCK_CPUS_MAX),
		OPT_GROUP("Output:"),
		OPT_STRING(0, "results", &o->results, "NAME", NULL, "write results/<date>-NAME/ (under `memcg-lab "
			   "run`: its directory, tagged with the step)"),
		OPT_FLAG('v', "verbose", &o->verbose, "a line per second while running"),
		OPT_FLAG(0, "validate", &o->validate, "check the options against this machine, then stop"),
		OPT_END(),
	};

	if (help) {
		options_help(help, &charge_cmd, opts);
		return 0;
	}
	return options_scan(&charge_cmd, opts, argc, argv, first);
}

int charge_parse_options(int argc, char **argv, struct charge_config *c)
{
	int first, r;

	charge_config_defaults(c);
	r = with_table(c, argc, argv, &first, NULL);
	if (r)
		return r;
	/* --mode itself is checked by the plan, with the other values. */
	if (first < argc)
		die("charge: unexpected argument '%s' (options only; see --help)", argv[first]);
	return 0;
}

void charge_print_help(FILE *f)
{
	struct charge_config c;

	charge_config_defaults(&c);
	with_table(&c, 0, NULL, NULL, f);
}
