// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c record: a steady-state c2c window around a command. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd/builtin.h"
#include "collect/c2c.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/options.h"
#include "util/outfile.h"
#include "util/results.h"

static const struct options_cmd record_cmd = {
	.name = "c2c record",
	.usage =
	"usage: memcg-lab c2c record --duration S [options] -- CMD [ARGS...]\n"
	"\n"
	"Runs CMD (the driver, expected to run about S seconds) and records one perf\n"
	"c2c window in its steady state: by default 3-5 s starting at 3/4 of S,\n"
	"system-wide, kernel samples only, ldlat raised above 148 CPUs,\n"
	"perf_event_max_sample_rate raised for the window and restored.  Then writes\n"
	"`perf c2c report --stdio -NN -c pid,tid,iaddr --full-symbols` (and a\n"
	"--double-cl report where perf has it), parses both, and names the struct\n"
	"field of every offset that lies in a known object: the struct mem_cgroup of\n"
	"each --memcg directory and every CPU's memcg_stock/obj_stock.\n"
	"\n",
	.stop_at_arg = true,	/* CMD's own options are its */
};

/* As atof/atoi: the checks that matter follow the parsing. */
static void double_opt(const struct lab_option *opt, const char *arg)
{
	*(double *)opt->value = atof(arg);
}

static void int_opt(const struct lab_option *opt, const char *arg)
{
	*(int *)opt->value = atoi(arg);
}

static void print_note(const char *line, void *arg)
{
	(void)arg;
	note("%s", line);
}

int cmd_c2c_record(int argc, char **argv)
{
	struct option_list memcgs = { 0 };
	double duration = 0;
	const char *out = NULL;
	struct c2c_opts o;
	const struct lab_option opts[] = {
		OPT_CALLBACK(0, "duration", &duration, "S", NULL, "how long CMD runs (sets the window)", double_opt),
		OPT_CALLBACK(0, "start-frac", &o.start_frac, "F", "0.75", "window start as a fraction of S", double_opt),
		OPT_CALLBACK(0, "start", &o.start_s, "S", NULL, "window start in seconds after CMD starts", double_opt),
		OPT_CALLBACK(0, "window", &o.window_s, "S", "3-5 s, fitted to S", "window length", double_opt),
		OPT_CALLBACK(0, "ldlat", &o.ldlat, "N", "perf's, 50/70 on > 148/256 CPUs", "minimum load latency",
			     int_opt),
		OPT_CALLBACK(0, "freq", &o.freq, "N", "60000", "sampling frequency (perf record -F)", int_opt),
		OPT_FLAG(0, "user", &o.user, "user-space samples too (default: kernel only)"),
		OPT_CLEAR(0, "no-double-cl", &o.double_cl, "no --double-cl report"),
		OPT_LIST(0, "memcg", &memcgs, "DIR", "a memory cgroup directory whose struct mem_cgroup to name "
			 "(repeatable)"),
		OPT_STRING('o', "out", &out, "DIR", "results/<date>-c2c/data", "output directory"),
		OPT_END(),
	};
	struct c2c_objects objs = { 0 };
	struct c2c_collector *col;
	struct c2c_caps caps;
	struct results *res = NULL;
	struct kbtf k = { 0 };
	char why[700], err[512];
	int cmd, st = 0;
	bool have_btf;
	pid_t pid;

	c2c_opts_default(&o);
	cmd = options_parse(&record_cmd, opts, argc, argv);
	if (cmd >= argc)
		options_usage_error();
	if (duration <= 0 && o.start_s < 0)
		die("c2c record: give --duration (how long the command runs) or --start");
	if (o.start_frac <= 0 || o.start_frac >= 1)
		die("c2c record: --start-frac %g: expected a fraction between 0 and 1", o.start_frac);
	if (!out) {
		res = results_create("c2c", NULL, argc, argv);
		out = results_path(res, "data");
	}

	c2c_caps_detect(&caps);
	have_btf = kbtf_open(&k, NULL, NULL, err, sizeof(err)) == 0;
	if (!caps.supported)
		col = NULL;	/* one line below says why; the command still runs */
	else if (!have_btf)
		note("no BTF of the running kernel (%s): fields cannot be named", err);
	else
		c2c_find_objects(&objs, &k, memcgs.v, memcgs.n, print_note, NULL);
	if (caps.supported && res) {
		FILE *f = results_open_data(res, "c2c-objects.tsv");

		c2c_objects_write_tsv(&objs, f);
		outfile_close(f);
	}

	col = caps.supported ? c2c_collector_start(&caps, &o, duration, out, why, sizeof(why)) : NULL;
	if (!col)
		puts(caps.supported ? why : caps.line);
	else
		note("%s", col->status);

	cleanup_set_polling(true);
	pid = fork();
	if (pid < 0)
		die("c2c record: fork: %s", strerror(errno));
	if (pid == 0) {
		int e = worker_detach_from_parent(getppid());

		if (e < 0) {
			/* A command that would outlive a killed recorder is not started. */
			fprintf(stderr, "memcg-lab: c2c record: cannot tie %s to the recorder (PR_SET_PDEATHSIG): %s\n",
				argv[cmd], strerror(-e));
			_exit(EXIT_LAB_ERR);
		}
		execvp(argv[cmd], argv + cmd);
		fprintf(stderr, "memcg-lab: c2c record: cannot run %s: %s\n", argv[cmd], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			break;
		if (lab_stop_requested())
			kill(pid, SIGTERM);
	}
	if (col) {
		if (c2c_collector_finish(col, have_btf ? &k : NULL, &objs) < 0)
			note("c2c: %s", col->status);
		else
			printf("%s\nattribution: %s/c2c/attribution.txt\n", col->status, out);
		if (res)
			results_log(res, "c2c: %s", col->status);
	}
	if (res) {
		results_finish(res, col && col->recorded ? "complete" : "complete (no c2c data)");
		results_free(res);
	}
	c2c_collector_free(col);
	c2c_objects_free(&objs);
	if (have_btf)
		kbtf_close(&k);
	free(memcgs.v);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
