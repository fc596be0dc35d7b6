// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab report DIR: prints the report of a results directory (written
 * by report/report.c, which also writes a run's report.txt).
 */
#include <stdio.h>
#include <stdlib.h>
#include "report/report.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/options.h"
#include "util/outfile.h"

static const struct options_cmd report_cmd = {
	.name = "report",
	.usage =
	"usage: memcg-lab report DIR [--out FILE]\n"
	"\n"
	"Prints the report of a results directory: first a summary of what the run\n"
	"found (what it could not measure, verdicts, cliffs, ratios, skips), then\n"
	"kernel and features, skipped parts with their reasons, layout verdicts,\n"
	"driver tables, lock and c2c tables.  An incomplete run is marked at the top.\n"
	"\n",
};

int cmd_report(int argc, char **argv)
{
	const char *outp = NULL;
	const struct lab_option opts[] = {
		OPT_STRING(0, "out", &outp, "FILE", NULL,
			   "write it there instead of stdout (the runner writes report.txt)"),
		OPT_END(),
	};
	int arg = options_parse(&report_cmd, opts, argc, argv);
	char err[512];
	FILE *out = stdout;

	if (argc - arg != 1)
		die("report: needs exactly one results directory");
	if (outp)
		out = outfile_open(outp, "w");
	if (report_write(argv[arg], out, err, sizeof(err)))
		die("%s", err);
	if (outp)
		outfile_close(out);
	return 0;
}
