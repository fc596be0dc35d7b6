// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab lock: lock wait and hold times.
 *
 *   lock record   run the tracefs tracer (and perf lock record) around a
 *                 command or for a while, write a results directory
 *   lock report   read a perf.data (as perf lock contention would) or a
 *                 captured perf lock contention output
 */
#include <getopt.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/lockcon.h"
#include "analyze/lockcon_out.h"
#include "analyze/lockcon_perfdata.h"
#include "analyze/lockcon_text.h"
#include "analyze/perf_symbols.h"
#include "cmd/builtin.h"
#include "cmd/lock.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"

static const char lock_usage[] =
	"usage: memcg-lab lock record [options] [-- COMMAND...]\n"
	"       memcg-lab lock report -i perf.data [--by thread|caller|lock] [--tsv]\n"
	"       memcg-lab lock report --perf-text FILE [--tsv]\n"
	"\n"
	"Lock wait and hold times: a tracefs tracer (lock:contention_*, the cgroup\n"
	"rstat lock tracepoints, memcg:memcg_flush_stats), hold times of a named lock\n"
	"by the best method the kernel allows, and perf lock alongside.\n"
	"\n"
	"  record   see 'memcg-lab lock record --help'\n"
	"  report   see 'memcg-lab lock report --help'\n";

static const char report_usage[] =
	"usage: memcg-lab lock report -i perf.data [--by thread|caller|lock] [--tsv] [--kallsyms FILE]\n"
	"       memcg-lab lock report --perf-text FILE [--tsv]\n"
	"\n"
	"Reads a perf.data recorded by 'perf lock record' (tracepoint mode) directly:\n"
	"the header, attributes, event formats and raw tracepoint payloads, with the\n"
	"semantics of 'perf lock contention -i' (same counts and total waits per thread\n"
	"and per call chain).  --perf-text parses a captured 'perf lock contention'\n"
	"output (text of any perf version, or CSV of -x) into the lab's table.\n"
	"\n"
	"  -i, --input FILE      perf.data to read\n"
	"      --by VIEW         thread (perf -t), caller (default, perf's view), lock\n"
	"      --tsv             TSV with a header row instead of perf's layout\n"
	"      --kallsyms FILE   kernel symbols of the recording machine (default /proc/kallsyms)\n"
	"      --max-stack N     frames of each call chain used, as perf's --max-stack (default 8)\n"
	"      --stack-skip N    leading frames skipped to find the caller, as perf's\n"
	"                        --stack-skip (default: that of the perf that recorded\n"
	"                        the file, from its header: 3 before perf 6.2, then 4)\n"
	"      --perf-text FILE  parse a perf lock contention output instead\n"
	"  -o, --output FILE     write there instead of stdout\n";

static const char *comm_of(void *arg, uint32_t tid, char *buf, size_t n)
{
	return lockcon_comm(arg, tid, buf, n);
}

static void warn_foreign(const struct lockcon_file *f, const char *kallsyms)
{
	char release[256] = "";

	if (kallsyms || !f->pf.osrelease)
		return;
	if (read_buf("/proc/sys/kernel/osrelease", release, sizeof(release)) > 0) {
		release[strcspn(release, "\n")] = '\0';
		if (strcmp(release, f->pf.osrelease))
			warnx_lab("%s was recorded on kernel %s, this is %s: caller names come from this "
				  "kernel's /proc/kallsyms (pass --kallsyms of the recording machine)",
				  f->pf.path, f->pf.osrelease, release);
	}
}

static int report_perf_text(const char *path, bool tsv, FILE *out)
{
	char err[512], *text = read_text(path, NULL);
	struct lct_table *t;
	size_t nt;

	if (!text)
		die("%s: cannot read", path);
	if (lct_parse(text, path, &t, &nt, err, sizeof(err)))
		die("%s", err);
	for (size_t k = 0; k < nt; k++) {
		fprintf(out, "# table %zu (line %d): %s view, %zu rows%s\n", k + 1, t[k].header_line,
			lct_view_name(t[k].view), t[k].n - t[k].nowners, t[k].csv ? ", CSV" : "");
		if (t[k].nowners)
			fprintf(out, "# and %zu lock owner rows (owner section, line %d), role owner\n",
				t[k].nowners, t[k].owner_line);
		if (tsv) {
			lct_write_tsv(out, &t[k]);
			continue;
		}
		for (size_t i = 0; i < t[k].n; i++) {
			const struct lct_row *r = &t[k].rows[i];
			const char *key = t[k].view == LCT_CALLER ? r->caller : t[k].view == LCT_TASK ? r->comm :
					  t[k].view == LCT_ADDR ? r->symbol : r->cgroup;

			fprintf(out, "%10" PRIu64 " %14" PRIu64 " ns  %s%s\n", r->v[LCT_CONTENDED],
				r->v[LCT_WAIT_TOTAL], key, r->owner ? "  (owner)" : "");
		}
	}
	lct_free(t, nt);
	free(text);
	return 0;
}

struct syms_load {
	struct psyms *syms;
	const char *path;
	bool failed;
	char err[512];
};

static void *load_syms(void *arg)
{
	struct syms_load *l = arg;

	l->failed = psyms_load(l->syms, l->path, l->err, sizeof(l->err)) != 0;
	return NULL;
}

static int cmd_lock_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "by", required_argument, NULL, 'b' },
		{ "tsv", no_argument, NULL, 't' },
		{ "kallsyms", required_argument, NULL, 'k' },
		{ "perf-text", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "max-stack", required_argument, NULL, 'M' },
		{ "stack-skip", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = NULL, *kallsyms = NULL, *perf_text = NULL, *output = NULL;
	enum lockcon_by by = LOCKCON_BY_CALLER;
	struct lockcon_file f;
	struct lockcon lc;
	struct psyms syms;
	char err[1024];
	bool tsv = false;
	FILE *out = stdout;
	int c, max_stack = 8, stack_skip = -1;
	struct syms_load ld;
	bool loaded_inline = false;
	pthread_t loader;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'b':
			if (lockcon_by_parse(optarg) < 0)
				die("lock report: --by %s: expected thread, caller or lock", optarg);
			by = lockcon_by_parse(optarg);
			break;
		case 't': tsv = true; break;
		case 'k': kallsyms = optarg; break;
		case 'p': perf_text = optarg; break;
		case 'o': output = optarg; break;
		case 'M':
			max_stack = strtol(optarg, &end, 10);
			if (end == optarg || *end || max_stack < 1 || max_stack > 64)
				die("lock report: --max-stack %s: expected 1 to 64 frames", optarg);
			break;
		case 'S':
			stack_skip = strtol(optarg, &end, 10);
			if (end == optarg || *end || stack_skip < 0 || stack_skip > 64)
				die("lock report: --stack-skip %s: expected 0 to 64 frames", optarg);
			break;
		case 'h': usage_exit(report_usage, 0);
		default: usage_exit(report_usage, EXIT_LAB_ERR);
		}
	}
	if (optind < argc || (!input && !perf_text))
		usage_exit(report_usage, EXIT_LAB_ERR);
	if (output) {
		out = outfile_open(output, "w");
	}
	if (perf_text)
		return report_perf_text(perf_text, tsv, out);

	/* Reading kallsyms costs the kernel as much as reading a million
	 * events costs us: do it while the file is opened and checked.  The
	 * thread view needs no symbols. */
	memset(&syms, 0, sizeof(syms));
	ld = (struct syms_load){ .syms = &syms, .path = kallsyms };
	if (by != LOCKCON_BY_THREAD && pthread_create(&loader, NULL, load_syms, &ld))
		load_syms(&ld), loaded_inline = true;
	if (lockcon_open_perfdata(&f, input, err, sizeof(err)))
		die("%s", err);
	if (by != LOCKCON_BY_THREAD && !loaded_inline)
		pthread_join(loader, NULL);
	if (ld.failed)
		die("%s", ld.err);
	lockcon_init(&lc, by, by == LOCKCON_BY_THREAD ? NULL : &syms);
	lc.max_stack = max_stack;
	if (stack_skip < 0) {
		/* perf's own default for the file: that of the perf which wrote it. */
		stack_skip = lockcon_stack_skip_of(f.pf.version);
		if (stack_skip < 0) {
			stack_skip = 4;
			if (by != LOCKCON_BY_THREAD)
				warnx_lab("%s: no perf version in its header (HEADER_VERSION): callers found "
					  "with --stack-skip 4, the default since perf 6.2 (pass --stack-skip "
					  "3 for an older perf)", input);
		}
	}
	lc.stack_skip = stack_skip;
	if (lockcon_walk_perfdata(&f, &lc, err, sizeof(err)))
		die("%s", err);
	warn_foreign(&f, kallsyms);
	if (f.pf.stats.lost || f.pf.stats.lost_samples)
		warnx_lab("%s: the kernel dropped %" PRIu64 " samples while recording (PERF_RECORD_LOST): "
			  "waits are undercounted", input, f.pf.stats.lost + f.pf.stats.lost_samples);
	if (lc.user_callers)
		warnx_lab("%s: %" PRIu64 " caller searches reached user-space frames, which the lab does not "
			  "symbolize (perf may name a user function there)", input, lc.user_callers);
	if (tsv)
		lockcon_print_tsv(out, &lc, comm_of, &f);
	else
		lockcon_print_text(out, &lc, comm_of, &f);
	if (out != stdout && outfile_close(out))
		exit(EXIT_LAB_ERR);	/* its one line is printed */
	lockcon_free(&lc);
	lockcon_file_close(&f);
	psyms_free(&syms);
	return 0;
}

int cmd_lock(int argc, char **argv)
{
	if (argc < 2)
		die("lock: which one: record or report? (see 'memcg-lab lock --help')");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		usage_exit(lock_usage, 0);
	if (!strcmp(argv[1], "report")) {
		usage_context("lock report", argc - 1, argv + 1);
		return cmd_lock_report(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "record")) {
		usage_context("lock record", argc - 1, argv + 1);
		return cmd_lock_record(argc - 1, argv + 1);
	}
	die("lock: unknown subcommand '%s' (want record or report; see 'memcg-lab lock --help')", argv[1]);
}
