// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab charge: contended memcg charging.  This file is the options;
 * the driver is lab/drivers/charge/: the plan checks them against the
 * machine's facts before anything starts, the run builds the cgroup tree
 * and runs the mode's loop once per task count (the stock and objstock
 * modes sweep K memcgs on one CPU instead), and the report prints the
 * summary (and, with a results directory, writes data/ and metrics.tsv).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/builtin.h"
#include "analyze/report.h"
#include "drivers/charge/plan.h"
#include "drivers/charge/report.h"
#include "drivers/charge/run.h"
#include "drivers/harness.h"
#include "drivers/placement.h"
#include "drivers/stock.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/options.h"
#include "util/results.h"

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
"  kmem    close()+open() of /dev/null: a struct file from the 'filp' slab cache\n"
"  sock    loopback TCP, sendfile() of --msg-size messages to a receiver of\n"
"          its own; client and receiver in the worker's cgroup (netperf\n"
"          TCP_SENDFILE's shape); rates in Mbps\n"
"  stock   K memcgs taking turns on one CPU, K = 1 .. twice the per-CPU\n"
"          stock's slots (BTF): throughput and the memcgs keeping a precharge\n"
"  objstock  the same through the per-CPU obj stock: each turn an open()+close()\n"
"          of /dev/null, K = 1 .. 2 x its objcg slots + 2 (BTF); the holders are\n"
"          read from memory.kmem.usage_in_bytes (v1) or memory.stat's kernel (v2)\n"
"\n",
	.footer =
"\n"
"Exit status: 0 ran, 1 cut short by a dead worker, 2 bad input or an error,\n"
"128+N interrupted by signal N (nothing is left behind either way).\n",
};

/* "charge: --opt 'value': why", exit 2: every bad value on the command line. */
static void bad(const struct lab_option *opt, const char *val, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));
static void bad(const struct lab_option *opt, const char *val, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	die("charge: --%s '%s': %s", opt->long_name, val, msg);
}

/* A size such as 64K into the long long opt->value points to. */
static void size_opt(const struct lab_option *opt, const char *v)
{
	unsigned long long b;

	if (parse_bytes(v, &b) || b > (1ULL << 50))
		bad(opt, v, "want a size such as 4096, 64K, 1M or 2G");
	*(long long *)opt->value = (long long)b;
}

/* Whole seconds of at least min: the harness samples once a second. */
static int seconds_arg(const struct lab_option *opt, const char *v, int min)
{
	unsigned long long ns;

	if (parse_duration_ns(v, &ns) || ns % 1000000000ULL || ns / 1000000000ULL > 24 * 3600)
		bad(opt, v, "want whole seconds (5, 5s, 2m): the harness samples once a second");
	if ((long long)(ns / 1000000000ULL) < min)
		bad(opt, v, "want at least %d s", min);
	return (int)(ns / 1000000000ULL);
}

static long count_arg(const struct lab_option *opt, const char *v, long min, long max)
{
	long n;

	if (parse_long(v, min, max, &n))
		bad(opt, v, "want an integer from %ld to %ld", min, max);
	return n;
}

/* The options that set more than one field get the whole config. */
static void tasks_opt(const struct lab_option *opt, const char *v)
{
	struct charge_config *c = opt->value;

	if (!strcmp(v, "steps"))
		c->steps = true;
	else
		c->tasks = count_arg(opt, v, 1, HARNESS_MAX_WORKERS);
}

static void cgroups_opt(const struct lab_option *opt, const char *v)
{
	struct charge_config *c = opt->value;

	c->cgroups = count_arg(opt, v, 0, 65535);
	c->cgroups_set = true;
}

static void hierarchy_opt(const struct lab_option *opt, const char *v)
{
	struct charge_config *c = opt->value;
	char err[256];

	if (hierarchy_parse(v, &c->depth, &c->fanout, err, sizeof(err)))
		bad(opt, v, "%s", err);
	c->hierarchy_set = true;
}

static void duration_opt(const struct lab_option *opt, const char *v)
{
	struct charge_config *c = opt->value;

	c->duration = seconds_arg(opt, v, 1);
	c->duration_set = true;
}

static void warmup_opt(const struct lab_option *opt, const char *v)
{
	*(int *)opt->value = seconds_arg(opt, v, 0);
}

static void on_death_opt(const struct lab_option *opt, const char *v)
{
	if (strcmp(v, "stop") && strcmp(v, "continue"))
		bad(opt, v, "want stop or continue");
	*(bool *)opt->value = !strcmp(v, "stop");
}

static void objects_opt(const struct lab_option *opt, const char *v)
{
	*(long *)opt->value = count_arg(opt, v, 1, 1 << 20);
}

static void stock_max_opt(const struct lab_option *opt, const char *v)
{
	*(int *)opt->value = (int)count_arg(opt, v, 1, STOCK_MAX_K);
}

static void stock_rounds_opt(const struct lab_option *opt, const char *v)
{
	*(int *)opt->value = (int)count_arg(opt, v, 1, STOCK_MAX_ROUNDS);
}

static void parse_args(int argc, char **argv, struct charge_config *o)
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
		OPT_CALLBACK(0, "objects", &o->objects, "N", "512", "kmem: descriptors each worker keeps open",
			     objects_opt),
		OPT_CALLBACK(0, "msg-size", &o->msg, "SIZE", "10K", "sock: bytes per sendfile()", size_opt),
		OPT_CALLBACK(0, "tcp-limit", &o->tcp_limit, "SIZE", NULL, "sock, cgroup v1: "
			     "memory.kmem.tcp.limit_in_bytes of each cgroup; without it v1 does not charge sockets "
			     "at all", size_opt),
		OPT_STRING(0, "tmpfs", &o->tmpfs, "DIR", "/dev/shm", "file: a directory on tmpfs"),
		OPT_CALLBACK(0, "stock-max", &o->stock_max, "K", "twice the slots; objstock: twice plus 2",
			     "stock, objstock: the largest K", stock_max_opt),
		OPT_CALLBACK(0, "stock-rounds", &o->stock_rounds, "N", "3", "stock, objstock: holder readings per "
			     "K, largest kept", stock_rounds_opt),
		OPT_GROUP("Output:"),
		OPT_STRING(0, "results", &o->results, "NAME", NULL, "write results/<date>-NAME/ (under `memcg-lab "
			   "run`: its directory, tagged with the step)"),
		OPT_FLAG('v', "verbose", &o->verbose, "a line per second while running"),
		OPT_FLAG(0, "validate", &o->validate, "check the options against this machine, then stop"),
		OPT_END(),
	};
	int first;

	charge_config_defaults(o);
	first = options_parse(&charge_cmd, opts, argc, argv);
	/* --mode itself is checked by the plan, with the other values. */
	if (first < argc)
		die("charge: unexpected argument '%s' (options only; see --help)", argv[first]);
}

static void finish_results(struct results *res, const char *status)
{
	if (!res)
		return;
	report_finish(res, status);
	if (!res->attached)
		printf("results: %s\n", res->dir);
	results_free(res);
}

int cmd_charge(int argc, char **argv)
{
	struct charge_config cfg;
	struct charge_host host;
	struct charge_plan plan;
	struct results *res;
	char err[4096];
	int ret;

	parse_args(argc, argv, &cfg);
	charge_host_probe(&host, &cfg);
	if (charge_plan(&plan, &cfg, &host, err, sizeof(err)))
		die("charge: %s", err);
	if (cfg.validate) {
		charge_report_valid(stdout, &plan);
		charge_plan_free(&plan);
		charge_host_free(&host);
		return 0;
	}
	cleanup_set_polling(true);
	res = results_attach(cfg.results, argc + 1, argv - 1);
	ret = charge_run(&plan, res);
	charge_plan_free(&plan);
	charge_host_free(&host);
	if (lab_stop_requested()) {
		finish_results(res, "interrupted");
		fprintf(stderr, "memcg-lab: charge: interrupted by signal %d; its cgroups and workers are gone\n",
			lab_stop_signal());
		return 128 + lab_stop_signal();
	}
	finish_results(res, ret ? "cut short: a worker died" : "complete");
	return ret;
}
