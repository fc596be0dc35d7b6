// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab lock: lock wait and hold times.
 *
 *   lock record   run the tracefs tracer (and perf lock record) around a
 *                 command or for a while, write a results directory
 *   lock report   read a perf.data (as perf lock contention would) or a
 *                 captured perf lock contention output
 *
 * Each is cmd_lock_<sub>() in cmd/lock_<sub>.c.
 */
#include "cmd/builtin.h"
#include "util/options.h"

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

int cmd_lock(int argc, char **argv)
{
	/* In the order the one-line errors list them. */
	static const struct subcommand subs[] = {
		{ "record", cmd_lock_record },
		{ "report", cmd_lock_report },
		{ NULL, NULL },
	};

	return subcommand_run("lock", lock_usage, subs, argc, argv);
}
