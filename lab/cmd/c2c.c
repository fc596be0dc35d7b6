// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab c2c: perf c2c for the memcg hot paths.
 *
 *   c2c caps                  can this machine sample memory accesses?
 *   c2c parse FILE            perf c2c report --stdio -> stats/cachelines/offsets TSV
 *   c2c report FILE ...       name the struct field behind each hot offset
 *   c2c record ... -- CMD     a steady-state c2c window around a command
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/c2c_report.h"
#include "cmd/builtin.h"
#include "cmd/c2c_sub.h"
#include "util/err.h"
#include "util/outfile.h"

static const char c2c_usage[] =
	"usage: memcg-lab c2c <caps|parse|report|record> [options]\n"
	"\n"
	"  caps                       whether perf c2c can record here (one line; exit 0\n"
	"                             either way, 1 with --require when it cannot)\n"
	"  parse FILE [--out DIR]     parse `perf c2c report --stdio` (any perf version)\n"
	"                             into DIR/stats.tsv, cachelines.tsv, offsets.tsv,\n"
	"                             warnings.tsv (default DIR: the current directory)\n"
	"  report FILE [--struct S --base ADDR]... [--objects TSV] [--btf F|--vmlinux F]\n"
	"                             [--out DIR]: the struct field of every hot offset\n"
	"  record [options] -- CMD    run CMD and record a c2c window in its steady state\n"
	"\n"
	"memcg-lab c2c <sub> --help for each.\n";

static const char parse_usage[] =
	"usage: memcg-lab c2c parse FILE [--out DIR]\n"
	"\n"
	"Parses `perf c2c report --stdio` output of any perf version (4.10 .. 6.x,\n"
	"Intel/AMD/Arm, HITM or Peer display, -N/-NN, -c pid/tid/iaddr/dso,\n"
	"--double-cl) and mail-quoted or cut-off excerpts of it.  Columns are found\n"
	"from the report's own header lines.  Writes, each with a header row:\n"
	"  stats.tsv       section key value unit (every statistics line)\n"
	"  cachelines.tsv  one row per cacheline (Shared Data table + Pareto summary)\n"
	"  offsets.tsv     one row per Pareto offset row\n"
	"  warnings.tsv    line warning (what was guessed or skipped)\n"
	"Cells the report does not have are left empty.  Warnings also go to stderr.\n"
	"\n"
	"  -o, --out DIR   output directory (created; default: .)\n"
	"  -q, --quiet     no warnings on stderr (they stay in warnings.tsv)\n";

int c2c_parse_or_die(const char *path, const char *dir, bool quiet, struct c2c_report *r)
{
	char err[512];

	if (c2c_parse_to_dir(path, dir, r, err, sizeof(err)) < 0)
		outfile_die(err);
	if (!quiet)
		c2c_print_warnings(r);
	return 0;
}

static int c2c_parse_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = ".";
	bool quiet = false;
	struct c2c_report r;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'q': quiet = true; break;
		case 'h': usage_exit(parse_usage, 0);
		default: usage_exit(parse_usage, EXIT_LAB_ERR);
		}
	}
	if (optind != argc - 1)
		usage_exit(parse_usage, EXIT_LAB_ERR);
	c2c_parse_or_die(argv[optind], out, quiet, &r);
	printf("%s: %zu statistics, %zu cachelines, %zu offset rows, %zu warnings -> %s/\n",
	       argv[optind], r.nstats, r.ncls, r.noffs_seen, r.nwarns, out);
	c2c_report_free(&r);
	return 0;
}

int cmd_c2c(int argc, char **argv)
{
	const char *sub;

	if (argc < 2)
		die("c2c: which one: parse, report, caps or record? (see 'memcg-lab c2c --help')");
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help"))
		usage_exit(c2c_usage, 0);
	if (!strcmp(sub, "parse")) {
		usage_context("c2c parse", argc - 1, argv + 1);
		return c2c_parse_cmd(argc - 1, argv + 1);
	}
	if (!strcmp(sub, "report")) {
		usage_context("c2c report", argc - 1, argv + 1);
		return c2c_report_cmd(argc - 1, argv + 1);
	}
	if (!strcmp(sub, "caps")) {
		usage_context("c2c caps", argc - 1, argv + 1);
		return c2c_caps_cmd(argc - 1, argv + 1);
	}
	if (!strcmp(sub, "record")) {
		usage_context("c2c record", argc - 1, argv + 1);
		return c2c_record_cmd(argc - 1, argv + 1);
	}
	die("c2c: unknown subcommand '%s' (want parse, report, caps or record; see 'memcg-lab c2c --help')", sub);
}
