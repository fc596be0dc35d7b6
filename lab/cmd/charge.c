// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab charge: contended memcg charging.  This file parses and calls;
 * the driver is lab/drivers/charge/: its options (options.c, shared with
 * the experiment plan), the plan that checks them against the machine's
 * facts before anything starts, the run that builds the cgroup tree and
 * runs the mode's loop once per task count (the stock and objstock modes
 * sweep K memcgs on one CPU instead), and the report that prints the
 * summary (and, with a results directory, writes data/ and metrics.tsv).
 */
#include <stdio.h>
#include <stdlib.h>
#include "cmd/builtin.h"
#include "report/report.h"
#include "drivers/charge/options.h"
#include "drivers/charge/report.h"
#include "drivers/charge/run.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/options.h"
#include "util/results.h"

static void parse_args(int argc, char **argv, struct charge_config *o)
{
	int r = charge_parse_options(argc, argv, o);

	if (r > 0) {
		charge_print_help(stdout);
		exit(0);
	}
	if (r < 0)
		options_usage_error();
}

static void finish_results(struct results *res, const char *status)
{
	if (!res)
		return;
	report_finish(res, status);
	if (!res->attached)
		printf("results: %s\n", res->dir);
	results_free(res);
}

int cmd_charge(int argc, char **argv)
{
	struct charge_config cfg;
	struct charge_host host;
	struct charge_plan plan;
	struct results *res;
	char err[4096];
	int ret;

	parse_args(argc, argv, &cfg);
	charge_host_probe(&host, &cfg);
	if (charge_plan(&plan, &cfg, &host, err, sizeof(err)))
		die("charge: %s", err);
	if (cfg.validate) {
		charge_report_valid(stdout, &plan);
		charge_plan_free(&plan);
		charge_host_free(&host);
		return 0;
	}
	cleanup_set_polling(true);
	res = results_attach(cfg.results, argc + 1, argv - 1);
	ret = charge_run(&plan, res);
	charge_plan_free(&plan);
	charge_host_free(&host);
	if (lab_stop_requested()) {
		finish_results(res, "interrupted");
		fprintf(stderr, "memcg-lab: charge: interrupted by signal %d; its cgroups and workers are gone\n",
			lab_stop_signal());
		return 128 + lab_stop_signal();
	}
	finish_results(res, ret ? "cut short: a worker died" : "complete");
	return ret;
}
