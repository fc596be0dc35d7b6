// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab statread: how long a memory.stat read takes at each level of a
 * cgroup tree while allocators keep its leaves in reclaim.  The workload is
 * lab/drivers/statread/, the command around it drivers/statread/session.c;
 * this file is the options.
 */
#include <stdio.h>
#include <stdlib.h>
#include "cmd/builtin.h"
#include "drivers/statread/session.h"
#include "drivers/statread/driver.h"
#include "util/options.h"

static void parse_options(int argc, char **argv, struct statread_config *c, struct statread_cli *cli)
{
	int r = statread_parse_options(argc, argv, c, cli);

	if (r > 0) {
		statread_print_help(stdout);
		exit(0);
	}
	if (r < 0)
		options_usage_error();
}

int cmd_statread(int argc, char **argv)
{
	struct statread_config cfg;
	struct statread_cli cli = { 0 };

	statread_config_defaults(&cfg);
	parse_options(argc, argv, &cfg, &cli);
	/* From the program's name on: the command line meta.json records. */
	return statread_session(&cfg, &cli, argc + 1, argv - 1);
}
