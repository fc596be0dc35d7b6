// SPDX-License-Identifier: GPL-2.0
/* memcg-lab lock record: the options; the recording is lock/lock_record.c. */
#include <stdlib.h>
#include "cmd/builtin.h"
#include "lock/lock_collector.h"
#include "lock/lock_record.h"
#include "util/err.h"
#include "util/options.h"

static const struct options_cmd record_cmd = {
	.name = "lock record",
	.usage =
	"usage: memcg-lab lock record [options] [-- COMMAND [ARG...]]\n"
	"\n"
	"Traces lock waits and holds while COMMAND runs (or for --duration seconds;\n"
	"Ctrl-C ends the window early) and writes results/<date>-<name>/ with\n"
	"data/lock-locks.tsv (per lock: waits, holds, method), lock-rstat.tsv (the\n"
	"rstat flush lock per root and level), lock-hold.tsv (the hold-time target),\n"
	"lock-flush.tsv (memcg_flush_stats counts) and hist-lock-{wait,hold}.*.tsv (histograms).\n"
	"\n",
	.stop_at_arg = true,	/* COMMAND's own options are its */
};

static void buffer_kb_opt(const struct lab_option *opt, const char *arg)
{
	*(size_t *)opt->value = (size_t)option_int(opt, arg, 1, 1 << 30);
}

int cmd_lock_record(int argc, char **argv)
{
	struct lock_collector_opts co = { .caller_stacks = -1 };
	const char *name = "lock", *base = NULL;
	double duration = 10;
	const struct lab_option opts[] = {
		OPT_SECONDS('d', "duration", &duration, "SEC", "10", "window length without COMMAND", 86400),
		OPT_STRING('n', "name", &name, "NAME", "lock", "results directory name"),
		OPT_STRING(0, "results", &base, "DIR", "results/", "base directory for results"),
		OPT_STRING(0, "hold", &co.hold, "SYMBOL", NULL, "lock whose hold time to measure (default: the "
			   "user-flush mutex where the kernel has it, else the rstat flush lock)"),
		OPT_FLAG(0, "perf", &co.perf, "also perf lock over the window (kept in data/): BPF mode ('perf lock "
			 "contention -a -b') where perf was built with BPF skeletons, else 'perf lock record -a' and "
			 "'perf lock contention' on it; the output says which mode ran"),
		OPT_FLAG(0, "no-tracer", &co.no_tracer, "only the hold method and perf"),
		OPT_CALLBACK(0, "buffer-kb", &co.buffer_kb, "N", "sized from memory", "tracefs ring buffer per CPU",
			     buffer_kb_opt),
		OPT_INT(0, "stacks", &co.caller_stacks, "N", "256", "kernel stacks to take to name locks by caller "
			"(0: none)", 0, 1 << 20),
		OPT_STRING(0, "tracefs", &co.tracefs_dir, "DIR", NULL, "tracefs mount (default: the mounted one; as "
			   "root the lab mounts it at /sys/kernel/tracing for the run if none is)"),
		OPT_END(),
	};
	int cmd = options_parse(&record_cmd, opts, argc, argv);

	return lock_record(&co, name, base, duration, argc, argv, cmd);
}
