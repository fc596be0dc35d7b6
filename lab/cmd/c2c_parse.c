// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c parse: perf c2c report --stdio into TSV files. */
#include <stdio.h>
#include "c2c/c2c_parse_dir.h"
#include "cmd/builtin.h"
#include "util/options.h"

static const struct options_cmd parse_cmd = {
	.name = "c2c parse",
	.usage =
	"usage: memcg-lab c2c parse FILE [--out DIR]\n"
	"\n"
	"Parses `perf c2c report --stdio` output of any perf version (4.10 .. 6.x,\n"
	"Intel/AMD/Arm, HITM or Peer display, -N/-NN, -c pid/tid/iaddr/dso,\n"
	"--double-cl) and mail-quoted or cut-off excerpts of it.  Columns are found\n"
	"from the report's own header lines.  Writes, each with a header row:\n"
	"  stats.tsv       section key value unit (every statistics line)\n"
	"  cachelines.tsv  one row per cacheline (Shared Data table + Pareto summary)\n"
	"  offsets.tsv     one row per Pareto offset row\n"
	"  warnings.tsv    line warning (what was guessed or skipped)\n"
	"Cells the report does not have are left empty.  Warnings also go to stderr.\n"
	"\n",
};

int cmd_c2c_parse(int argc, char **argv)
{
	const char *out = ".";
	bool quiet = false;
	const struct lab_option opts[] = {
		OPT_STRING('o', "out", &out, "DIR", ".", "output directory, created"),
		OPT_FLAG('q', "quiet", &quiet, "no warnings on stderr (they stay in warnings.tsv)"),
		OPT_END(),
	};
	struct c2c_report r;
	int i = options_parse(&parse_cmd, opts, argc, argv);

	if (i != argc - 1)
		options_usage_error();
	c2c_parse_dir_or_die(argv[i], out, quiet, &r);
	printf("%s: %zu statistics, %zu cachelines, %zu offset rows, %zu warnings -> %s/\n",
	       argv[i], r.nstats, r.ncls, r.noffs_seen, r.nwarns, out);
	c2c_report_free(&r);
	return 0;
}
