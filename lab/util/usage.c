// SPDX-License-Identifier: GPL-2.0
/* The one-line option errors every subcommand prints (util/usage.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "util/err.h"
#include "util/usage.h"

/* The running subcommand. */
static const char *cmd_name;
static char **cmd_argv;
static int cmd_argc;

void usage_context(const char *name, int argc, char **argv)
{
	cmd_name = name;
	cmd_argc = argc;
	cmd_argv = argv;
}

const char *usage_command(void)
{
	return cmd_name ? cmd_name : "memcg-lab";
}

void usage_exit(const char *text, int status)
{
	if (status == 0) {
		fputs(text, stdout);
	} else {
		/* getopt is silenced (opterr = 0): say which argument, in one line. */
		const char *bad = optind > 0 && optind <= cmd_argc && cmd_argv ? cmd_argv[optind - 1] : NULL;

		fflush(stdout);
		if (bad && optopt && bad[0] == '-' && bad[1] != '-')
			fprintf(stderr, "%s: %s: bad option or missing value: '-%c' (see 'memcg-lab %s --help')\n",
				lab_progname, cmd_name, optopt, cmd_name);
		else if (bad)
			fprintf(stderr, "%s: %s: bad option or missing value: '%s' (see 'memcg-lab %s --help')\n",
				lab_progname, cmd_name, bad, cmd_name);
		else
			fprintf(stderr, "%s: %s: bad arguments (see 'memcg-lab %s --help')\n", lab_progname,
				cmd_name ? cmd_name : "?", cmd_name ? cmd_name : "help");
	}
	exit(status);
}
