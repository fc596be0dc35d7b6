// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab: a perf-analysis lab for the memory cgroup hot paths.
 *
 * One binary with perf-style subcommands: each lives in lab/cmd/<name>.c as
 * cmd_<name>(argc, argv), listed once in lab/cmd/cmds.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include "cmd/builtin.h"
#include "cmd/help.h"
#include "experiment/guest.h"	/* VM_KERNEL_LINES, for vm's summary */
#include "util/cleanup.h"
#include "util/err.h"
#include "util/nearest.h"
#include "util/options.h"
#include "util/outfile.h"
#include "util/results.h"	/* lab_root_dir: where doc/ is */
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

static bool is_command(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return true;
	return false;
}

/* The pages of doc/ that are no command's: help TOPIC. */
static void print_topics(FILE *f)
{
	char **pages = help_pages(), line[512] = "(help TOPIC: ";
	bool any = false;

	for (char **p = pages; *p; p++) {
		if (!is_command(*p)) {
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", any ? ", " : "", *p);
			any = true;
		}
		free(*p);
	}
	free(pages);
	if (!any)
		return;
	snprintf(line + strlen(line), sizeof(line) - strlen(line), ")");
	fprintf(f, "%13s", "");
	options_print_wrapped(f, line, 13, 13);
	fputc('\n', f);
}

/*
 * help NAME: its manual page (cmd/help.h); a command whose page is not
 * there (doc/ missing beside the binary): its --help.  Any other name: one
 * line with the nearest names, exit 2.
 */
static int help_of(const char *name)
{
	char **pages, near[256];
	const char **names;
	size_t n = 0, np = 0;

	if (help_page(name) == 0)
		return 0;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(cmds[i].name, name)) {
			char *hargv[] = { (char *)name, "--help", NULL };

			note("help: no manual page %s/doc/memcg-lab-%s.txt: its --help instead", lab_root_dir(),
			     name);
			return cmds[i].fn(2, hargv);
		}
	}
	pages = help_pages();
	while (pages[np])
		np++;
	names = xcalloc(sizeof(cmds) / sizeof(cmds[0]) + np + 1, sizeof(*names));
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		names[n++] = cmds[i].name;
	for (size_t i = 0; i < np; i++)
		if (!is_command(pages[i]))
			names[n++] = pages[i];
	if (nearest_of(name, names, near, sizeof(near)) == 0)
		die("help: unknown command or topic '%s' (nearest: %s)", name, near);
	die("help: unknown command or topic '%s' (see 'memcg-lab help')", name);
}

static void print_help(FILE *f)
{
	fprintf(f, "usage: memcg-lab <command> [options]   (memcg-lab <command> --help for each)\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		fprintf(f, "  %-10s ", cmds[i].name);
		options_print_wrapped(f, cmds[i].summary, 13, 13);
		fputc('\n', f);
	}
	fprintf(f, "  %-10s %s\n", "help", "this list; help COMMAND: that command's manual page");
	print_topics(f);
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
		if (argc > 2 && strcmp(argv[2], "help") && strcmp(argv[2], "--help") && strcmp(argv[2], "-h"))
			return help_of(argv[2]);	/* `memcg-lab help probe`: its page */
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
