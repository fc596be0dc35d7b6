// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab report DIR: prints the report of a results directory (written
 * by report/report.c, which also writes a run's report.txt); with --mail
 * the text for a mail, whose A-vs-B plots it draws first (lab/plot/) in a
 * directory of their own beside A.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "report/labels.h"
#include "report/report.h"
#include "cmd/builtin.h"
#include "plot/plot.h"
#include "util/err.h"
#include "util/gnuplot.h"
#include "util/options.h"
#include "util/outfile.h"

static const struct options_cmd report_cmd = {
	.name = "report",
	.usage =
	"usage: memcg-lab report DIR [--out FILE]\n"
	"       memcg-lab report --mail DIR [DIR_B] [--label X=TEXT] [--out FILE]\n"
	"\n"
	"Prints the report of a results directory: first a summary of what the run\n"
	"found (what it could not measure, verdicts, cliffs, ratios, skips), then\n"
	"kernel and features, skipped parts with their reasons, layout verdicts,\n"
	"driver tables, lock and c2c tables.  An incomplete run is marked at the top.\n"
	"With --mail: plain text 72 columns wide that an LKML reply can quote: one\n"
	"line per run on what it ran on, the verdicts (of DIR, or of the A/B DIR\n"
	"against DIR_B), the seeds' tables with the measured figures, compare's\n"
	"%change block, the layout verdicts, and the ASCII renderings of the headline\n"
	"plots.  Of an A/B it draws its own plots (as `plot DIR DIR_B` does, into\n"
	"compare-A-vs-B/plots beside DIR; DIR's own plots/ stay as they are).\n"
	"\n",
};

int cmd_report(int argc, char **argv)
{
	const char *outp = NULL, *plots_dir = NULL;
	bool mail = false;
	struct option_list label_args = { NULL, 0 };
	const struct lab_option opts[] = {
		OPT_STRING(0, "out", &outp, "FILE", NULL,
			   "write it there instead of stdout (the runner writes report.txt)"),
		OPT_FLAG(0, "mail", &mail, "the text for a mail: context, verdicts, the seeds' tables, the "
			 "measured change, layout verdicts and the headline ASCII plots in 72 columns"),
		OPT_LIST(0, "label", &label_args, "X=TEXT", "with --mail: what side X (A, B) is called (default: its "
			 "kernel release; its directory's name where the two releases are the same)"),
		OPT_STRING(0, "plots", &plots_dir, "DIR", "compare-A-vs-B/plots beside A",
			   "with --mail A B: where the A-vs-B plots go"),
		OPT_END(),
	};
	int arg = options_parse(&report_cmd, opts, argc, argv), ndirs = argc - arg;
	char err[512];
	FILE *out = stdout;

	if (ndirs != 1 && !(mail && ndirs == 2))
		die("report: needs exactly one results directory%s", mail ? " (or two with --mail: A and B)" : "");
	if (label_args.n && !mail)
		die("report: --label names the sides of a mail (report --mail A B)");
	if (plots_dir && !(mail && ndirs == 2))
		die("report: --plots is where a mail's A-vs-B plots go (report --mail A B)");
	if (mail) {
		const char *const *dirs = (const char *const *)argv + arg;
		char names[2][LABEL_LEN], why[256], *plots;
		struct labels labels;
		struct mail_opts mo = { { names[0], names[1] }, NULL, NULL };

		if (ndirs == 2 && report_mail_check(dirs[0], dirs[1], err, sizeof(err)))
			die("%s", err);
		labels_parse(&labels, "report", &label_args, ndirs);
		labels_of(&labels, dirs, ndirs, names);
		if (ndirs == 1) {
			/* One run: its own plots, as the run drew them. */
			plots = xasprintf("%s/plots", dirs[0]);
		} else if (gnuplot_available(why, sizeof(why))) {
			struct plot_request req = { .width = 800, .height = 500, .labels = &labels, .quiet = true };

			plots = plots_dir ? xstrdup(plots_dir) : plot_default_out(dirs, ndirs);
			req.out = plots;
			plot_dirs(dirs, ndirs, &req);
			/* Where they are is the sender's to know, not the mail's. */
			fprintf(stderr, "report: the plots of A against B (PNG, SVG, gnuplot scripts) are in %s\n", plots);
		} else {
			plots = NULL;
			mo.no_plots = why;
		}
		mo.plots = plots;
		if (outp)
			out = outfile_open(outp, "w");
		if (report_mail(dirs[0], ndirs == 2 ? dirs[1] : NULL, &mo, out, err, sizeof(err)))
			die("%s", err);
		free(plots);
	} else {
		if (outp)
			out = outfile_open(outp, "w");
		if (report_write(argv[arg], out, err, sizeof(err)))
			die("%s", err);
	}
	if (outp)
		outfile_close(out);
	free(label_args.v);
	return 0;
}
