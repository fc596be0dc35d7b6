// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab plot: parses the options and plots the results directories
 * (lab/plot/plot.h draws them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/builtin.h"
#include "plot/plot.h"
#include "report/labels.h"
#include "util/err.h"
#include "util/options.h"

static const char usage_text[] =
"usage: memcg-lab plot DIR [DIR...] [--out DIR] [--size WIDTHxHEIGHT] [--label X=TEXT]\n"
"\n"
"Plots results directories with the gnuplot templates in plots/: each plot as\n"
"PNG, SVG and an ASCII rendering 72 columns wide (.txt) to paste into a\n"
"mail.  With several directories the series are drawn against each other\n"
"(A vs B), by default into compare-A-vs-B/plots beside A (A's own plots/ stay\n"
"A's).  Plots: every stepped metric (series-*), every metric measured\n"
"at no numeric step as bars per step and directory, min..max over the\n"
"repeats (bars-*: phases, A/B runs), every latency histogram as a CDF\n"
"(cdf-*: stat-read levels, lock waits and holds), the cacheline map of each\n"
"captured struct layout (cachelines-*), and c2c's false-sharing map per\n"
"struct field (falsesharing-*).\n\n";

static void parse_size(const struct lab_option *opt, const char *arg)
{
	struct plot_request *req = opt->value;

	if (sscanf(arg, "%dx%d", &req->width, &req->height) != 2 || req->width < 100 || req->height < 100 ||
	    req->width > 10000 || req->height > 10000)
		die("plot: --size '%s': want WIDTHxHEIGHT in pixels, 100..10000 (e.g. 800x500)", arg);
}

static void parse_status(const struct lab_option *opt, const char *arg)
{
	if (strcmp(arg, "complete") && strcmp(arg, "complete-with-failures") && strcmp(arg, "incomplete") &&
	    strcmp(arg, "failed"))
		die("plot: --status '%s': want complete, complete-with-failures, incomplete or failed", arg);
	*(const char **)opt->value = arg;
}

int cmd_plot(int argc, char **argv)
{
	static const struct options_cmd cmd = { "plot", usage_text, NULL, false };
	struct plot_request req = { .width = 800, .height = 500 };
	struct option_list label_args = { NULL, 0 };
	struct labels labels;
	const struct lab_option opts[] = {
		OPT_STRING(0, "out", &req.out, "DIR", NULL, "where to write (default: one DIR's own plots/; of "
			   "several, beside the first: compare-A-vs-B/plots, never into A's)"),
		OPT_LIST(0, "label", &label_args, "X=TEXT", "what side X (A, B, ...) is called in the legends "
			 "(default: its kernel release; its directory's name where two releases are the same)"),
		OPT_CALLBACK(0, "size", &req, "WxH", "800x500", "PNG/SVG size in pixels", parse_size),
		OPT_CALLBACK(0, "status", &req.status_as, "S", NULL,
			     "label the first DIR with status S instead of its meta.json's (run passes the "
			     "status it is finishing with)", parse_status),
		OPT_END(),
	};
	int first = options_parse(&cmd, opts, argc, argv);

	labels_parse(&labels, "plot", &label_args, argc - first);
	req.labels = &labels;
	plot_dirs((const char *const *)argv + first, argc - first, &req);
	free(label_args.v);
	return 0;
}
