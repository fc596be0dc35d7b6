// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab charge: contended memcg charging.  This file is the options;
 * the driver is lab/drivers/charge/: the plan checks them against the
 * machine's facts before anything starts, the run builds the cgroup tree
 * and runs the mode's loop once per task count (the stock and objstock
 * modes sweep K memcgs on one CPU instead), and the report prints the
 * summary (and, with a results directory, writes data/ and metrics.tsv).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/builtin.h"
#include "cmd/report.h"
#include "drivers/charge/plan.h"
#include "drivers/charge/report.h"
#include "drivers/charge/run.h"
#include "drivers/harness.h"
#include "drivers/placement.h"
#include "drivers/stock.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/results.h"

static const char usage_text[] =
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
"\n"
"Placement:\n"
"  --tasks N|steps      workers (default 1); steps: 1, an SMT sibling set, an\n"
"                       LLC, a NUMA node, 2, 4 .. nodes, a package, the\n"
"                       machine (hwloc)\n"
"  --threads            workers as threads (one process per cgroup: charges\n"
"                       follow the mm's owner) instead of processes\n"
"  --cgroups M          cgroups the workers are spread over (default 1; sock:\n"
"                       one per worker; 0: the root memcg, where nothing is\n"
"                       charged: the seeds' \"root memcg\" baseline)\n"
"  --hierarchy DxF      a tree of D levels with F children each; the workers'\n"
"                       cgroups are its first M leaves (default all)\n"
"  --pin POLICY         spread (default: one CPU per core first), compact\n"
"                       (default with steps), pack, pack:CPU, none, or a CPU\n"
"                       list such as 0,2-5\n"
"  --limit SIZE         memory limit of each worker cgroup (at least one\n"
"                       charge batch: 64 pages)\n"
"Timing:\n"
"  --duration SECONDS   measured seconds (default 5; stock: 2 per K)\n"
"  --warmup SECONDS     discarded seconds before them (default 1)\n"
"  --on-death stop|continue  a worker died (e.g. OOM-killed): end the run\n"
"                       (default, exit status 1) or carry on without it\n"
"Workload:\n"
"  --size SIZE          anon, file: memory each worker charges per pass (1M)\n"
"  --populate           anon: fault the pages in with MADV_POPULATE_WRITE (the\n"
"                       kernel's fault path without the user-mode exception)\n"
"  --objects N          kmem: descriptors each worker keeps open (512)\n"
"  --msg-size SIZE      sock: bytes per sendfile() (10K)\n"
"  --tcp-limit SIZE     sock, cgroup v1: memory.kmem.tcp.limit_in_bytes of each\n"
"                       cgroup; without it v1 does not charge sockets at all\n"
"  --tmpfs DIR          file: a directory on tmpfs (/dev/shm)\n"
"  --stock-max K        stock, objstock: the largest K (default twice the slots;\n"
"                       objstock: twice plus 2)\n"
"  --stock-rounds N     stock, objstock: holder readings per K, largest kept (3)\n"
"Output:\n"
"  --results NAME       write results/<date>-NAME/ (under `memcg-lab run`: its\n"
"                       directory, tagged with the step)\n"
"  -v, --verbose        a line per second while running\n"
"  --validate           check the options against this machine, then stop\n"
"  -h, --help           this text\n"
"\n"
"Exit status: 0 ran, 1 cut short by a dead worker, 2 bad input or an error,\n"
"128+N interrupted by signal N (nothing is left behind either way).\n";

static void bad(const char *opt, const char *val, const char *fmt, ...) __attribute__((noreturn, format(printf, 3, 4)));
static void bad(const char *opt, const char *val, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	die("charge: %s '%s': %s", opt, val, msg);
}

static long long size_arg(const char *opt, const char *v)
{
	unsigned long long b;

	if (parse_bytes(v, &b) || b > (1ULL << 50))
		bad(opt, v, "want a size such as 4096, 64K, 1M or 2G");
	return (long long)b;
}

static int seconds_arg(const char *opt, const char *v, int min)
{
	unsigned long long ns;

	if (parse_duration_ns(v, &ns) || ns % 1000000000ULL || ns / 1000000000ULL > 24 * 3600)
		bad(opt, v, "want whole seconds (5, 5s, 2m): the harness samples once a second");
	if ((long long)(ns / 1000000000ULL) < min)
		bad(opt, v, "want at least %d s", min);
	return (int)(ns / 1000000000ULL);
}

static long count_arg(const char *opt, const char *v, long min, long max)
{
	long n;

	if (parse_long(v, min, max, &n))
		bad(opt, v, "want an integer from %ld to %ld", min, max);
	return n;
}

static void parse_args(int argc, char **argv, struct charge_config *o)
{
	enum { O_MODE = 256, O_TASKS, O_THREADS, O_CGROUPS, O_HIER, O_PIN, O_LIMIT, O_DURATION, O_WARMUP,
	       O_ONDEATH, O_SIZE, O_OBJECTS, O_MSG, O_TCP, O_TMPFS, O_SMAX, O_SROUNDS, O_RESULTS, O_VALIDATE, O_POPULATE };
	static const struct option lopts[] = {
		{ "mode", required_argument, NULL, O_MODE },
		{ "tasks", required_argument, NULL, O_TASKS },
		{ "threads", no_argument, NULL, O_THREADS },
		{ "cgroups", required_argument, NULL, O_CGROUPS },
		{ "hierarchy", required_argument, NULL, O_HIER },
		{ "pin", required_argument, NULL, O_PIN },
		{ "limit", required_argument, NULL, O_LIMIT },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "on-death", required_argument, NULL, O_ONDEATH },
		{ "size", required_argument, NULL, O_SIZE },
		{ "populate", no_argument, NULL, O_POPULATE },
		{ "objects", required_argument, NULL, O_OBJECTS },
		{ "msg-size", required_argument, NULL, O_MSG },
		{ "tcp-limit", required_argument, NULL, O_TCP },
		{ "tmpfs", required_argument, NULL, O_TMPFS },
		{ "stock-max", required_argument, NULL, O_SMAX },
		{ "stock-rounds", required_argument, NULL, O_SROUNDS },
		{ "results", required_argument, NULL, O_RESULTS },
		{ "validate", no_argument, NULL, O_VALIDATE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char err[256];
	int c;

	charge_config_defaults(o);
	while ((c = getopt_long(argc, argv, "vh", lopts, NULL)) != -1) {
		switch (c) {
		case O_MODE: o->mode = optarg; break;
		case O_TASKS:
			if (!strcmp(optarg, "steps"))
				o->steps = true;
			else
				o->tasks = count_arg("--tasks", optarg, 1, HARNESS_MAX_WORKERS);
			break;
		case O_THREADS: o->threads = true; break;
		case O_CGROUPS:
			o->cgroups = count_arg("--cgroups", optarg, 0, 65535);
			o->cgroups_set = true;
			break;
		case O_HIER:
			if (hierarchy_parse(optarg, &o->depth, &o->fanout, err, sizeof(err)))
				bad("--hierarchy", optarg, "%s", err);
			o->hierarchy_set = true;
			break;
		case O_PIN: o->pin = optarg; break;
		case O_LIMIT: o->limit = size_arg("--limit", optarg); break;
		case O_DURATION:
			o->duration = seconds_arg("--duration", optarg, 1);
			o->duration_set = true;
			break;
		case O_WARMUP: o->warmup = seconds_arg("--warmup", optarg, 0); break;
		case O_ONDEATH:
			if (strcmp(optarg, "stop") && strcmp(optarg, "continue"))
				bad("--on-death", optarg, "want stop or continue");
			o->stop_on_death = !strcmp(optarg, "stop");
			break;
		case O_SIZE: o->size = size_arg("--size", optarg); break;
		case O_POPULATE: o->populate = true; break;
		case O_OBJECTS: o->objects = count_arg("--objects", optarg, 1, 1 << 20); break;
		case O_MSG: o->msg = size_arg("--msg-size", optarg); break;
		case O_TCP: o->tcp_limit = size_arg("--tcp-limit", optarg); break;
		case O_TMPFS: o->tmpfs = optarg; break;
		case O_SMAX: o->stock_max = (int)count_arg("--stock-max", optarg, 1, STOCK_MAX_K); break;
		case O_SROUNDS: o->stock_rounds = (int)count_arg("--stock-rounds", optarg, 1, STOCK_MAX_ROUNDS); break;
		case O_RESULTS: o->results = optarg; break;
		case O_VALIDATE: o->validate = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage_exit(usage_text, 0);
		default: usage_exit(usage_text, EXIT_LAB_ERR);
		}
	}
	/* --mode itself is checked by the plan, with the other values. */
	if (optind < argc)
		die("charge: unexpected argument '%s' (options only; see --help)", argv[optind]);
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
