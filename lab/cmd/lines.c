// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab lines: the lines plugin's access trace (vm --lines --trace)
 * replayed against layouts that were never run.
 *
 *   lines predict TRACE --layout ...   another layout's cacheline transfers
 *   lines suggest TRACE --struct S     a field order for S with fewer
 *
 * Each is cmd_lines_<sub>() in cmd/lines_<sub>.c.
 */
#include "cmd/builtin.h"
#include "util/options.h"

static const char lines_usage[] =
	"usage: memcg-lab lines <predict|suggest> TRACE [options]\n"
	"\n"
	"  predict TRACE [--layout BTF|VMLINUX] [--struct S] [--move M=OFF] [--align M=64|128]\n"
	"                [--pad-after M] [--line-size 128]\n"
	"                             the trace's accesses replayed against another layout:\n"
	"                             predicted fields.tsv rows beside the recorded ones\n"
	"  suggest TRACE --struct S [--budget +N]\n"
	"                             a field order and padding for S with the fewest\n"
	"                             predicted false-sharing transfers\n"
	"\n"
	"TRACE: a run of `memcg-lab vm --lines --trace`: RESULTS, RESULTS/lines or\n"
	"RESULTS/lines/trace.bin.  memcg-lab lines <sub> --help for each.\n";

int cmd_lines(int argc, char **argv)
{
	static const struct subcommand subs[] = {
		{ "predict", cmd_lines_predict },
		{ "suggest", cmd_lines_suggest },
		{ NULL, NULL },
	};

	return subcommand_run("lines", lines_usage, subs, argc, argv);
}
