// SPDX-License-Identifier: GPL-2.0
/* memcg-lab run FILE: one experiment file, one results directory (experiment/runner.h). */
#include <stdlib.h>
#include "cmd/builtin.h"
#include "report/report.h"
#include "experiment/runner.h"
#include "util/err.h"
#include "util/options.h"

static const struct options_cmd run_cmd = {
	.name = "run",
	.usage =
	"usage: memcg-lab run FILE [-s section.key=value]... [--validate]\n"
	"       memcg-lab run --plan [--topology SPEC|FILE] [--pmu NAME] FILE [-s section.key=value]...\n"
	"\n"
	"Runs an experiment file (experiments/*.exp) into one results directory:\n"
	"probe, collectors, the driver at every schedule step and repeat, plots and\n"
	"report.txt, which opens with the verdicts: each [claim] of the file (the\n"
	"seed's published figures) against what the run measured; the run ends by\n"
	"printing them.  Everything is checked before anything starts; a bad key or\n"
	"value (a claim's too) is reported as file:line with what was expected.\n"
	"\n",
	.footer =
	"\n"
	"On a small box (fewer CPUs than [schedule] small_cpus, default 16) the\n"
	"[small] section's values replace the full-size ones; the results say so.\n"
	"Where the memory controller is on cgroup v1, the [v1] section's values\n"
	"replace both (e.g. a tcp limit, without which v1 charges no socket memory).\n"
	"\n"
	"Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops the run: its driver stops, its cgroups\n"
	"go, the results stay incomplete.  Further signals meanwhile are ignored, for\n"
	"at most 60 s ($MEMCG_LAB_STOP_TIMEOUT); past that one line names what is\n"
	"left, which `memcg-lab cleanup` removes.\n",
};

int cmd_run(int argc, char **argv)
{
	struct option_list overrides = { 0 };
	bool validate_only = false, plan_only = false;
	const char *topology = NULL, *pmu = NULL;
	const struct lab_option opts[] = {
		OPT_LIST('s', "set", &overrides, "section.key=value", "override an entry (e.g. -s experiment.repeats=1)"),
		OPT_FLAG(0, "validate", &validate_only, "check the file and the driver's options, then stop"),
		OPT_FLAG(0, "plan", &plan_only, "print what the run would do, touching nothing: steps, cgroup trees, "
			 "workers, readers, allocators, collectors, time, and the kernel limits it must fit (exit 2 "
			 "if not)"),
		OPT_STRING(0, "topology", &topology, "SPEC|FILE", NULL, "with --plan: for a described machine, an "
			   "hwloc synthetic description ('package:2 numa:4 core:16 pu:2') or an lstopo XML file, "
			   "with the kernel's default limits"),
		OPT_STRING(0, "pmu", &pmu, "NAME", "this machine's", "with --plan: the box's memory-sampling PMU "
			   "for its c2c windows (intel, amd-zen4, amd-zen5, arm-n1, arm-n2, arm-v1, arm-v2, ampereone, "
			   "arm-other, power)"),
		OPT_END(),
	};
	int file = options_parse(&run_cmd, opts, argc, argv), rc;
	char **set = (char **)overrides.v;

	if (argc - file != 1)
		die("run: needs exactly one experiment file");
	if ((topology || pmu) && !plan_only)
		die("run: --%s describes a machine for --plan only", topology ? "topology" : "pmu");
	if (plan_only)
		rc = exp_run_plan(argv[file], set, overrides.n, topology, pmu);
	else if (validate_only)
		rc = exp_run_validate(argv[file], set, overrides.n);
	else
		rc = exp_run(argv[file], set, overrides.n, argc + 1, argv - 1, report_finish);
	free(overrides.v);
	return rc;
}
