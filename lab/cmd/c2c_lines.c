// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c lines DIR: a guest run under the lines plugin as fields, perf.data and c2c.txt. */
#include <stdio.h>
#include "c2c/lines_out.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/options.h"
#include "util/run.h"

static const struct options_cmd lines_cmd = {
	.name = "c2c lines",
	.usage =
	"usage: memcg-lab c2c lines DIR [--perf PERF | --no-perf] [--source] [-q]\n"
	"\n"
	"DIR is a results directory of `memcg-lab vm --lines` (vm runs this itself\n"
	"once the guest's results are in).  From DIR/lines/lines.tsv, the lines\n"
	"plugin's counts, and what the guest's lab sent beside it (its windows and\n"
	"their labels, the run's objects, the kernel's BTF and kallsyms), writes\n"
	"into DIR/lines/ and, per window label, DIR/lines/<label>/:\n"
	"  fields.tsv  per struct field: loads, stores, HITMs, false and true sharing\n"
	"  perf.data   the events as memory samples, which real perf c2c report reads\n"
	"  c2c.txt     perf c2c report --stdio of it (without Source:Line unless\n"
	"              --source), and c2c/ the lab's field names\n"
	"A plugin status other than ok (a window never opened, a full table) and a\n"
	"guest BTF without a struct the objects need are refused (exit 2).\n"
	"\n",
};

int cmd_c2c_lines(int argc, char **argv)
{
	struct lines_out_opts o = { .perf = "perf" };
	bool no_perf = false;
	const struct lab_option opts[] = {
		OPT_STRING(0, "perf", &o.perf, "PERF", "perf", "the perf that writes c2c.txt"),
		OPT_FLAG(0, "no-perf", &no_perf, "no c2c.txt (fields.tsv and perf.data only)"),
		OPT_FLAG(0, "source", &o.source, "the Source:Line column in c2c.txt (addr2line over the guest's "
			 "vmlinux: minutes)"),
		OPT_FLAG('q', "quiet", &o.quiet, "no notes"),
		OPT_END(),
	};
	int i = options_parse(&lines_cmd, opts, argc, argv);
	char err[1024];

	if (i != argc - 1)
		options_usage_error();
	o.dir = argv[i];
	if (no_perf)
		o.perf = NULL;
	else if (!program_on_path(o.perf))
		die("c2c lines: --perf %s: not found on PATH (Debian package linux-perf), or --no-perf", o.perf);
	if (lines_out(&o, err, sizeof(err)) < 0)
		die("c2c lines: %s", err);
	return 0;
}
