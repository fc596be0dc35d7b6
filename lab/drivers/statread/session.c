// SPDX-License-Identifier: GPL-2.0
/*
 * One `memcg-lab statread`: the host's cgroup tree and limits, the plan
 * (or only its check, or its description), then the run with the lock
 * collector around its measured phase, the summary and the results
 * directory.  The workload itself is drivers/statread/run.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/report.h"
#include "drivers/statread/lock_statread.h"
#include "drivers/statread/session.h"
#include "drivers/statread/driver.h"
#include "kernel/cgroup.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/owner.h"
#include "util/results.h"

static void detect(struct cg_env *env, const struct statread_cli *cli)
{
	char *text = NULL;

	if (cli->mounts) {
		text = read_text(cli->mounts, NULL);
		if (!text)
			die("--mounts: %s: %s", cli->mounts, strerror(errno));
	}
	if (cg_detect(env, text) < 0)
		die("statread: cannot tell the cgroup hierarchy from %s",
		    cli->mounts ? cli->mounts : "/proc/self/mounts");
	free(text);
}

int statread_session(struct statread_config *cfg, const struct statread_cli *cli, int argc, char **argv)
{
	static struct statread_result res;
	struct statread_plan plan;
	struct statread_host host;
	struct results *r = NULL;
	/* Collectors run around the measured phase: the lock collector
	 * counts memcg:memcg_flush_stats and times the flush lock's holds. */
	struct statread_hook hooks[4];
	struct lock_statread lockc;
	int nhooks = 0, status = 0;
	struct cg_env env;
	char err[512];

	detect(&env, cli);
	statread_host_probe(&host, &env, cfg->file_dir);
	if (!cfg->file_dir && host.file_dir_ok)
		cfg->file_dir = host.file_dir;
	if (statread_plan(&plan, cfg, &env, &host, err, sizeof(err)) < 0)
		die("statread: %s", err);
	if (cli->validate) {
		statread_plan_free(&plan);
		return 0;
	}
	if (cli->dry_run) {
		char owner[96], *root;

		lab_owner_name(owner, sizeof(owner));
		root = xasprintf("%s/%s", env.memory_root, owner);
		if (plan.scaled_note[0])
			printf("note: %s\n", plan.scaled_note);
		if (plan.nallocators && cfg->kind == ALLOC_FILE)
			printf("allocator files: %s\n", host.file_dir_why);
		statread_describe_setup(stdout, &plan, &env, root);
		free(root);
		statread_plan_free(&plan);
		return 0;
	}
	if (geteuid() != 0)
		die("statread: needs root to create cgroups under %s", env.memory_root);
	if (plan.scaled_note[0])
		note("statread: %s", plan.scaled_note);
	/* Under `memcg-lab run` this is the runner's directory. */
	r = results_attach(cli->results, argc, argv);
	results_log(r, "statread: %d cgroups, %d allocators, %d readers; allocator files: %s",
		    plan.ncgs, plan.nallocators, plan.nreaders,
		    plan.nallocators && cfg->kind == ALLOC_FILE ? host.file_dir_why : "none");
	/* vm --lines: a bare run opens its own window, an experiment's runner
	 * opens it otherwise (c2c/around.c). */
	{
		static char label[32];

		snprintf(label, sizeof(label), "readers=%d", plan.nreaders);
		if (!(r && r->attached))
			plan.lines_label = label;
	}
	memset(hooks, 0, sizeof(hooks));
	lock_statread_hook(&hooks[nhooks++], &lockc);
	statread_run(&plan, hooks, nhooks, &res);

	statread_report_text(stdout, &plan, &res);
	if (!lock_statread_finish(&lockc, &res, r, stdout)) {
		char why[600];

		snprintf(why, sizeof(why), "the lock collector did not start: %s",
			 lockc.err[0] ? lockc.err : "see its warning");
		if (r)
			results_skip(r, "kernel flush counts (memcg:memcg_flush_stats)", why);
		else
			printf("kernel flushes: not counted (%s)\n", why);
	}
	if (res.oom_killed || res.died_other || res.first_errno || !statread_measured_reads(&res))
		status = 1;
	if (res.interrupted)
		status = 128 + (lab_stop_signal() ? lab_stop_signal() : SIGINT);
	if (r) {
		statread_report_results(r, &plan, &res);
		report_finish(r, res.interrupted ? "interrupted" : status ? "failed" : "complete");
		printf("results: %s\n", r->dir);
		results_free(r);
	}
	statread_result_free(&res);
	statread_plan_free(&plan);
	return status;
}
