// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab plot: parses the options and plots the results directories
 * (lab/plot/plot.h draws them).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cmd/builtin.h"
#include "plot/plot.h"
#include "util/err.h"

static const char usage_text[] =
"usage: memcg-lab plot DIR [DIR...] [--out DIR] [--size WIDTHxHEIGHT]\n"
"\n"
"Plots results directories with the gnuplot templates in plots/: each plot as\n"
"PNG, SVG and an ASCII rendering 72 columns wide (.txt) to paste into a\n"
"mail.  With several directories the series are drawn against each other\n"
"(A vs B).  Plots: every stepped metric (series-*), every metric measured\n"
"at no numeric step as bars per step and directory, min..max over the\n"
"repeats (bars-*: phases, A/B runs), every latency histogram as a CDF\n"
"(cdf-*: stat-read levels, lock waits and holds), the cacheline map of each\n"
"captured struct layout (cachelines-*), and c2c's false-sharing map per\n"
"struct field (falsesharing-*).\n"
"\n"
"  --out DIR     where to write (default: the first DIR's plots/)\n"
"  --size WxH    PNG/SVG size in pixels (default 800x500)\n"
"  --status S    label the first DIR with status S instead of its meta.json's\n"
"                (run passes the status it is finishing with)\n"
"  -h, --help    this text\n";

int cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "status", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct plot_request req = { NULL, NULL, 800, 500 };
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': req.out = optarg; break;
		case 's':
			if (sscanf(optarg, "%dx%d", &req.width, &req.height) != 2 || req.width < 100 || req.height < 100 ||
			    req.width > 10000 || req.height > 10000)
				die("plot: --size '%s': want WIDTHxHEIGHT in pixels, 100..10000 (e.g. 800x500)", optarg);
			break;
		case 'S':
			if (strcmp(optarg, "complete") && strcmp(optarg, "complete-with-failures") &&
			    strcmp(optarg, "incomplete") && strcmp(optarg, "failed"))
				die("plot: --status '%s': want complete, complete-with-failures, incomplete or failed",
				    optarg);
			req.status_as = optarg;
			break;
		case 'h': usage_exit(usage_text, 0);
		default: usage_exit(usage_text, EXIT_LAB_ERR);
		}
	}
	plot_dirs((const char *const *)argv + optind, argc - optind, &req);
	return 0;
}
