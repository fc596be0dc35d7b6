// SPDX-License-Identifier: GPL-2.0
/* memcg-lab lines suggest TRACE --struct S: a member order for S with the fewest predicted false-sharing transfers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_suggest.h"
#include "cmd/builtin.h"
#include "plot/plot.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/options.h"
#include "util/run.h"
#include "util/tsv.h"

#define SUGGESTED_FILE "suggested-fields.tsv"

static const struct options_cmd suggest_cmd = {
	.name = "lines suggest",
	.usage =
	"usage: memcg-lab lines suggest TRACE --struct S [--budget +N] [--line-size 64|128]\n"
	"\n"
	"TRACE is a run of `memcg-lab vm --lines --trace` (as lines predict takes it).\n"
	"suggest proposes a member order and padding for struct S (a traced struct or\n"
	"one inside them: page_counter in mem_cgroup) with the fewest false-sharing\n"
	"transfers predicted by replaying the trace: the members grouped by the vCPUs\n"
	"that write them (as Huron does for user space), the read-only ones apart, the\n"
	"untouched ones filling the lines, and other candidates; each is replayed and\n"
	"the best kept, within --budget lines more than the kernel's layout of S.  It\n"
	"prints the members' writers and readers, every layout tried, the proposal as\n"
	"a diff of the C definition, and the predicted counts per field of the kernel's\n"
	"layout and of the proposal; writes the proposal's rows as OUT/" SUGGESTED_FILE "\n"
	"and draws its coloured cacheline map.  Exit 2 with one line: a trace of another\n"
	"format or cut off, no struct S in the run's kernel or objects, a budget S\n"
	"cannot meet.\n"
	"\n",
};

static void budget_opt(const struct lab_option *opt, const char *arg)
{
	struct ls_opts *o = opt->value;
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!arg[0] || *end || errno || v < -1000 || v > 1000)
		option_bad(opt, arg, "want +N or -N lines (from -1000 to +1000)");
	o->budget = (int)v;
	o->budget_set = true;
}

int cmd_lines_suggest(int argc, char **argv)
{
	struct ls_opts o = { 0 };
	const char *out = NULL;
	int line = 64, evals = 200;
	bool no_map = false, quiet = false;
	const struct lab_option opts[] = {
		OPT_STRING(0, "struct", &o.st, "S", NULL, "the struct to lay out (required)"),
		OPT_CALLBACK(0, "budget", &o, "+N", "none", "at most N lines more than the kernel's layout of S",
			     budget_opt),
		OPT_INT(0, "line-size", &line, "N", "64", "64, or 128: groups start 128-byte pairs, replayed at 128",
			64, 128),
		OPT_INT(0, "evals", &evals, "N", "200", "replays at most, for the merges over a budget", 1,
			100000),
		OPT_STRING('o', "out", &out, "DIR", "the run's lines directory", "where " SUGGESTED_FILE
			   " and plots/ go"),
		OPT_FLAG(0, "no-map", &no_map, "no cacheline map (no gnuplot run)"),
		OPT_FLAG('q', "quiet", &quiet, "no plot: lines"),
		OPT_END(),
	};
	int i = options_parse(&suggest_cmd, opts, argc, argv);
	char err[1024];
	struct lp_run r;
	struct ls_result res;

	if (i != argc - 1)
		options_usage_error();
	if (!o.st)
		die("lines suggest: --struct S is required (the struct to lay out)");
	if (line != 64 && line != 128)
		die("lines suggest: --line-size %d: want 64 or 128", line);
	o.line = (unsigned)line;
	o.max_evals = (unsigned)evals;
	if (lp_run_load(&r, argv[i], FIELD_CG_UNKNOWN, err, sizeof(err)) < 0)
		die("lines suggest: %s", err);
	if (lines_suggest(&r, &o, &res, err, sizeof(err)) < 0)
		die("lines suggest: %s", err);
	lines_suggest_print(stdout, &r, &o, &res);
	if (res.best) {
		char *path, *c_trace, *c_layout, *c_line;

		if (!out)
			out = r.lines_dir;
		if (mkdir_p(out, 0755) < 0)
			die("lines suggest: %s: cannot create: %s", out, strerror(errno));
		path = xasprintf("%s/" SUGGESTED_FILE, out);
		c_trace = tsv_asprintf("# trace\t%s", r.trace_path);
		c_layout = tsv_asprintf("# layout\tstruct %s proposed by lines suggest (%s)", o.st,
					 res.c[res.best].name);
		c_line = xasprintf("# line_size\t%u", o.line);
		{
			const char *comments[] = { "# memcg-lab suggested-fields 1", c_trace, c_layout, c_line, NULL };

			if (lp_write_fields(res.types_best, res.ntypes, &res.rep_best, false, path, comments, err,
					    sizeof(err)) < 0)
				die("lines suggest: %s", err);
		}
		printf("\nproposal's rows: %s\n", path);
		if (!no_map && !program_on_path("gnuplot")) {
			printf("no map: gnuplot is not on PATH (Debian package gnuplot-nox)\n");
		} else if (!no_map) {
			char *dir = xasprintf("%s/plots", out);

			if (mkdir_p(dir, 0755) < 0)
				die("lines suggest: %s: cannot create: %s", dir, strerror(errno));
			for (size_t t = 0; t < res.ntypes; t++) {
				char *name = xasprintf("suggested-linesmap-%s", res.types_best[t].st);
				char *title = xasprintf("struct %s with %s as proposed: predicted transfers per field",
							res.types_best[t].st, o.st);

				if (plot_lines_file_map(path, res.types_best[t].st, line, name, title, dir, quiet, stdout, err,
							sizeof(err)) < 0)
					die("lines suggest: %s", err);
				free(name);
				free(title);
			}
			free(dir);
		}
		free(path);
		free(c_trace);
		free(c_layout);
		free(c_line);
	}
	lines_suggest_free(&res);
	lp_run_free(&r);
	return 0;
}
