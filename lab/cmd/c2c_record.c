// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c record: a steady-state c2c window around a command. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd/builtin.h"
#include "cmd/c2c_sub.h"
#include "collect/c2c.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/outfile.h"
#include "util/results.h"

static const char record_usage[] =
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
	"\n"
	"  --duration S      how long CMD runs (sets the window)\n"
	"  --start-frac F    window start as a fraction of S (default 0.75)\n"
	"  --start S         window start in seconds after CMD starts\n"
	"  --window S        window length (default 3-5 s, fitted to S)\n"
	"  --ldlat N         minimum load latency (default: perf's, 50/70 on > 148/256 CPUs)\n"
	"  --freq N          sampling frequency (perf record -F, default 60000)\n"
	"  --user            user-space samples too (default: kernel only)\n"
	"  --no-double-cl    no --double-cl report\n"
	"  --memcg DIR       a memory cgroup directory whose struct mem_cgroup to name (repeatable)\n"
	"  -o, --out DIR     output directory (default: results/<date>-c2c/data)\n";

static void print_note(const char *line, void *arg)
{
	(void)arg;
	note("%s", line);
}

int c2c_record_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "start-frac", required_argument, NULL, 'f' },
		{ "start", required_argument, NULL, 's' },
		{ "window", required_argument, NULL, 'w' },
		{ "ldlat", required_argument, NULL, 'l' },
		{ "freq", required_argument, NULL, 'F' },
		{ "user", no_argument, NULL, 'u' },
		{ "no-double-cl", no_argument, NULL, 'D' },
		{ "memcg", required_argument, NULL, 'm' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char **memcgs = xcalloc(argc, sizeof(*memcgs));
	struct c2c_objects objs = { 0 };
	struct c2c_collector *col;
	struct c2c_caps caps;
	struct results *res = NULL;
	struct c2c_opts o;
	struct kbtf k = { 0 };
	double duration = 0;
	const char *out = NULL;
	char why[700], err[512];
	int c, nmemcg = 0, st = 0;
	bool have_btf;
	pid_t pid;

	c2c_opts_default(&o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': duration = atof(optarg); break;
		case 'f': o.start_frac = atof(optarg); break;
		case 's': o.start_s = atof(optarg); break;
		case 'w': o.window_s = atof(optarg); break;
		case 'l': o.ldlat = atoi(optarg); break;
		case 'F': o.freq = atoi(optarg); break;
		case 'u': o.user = true; break;
		case 'D': o.double_cl = false; break;
		case 'm': memcgs[nmemcg++] = optarg; break;
		case 'o': out = optarg; break;
		case 'h': usage_exit(record_usage, 0);
		default: usage_exit(record_usage, EXIT_LAB_ERR);
		}
	}
	if (optind >= argc)
		usage_exit(record_usage, EXIT_LAB_ERR);
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
		c2c_find_objects(&objs, &k, memcgs, nmemcg, print_note, NULL);
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
				argv[optind], strerror(-e));
			_exit(EXIT_LAB_ERR);
		}
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "memcg-lab: c2c record: cannot run %s: %s\n", argv[optind], strerror(errno));
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
	free(memcgs);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
