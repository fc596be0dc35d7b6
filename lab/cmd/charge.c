// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab charge: contended memcg charging.  Options are checked against
 * the machine before anything starts; then the cgroup tree is built, the
 * harness (drivers/harness.h) runs the mode's loop once per task count, and
 * the summary goes to stdout (and, with a results directory, to data/ and
 * metrics.tsv).  The stock and objstock modes sweep K memcgs on one CPU instead.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/magic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "cmd/builtin.h"
#include "analyze/report.h"
#include "drivers/evidence.h"
#include "drivers/harness.h"
#include "drivers/loops.h"
#include "drivers/placement.h"
#include "drivers/stock.h"
#include "kernel/btf.h"
#include "kernel/cgroup.h"
#include "kernel/features.h"
#include "util/cleanup.h"
#include "util/cpus.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/metrics.h"
#include "util/outfile.h"
#include "util/results.h"
#include "util/topology.h"
#include "util/humanize.h"
#include "util/meminfo.h"

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

#define MEMCG_BATCH_PAGES 64	/* MEMCG_CHARGE_BATCH since 6.1 (32 before) */
#define STOCK_DEFAULT_DURATION 2

struct opts {
	const char *mode;
	const struct hloop *loop;
	long tasks;
	bool steps, threads;
	long cgroups;
	bool cgroups_set;
	int depth, fanout;
	bool hierarchy_set;
	const char *pin;
	long long limit, tcp_limit;
	int duration, warmup;
	bool duration_set;
	bool stop_on_death;
	long long size, msg;
	long objects;
	const char *tmpfs;
	int stock_max, stock_rounds;
	const char *results;
	bool verbose, validate;
	bool populate;
};

/* What the checks found out about the machine, for the run. */
struct plan {
	bool use_cg;
	struct cg_env env;
	struct topo topo;
	struct pin_plan pin;
	int nsteps;
	int steps[TOPO_MAX_STEPS];
	const char *step_names[TOPO_MAX_STEPS];
	long page;
	int ncg;
	int stock_cpu, stock_slots;	/* stock: memcg slots; objstock: objcg slots */
	char stock_evidence[KF_EVIDENCE];
};

/* The modes that rotate K memcgs through one CPU's stock. */
static bool is_stock_mode(const char *mode)
{
	return !strcmp(mode, "stock") || !strcmp(mode, "objstock");
}

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

static void parse_args(int argc, char **argv, struct opts *o)
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

	*o = (struct opts){ .tasks = 1, .cgroups = 1, .depth = 1, .limit = -1, .tcp_limit = -1, .duration = 5,
			    .warmup = 1, .stop_on_death = true, .size = 1 << 20, .msg = 10240, .objects = 512,
			    .tmpfs = "/dev/shm", .stock_rounds = 3 };
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
	if (optind < argc)
		die("charge: unexpected argument '%s' (options only; see --help)", argv[optind]);
	if (!o->mode)
		die("charge: --mode is required (%s)", loop_names);
	o->loop = loop_by_name(o->mode);
	if (!o->loop)
		bad("--mode", o->mode, "unknown mode (want one of %s)", loop_names);
}

/* ---- checks against the machine: every refusal before anything starts ---- */

static void check_results_name(const char *name)
{
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      strchr("._-", *c)))
			bad("--results", name, "want letters, digits, '.', '_' and '-' only (it names a directory)");
	if (!name[0] || name[0] == '.')
		bad("--results", name, "want a name that does not start with '.'");
}

static void check_stock_cpu(const struct opts *o, struct plan *pl)
{
	cpu_set_t usable;

	/* Default: the last usable CPU, so the parent can keep another one. */
	if (pl->pin.kind == PIN_PACK && o->pin && strchr(o->pin, ':')) {
		pl->stock_cpu = pl->pin.cpus[0];
		return;
	}
	if (o->pin && strncmp(o->pin, "pack", 4))
		bad("--pin", o->pin, "the stock mode packs its workers on one CPU: want pack or pack:CPU");
	cpus_usable(&usable);
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &usable)) {
			pl->stock_cpu = c;
			return;
		}
}

static void stock_slots_from_btf(struct plan *pl, bool obj)
{
	struct kbtf_field fld;
	struct kfeatures f;
	struct kbtf k;
	int st;
	char err[256];

	pl->stock_slots = 0;
	if (kbtf_open(&k, NULL, NULL, err, sizeof(err))) {
		snprintf(pl->stock_evidence, sizeof(pl->stock_evidence), "no BTF of the running kernel (%s)", err);
		return;
	}
	kfeatures_detect(&f, &k, NULL, NULL);
	pl->stock_slots = obj ? (f.obj_stock_slots > 0 ? f.obj_stock_slots : 0) : f.stock_slots;
	snprintf(pl->stock_evidence, sizeof(pl->stock_evidence), "%s",
		 obj ? f.obj_stock_slots_evidence : f.stock_slots_evidence);
	/* Before 6.16 the objcg stock is memcg_stock_pcp.cached_objcg: one objcg. */
	if (obj && f.obj_stock_slots < 0 && (st = kbtf_find_struct(&k, "memcg_stock_pcp")) > 0 &&
	    !kbtf_member(&k, st, "cached_objcg", &fld))
		pl->stock_slots = 1;
	kbtf_close(&k);
}

static void check(struct opts *o, struct plan *pl)
{
	struct meminfo mi;
	bool stock = is_stock_mode(o->mode), sock = !strcmp(o->mode, "sock");
	bool obj = !strcmp(o->mode, "objstock");
	long leaves, need, per_process;
	char err[512];
	struct rlimit rl;

	memset(pl, 0, sizeof(*pl));
	pl->page = sysconf(_SC_PAGESIZE);
	if (o->results)
		check_results_name(o->results);
	if (topo_load(&pl->topo, err, sizeof(err)))
		die("charge: %s", err);
	if (o->pin && pin_parse(o->pin, &pl->topo, &pl->pin, err, sizeof(err)))
		bad("--pin", o->pin, "%s", err);
	if (!o->pin)
		pl->pin.kind = o->steps ? PIN_COMPACT : PIN_SPREAD;

	/* Task counts. */
	if (stock) {
		if (o->steps || o->tasks != 1)
			die("charge: --tasks: the stock mode sets its own worker counts (K = 1 .. --stock-max)");
		if (o->threads)
			die("charge: --threads: the stock mode needs one process per memcg");
		if (o->cgroups_set || o->hierarchy_set)
			die("charge: --cgroups/--hierarchy: the stock mode makes one memcg per worker");
		if (!o->duration_set)
			o->duration = STOCK_DEFAULT_DURATION;
		check_stock_cpu(o, pl);
		stock_slots_from_btf(pl, obj);
		if (!o->stock_max)
			o->stock_max = pl->stock_slots > 0 ? 2 * pl->stock_slots + (obj ? 2 : 0) : 16;
		if (o->stock_max > STOCK_MAX_K)
			o->stock_max = STOCK_MAX_K;
		pl->nsteps = 1;
		pl->steps[0] = o->stock_max;
	} else if (o->steps) {
		pl->nsteps = topo_steps(&pl->topo, pl->steps, pl->step_names);
	} else {
		pl->nsteps = 1;
		pl->steps[0] = (int)o->tasks;
		pl->step_names[0] = NULL;
	}

	/* Cgroups. */
	if (sock && !o->cgroups_set && !o->hierarchy_set)
		o->cgroups = pl->steps[pl->nsteps - 1];	/* each pair its own cgroup */
	if (stock)
		o->cgroups = o->stock_max;
	leaves = hierarchy_leaves(o->depth, o->hierarchy_set ? o->fanout : (int)(o->cgroups ? o->cgroups : 1));
	if (o->hierarchy_set && !o->cgroups_set)
		o->cgroups = leaves;
	if (o->hierarchy_set && o->cgroups > leaves)
		die("charge: --cgroups %ld: more than the %ldx%d hierarchy's %ld leaves", o->cgroups, (long)o->depth,
		    o->fanout, leaves);
	if (!o->hierarchy_set)
		o->fanout = (int)(o->cgroups ? o->cgroups : 1);
	pl->use_cg = o->cgroups > 0;
	pl->ncg = (int)o->cgroups;
	if (!pl->use_cg && (o->limit >= 0 || o->tcp_limit >= 0 || o->hierarchy_set))
		die("charge: --cgroups 0 runs the workers in the root memcg: --limit, --tcp-limit and "
		    "--hierarchy need cgroups of the run's own");
	if (cg_detect(&pl->env, NULL) < 0 || pl->env.mode == CG_NONE)
		die("charge: no memory controller to put workers in (%s)", pl->env.evidence);
	if (geteuid() != 0)
		die("charge: placing workers in memory cgroups needs root (uid %d)", (int)geteuid());
	if (pl->use_cg) {
		if (hierarchy_check(&pl->env, o->depth, o->fanout, err, sizeof(err)))
			die("charge: --hierarchy %dx%d: %s", o->depth, o->fanout, err);
	}
	if (o->limit >= 0 && o->limit < MEMCG_BATCH_PAGES * pl->page) {
		char b[32];

		format_bytes(b, sizeof(b), (uint64_t)o->limit);
		die("charge: --limit %s: below one charge batch (%d pages = %ld KiB): a CPU's stock alone "
		    "could hold more than the limit", b, MEMCG_BATCH_PAGES, MEMCG_BATCH_PAGES * pl->page / 1024);
	}
	if (o->tcp_limit >= 0) {
		if (!sock)
			die("charge: --tcp-limit is for --mode sock");
		if (pl->env.memory_v2)
			die("charge: --tcp-limit: cgroup v2 has no tcp limit; socket memory is charged to memory there");
		if (o->tcp_limit < pl->page)
			die("charge: --tcp-limit %lld: below one page", o->tcp_limit);
	}

	/* Tasks against the pid limits: workers, receivers, hosts, us. */
	need = pl->steps[pl->nsteps - 1];
	if (sock)
		need *= 2;
	if (o->threads)
		need += pl->ncg ? pl->ncg : 1;
	if (tasks_check(need + 1, err, sizeof(err)))
		die("charge: --tasks %d: %s", pl->steps[pl->nsteps - 1], err);

	/* The workload's own knobs. */
	o->size = (o->size + pl->page - 1) / pl->page * pl->page;
	if ((!strcmp(o->mode, "anon") || !strcmp(o->mode, "file")) && o->size < pl->page)
		die("charge: --size: at least one page (%ld bytes)", pl->page);
	if (o->populate && strcmp(o->mode, "anon"))
		die("charge: --populate is for --mode anon");
	if (sock && (o->msg < 1 || o->msg > (64 << 20)))
		die("charge: --msg-size %lld: want 1 byte to 64M", o->msg);
	per_process = o->threads ? (pl->steps[pl->nsteps - 1] + pl->ncg - 1) / (pl->ncg ? pl->ncg : 1) : 1;
	if (!strcmp(o->mode, "kmem") && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
	    (rlim_t)(o->objects * per_process + 64) > rl.rlim_max)
		die("charge: --objects %ld: %ld descriptors per process, over RLIMIT_NOFILE (%lu)", o->objects,
		    o->objects * per_process, (unsigned long)rl.rlim_max);
	/* Memory the run would take from the host: refuse what only an OOM kill ends. */
	if (!meminfo_read(&mi) && mi.swap_free <= 0) {
		char b1[32], b2[32];
		int maxn = pl->steps[pl->nsteps - 1];

		if (o->limit >= 0 && pl->use_cg && (double)o->limit * pl->ncg > (double)mi.total) {
			format_bytes(b1, sizeof(b1), (uint64_t)o->limit * pl->ncg);
			format_bytes(b2, sizeof(b2), (uint64_t)mi.total);
			die("charge: --limit x --cgroups = %s: above the host's %s of RAM with no swap: the limits "
			    "would not protect it", b1, b2);
		}
		if ((!strcmp(o->mode, "anon") || !strcmp(o->mode, "file")) && o->limit < 0 &&
		    (double)o->size * maxn > 0.8 * (double)mi.available) {
			format_bytes(b1, sizeof(b1), (uint64_t)o->size * maxn);
			format_bytes(b2, sizeof(b2), (uint64_t)mi.available);
			die("charge: --size x --tasks = %s: more than 80%% of the %s available, with no swap and no "
			    "--limit", b1, b2);
		}
	}
	if (!strcmp(o->mode, "file")) {
		struct statfs s;

		if (statfs(o->tmpfs, &s) < 0)
			bad("--tmpfs", o->tmpfs, "%s", strerror(errno));
		if (s.f_type != TMPFS_MAGIC)
			bad("--tmpfs", o->tmpfs, "not a tmpfs directory");
	}
}

/* ---- running ---- */

struct run_ctx {
	struct placement *pl;
	struct evidence *ev;
	struct stock_ctl *stock;	/* stock mode */
	const struct cg_env *env;
	const char *root;
	int rounds;
	long page;
	struct stock_holders holders;
};

static int hook_enter(void *arg, int idx, char *err, size_t errlen)
{
	struct run_ctx *x = arg;
	int e;

	if (x->pl)
		return placement_enter(x->pl, idx, err, errlen);
	/* --cgroups 0: the root memcg, where nothing is charged. */
	e = cg_enter_root(x->env, 0);
	if (e < 0)
		snprintf(err, errlen, "moving worker %d into the root memcg %s: %s", idx, x->env->memory_root,
			 strerror(-e));
	return e;
}

static void hook_before(void *arg)
{
	struct run_ctx *x = arg;

	if (x->ev)
		evidence_before(x->ev);
}

static void hook_window_end(void *arg)
{
	struct run_ctx *x = arg;

	if (x->ev)
		evidence_after(x->ev);
	if (x->stock)
		stock_holders_measure(x->stock, x->env, x->root, x->rounds, x->page, &x->holders);
}

static bool hook_death(void *arg, int idx, int wstatus, char *buf, size_t n)
{
	struct run_ctx *x = arg;

	return x->ev && evidence_death_cause(x->ev, idx, wstatus, buf, n);
}

static void raise_nofile(void)
{
	struct rlimit rl;

	/* kmem keeps descriptors open: lift the soft limit to the hard one. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* ---- output ---- */

static void fmt_rate(char *buf, size_t n, const struct hloop *l, double raw)
{
	double v = raw * l->rate_scale;

	if (!strcmp(l->rate_unit, "Mbps"))
		snprintf(buf, n, "%.0f", v);
	else
		format_si(buf, n, v);
}

static void fmt_count(char *buf, size_t n, long long v, const char *unit)
{
	if (!strcmp(unit, "bytes"))
		format_bytes(buf, (int)n, (uint64_t)v);
	else
		format_si(buf, n, (double)v);
}

static double share(double part, double a, double b)
{
	return a + b > 0 ? 100.0 * part / (a + b) : NAN;
}

static const char *cg_version(const struct plan *pl)
{
	return !pl->use_cg ? "the root memcg (not charged)" : pl->env.memory_v2 ? "cgroup v2" : "cgroup v1";
}

static const char *cg_label(const struct placement *p, int cg)
{
	return cg >= 0 && p && cg < p->ncg ? p->label[cg] : "-";
}

/* Socket memory: which counter a sock run charged, from the evidence. */
static void socket_counter(FILE *f, const struct opts *o, const struct plan *pl, const struct evidence *ev)
{
	long long peak = 0, now = 0;

	for (int c = 0; ev && c < ev->ncg; c++) {
		long long v0 = evidence_value(ev, c, 0), v1 = ev->nkeys > 1 ? evidence_value(ev, c, 1) : -1;

		now += v0 > 0 ? v0 : 0;
		peak = v1 > peak ? v1 : peak;
	}
	if (!pl->use_cg) {
		fprintf(f, "  socket memory: in the root memcg (--cgroups 0): not charged\n");
	} else if (pl->env.memory_v2) {
		char b[32];

		format_bytes(b, sizeof(b), (uint64_t)now);
		fprintf(f, "  socket memory: charged to memory (cgroup v2 charges socket buffers through the "
			"per-CPU stock); memory.stat sock at the window's end: %s in all\n", b);
	} else if (o->tcp_limit >= 0) {
		char b[32];

		format_bytes(b, sizeof(b), (uint64_t)peak);
		fprintf(f, "  socket memory: charged to memory.kmem.tcp (cgroup v1, tcp limit set), not through the "
			"per-CPU stock; largest memory.kmem.tcp.max_usage_in_bytes %s\n", b);
	} else {
		fprintf(f, "  socket memory: not charged: cgroup v1 charges sockets only to memory.kmem.tcp and "
			"only once a tcp limit is set (--tcp-limit); memory.kmem.tcp.max_usage_in_bytes %s\n",
			peak > 0 ? "moved anyway (unexpected)" : "stayed 0");
	}
}

static void print_step(FILE *f, const struct opts *o, const struct plan *pl, const struct placement *p,
		       const struct harness_result *r, const struct evidence *ev, const int *cpu, int tasks,
		       const char *level)
{
	const struct hloop *l = o->loop;
	char pin[256], a[32], b[32], c2[32], d[32];
	int shown = tasks > 32 ? 16 : tasks;
	unsigned long long *cg_ops = xcalloc(p ? p->ncg + 1 : 1, sizeof(unsigned long long));

	pin_describe(&pl->pin, cpu, tasks, pin, sizeof(pin));
	if (pl->use_cg)
		fprintf(f, "charge %s: %d %s%s%s%s%s in %d cgroup%s (%s)\n", o->mode, tasks,
			o->threads ? "thread" : "process", tasks == 1 ? "" : o->threads ? "s" : "es",
			level ? " (" : "", level ? level : "", level ? ")" : "", pl->ncg, pl->ncg > 1 ? "s" : "",
			cg_version(pl));
	else
		fprintf(f, "charge %s: %d %s%s%s%s%s in the root memcg (not charged)\n", o->mode, tasks,
			o->threads ? "thread" : "process", tasks == 1 ? "" : o->threads ? "s" : "es",
			level ? " (" : "", level ? level : "", level ? ")" : "");
	fprintf(f, "  %s; %d s measured after %d s warm-up\n", pin, o->duration, o->warmup);
	if (o->hierarchy_set)
		fprintf(f, "  hierarchy %dx%d below %s\n", o->depth, o->fanout, p ? p->tree.root : "-");
	fprintf(f, "  op: %s%s\n", l->what, o->populate ? "; faulted in by MADV_POPULATE_WRITE" : "");
	fprintf(f, "  %6s  %-14s %4s %12s %6s %6s  %s\n", "worker", "cgroup", "cpu", l->rate_unit, "user", "sys",
		"status");
	for (int i = 0; i < r->nworkers; i++) {
		const struct hworker_result *w = &r->w[i];

		if (p && w->cgroup >= 0 && w->cgroup < p->ncg)
			cg_ops[w->cgroup] += w->ops_all;
		if (i >= shown)
			continue;
		fmt_rate(a, sizeof(a), l, w->rate);
		fprintf(f, "  %6d  %-14s %4d %12s %5.1f%% %5.1f%%  %s\n", i, cg_label(p, w->cgroup), w->cpu, a,
			share(w->user_s, w->user_s, w->sys_s), share(w->sys_s, w->user_s, w->sys_s),
			w->status == HW_OK ? "ok" : w->why);
	}
	if (shown < r->nworkers)
		fprintf(f, "  ... %d more workers%s\n", r->nworkers - shown,
			o->results ? " (all in data/charge-workers.tsv)" : "");
	fmt_rate(a, sizeof(a), l, r->total_rate);
	fmt_rate(b, sizeof(b), l, r->worker_min);
	fmt_rate(c2, sizeof(c2), l, r->worker_max);
	fprintf(f, "  %6s  %-14s %4s %12s  (per worker min %s max %s;", "total", "", "", a, b, c2);
	fmt_rate(a, sizeof(a), l, r->second_min);
	fmt_rate(b, sizeof(b), l, r->second_max);
	fprintf(f, " per second min %s max %s)\n", a, b);
	fprintf(f, "  CPU: workers %.1f%% user, %.1f%% sys of %.2f s; machine %.1f%% user, %.1f%% sys, %.1f%% idle\n",
		share(r->workers_user_s, r->workers_user_s, r->workers_sys_s),
		share(r->workers_sys_s, r->workers_user_s, r->workers_sys_s), r->workers_user_s + r->workers_sys_s,
		r->cpu_user, r->cpu_sys, r->cpu_idle);
	if (ev && ev->ncg) {
		int show = ev->ncg > 16 ? 8 : ev->ncg;

		fprintf(f, "  charges seen by the kernel, start barrier to window end:\n");
		for (int c = 0; c < show; c++) {
			fprintf(f, "    %-14s", ev->label[c]);
			for (int k = 0; k < ev->nkeys; k++) {
				long long v = evidence_value(ev, c, k);

				if (v < 0)
					snprintf(d, sizeof(d), "n/a");
				else
					fmt_count(d, sizeof(d), v, ev->keys[k].unit);
				fprintf(f, "%s %s%s%s %s%s", k ? ";" : "", ev->keys[k].file, ev->keys[k].key ? " " : "",
					ev->keys[k].key ? ev->keys[k].key : "", ev->keys[k].cumulative && v >= 0 ? "+" : "",
					d);
				if (k == 0 && ev->keys[k].cumulative) {
					format_si(a, sizeof(a), (double)cg_ops[c]);
					fprintf(f, " (driver: %s %s)", a, l->unit);
				}
			}
			fputc('\n', f);
		}
		if (show < ev->ncg)
			fprintf(f, "    ... %d more cgroups%s\n", ev->ncg - show,
				o->results ? " (data/charge-cgroups.tsv)" : "");
	}
	if (!strcmp(o->mode, "sock"))
		socket_counter(f, o, pl, ev);
	if (!strcmp(o->mode, "kmem"))
		fprintf(f, "  slab cache: '%s' (struct file, SLAB_ACCOUNT); %ld objects held per worker; v1 shows "
			"kmem charges in memory.kmem.usage_in_bytes (its memory.stat has no slab lines), v2 in "
			"memory.stat slab_unreclaimable\n", KMEM_SLAB_CACHE, o->objects);
	if (r->cut_short)
		fprintf(f, "  run cut short: %s\n", r->stop_reason);
	free(cg_ops);
}

static const char *step_label(const struct results *res, bool steps, int tasks, char *buf, size_t n)
{
	if (res && res->attached && !steps)
		return res->step;
	snprintf(buf, n, "tasks=%d", tasks);
	return buf;
}

static void emit_metrics(FILE *mf, const struct opts *o, const char *step, int repeat,
			 const struct harness_result *r)
{
	const struct hloop *l = o->loop;
	char m[96];

	if (!mf)
		return;
	snprintf(m, sizeof(m), "charge.%s.total", o->mode);
	metrics_emit(mf, step, repeat, m, r->total_rate * l->rate_scale, l->rate_unit, "higher");
	snprintf(m, sizeof(m), "charge.%s.per_worker", o->mode);
	metrics_emit(mf, step, repeat, m, r->total_rate * l->rate_scale / r->nworkers, l->rate_unit, "higher");
	snprintf(m, sizeof(m), "charge.%s.worker_min", o->mode);
	metrics_emit(mf, step, repeat, m, r->worker_min * l->rate_scale, l->rate_unit, "higher");
	snprintf(m, sizeof(m), "charge.%s.user_share", o->mode);
	metrics_emit(mf, step, repeat, m, share(r->workers_user_s, r->workers_user_s, r->workers_sys_s), "%",
		     "lower");
	snprintf(m, sizeof(m), "charge.%s.machine_idle", o->mode);
	metrics_emit(mf, step, repeat, m, r->cpu_idle, "%", "-");
}

static json_object *config_json(const struct opts *o, const struct plan *pl, const struct placement *p)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, "mode", json_object_new_string(o->mode));
	json_object_object_add(j, "op", json_object_new_string(o->loop->what));
	json_object_object_add(j, "model", json_object_new_string(o->threads ? "threads" : "processes"));
	json_object_object_add(j, "tasks", o->steps ? json_object_new_string("steps") :
			       json_object_new_int((int)pl->steps[pl->nsteps - 1]));
	json_object_object_add(j, "cgroups", json_object_new_int(pl->ncg));
	json_object_object_add(j, "cgroup_mode", json_object_new_string(cg_version(pl)));
	if (pl->use_cg)
		json_object_object_add(j, "cgroup_mounts", json_object_new_string(cg_mode_name(pl->env.mode)));
	if (p && p->have_tree)
		json_object_object_add(j, "cgroup_root", json_object_new_string(p->tree.root));
	if (o->hierarchy_set) {
		char h[32];

		snprintf(h, sizeof(h), "%dx%d", o->depth, o->fanout);
		json_object_object_add(j, "hierarchy", json_object_new_string(h));
	}
	json_object_object_add(j, "pin", json_object_new_string(o->pin ? o->pin : o->steps ? "compact" : "spread"));
	json_object_object_add(j, "limit_bytes", json_object_new_int64(o->limit));
	json_object_object_add(j, "duration_s", json_object_new_int(o->duration));
	json_object_object_add(j, "warmup_s", json_object_new_int(o->warmup));
	json_object_object_add(j, "on_death", json_object_new_string(o->stop_on_death ? "stop" : "continue"));
	if (!strcmp(o->mode, "anon") || !strcmp(o->mode, "file"))
		json_object_object_add(j, "size_bytes", json_object_new_int64(o->size));
	if (!strcmp(o->mode, "anon"))
		json_object_object_add(j, "fault", json_object_new_string(o->populate ? "MADV_POPULATE_WRITE" :
									     "user-mode touch"));
	if (!strcmp(o->mode, "kmem")) {
		json_object_object_add(j, "objects", json_object_new_int((int)o->objects));
		json_object_object_add(j, "slab_cache", json_object_new_string(KMEM_SLAB_CACHE));
	}
	if (!strcmp(o->mode, "sock")) {
		json_object_object_add(j, "msg_bytes", json_object_new_int64(o->msg));
		json_object_object_add(j, "tcp_limit_bytes", json_object_new_int64(o->tcp_limit));
		json_object_object_add(j, "socket_counter", json_object_new_string(
			!pl->use_cg ? "none (root memcg)" : pl->env.memory_v2 ? "memory (v2, per-CPU stock)" :
			o->tcp_limit >= 0 ? "memory.kmem.tcp (v1, tcp limit set)" : "none (v1 without a tcp limit)"));
	}
	if (!strcmp(o->mode, "file"))
		json_object_object_add(j, "tmpfs", json_object_new_string(o->tmpfs));
	return j;
}

static void emit_text(const char *text)
{
	fputs(text, stdout);
	fflush(stdout);
}

static void write_data_text(struct results *res, const char *file, const char *text)
{
	FILE *f = results_open_data(res, file);

	fputs(text, f);
	outfile_close(f);
}

struct outputs {
	FILE *workers, *series, *cgroups, *metrics;
};

static void outputs_open(struct outputs *out, struct results *res)
{
	memset(out, 0, sizeof(*out));
	if (!res)
		return;
	out->workers = results_open_data(res, "charge-workers.tsv");
	out->series = results_open_data(res, "charge-series.tsv");
	out->cgroups = results_open_data(res, "charge-cgroups.tsv");
	out->metrics = metrics_open(res->dir);
}

static void outputs_close(struct outputs *out)
{
	FILE **all[] = { &out->workers, &out->series, &out->cgroups, &out->metrics };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (*all[i]) {
			outfile_close(*all[i]);
			*all[i] = NULL;
		}
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

/* ---- the modes ---- */

static struct charge_opts loop_opts(const struct opts *o, const struct plan *pl)
{
	return (struct charge_opts){
		.page = (size_t)pl->page, .size = (size_t)o->size, .populate = o->populate, .objects = (int)o->objects,
		.msg = (size_t)o->msg, .tmpfs = o->tmpfs, .stock_pages = MEMCG_BATCH_PAGES,
	};
}

static struct harness_cfg harness_for(const struct opts *o, const struct charge_opts *lo, int n,
				      const int *cpu, const int *cg, struct run_ctx *x)
{
	return (struct harness_cfg){
		.loop = o->loop, .loop_cfg = lo, .nworkers = n, .threads = o->threads,
		.duration_s = o->duration, .warmup_s = o->warmup, .worker_cpu = cpu,
		.worker_cgroup = cg, .stop_on_death = o->stop_on_death,
		.progress = o->verbose ? stderr : NULL,
		.hooks = { .arg = x, .enter_cgroup = x->pl || x->env ? hook_enter : NULL, .before_start = hook_before,
			   .window_end = hook_window_end, .death_cause = hook_death },
	};
}

struct step_row {
	int tasks;
	const char *level;
	double total, per_worker, wmin, wmax, user, sys, idle;
	bool cut_short;
};

static void print_steps(FILE *f, const struct opts *o, const struct step_row *row, int n)
{
	char a[32], b[32], c[32], d[32];

	fprintf(f, "\ncharge %s: topology steps (%s)\n", o->mode, o->loop->rate_unit);
	fprintf(f, "  %6s  %-8s %10s %11s %10s %10s %6s %6s %6s\n", "tasks", "level", "total", "per worker",
		"min", "max", "user%", "sys%", "idle%");
	for (int i = 0; i < n; i++) {
		fmt_rate(a, sizeof(a), o->loop, row[i].total / o->loop->rate_scale);
		fmt_rate(b, sizeof(b), o->loop, row[i].per_worker / o->loop->rate_scale);
		fmt_rate(c, sizeof(c), o->loop, row[i].wmin / o->loop->rate_scale);
		fmt_rate(d, sizeof(d), o->loop, row[i].wmax / o->loop->rate_scale);
		fprintf(f, "  %6d  %-8s %10s %11s %10s %10s %6.1f %6.1f %6.1f%s\n", row[i].tasks,
			row[i].level ? row[i].level : "-", a, b, c, d, row[i].user, row[i].sys, row[i].idle,
			row[i].cut_short ? "  (cut short)" : "");
	}
}

static int run_modes(const struct opts *o, struct plan *pl, struct results *res)
{
	struct placement p;
	struct evidence ev;
	struct outputs out;
	struct run_ctx x = { 0 };
	struct charge_opts lo = loop_opts(o, pl);
	struct step_row *rows = xcalloc(pl->nsteps, sizeof(*rows));
	int ret = 0, maxn = pl->steps[pl->nsteps - 1];
	int *cpu = xcalloc(maxn, sizeof(int)), *cg = xcalloc(maxn, sizeof(int));
	char err[512], *all = NULL;
	size_t alllen;
	FILE *summary = open_memstream(&all, &alllen);

	memset(&p, 0, sizeof(p));
	memset(&ev, 0, sizeof(ev));
	if (pl->use_cg) {
		if (placement_build(&p, o->depth, o->fanout, pl->ncg, o->limit, o->tcp_limit, err, sizeof(err)))
			die("charge: %s", err);
		evidence_init(&ev, &p.tree.env, o->mode, p.ncg, p.leaf, p.label);
		x.pl = &p;
		x.ev = &ev;
	} else {
		x.env = &pl->env;	/* the root memcg */
	}
	if (res)
		results_meta_set(res, "charge", config_json(o, pl, pl->use_cg ? &p : NULL));
	outputs_open(&out, res);
	for (int s = 0; s < pl->nsteps && !lab_stop_requested(); s++) {
		int n = pl->steps[s];
		struct harness_cfg hc;
		struct harness_result r;
		char *text = NULL, stepbuf[64], prefix[160];
		const char *step = step_label(res, o->steps, n, stepbuf, sizeof(stepbuf));
		size_t len;
		FILE *f;

		pin_assign(&pl->pin, &pl->topo, n, cpu);
		for (int i = 0; i < n; i++)
			cg[i] = pl->use_cg ? i % pl->ncg : 0;
		hc = harness_for(o, &lo, n, cpu, cg, &x);
		if (harness_run(&hc, &r, err, sizeof(err))) {
			if (lab_stop_requested())
				break;
			die("charge: %s", err);
		}
		f = open_memstream(&text, &len);
		if (s)
			fputc('\n', f);
		print_step(f, o, pl, pl->use_cg ? &p : NULL, &r, pl->use_cg ? &ev : NULL, cpu, n,
			   pl->step_names[s]);
		fclose(f);
		emit_text(text);
		fputs(text, summary);
		if (res) {
			snprintf(prefix, sizeof(prefix), "%s\t", step);
			if (out.workers)
				harness_write_workers(&r, o->loop, out.workers, s ? NULL : "step\t", prefix);
			if (out.series)
				harness_write_series(&r, o->loop, out.series, s ? NULL : "step\t", prefix);
			if (out.cgroups && pl->use_cg) {
				unsigned long long *ops = xcalloc(p.ncg, sizeof(*ops));

				for (int i = 0; i < n; i++)
					if (r.w[i].cgroup >= 0)
						ops[r.w[i].cgroup] += r.w[i].ops_all;
				evidence_write_tsv(&ev, ops, out.cgroups, s ? NULL : "step\t", prefix);
				free(ops);
			}
			emit_metrics(out.metrics, o, step, res->repeat, &r);
			results_log(res, "charge %s %s: %.6g %s", o->mode, step, r.total_rate * o->loop->rate_scale,
				    o->loop->rate_unit);
		}
		free(text);
		rows[s] = (struct step_row){ n, pl->step_names[s], r.total_rate * o->loop->rate_scale,
					     r.total_rate * o->loop->rate_scale / n, r.worker_min * o->loop->rate_scale,
					     r.worker_max * o->loop->rate_scale,
					     share(r.workers_user_s, r.workers_user_s, r.workers_sys_s),
					     share(r.workers_sys_s, r.workers_user_s, r.workers_sys_s), r.cpu_idle,
					     r.cut_short };
		if (r.interrupted) {
			harness_result_free(&r);
			break;
		}
		if (r.ndied && o->stop_on_death)
			ret = 1;
		harness_result_free(&r);
		if (ret)
			break;
	}
	if (pl->nsteps > 1) {
		char *text = NULL;
		size_t len;
		FILE *f = open_memstream(&text, &len);

		print_steps(f, o, rows, pl->nsteps);
		fclose(f);
		emit_text(text);
		fputs(text, summary);
		free(text);
	}
	fclose(summary);
	if (res)
		write_data_text(res, "charge-summary.txt", all);
	free(all);
	outputs_close(&out);
	if (pl->use_cg) {
		evidence_free(&ev);
		placement_destroy(&p);
	}
	free(rows);
	free(cpu);
	free(cg);
	return ret;
}

struct stock_row {
	int k;
	double rate, ns_per_charge;
	struct stock_holders h;
	bool cut_short;
};

/* The last K up to which every memcg kept its precharge, and the most that did. */
static void stock_cliff(const struct stock_row *row, int n, int *cliff, int *most)
{
	*cliff = 0;
	*most = 0;
	for (int i = 0; i < n; i++) {
		if (row[i].h.best == row[i].k && *cliff == row[i].k - 1)
			*cliff = row[i].k;
		if (row[i].h.best > *most)
			*most = row[i].h.best;
	}
}

/* Mean over 2 <= K <= cliff (below) or K > cliff: with K = 1 sched_yield()
 * has nobody to switch to, so its rate is not comparable. */
static double mean_rate(const struct stock_row *row, int n, bool below, int cliff, bool ns)
{
	double sum = 0;
	int cnt = 0;

	for (int i = 0; i < n; i++)
		if (row[i].k >= 2 && (row[i].k <= cliff) == below && row[i].rate > 0) {
			sum += ns ? row[i].ns_per_charge : row[i].rate;
			cnt++;
		}
	return cnt ? sum / cnt : NAN;
}

static void print_stock(FILE *f, const struct opts *o, const struct plan *pl, const struct stock_row *row, int n,
			int *cliff_out, int *most_out)
{
	bool obj = !strcmp(o->mode, "objstock"), measured = false;
	const char *what = obj ? "obj stock" : "stock", *unit = obj ? "objcg slot" : "slot";
	const char *keeps = obj ? "keeps its objcg in the obj stock" : "keeps its precharge";
	int cliff, most;
	double r1, r2, n1, n2;

	fprintf(f, "charge %s: K memcgs taking turns on CPU %d (%s), K = 1..%d; %d s per K after %d s warm-up\n",
		o->mode, pl->stock_cpu, cg_version(pl), o->stock_max, o->duration, o->warmup);
	fprintf(f, "  op: %s\n", o->loop->what);
	if (pl->stock_slots > 0)
		fprintf(f, "  per-CPU %s from BTF: %d %s%s (%s)\n", what, pl->stock_slots, unit,
			pl->stock_slots == 1 ? "" : "s", pl->stock_evidence);
	else
		fprintf(f, "  per-CPU %s from BTF: unknown (%s); K swept to %d\n", what, pl->stock_evidence, o->stock_max);
	if (obj)
		fprintf(f, "  holders: memcgs still holding the page their first charge took after a round of one "
			"turn each, read from %s\n", pl->env.memory_v2 ? "memory.stat's kernel once the periodic "
			"stats flush (2 s) shows the round's last charge (v2)" : "memory.kmem.usage_in_bytes (v1)");
	fprintf(f, "  %4s %12s %14s %9s  %s\n", "K", "charges/s", "CPU ns/charge", "holders", "per round");
	for (int i = 0; i < n; i++) {
		char a[32], rounds[128] = "", held[16] = "-";
		size_t len = 0;

		format_si(a, sizeof(a), row[i].rate);
		for (int r = 0; r < row[i].h.rounds && len < sizeof(rounds); r++)
			len += snprintf(rounds + len, sizeof(rounds) - len, "%s%d", r ? " " : "", row[i].h.holders[r]);
		measured |= row[i].h.best >= 0;
		if (row[i].h.best >= 0)
			snprintf(held, sizeof(held), "%d", row[i].h.best);
		fprintf(f, "  %4d %12s %14.0f %9s  %s%s%s\n", row[i].k, a, row[i].ns_per_charge, held,
			row[i].h.err[0] ? row[i].h.err : rounds, row[i].cut_short ? " (cut short)" : "",
			row[i].h.best >= 0 && row[i].h.best < row[i].k ? "  <- fewer holders than memcgs" : "");
	}
	stock_cliff(row, n, &cliff, &most);
	if (!measured) {
		/* No holders (v2 objstock): split the rates at the slots BTF gives. */
		cliff = pl->stock_slots > 0 && pl->stock_slots < n ? pl->stock_slots : n;
		most = -1;
		fprintf(f, "  holders not measured; the rates below are split at the %d %s%s BTF gives\n", cliff, unit,
			cliff == 1 ? "" : "s");
	} else if (cliff < n) {
		fprintf(f, "  cliff: every memcg %s up to K = %d; beyond it at most %d do", keeps, cliff, most);
		if (pl->stock_slots > 0)
			fprintf(f, " -- %s the %d %s%s BTF gives", most == pl->stock_slots && cliff == pl->stock_slots ?
				"matches" : "does NOT match (other tasks on the CPU evict; see the rounds)",
				pl->stock_slots, unit, pl->stock_slots == 1 ? "" : "s");
		fputc('\n', f);
	} else {
		fprintf(f, "  no cliff up to K = %d: every memcg %s (the %s holds at least %d)\n", n, keeps, what, n);
	}
	*cliff_out = cliff;
	*most_out = most;
	r1 = mean_rate(row, n, true, cliff, false);
	r2 = mean_rate(row, n, false, cliff, false);
	n1 = mean_rate(row, n, true, cliff, true);
	n2 = mean_rate(row, n, false, cliff, true);
	if (cliff > 1 && cliff < n && r1 > 0)
		fprintf(f, "  K > %d against 2 <= K <= %d (K = 1 has no task to switch to): charges/s %+.1f%%, "
			"CPU ns per charge %+.1f%%\n", cliff, cliff, 100 * (r2 - r1) / r1, 100 * (n2 - n1) / n1);
	else if (cliff == 1 && n >= 3 && row[1].ns_per_charge > 0)
		fprintf(f, "  one slot: every K >= 2 misses; K = 2 against K = %d (K = 1 has no task to switch to): "
			"CPU ns per charge %+.1f%%\n", n, 100 * (row[n - 1].ns_per_charge - row[1].ns_per_charge) /
			row[1].ns_per_charge);
}

static int run_stock(const struct opts *o, struct plan *pl, struct results *res)
{
	struct charge_opts lo = loop_opts(o, pl);
	int kmax = o->stock_max, ret = 0, done = 0, cliff, most;
	bool obj = !strcmp(o->mode, "objstock");
	char mname[64];
	struct stock_row *row = xcalloc(kmax, sizeof(*row));
	int *cpu = xcalloc(kmax, sizeof(int)), *cg = xcalloc(kmax, sizeof(int));
	cpu_set_t orig, others;
	struct placement p;
	struct evidence ev;
	struct outputs out;
	char err[512], *text = NULL;
	size_t len;
	FILE *f, *tsv = NULL;

	if (placement_build(&p, 1, kmax, kmax, o->limit, -1, err, sizeof(err)))
		die("charge: %s", err);
	evidence_init(&ev, &p.tree.env, o->mode, p.ncg, p.leaf, p.label);
	if (res) {
		results_meta_set(res, "charge", config_json(o, pl, &p));
		tsv = results_open_data(res, obj ? "objstock.tsv" : "stock.tsv");
		if (tsv)
			fprintf(tsv, "K\tcharges_per_s\tcpu_ns_per_charge\tholders\tholders_per_round\tslots_btf\n");
	}
	outputs_open(&out, res);
	/* The parent keeps off the probed CPU when there is another one. */
	sched_getaffinity(0, sizeof(orig), &orig);
	others = orig;
	CPU_CLR(pl->stock_cpu, &others);
	if (CPU_COUNT(&others))
		sched_setaffinity(0, sizeof(others), &others);
	for (int k = 1; k <= kmax && !lab_stop_requested(); k++) {
		struct run_ctx x = { .pl = &p, .ev = &ev, .env = &p.tree.env, .root = p.tree.root,
				     .rounds = o->stock_rounds, .page = pl->page };
		struct harness_result r;
		struct harness_cfg hc;
		char step[32], prefix[40];

		x.stock = stock_ctl_new(k, CPU_COUNT(&others) > 0, obj);
		lo.stock_ctl = x.stock;
		ev.ncg = k;
		for (int i = 0; i < k; i++) {
			cpu[i] = pl->stock_cpu;
			cg[i] = i;
		}
		hc = harness_for(o, &lo, k, cpu, cg, &x);
		if (harness_run(&hc, &r, err, sizeof(err))) {
			stock_ctl_free(x.stock);
			if (lab_stop_requested())
				break;
			die("charge: stock K=%d: %s", k, err);
		}
		if (stock_holders_cleanup(p.tree.root, k, o->stock_rounds, err, sizeof(err))) {
			stock_ctl_free(x.stock);
			die("charge: stock K=%d: %s", k, err);
		}
		stock_ctl_free(x.stock);
		row[k - 1] = (struct stock_row){ k, r.total_rate,
			r.total_ops ? (r.workers_user_s + r.workers_sys_s) * 1e9 / r.total_ops : NAN, x.holders,
			r.cut_short };
		done = k;
		if (o->verbose)
			fprintf(stderr, "stock K=%d: %.0f charges/s, %d holders\n", k, r.total_rate, x.holders.best);
		snprintf(step, sizeof(step), "K=%d", k);
		snprintf(prefix, sizeof(prefix), "%s\t", step);
		if (res) {
			if (out.workers)
				harness_write_workers(&r, o->loop, out.workers, k > 1 ? NULL : "step\t", prefix);
			if (out.series)
				harness_write_series(&r, o->loop, out.series, k > 1 ? NULL : "step\t", prefix);
			if (out.cgroups)
				evidence_write_tsv(&ev, NULL, out.cgroups, k > 1 ? NULL : "step\t", prefix);
			if (out.metrics) {
				snprintf(mname, sizeof(mname), "%s.charges_per_s", o->mode);
				metrics_emit(out.metrics, step, res->repeat, mname, row[k - 1].rate, "ops/s", "higher");
				snprintf(mname, sizeof(mname), "%s.cpu_ns_per_charge", o->mode);
				metrics_emit(out.metrics, step, res->repeat, mname, row[k - 1].ns_per_charge, "ns",
					     "lower");
				/* v2 objstock: no kmem counter, no holders (not a zero). */
				snprintf(mname, sizeof(mname), "%s.holders", o->mode);
				if (x.holders.best >= 0)
					metrics_emit(out.metrics, step, res->repeat, mname, x.holders.best, "memcgs",
						     "-");
			}
			if (tsv) {
				fprintf(tsv, "%d\t%.6g\t%.1f\t%d\t", k, row[k - 1].rate, row[k - 1].ns_per_charge,
					x.holders.best);
				for (int i = 0; i < x.holders.rounds; i++)
					fprintf(tsv, "%s%d", i ? "," : "", x.holders.holders[i]);
				fprintf(tsv, "%s\t%d\n", x.holders.rounds ? "" : "-", pl->stock_slots);
			}
		}
		if (r.interrupted || (r.ndied && o->stop_on_death)) {
			ret = r.interrupted ? 0 : 1;
			harness_result_free(&r);
			break;
		}
		harness_result_free(&r);
	}
	sched_setaffinity(0, sizeof(orig), &orig);
	f = open_memstream(&text, &len);
	print_stock(f, o, pl, row, done, &cliff, &most);
	fclose(f);
	emit_text(text);
	if (res) {
		json_object *j = json_object_new_object();

		write_data_text(res, "charge-summary.txt", text);
		json_object_object_add(j, "cpu", json_object_new_int(pl->stock_cpu));
		json_object_object_add(j, "slots_btf", json_object_new_int(pl->stock_slots));
		json_object_object_add(j, "slots_btf_evidence", json_object_new_string(pl->stock_evidence));
		json_object_object_add(j, "k_max", json_object_new_int(done));
		json_object_object_add(j, "holders_most", json_object_new_int(most));
		json_object_object_add(j, "cliff_k", json_object_new_int(cliff));
		json_object_object_add(j, "matches_btf", json_object_new_boolean(pl->stock_slots > 0 &&
						most == pl->stock_slots && cliff == pl->stock_slots));
		results_meta_set(res, o->mode, j);
	}
	free(text);
	if (tsv)
		outfile_close(tsv);
	outputs_close(&out);
	evidence_free(&ev);
	placement_destroy(&p);
	free(row);
	free(cpu);
	free(cg);
	return ret;
}

int cmd_charge(int argc, char **argv)
{
	struct results *res;
	struct opts o;
	struct plan pl;
	int ret;

	parse_args(argc, argv, &o);
	check(&o, &pl);
	if (o.validate) {
		printf("charge: valid: %s, %s%d %s, %d cgroup%s (%s), %d s after %d s warm-up\n", o.mode,
		       o.steps ? "steps up to " : "", pl.steps[pl.nsteps - 1],
		       o.threads ? "threads" : "processes", pl.ncg, pl.ncg == 1 ? "" : "s",
		       cg_version(&pl), o.duration, o.warmup);
		topo_free(&pl.topo);
		pin_free(&pl.pin);
		return 0;
	}
	if (!strcmp(o.mode, "kmem"))
		raise_nofile();
	cleanup_set_polling(true);
	res = results_attach(o.results, argc + 1, argv - 1);
	ret = is_stock_mode(o.mode) ? run_stock(&o, &pl, res) : run_modes(&o, &pl, res);
	topo_free(&pl.topo);
	pin_free(&pl.pin);
	if (lab_stop_requested()) {
		finish_results(res, "interrupted");
		fprintf(stderr, "memcg-lab: charge: interrupted by signal %d; its cgroups and workers are gone\n",
			lab_stop_signal());
		return 128 + lab_stop_signal();
	}
	finish_results(res, ret ? "cut short: a worker died" : "complete");
	return ret;
}
