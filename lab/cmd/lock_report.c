// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab lock report: a perf.data read as perf lock contention would,
 * or a captured perf lock contention output.  This file is the options;
 * the reading is lock/lockcon_report.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include "lock/lockcon_out.h"
#include "lock/lockcon_report.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/options.h"
#include "util/outfile.h"

static const struct options_cmd report_cmd = {
	.name = "lock report",
	.usage =
	"usage: memcg-lab lock report -i perf.data [--by thread|caller|lock] [--tsv] [--kallsyms FILE]\n"
	"       memcg-lab lock report --perf-text FILE [--tsv]\n"
	"\n"
	"Reads a perf.data recorded by 'perf lock record' (tracepoint mode) directly:\n"
	"the header, attributes, event formats and raw tracepoint payloads, with the\n"
	"semantics of 'perf lock contention -i' (same counts and total waits per thread\n"
	"and per call chain).  --perf-text parses a captured 'perf lock contention'\n"
	"output (text of any perf version, or CSV of -x) into the lab's table.\n"
	"\n",
};

static void by_opt(const struct lab_option *opt, const char *arg)
{
	if (lockcon_by_parse(arg) < 0)
		die("lock report: --by %s: expected thread, caller or lock", arg);
	*(enum lockcon_by *)opt->value = lockcon_by_parse(arg);
}

int cmd_lock_report(int argc, char **argv)
{
	struct lockcon_report_opts o = { .by = LOCKCON_BY_CALLER, .max_stack = 8, .stack_skip = -1 };
	const char *perf_text = NULL, *output = NULL;
	const struct lab_option opts[] = {
		OPT_STRING('i', "input", &o.input, "FILE", NULL, "perf.data to read"),
		OPT_CALLBACK(0, "by", &o.by, "VIEW", NULL, "thread (perf -t), caller (default, perf's view), lock",
			     by_opt),
		OPT_FLAG(0, "tsv", &o.tsv, "TSV with a header row instead of perf's layout"),
		OPT_STRING(0, "kallsyms", &o.kallsyms, "FILE", "/proc/kallsyms",
			   "kernel symbols of the recording machine"),
		OPT_INT(0, "max-stack", &o.max_stack, "N", "8", "frames of each call chain used, as perf's "
			"--max-stack", 1, 64),
		OPT_INT(0, "stack-skip", &o.stack_skip, "N", NULL, "leading frames skipped to find the caller, as "
			"perf's --stack-skip (default: that of the perf that recorded the file, from its header: 3 "
			"before perf 6.2, then 4)", 0, 64),
		OPT_STRING(0, "perf-text", &perf_text, "FILE", NULL, "parse a perf lock contention output instead"),
		OPT_STRING('o', "output", &output, "FILE", NULL, "write there instead of stdout"),
		OPT_END(),
	};
	FILE *out = stdout;

	if (options_parse(&report_cmd, opts, argc, argv) < argc || (!o.input && !perf_text))
		options_usage_error();
	if (output) {
		out = outfile_open(output, "w");
	}
	if (perf_text)
		return lockcon_report_perf_text(perf_text, o.tsv, out);
	lockcon_report_perfdata(&o, out);
	if (out != stdout && outfile_close(out))
		exit(EXIT_LAB_ERR);	/* its one line is printed */
	return 0;
}
