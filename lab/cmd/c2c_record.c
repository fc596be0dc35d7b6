// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c record: the options; the recording is c2c/c2c_record.c. */
#include <stdlib.h>
#include "cmd/builtin.h"
#include "c2c/c2c.h"
#include "c2c/c2c_record.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/options.h"

static const struct options_cmd record_cmd = {
	.name = "c2c record",
	.usage =
	"usage: memcg-lab c2c record --duration S [options] -- CMD [ARGS...]\n"
	"       memcg-lab c2c record --dry-run [--pmu NAME] [--cpus N] [options]\n"
	"\n"
	"Runs CMD (the driver, expected to run about S seconds) and records one perf\n"
	"c2c window in its steady state: by default 3-5 s starting at 3/4 of S,\n"
	"system-wide, kernel samples only where the PMU can filter, with the events,\n"
	"ldlat and sampling perf's own rules allow for the PMU (no -F on Arm SPE: a\n"
	"period; no ldlat on AMD IBS: it drops stores), at a rate that keeps the\n"
	"whole box within a budget of samples per second, perf.data capped in size\n"
	"and checked against the free disk first.  Then one `perf c2c report --stdio\n"
	"-NN -c pid,tid,iaddr --full-symbols --no-source` pass under a time limit,\n"
	"parsed as it streams, lost and throttled samples counted from the perf.data\n"
	"(windows.tsv), and the struct field of every offset that lies in a known\n"
	"object named: the struct mem_cgroup of each --memcg directory and every\n"
	"CPU's memcg_stock/obj_stock.  The perf.data is removed unless --keep.\n"
	"\n"
	"--dry-run prints the perf command line for the PMU (--pmu, default this\n"
	"machine's) and CPU count (--cpus, default this machine's) and the data it\n"
	"would write per second, and records nothing.\n"
	"\n",
	.stop_at_arg = true,	/* CMD's own options are its */
};

static void fraction_opt(const struct lab_option *opt, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v > 0 && v < 1))
		option_bad(opt, arg, "want a fraction between 0 and 1");
	*(double *)opt->value = v;
}

/* Seconds after the command starts: 0 is its first moment. */
static void start_opt(const struct lab_option *opt, const char *arg)
{
	*(double *)opt->value = option_duration_ns(opt, arg, 0, 86400 * 1000000000LL) / 1e9;
}

static void pmu_opt(const struct lab_option *opt, const char *arg)
{
	char names[256];

	*(const struct c2c_pmu **)opt->value = c2c_pmu_by_name(arg);
	if (!*(const struct c2c_pmu **)opt->value) {
		c2c_pmu_names(names, sizeof(names));
		option_bad(opt, arg, "%s", names);
	}
}

static void size_opt(const struct lab_option *opt, const char *arg)
{
	unsigned long long v;

	if (parse_bytes(arg, &v) || v < (1ULL << 20))
		option_bad(opt, arg, "want a size of at least 1M (e.g. 512M, 2G)");
	*(unsigned long long *)opt->value = v;
}

int cmd_c2c_record(int argc, char **argv)
{
	struct option_list memcgs = { 0 };
	double duration = 0;
	const char *out = NULL;
	const struct c2c_pmu *pmu = NULL;
	bool dry_run = false;
	struct c2c_opts o;
	const struct lab_option opts[] = {
		OPT_SECONDS(0, "duration", &duration, "S", NULL, "how long CMD runs (sets the window)", 86400),
		OPT_CALLBACK(0, "start-frac", &o.start_frac, "F", "0.75", "window start as a fraction of S", fraction_opt),
		OPT_CALLBACK(0, "start", &o.start_s, "S", NULL, "window start in seconds after CMD starts", start_opt),
		OPT_SECONDS(0, "window", &o.window_s, "S", "3-5 s, fitted to S", "window length", 86400),
		OPT_INT(0, "ldlat", &o.ldlat, "N", "perf's; Intel: 50/70 on > 148/256 CPUs",
			"minimum load latency (refused on AMD IBS: it drops stores)", 1, 65535),
		OPT_INT(0, "freq", &o.freq, "N", "from the budget", "sampling frequency per CPU (perf record -F; "
			"refused on Arm SPE)", 1, 1000000),
		OPT_INT(0, "budget", &o.budget, "N", "1000000", "samples per second over the whole box", 1000,
			100000000),
		OPT_CALLBACK(0, "max-size", &o.max_size, "SIZE", "1G", "cap of the perf.data (perf record --max-size)",
			     size_opt),
		OPT_SECONDS(0, "report-timeout", &o.report_timeout_s, "S", "600", "perf c2c report's time limit",
			    86400),
		OPT_FLAG(0, "keep", &o.keep_data, "keep the perf.data once its report is parsed"),
		OPT_FLAG(0, "source", &o.source, "the Source:Line column (addr2line: slow on big reports)"),
		OPT_FLAG(0, "double-cl", &o.double_cl, "a second, --double-cl report (perf 6.3+)"),
		OPT_FLAG(0, "user", &o.user, "user-space samples too (default: kernel only)"),
		OPT_LIST(0, "memcg", &memcgs, "DIR", "a memory cgroup directory whose struct mem_cgroup to name "
			 "(repeatable)"),
		OPT_STRING('o', "out", &out, "DIR", "results/<date>-c2c/data", "output directory"),
		OPT_GROUP("Without recording"),
		OPT_FLAG(0, "dry-run", &dry_run, "print the perf command line and the data per second, record nothing"),
		OPT_CALLBACK(0, "pmu", &pmu, "NAME", "this machine's", "intel, amd-zen4, amd-zen5, arm-n1, arm-n2, "
			     "arm-v1, arm-v2, ampereone, arm-other, power", pmu_opt),
		OPT_INT(0, "cpus", &o.ncpus, "N", "this machine's", "the CPU count the rate is chosen for", 1, 1 << 20),
		OPT_END(),
	};
	int cmd, rc;

	c2c_opts_default(&o);
	cmd = options_parse(&record_cmd, opts, argc, argv);
	if (dry_run) {
		if (cmd < argc)
			die("c2c record --dry-run runs no command: '%s' and after are not taken", argv[cmd]);
		return c2c_record_dry_run(&o, pmu, duration);
	}
	if ((pmu || o.ncpus) && !dry_run)
		die("c2c record: --pmu and --cpus describe another box: with --dry-run only");
	if (cmd >= argc)
		options_usage_error();
	if (duration <= 0 && o.start_s < 0)
		die("c2c record: give --duration (how long the command runs) or --start");
	rc = c2c_record_command(&o, duration, out, memcgs.v, memcgs.n, argc, argv, cmd);
	free(memcgs.v);
	return rc;
}
