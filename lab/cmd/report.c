// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab report DIR: prints the report of a results directory (written
 * by analyze/report.c, which also writes a run's report.txt).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "analyze/report.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/outfile.h"

static const char usage_text[] =
"usage: memcg-lab report DIR [--out FILE]\n"
"\n"
"Prints the report of a results directory: kernel and features, skipped parts\n"
"with their reasons, layout verdicts, driver tables, lock and c2c tables.\n"
"An incomplete run is marked at the top.\n"
"\n"
"  --out FILE    write it there instead of stdout (the runner writes report.txt)\n"
"  -h, --help    this text\n";

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *outp = NULL;
	char err[512];
	FILE *out = stdout;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outp = optarg; break;
		case 'h': usage_exit(usage_text, 0);
		default: usage_exit(usage_text, EXIT_LAB_ERR);
		}
	}
	if (argc - optind != 1)
		die("report: needs exactly one results directory");
	if (outp)
		out = outfile_open(outp, "w");
	if (report_write(argv[optind], out, err, sizeof(err)))
		die("%s", err);
	if (outp)
		outfile_close(out);
	return 0;
}
