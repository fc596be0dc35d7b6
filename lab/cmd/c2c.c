// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab c2c: perf c2c for the memcg hot paths.
 *
 *   c2c caps                  can this machine sample memory accesses?
 *   c2c parse FILE            perf c2c report --stdio -> stats/cachelines/offsets TSV
 *   c2c report FILE ...       name the struct field behind each hot offset
 *   c2c record ... -- CMD     a steady-state c2c window around a command
 *   c2c lines DIR             a vm --lines run as fields, perf.data, c2c.txt
 *   c2c losses PERF.DATA      what a recording lost or throttled
 *   c2c window -- CMD         the lines plugin's window open around CMD (in a guest)
 *   c2c trace TRACE           the lines plugin's access trace, summed up or dumped
 *
 * Each is cmd_c2c_<sub>() in cmd/c2c_<sub>.c.
 */
#include "cmd/builtin.h"
#include "util/options.h"

static const char c2c_usage[] =
	"usage: memcg-lab c2c <caps|parse|report|record|lines|losses|window|trace> [options]\n"
	"\n"
	"  caps                       whether perf c2c can record here (one line; exit 0\n"
	"                             either way, 1 with --require when it cannot)\n"
	"  parse FILE [--out DIR]     parse `perf c2c report --stdio` (any perf version)\n"
	"                             into DIR/stats.tsv, cachelines.tsv, offsets.tsv,\n"
	"                             warnings.tsv (default DIR: the current directory)\n"
	"  report FILE [--struct S --base ADDR]... [--objects TSV] [--btf F|--vmlinux F]\n"
	"                             [--out DIR]: the struct field of every hot offset\n"
	"  record [options] -- CMD    run CMD and record a c2c window in its steady state\n"
	"  lines DIR                  a vm --lines run as fields.tsv, perf.data and the real\n"
	"                             perf c2c report (vm runs it itself)\n"
	"  losses PERF.DATA [--tsv]   samples, lost records (LOST, LOST_SAMPLES), throttling\n"
	"                             and lost AUX data of a recording: one line, or TSV\n"
	"  window -- CMD              the lines plugin's window open around CMD, in a guest\n"
	"                             of vm --lines (vm --lines-window command uses it)\n"
	"  trace TRACE [--objects DIR] [--dump N]\n"
	"                             the lines plugin's access trace (vm --lines --trace):\n"
	"                             per window and object type, or its first N records\n"
	"\n"
	"memcg-lab c2c <sub> --help for each.\n";

int cmd_c2c(int argc, char **argv)
{
	/* In the order the one-line errors list them. */
	static const struct subcommand subs[] = {
		{ "parse", cmd_c2c_parse },
		{ "report", cmd_c2c_report },
		{ "caps", cmd_c2c_caps },
		{ "record", cmd_c2c_record },
		{ "lines", cmd_c2c_lines },
		{ "losses", cmd_c2c_losses },
		{ "window", cmd_c2c_window },
		{ "trace", cmd_c2c_trace },
		{ NULL, NULL },
	};

	return subcommand_run("c2c", c2c_usage, subs, argc, argv);
}
