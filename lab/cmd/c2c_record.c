// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c record: the options; the recording is c2c/c2c_record.c. */
#include <stdlib.h>
#include "cmd/builtin.h"
#include "c2c/c2c.h"
#include "c2c/c2c_record.h"
#include "util/err.h"
#include "util/options.h"

static const struct options_cmd record_cmd = {
	.name = "c2c record",
	.usage =
	"usage: memcg-lab c2c record --duration S [options] -- CMD [ARGS...]\n"
	"\n"
	"Runs CMD (the driver, expected to run about S seconds) and records one perf\n"
	"c2c window in its steady state: by default 3-5 s starting at 3/4 of S,\n"
	"system-wide, kernel samples only, ldlat raised above 148 CPUs,\n"
	"perf_event_max_sample_rate raised for the window and restored.  Then writes\n"
	"`perf c2c report --stdio -NN -c pid,tid,iaddr --full-symbols` (and a\n"
	"--double-cl report where perf has it), parses both, and names the struct\n"
	"field of every offset that lies in a known object: the struct mem_cgroup of\n"
	"each --memcg directory and every CPU's memcg_stock/obj_stock.\n"
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

int cmd_c2c_record(int argc, char **argv)
{
	struct option_list memcgs = { 0 };
	double duration = 0;
	const char *out = NULL;
	struct c2c_opts o;
	const struct lab_option opts[] = {
		OPT_SECONDS(0, "duration", &duration, "S", NULL, "how long CMD runs (sets the window)", 86400),
		OPT_CALLBACK(0, "start-frac", &o.start_frac, "F", "0.75", "window start as a fraction of S", fraction_opt),
		OPT_CALLBACK(0, "start", &o.start_s, "S", NULL, "window start in seconds after CMD starts", start_opt),
		OPT_SECONDS(0, "window", &o.window_s, "S", "3-5 s, fitted to S", "window length", 86400),
		OPT_INT(0, "ldlat", &o.ldlat, "N", "perf's, 50/70 on > 148/256 CPUs", "minimum load latency", 1,
			65535),
		OPT_INT(0, "freq", &o.freq, "N", "60000", "sampling frequency (perf record -F)", 1, 1000000),
		OPT_FLAG(0, "user", &o.user, "user-space samples too (default: kernel only)"),
		OPT_CLEAR(0, "no-double-cl", &o.double_cl, "no --double-cl report"),
		OPT_LIST(0, "memcg", &memcgs, "DIR", "a memory cgroup directory whose struct mem_cgroup to name "
			 "(repeatable)"),
		OPT_STRING('o', "out", &out, "DIR", "results/<date>-c2c/data", "output directory"),
		OPT_END(),
	};
	int cmd, rc;

	c2c_opts_default(&o);
	cmd = options_parse(&record_cmd, opts, argc, argv);
	if (cmd >= argc)
		options_usage_error();
	if (duration <= 0 && o.start_s < 0)
		die("c2c record: give --duration (how long the command runs) or --start");
	rc = c2c_record_command(&o, duration, out, memcgs.v, memcgs.n, argc, argv, cmd);
	free(memcgs.v);
	return rc;
}
