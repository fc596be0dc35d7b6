// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab report DIR: prints the report of a results directory (written
 * by report/report.c, which also writes a run's report.txt).
 */
#include <stdbool.h>
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
	"       memcg-lab report --mail DIR [DIR_B]\n"
	"\n"
	"Prints the report of a results directory: first a summary of what the run\n"
	"found (what it could not measure, verdicts, cliffs, ratios, skips), then\n"
	"kernel and features, skipped parts with their reasons, layout verdicts,\n"
	"driver tables, lock and c2c tables.  An incomplete run is marked at the top.\n"
	"With --mail: plain text 72 columns wide that an LKML reply can quote: the\n"
	"verdicts (of DIR, or of the A/B DIR against DIR_B), the seeds' tables beside\n"
	"the measured figures, and the ASCII renderings of the headline plots.\n"
	"\n",
};

int cmd_report(int argc, char **argv)
{
	const char *outp = NULL;
	bool mail = false;
	const struct lab_option opts[] = {
		OPT_STRING(0, "out", &outp, "FILE", NULL,
			   "write it there instead of stdout (the runner writes report.txt)"),
		OPT_FLAG(0, "mail", &mail, "the verdicts, the seeds' tables and the headline ASCII plots in 72 "
			 "columns, for a mail"),
		OPT_END(),
	};
	int arg = options_parse(&report_cmd, opts, argc, argv);
	char err[512];
	FILE *out = stdout;

	if (argc - arg != 1 && !(mail && argc - arg == 2))
		die("report: needs exactly one results directory%s", mail ? " (or two with --mail: A and B)" : "");
	if (outp)
		out = outfile_open(outp, "w");
	if (mail ? report_mail(argv[arg], argc - arg == 2 ? argv[arg + 1] : NULL, out, err, sizeof(err)) :
		   report_write(argv[arg], out, err, sizeof(err)))
		die("%s", err);
	if (outp)
		outfile_close(out);
	return 0;
}
