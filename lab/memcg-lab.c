// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab: a perf-analysis lab for the memory cgroup hot paths.
 *
 * One binary with perf-style subcommands: each lives in lab/cmd/<name>.c as
 * cmd_<name>(argc, argv), listed once in lab/cmd/cmds.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include "cmd/builtin.h"
#include "experiment/guest.h"	/* VM_KERNEL_LINES, for vm's summary */
#include "util/cleanup.h"
#include "util/err.h"
#include "util/options.h"
#include "util/outfile.h"
#include "util/usage.h"
/* LAB_VERSION: git describe of the tree it was built from (the Makefile
 * writes build/version.h, rewritten only when it changes). */
#include "version.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd cmds[] = {
#define CMD(name, summary) { #name, cmd_##name, summary },
#include "cmd/cmds.h"
#undef CMD
};

static void print_help(FILE *f)
{
	fprintf(f, "usage: memcg-lab <command> [options]   (memcg-lab <command> --help for each)\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		fprintf(f, "  %-10s ", cmds[i].name);
		options_print_wrapped(f, cmds[i].summary, 13, 13);
		fputc('\n', f);
	}
	fprintf(f, "  %-10s %s\n", "help", "this list (help COMMAND: that command's --help)");
	fprintf(f, "\n--version (or version) prints the lab's version: git describe of the tree it was built from.\n");
	fprintf(f, "Exit status: 0 success, 1 a check failed (e.g. a layout rule), 2 an error.\n");
}

int main(int argc, char **argv)
{
	const char *name;
	int rc;

	if (argc < 2) {
		print_help(stderr);
		return EXIT_LAB_ERR;
	}
	name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("memcg-lab %s\n", LAB_VERSION);
		return 0;
	}
	if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
		/* `help --help` is help too. */
		if (argc > 2 && strcmp(argv[2], "help") && strcmp(argv[2], "--help") && strcmp(argv[2], "-h")) {
			/* `memcg-lab help probe` == `memcg-lab probe --help` */
			char *hargv[] = { argv[2], "--help", NULL };

			for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
				if (!strcmp(cmds[i].name, argv[2]))
					return cmds[i].fn(2, hargv);
			die("help: unknown command '%s'", argv[2]);
		}
		print_help(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(cmds[i].name, name)) {
			cleanup_init();
			usage_context(cmds[i].name, argc - 1, argv + 1);
			opterr = 0;
			rc = cmds[i].fn(argc - 1, argv + 1);
			/* A file left unclosed is flushed here, still checked; a
			 * command whose output was not written in full failed. */
			fflush(NULL);
			return outfile_failed() ? EXIT_LAB_ERR : rc;
		}
	}
	die("unknown command '%s' (see 'memcg-lab help')", name);
}
