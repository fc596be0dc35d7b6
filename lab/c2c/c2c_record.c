// SPDX-License-Identifier: GPL-2.0
/*
 * `memcg-lab c2c record`: one steady-state perf c2c window (c2c/c2c.h)
 * around a command, with the fields of the objects it touches named.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "c2c/c2c.h"
#include "c2c/c2c_record.h"
#include "kernel/btf.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/humanize.h"
#include "util/outfile.h"
#include "util/results.h"

static void print_note(const char *line, void *arg)
{
	(void)arg;
	note("%s", line);
}

int c2c_record_command(const struct c2c_opts *o, double duration, const char *out, const char *const *memcgs,
		       int nmemcgs, int argc, char **argv, int cmd)
{
	struct c2c_objects objs = { 0 };
	struct c2c_collector *col;
	struct c2c_caps caps;
	struct results *res = NULL;
	struct kbtf k = { 0 };
	char why[700], err[512];
	int st = 0;
	bool have_btf, bound = false;
	pid_t pid;

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
		c2c_find_objects(&objs, &k, memcgs, nmemcgs, print_note, NULL);
	if (caps.supported && res) {
		FILE *f = results_open_data(res, "c2c-objects.tsv");

		c2c_objects_write_tsv(&objs, f);
		outfile_close(f);
	}

	for (int i = 0; caps.supported && i < caps.nlimits; i++)
		note("c2c: NOTE: %s", caps.limits[i]);
	col = caps.supported ? c2c_collector_start(&caps, o, duration, out, &bound, why, sizeof(why)) : NULL;
	if (!col && bound)
		note("%s", why);
	else if (!col)
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
	cleanup_forward_to(pid, SIGTERM);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	cleanup_forward_to(0, 0);
	if (col) {
		char *p = xasprintf("%s/windows.tsv", out);
		FILE *f;
		int fin = c2c_collector_finish(col, have_btf ? &k : NULL, &objs);

		if (fin < 0 || col->bound_failed)
			note("c2c: %s", col->status);
		else
			printf("%s\nattribution: %s/c2c/attribution.txt\n", col->status, out);
		if (res)
			results_log(res, "c2c: %s", col->status);
		bound |= col->bound_failed;
		f = outfile_open(p, "w");
		c2c_windows_header(f);
		c2c_windows_row(col, "window", f);
		outfile_close(f);
		free(p);
	}
	if (res) {
		/* A bound (disk, size cap, report time) cost the window its
		 * data: the results are not complete. */
		results_finish(res, bound ? "incomplete" : col && col->recorded ? "complete" : "complete (no c2c data)");
		results_free(res);
	}
	c2c_collector_free(col);
	c2c_objects_free(&objs);
	if (have_btf)
		kbtf_close(&k);
	if (bound)
		return EXIT_LAB_ERR;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

int c2c_record_dry_run(const struct c2c_opts *o, const struct c2c_pmu *pmu, double duration)
{
	struct c2c_caps caps;
	struct c2c_window w;
	struct c2c_opts oo = *o;
	char why[400], line[1024], b[32], total[32], cap[32];
	char **argv;
	double len;

	if (pmu) {
		struct c2c_caps here;

		c2c_caps_detect(&here);
		c2c_caps_for_pmu(&caps, pmu, here.perf_version);
	} else {
		c2c_caps_detect(&caps);
		if (!caps.pmu)
			die("c2c record --dry-run: %s; give --pmu for another box", caps.line);
	}
	if (!oo.ncpus)
		oo.ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	len = o->window_s > 0 ? o->window_s : 4;
	if (duration > 0 && c2c_plan_window(&oo, duration, &w) == 0)
		len = w.len_s;
	argv = c2c_record_argv(&caps, &oo, len, "perf.c2c.data", oo.max_size, why, sizeof(why));
	if (!argv)
		die("c2c record --dry-run: %s", why);
	c2c_argv_line(argv, line, sizeof(line));
	puts(line);
	{
		struct c2c_rate r;

		c2c_pick_rate(&caps, &oo, &r);
		printf("pmu: %s (%s), %d CPUs\nrate: %s\ndata: at most %s/s, %s in a %.1f s window (capped at %s)\n",
		       caps.pmu->name, caps.method, oo.ncpus, r.why, format_bytes(b, sizeof(b), (uint64_t)r.bytes_s),
		       format_bytes(total, sizeof(total), (uint64_t)(r.bytes_s * len)), len,
		       format_bytes(cap, sizeof(cap), oo.max_size));
	}
	for (int i = 0; i < caps.nlimits; i++)
		printf("NOTE: %s\n", caps.limits[i]);
	c2c_argv_free(argv);
	return 0;
}
