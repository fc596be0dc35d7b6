// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab compare: the table kernel developers know from the 0-day robot
 * (mean ±stddev% of A, %change, mean ±stddev% of B per metric), with the
 * run counts, a Welch t-test marker on significant changes, and, for
 * scaling series, the seeds' "clients | A | B (x% improvement)" layout.
 * Plain text no wider than 80 columns, to paste into a mail.  This file is
 * the options; the comparison is report/compare.c.
 */
#include <stdbool.h>
#include <stdlib.h>
#include "report/compare.h"
#include "report/labels.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/options.h"

static const struct options_cmd compare_cmd = {
	.name = "compare",
	.usage =
	"usage: memcg-lab compare DIR_A DIR_B [DIR_C...] [--common] [--metric REGEX] [--series METRIC]\n"
	"                         [--label X=TEXT]\n"
	"\n"
	"Compares results directories: A is the baseline, every other one is set\n"
	"against it.  Per metric (data/metrics.tsv): mean and stddev% of A, %change,\n"
	"mean and stddev% of B, and '*' where Welch's t-test gives p < 0.05 (needs\n"
	"two runs or more on each side).  Scaling series (numeric steps such as\n"
	"tasks=6) are also shown as \"number of tasks | A | B (x% improvement)\":\n"
	"a direction only where the test finds a change, else \"(no significant\n"
	"change, p = ...)\" or \"(1 run a side: not tested)\".\n"
	"\n",
};

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { 0 };
	struct option_list label_args = { NULL, 0 };
	struct labels labels;
	const struct lab_option opts[] = {
		OPT_LIST(0, "label", &label_args, "X=TEXT", "what side X (A, B, ...) is called in the header"),
		OPT_FLAG(0, "common", &o.common, "compare the metrics two runs of different experiments share\n"
			 "(otherwise different experiments are refused)"),
		OPT_STRING(0, "metric", &o.metric_re, "REGEX", NULL, "only metrics whose name matches"),
		OPT_STRING(0, "series", &o.series, "METRIC", NULL, "the metric shown in the scaling layout (default: "
			   "the first metric of A with numeric steps)"),
		OPT_FLAG(0, "tsv", &o.tsv, "machine-readable rows instead of the table: step metric n_a mean_a sd_a "
			 "n_b mean_b sd_b change_pct t df p significant; '-' where the runs give none (sd under 2 "
			 "runs; t, df, p and significant untested)"),
		OPT_END(),
	};
	int first = options_parse(&compare_cmd, opts, argc, argv), ret;

	if (argc - first < 2)
		die("compare: needs at least two results directories (got %d)", argc - first);
	labels_parse(&labels, "compare", &label_args, argc - first);
	o.labels = &labels;
	ret = compare_dirs(argv + first, argc - first, &o);
	free(label_args.v);
	return ret;
}
